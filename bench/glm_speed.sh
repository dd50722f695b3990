#!/usr/bin/env bash
# bench/glm_speed.sh — noise-aware logistic regression (NUTS, exact moments):
# wall time, gradient evaluations per iteration and ESS per second at
# d = 2, 4, 8 (and 12 with MAXD=12), 4 chains x 1000 draws after 1000 warmup,
# N = 1e3 and 1e5, medians over RUNS runs (seeds 7, 8, ...).  No server
# needed; writes bench/results/glm_speed.md (OUT=... for another file).
# MAXD=4 skips d = 8; MIND=12 runs only d >= 12.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
MAXD=${MAXD:-8}
RUNS=${RUNS:-3}
MIND=${MIND:-1}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/glm_speed \
	bench/glm_speed.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=${OUT:-bench/results/glm_speed.md}
{
	echo "# Noise-aware logistic regression speed (NUTS, exact moments)"
	echo
	echo "4 chains x 1000 draws after 1000 warmup, one process, wall clock; the parameters are theta,"
	echo "mu, Sigma (reported: theta and N). Medians over $RUNS runs (seeds 7, 8, ...); max R-hat and"
	echo "the divergences over all runs. Gradients / iteration: log-density evaluations (warmup and"
	echo "heuristics included) per iteration. Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
	echo "SHARED with other jobs (load average at start: $(cut -d' ' -f1 /proc/loadavg)), run under nice: wall times"
	echo "are noisy, gradients / iteration are not. $(date -u +%Y-%m-%d)."
	echo "Command: \`MAXD=$MAXD RUNS=$RUNS MIND=$MIND bash bench/glm_speed.sh\`"
	echo
	OPENBLAS_NUM_THREADS=1 nice ./bench/glm_speed "$MAXD" "$RUNS" "$MIND"
} | tee "$out"
