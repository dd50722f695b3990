#!/usr/bin/env bash
# bench/linear_coverage.sh — fixed-truth coverage of the linear posterior over
# the grid of bench/linear_coverage.c (issue 26, item 1): central releases at
# N in {1e2, 1e3, 1e4, 1e5} x eps in {0.1, 1, 10} and LDP summed ss_linear
# releases (N = 5e4) at eps in {1, 4, 8}, x R^2 in {0.1, 0.5, 0.9} x two
# directions of the slopes; REPS replications per cell (default 100).  Appends
# one section to $OUT (default bench/results/linear_coverage.md) titled $TITLE.
# No server needed.
#
#   TITLE="baseline" PRIOR="prior=nig" bash bench/linear_coverage.sh
#   CELLS=ldp REPS=50 PRIOR="prior=nig,sigma2_shape=0.5" bash bench/linear_coverage.sh
#   (CELLS: substring filter on the cell label; PRIOR: options, see the .c;
#   CHAINS, DRAWS, WARMUP: the run, default 2 x 500 after 500; SDY: the sd of y
#   in units of y_bound, default 1/3; BOUNDS=1: central releases with public
#   feature bounds, as SQL requires; XDIST=gauss: Gaussian features with the
#   box's covariance, clip 2; CCOUNT=s: a noisy count of the clamped records,
#   of budget share s, for the clamp's model; YCLAMPED=s: the release's own count,
#   block y_clamped of share s, as the SQL aggregates make with s = 0.02; NB=ro: central
#   releases under replace-one neighbours; MEDZ=1: the posterior medians' mean
#   z-scores on stderr; QBIAS=1: the split of Var(y) = theta' Sigma theta +
#   sigma^2, the posterior means' biases on stderr, in sigma^2's posterior sd)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
REPS=${REPS:-100}
out=${OUT:-bench/results/linear_coverage.md}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/linear_coverage \
	bench/linear_coverage.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
{
	echo
	echo "## ${TITLE:-run}"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load average at start $(cut -d' ' -f1 /proc/loadavg);"
	echo "command: \`${TITLE:+TITLE=\"$TITLE\" }REPS=$REPS${CELLS:+ CELLS=\"$CELLS\"}${PRIOR:+ PRIOR=\"$PRIOR\"}${SDY:+ SDY=$SDY}${BOUNDS:+ BOUNDS=$BOUNDS}${XDIST:+ XDIST=$XDIST}${CCOUNT:+ CCOUNT=$CCOUNT}${YCLAMPED:+ YCLAMPED=$YCLAMPED}${NB:+ NB=$NB}${CHAINS:+ CHAINS=$CHAINS}${DRAWS:+ DRAWS=$DRAWS}${WARMUP:+ WARMUP=$WARMUP} bash bench/linear_coverage.sh\`"
	echo
	echo "| cell | reps | clipped | θ₀ | θ₁ | θ₂ | σ | converged | max R-hat | divergences | s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	OPENBLAS_NUM_THREADS=1 nice -n 10 ./bench/linear_coverage "$REPS"
} | tee -a "$out"
