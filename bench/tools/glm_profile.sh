#!/usr/bin/env bash
# bench/tools/glm_profile.sh D N [CHAINS [EVALS [SEED]]] — where the time of the
# noise-aware logistic NUTS goes (bench/tools/glm_profile.c); no server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cc -O2 -g -std=gnu99 -Isrc/core -Ibench $(pkg-config --cflags openblas) -o bench/tools/glm_profile \
	bench/tools/glm_profile.c bench/bench_util.c $(ls src/core/*.c) -lgsl -lopenblas -lm
OPENBLAS_NUM_THREADS=1 ./bench/tools/glm_profile "$@"
