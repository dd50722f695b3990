#!/usr/bin/env bash
# bench/betad_utility.sh — utility of betaD-Bayes against a moment release:
# on Pima (logistic) and Boston (linear, public y scale), for epsilon in
# {0.5, 1, 2, 5, 10}, the median over REPS runs of the error of one betaD
# draw and of the noise-aware posterior mean of a moment release, both
# against the non-private maximum-likelihood fit (bench/betad_utility.c
# defines the error).  No server needed.  Writes
# bench/results/betad_utility.md and docs/figures/betad_utility.png.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
REPS=${REPS:-20}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/betad_utility \
	bench/betad_utility.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=bench/results/betad_utility.md
{
	echo "# betaD draw vs noise-aware posterior mean of a moment release"
	echo
	echo "Median over $REPS runs (seeded test streams, reproducible) of the RMS over slope coefficients of"
	echo "(estimate - non-private MLE) x public half-range (/ y_scale for Boston). betaD: one draw, (epsilon, 0),"
	echo "the default schedule 4 chains x (200 + 50), dense metric, prior sd 3; Boston: y_scale 10, sigma2_floor 16. Moment release: Gaussian"
	echo "mechanism at (epsilon, 1e-6), replace neighbours, noise-aware posterior mean (2 x (300 + 300))."
	echo "Machine: $(nproc) cores SHARED with several workers (nice); $(date -u +%Y-%m-%d). Command: \`REPS=$REPS bash bench/betad_utility.sh\`"
	echo
	OPENBLAS_NUM_THREADS=1 nice ./bench/betad_utility "$REPS"
} | tee "$out"
bash bench/plots/betad_utility.sh "$out" docs/figures/betad_utility.png
