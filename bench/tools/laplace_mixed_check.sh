#!/usr/bin/env bash
# bench/tools/laplace_mixed_check.sh — on the Laplace cells where
# laplace_noise "auto" takes the mixed form, does its posterior agree with
# the omega form's (SBC-checked, bench/results/sbc_linear_nuts.md)?  Per cell
# (bench/tools/laplace_auto's grid data model: DATA=grid, add/remove and
# replace-one) both forms run at the defaults (seed 7, 4 x 1000 after 1000
# warmup) with the draws of mu and Sigma too; bench/tools/posterior_compare.py
# compares them.  CELLS: "d:N:eps ..." (default: the 6 cells of the grid
# where auto takes the mixed form).  A markdown row per cell and neighbour
# relation on stdout; both forms' rows of laplace_auto on stderr.  Results in
# bench/results/laplace_mixed.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CELLS=${CELLS:-"5:100:10 5:10000:1 5:1000000:0.1 10:100:10 10:10000:1 10:1000000:0.1"}
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Ibench -o bench/tools/laplace_auto \
	bench/tools/laplace_auto.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# KEEP=dir: keep each cell's draws there (omega-D-N-EPS-NB.tsv, auto-...)
KEEP=${KEEP:-}
echo "| d | N | ε | neighbours | auto's form | variables | max \|z\| of the means | sd ratio (auto / ω) |"
echo "|---|---|---|---|---|---|---|---|"
for cell in $CELLS; do
	IFS=: read -r d n e <<<"$cell"
	for nb in ar ro; do
		# the two forms at once (the machine's two cores)
		DATA=grid NB=$nb D=$d N=$n EPS=$e FORM=omega NUISANCE=1 DUMP=$tmp/o.tsv \
			OPENBLAS_NUM_THREADS=1 nice ./bench/tools/laplace_auto >"$tmp/o.txt" &
		DATA=grid NB=$nb D=$d N=$n EPS=$e FORM=auto NUISANCE=1 DUMP=$tmp/a.tsv \
			OPENBLAS_NUM_THREADS=1 nice ./bench/tools/laplace_auto >"$tmp/a.txt"
		wait
		cat "$tmp/o.txt" "$tmp/a.txt" >&2
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP"
			cp "$tmp/o.tsv" "$KEEP/omega-$d-$n-$e-$nb.tsv"
			cp "$tmp/a.tsv" "$KEEP/auto-$d-$n-$e-$nb.tsv"
		fi
		form=$(awk -F'|' '{gsub(/ /, "", $9); print $9}' "$tmp/a.txt")
		echo "| $d | $n | $e | $nb | $form | $(python3 bench/tools/posterior_compare.py "$tmp/o.tsv" "$tmp/a.tsv") |"
	done
done
