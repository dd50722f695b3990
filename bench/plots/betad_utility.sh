#!/usr/bin/env bash
# bench/plots/betad_utility.sh RESULTS.md OUT.png — the betaD utility table
# (bench/betad_utility.sh) as two panels, Pima and Boston: median error
# against epsilon (log-log) of the betaD draw and of the noise-aware
# posterior mean of a moment release.
set -euo pipefail
md=$1 png=$2
rows() { # data-set prefix
	awk -F'|' -v ds="$1" '$2 ~ ds { gsub(/ /, ""); print $3, $4, $5 }' "$md"
}
{
	echo "\$pima << EOD"; rows pima; echo "EOD"
	echo "\$boston << EOD"; rows boston; echo "EOD"
	cat <<'GP'
set terminal pngcairo size 1000,420 font ",10"
set output OUT
set multiplot layout 1,2
set logscale xy
set xlabel "epsilon"
set ylabel "median error vs the non-private fit"
set key bottom left
set xrange [0.4:12]
set grid
set title "Pima (logistic)"
plot $pima using 1:2 with linespoints lw 2 pt 7 title "betaD draw", \
     $pima using 1:3 with linespoints lw 2 pt 5 dt 2 title "noise-aware mean, moment release"
set title "Boston (linear, y scale 10)"
plot $boston using 1:2 with linespoints lw 2 pt 7 title "betaD draw", \
     $boston using 1:3 with linespoints lw 2 pt 5 dt 2 title "noise-aware mean, moment release"
unset multiplot
GP
} | gnuplot -e "OUT='$png'" /dev/stdin
