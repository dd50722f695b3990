#!/usr/bin/env bash
# bench/tools/omega_grad.sh D N EPS [laplace|gaussian] [omega|latent|latent_chol] —
# microseconds per log density + gradient of the linear NUTS target on a grid
# release (bench/tools/omega_grad.c); REPS, CALLS as there.  No server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -g -std=gnu99 $DPB_CORE_INC -Ibench -o bench/tools/omega_grad \
	bench/tools/omega_grad.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
OPENBLAS_NUM_THREADS=1 ./bench/tools/omega_grad "$@"
