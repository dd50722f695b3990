#!/usr/bin/env bash
# bench/tools/pima_time.sh [RELEASES] — wall time of the noise-aware logistic
# posterior on RELEASES (default 4) Pima releases (bench/tools/pima_time.c);
# no server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cc -O2 -std=gnu99 -Isrc/core -Itest $(pkg-config --cflags openblas) -o bench/tools/pima_time \
	bench/tools/pima_time.c test/sim.c $(ls src/core/*.c) -lgsl -lopenblas -lm
OPENBLAS_NUM_THREADS=1 ./bench/tools/pima_time "$@"
