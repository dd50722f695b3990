#!/usr/bin/env bash
# bench/tools/pima_time.sh [RELEASES] — wall time of the noise-aware logistic
# posterior on RELEASES (default 4) Pima releases (bench/tools/pima_time.c);
# no server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o bench/tools/pima_time \
	bench/tools/pima_time.c test/sim.c $DPB_CORE_SRCS $DPB_CORE_LIBS
OPENBLAS_NUM_THREADS=1 ./bench/tools/pima_time "$@"
