#!/usr/bin/env bash
# bench/betad_speed.sh — one betaD logistic draw (the mechanism of
# dpbayes.betad_logistic) at N = 1e5, d = 10, 4 chains, against the cost of
# one log-density + gradient evaluation measured in the same process.  No
# server needed; writes bench/results/betad_speed.md.
#   bash bench/betad_speed.sh   (the default schedule, 4 x (200 + 50); WARMUP, ITERS, REPS, N override)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
N=${N:-100000}
REPS=${REPS:-5}
WARMUP=${WARMUP:-200}
ITERS=${ITERS:-50}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/betad_speed \
	bench/betad_speed.c bench/bench_util.c $DPB_CORE_SRCS \
	$DPB_CORE_LIBS
out=bench/results/betad_speed.md
{
	echo "# betaD logistic draw: speed"
	echo
	echo "One draw of dpb_betad_run (NUTS on the betaD posterior, epsilon 1, beta 3), N = $N, d = 10, 4 chains."
	echo "Machine: $(nproc) cores SHARED with several other workers (run with nice); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo "Command: \`N=$N REPS=$REPS WARMUP=$WARMUP ITERS=$ITERS bash bench/betad_speed.sh\`"
	echo
	OPENBLAS_NUM_THREADS=1 nice ./bench/betad_speed "$N" "$REPS" "$WARMUP" "$ITERS"
} | tee "$out"
