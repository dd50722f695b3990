#!/usr/bin/env bash
# bench/plots/sbc_ranks.sh IN.md SECTION OUT.png TITLE ROWS PARAMS
#
# SBC rank histograms as a grid of bar charts (gnuplot): one row per run, one
# column per parameter, from the "  rank histogram <j>: c0 ... c9" lines that
# bench/sbc_linear.sh, sbc_linear_noisy.sh and sbc_glm.sh store.
#
#   SECTION  only the lines after the "## ..." heading containing this text
#            (up to the next heading); "" for the whole file
#   ROWS     comma-separated labels of the runs, in the file's order
#   PARAMS   comma-separated labels of the parameters (j = 0, 1, ...)
#
# Calibrated ranks are uniform: each bar should lie near the solid line (the
# expected count, reps/10) and, for all but about 1 in 100 bars, between the
# dashed lines (the central 99% of a binomial(reps, 0.1) count).
set -euo pipefail
in=$1 section=$2 png=$3 title=$4
IFS=, read -r -a rows <<<"$5"
IFS=, read -r -a params <<<"$6"
nr=${#rows[@]} np=${#params[@]}

# one line per histogram: "row j c0 ... c9"
hist=$(awk -v sec="$section" '
	/^## / { on = (sec == "" || index($0, sec) > 0); next }
	sec == "" { on = 1 }
	on && /rank histogram [0-9]+:/ {
		sub(/.*rank histogram /, ""); j = $1 + 0; sub(/^[0-9]+: */, "")
		if (j == 0) r++
		print r - 1, j, $0
	}' "$in")
[ "$(wc -l <<<"$hist")" -eq $((nr * np)) ] || {
	echo "sbc_ranks.sh: expected $nr x $np histograms in $in (section '$section'), found $(wc -l <<<"$hist")" >&2
	exit 1
}

{
	echo "set terminal pngcairo size $((230 * np + 90)),$((170 * nr + 70)) font 'sans,9' noenhanced"
	echo "set output '$png'"
	echo "set multiplot layout $nr,$np rowsfirst title '$title' font 'sans,11'"
	echo "set style fill solid 0.6 border lc rgb '#555555'"
	echo "set boxwidth 0.9"
	echo "set xrange [-0.5:9.5]"
	echo "set xtics ('0' -0.5, 'rank' 4.5, 'max' 9.5) scale 0"
	echo "set key off"
	echo "set tmargin 1.8"
	for ((r = 0; r < nr; r++)); do
		for ((j = 0; j < np; j++)); do
			line=$(awk -v r="$r" -v j="$j" '$1 == r && $2 == j' <<<"$hist")
			read -r -a c <<<"$line"
			counts=("${c[@]:2}")
			reps=0
			for v in "${counts[@]}"; do reps=$((reps + v)); done
			echo "\$h << EOD"
			for ((b = 0; b < 10; b++)); do echo "$b ${counts[$b]}"; done
			echo "EOD"
			# expected count and the central 99% of binomial(reps, 0.1)
			echo "e = $reps * 0.1; s = sqrt($reps * 0.1 * 0.9)"
			echo "set title '${rows[$r]}: ${params[$j]}' offset 0,-0.5"
			echo "unset arrow"
			echo "set arrow from -0.5, e to 9.5, e nohead lw 1.5 lc rgb 'black' front"
			echo "set arrow from -0.5, e - 2.576 * s to 9.5, e - 2.576 * s nohead dt 2 lc rgb 'black' front"
			echo "set arrow from -0.5, e + 2.576 * s to 9.5, e + 2.576 * s nohead dt 2 lc rgb 'black' front"
			echo "set yrange [0:*]"
			echo "stats \$h using 2 nooutput"
			echo "set yrange [0:(STATS_max > e + 3 * s ? STATS_max : e + 3 * s) * 1.05]"
			echo "plot \$h using 1:2 with boxes lc rgb '#4c72b0'"
		done
	done
	echo "unset multiplot"
} | gnuplot
echo "wrote $png"
