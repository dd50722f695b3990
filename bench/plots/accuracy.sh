#!/usr/bin/env bash
# bench/plots/accuracy.sh NORM.md EPS.md OUT.png — accuracy of noise-aware
# logistic regression (gnuplot): the two-sample KS distance between the
# noise-aware and the non-private posterior draws of each coefficient, with
# exact moments (solid) and the GLM paper's Taylor moments (dashed),
#   left:  against ||theta|| (bench/glm_accuracy_sweep.sh, epsilon = 1),
#   right: against epsilon   (the same script with EPSILONS=..., NORMS=1).
# 0 means the private posterior is the non-private one; 1 means they do not
# overlap at all.
set -euo pipefail
norm_md=$1 eps_md=$2 png=$3

# "x variable ks_exact ks_taylor" rows of a results table, x = column $2
table() {
	awk -F'|' -v xcol="$2" '
		function trim(s) { gsub(/^ +| +$/, "", s); return s }
		/\| *variable *\|/ { for (i = 1; i <= NF; i++) h[trim($i)] = i; next }
		("variable" in h) && $h["variable"] ~ /theta/ {
			print trim($h[xcol]), trim($h["variable"]), trim($h["KS exact"]), trim($h["KS taylor"])
		}' "$1"
}

block() { # name file xcol
	echo "\$$1 << EOD"
	for v in 'theta[intercept]' 'theta[x1]' 'theta[x2]'; do
		table "$2" "$3" | awk -v v="$v" '$2 == v'
		echo
		echo
	done
	echo "EOD"
}

{
	echo "set terminal pngcairo size 1000,420 font 'sans,9' noenhanced"
	echo "set output '$png'"
	block norm "$norm_md" norm
	block eps "$eps_md" epsilon
	echo "set multiplot layout 1,2 title 'Noise-aware logistic regression: KS distance to the non-private posterior (d = 2, N = 20000; solid: exact moments, dashed: Taylor moments)' font 'sans,10'"
	echo "set yrange [0:1.3]; set ytics 0, 0.2, 1"
	echo "set ylabel 'KS distance (0 = same as non-private)'"
	echo "set grid lc rgb '#dddddd'"
	echo "set key top center horizontal"
	echo "set xlabel '||theta|| (epsilon = 1)'"
	echo "set title 'vs signal strength ($(basename "$norm_md"))'"
	echo "c1 = '#1f77b4'; c2 = '#d62728'; c3 = '#2ca02c'"
	echo "plot \$norm index 0 using 1:3 with linespoints lw 2 pt 7 lc rgb c1 title 'intercept', \\"
	echo "     \$norm index 1 using 1:3 with linespoints lw 2 pt 7 lc rgb c2 title 'theta1', \\"
	echo "     \$norm index 2 using 1:3 with linespoints lw 2 pt 7 lc rgb c3 title 'theta2', \\"
	echo "     \$norm index 0 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c1 notitle, \\"
	echo "     \$norm index 1 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c2 notitle, \\"
	echo "     \$norm index 2 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c3 notitle"
	echo "set logscale x"
	echo "set xlabel 'epsilon (||theta|| = 1)'"
	echo "set title 'vs privacy budget ($(basename "$eps_md"))'"
	echo "plot \$eps index 0 using 1:3 with linespoints lw 2 pt 7 lc rgb c1 title 'intercept', \\"
	echo "     \$eps index 1 using 1:3 with linespoints lw 2 pt 7 lc rgb c2 title 'theta1', \\"
	echo "     \$eps index 2 using 1:3 with linespoints lw 2 pt 7 lc rgb c3 title 'theta2', \\"
	echo "     \$eps index 0 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c1 notitle, \\"
	echo "     \$eps index 1 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c2 notitle, \\"
	echo "     \$eps index 2 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb c3 notitle"
	echo "unset multiplot"
} | gnuplot
echo "wrote $png"
