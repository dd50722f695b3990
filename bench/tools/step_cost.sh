#!/usr/bin/env bash
# bench/tools/step_cost.sh D linear|logistic|cancel [T] — the cost of one
# sampler step at d = D, or the latency of an interrupt (bench/tools/step_cost.c);
# the numbers behind docs/posterior.md "Limits" and "Cancel".  No server needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -g -std=gnu99 $DPB_CORE_INC -Ibench -o bench/tools/step_cost \
	bench/tools/step_cost.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
OPENBLAS_NUM_THREADS=1 ./bench/tools/step_cost "$@"
