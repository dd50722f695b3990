#!/usr/bin/env bash
# bench/sbc_linear_d.sh — SBC of the linear NUTS sampler at D features in the
# regime of laplace_noise "auto"'s mixed form (bench/sbc_linear_d.c: d = 10,
# N = 1e4, epsilon 1, Laplace, replace-one; environment as there).  REPS
# replications (from FIRST0, default 0) split over the machine's two cores,
# the ranks pooled; RANKSDIR=dir keeps the ranks (r0, r1) for pooling runs
# with POOL=file,... bench/sbc_linear_d (see the .c).
# Recorded in bench/results/laplace_mixed.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
REPS=${REPS:-400}
FIRST0=${FIRST0:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=gnu99 $DPB_CORE_INC -Ibench -Itest -o "$tmp/sbc" bench/sbc_linear_d.c test/sim.c \
	$DPB_CORE_SRCS $DPB_CORE_LIBS
half=$((REPS / 2))
t0=$(date +%s)
REPS=$half FIRST=$FIRST0 RANKS=$tmp/r0 OPENBLAS_NUM_THREADS=1 nice "$tmp/sbc" > "$tmp/o0" &
REPS=$((REPS - half)) FIRST=$((FIRST0 + half)) RANKS=$tmp/r1 OPENBLAS_NUM_THREADS=1 nice "$tmp/sbc" > "$tmp/o1"
wait
cat "$tmp/o0" "$tmp/o1"
POOL=$tmp/r0,$tmp/r1 "$tmp/sbc"
if [ -n "${RANKSDIR:-}" ]; then mkdir -p "$RANKSDIR"; cp "$tmp/r0" "$tmp/r1" "$RANKSDIR/"; fi
echo "wall $(( $(date +%s) - t0 )) s"
