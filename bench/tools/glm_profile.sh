#!/usr/bin/env bash
# bench/tools/glm_profile.sh D N [CHAINS [EVALS [SEED]]] — where the time of the
# noise-aware logistic NUTS goes (bench/tools/glm_profile.c); no server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -g -std=gnu99 $DPB_CORE_INC -Ibench -o bench/tools/glm_profile \
	bench/tools/glm_profile.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
OPENBLAS_NUM_THREADS=1 ./bench/tools/glm_profile "$@"
