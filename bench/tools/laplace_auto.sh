#!/usr/bin/env bash
# bench/tools/laplace_auto.sh — builds and runs bench/tools/laplace_auto.c
# (the Laplace linear sampler forms on chosen releases; environment as
# there), one markdown row per noise seed on stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Ibench -o bench/tools/laplace_auto \
	bench/tools/laplace_auto.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
echo "| data | neighbours | d | N | eps | noise seed | seed | form | share | max R-hat | min bulk ESS | min tail ESS | divergences | steps / iteration | wall s | result |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
OPENBLAS_NUM_THREADS=1 nice ./bench/tools/laplace_auto
