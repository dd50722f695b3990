#!/usr/bin/env bash
# bench/gibbs_speed.sh — Gibbs-SS iterations per second at d = 2, 5, 10 for
# N = 1e3 and 1e6 (the cost must not depend on N).  Builds bench/gibbs_speed
# against src/core (no server), runs it (ITERS iterations, REPS repetitions,
# median reported) and writes bench/results/gibbs_speed.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
ITERS=${ITERS:-20000}
REPS=${REPS:-5}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/gibbs_speed \
	bench/gibbs_speed.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=bench/results/gibbs_speed.md
{
	echo "# Gibbs-SS speed (noise-aware linear regression)"
	echo
	echo "One chain, $ITERS iterations, median of $REPS runs (wall clock inside the process)."
	echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%d)."
	echo "Command: \`ITERS=$ITERS REPS=$REPS bash bench/gibbs_speed.sh\`"
	echo
	OPENBLAS_NUM_THREADS=1 ./bench/gibbs_speed "$ITERS" "$REPS"
} | tee "$out"
