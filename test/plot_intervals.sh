#!/usr/bin/env bash
# test/plot_intervals.sh CSV PNG — the picture of `make demo`: for each
# variable of each data set, the 90% posterior interval (5% to 95%, a dot at
# the median) of the private (noise-aware) and the non-private posterior.
#
# CSV: dataset,variable,kind,q5,median,q95 (kind: private | non-private; other
# kinds are ignored), as test/demo.sh writes it.  Needs gnuplot (gnuplot-nox).
set -euo pipefail
csv=$1 png=$2
command -v gnuplot >/dev/null || { echo "plot_intervals.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }

datasets=$(cut -d, -f1 "$csv" | awk '!seen[$0]++')
ncol=$(wc -w <<<"$datasets")
nrow=$(cut -d, -f1,2 "$csv" | sort | uniq -c | awk '{print $2}' | cut -d, -f1 | sort | uniq -c |
	awk 'BEGIN {m = 0} $1 > m {m = $1} END {print m}')

{
	echo "set terminal pngcairo size $((560 * ncol)),$((110 * nrow + 60)) font 'sans,9' noenhanced"
	echo "set output '$png'"
	echo "set multiplot layout $nrow,$ncol columnsfirst title 'dpbayes demo: 90% posterior intervals, private (noise-aware, epsilon = 1) vs non-private' font 'sans,11' margins 0.09,0.98,0.05,0.93 spacing 0.1,0.075"
	echo "set yrange [0.4:2.6]"
	echo "set ytics ('non-private' 1, 'private' 2) nomirror"
	echo "set key off"
	echo "set grid xtics lc rgb '#dddddd'"
	for ds in $datasets; do
		n=0
		while IFS= read -r v; do
			n=$((n + 1))
			echo "\$d << EOD"
			awk -F, -v ds="$ds" -v v="$v" '$1 == ds && $2 == v && $3 == "non-private" {print 1, $5, $4, $6}
				$1 == ds && $2 == v && $3 == "private" {print 2, $5, $4, $6}' "$csv"
			echo "EOD"
			# each panel its own x axis, padded by 8% of the span on both
			# sides so that no whisker sits on the frame (n: the number of
			# records of an add/remove release, whose non-private value is a
			# point)
			awk -F, -v ds="$ds" -v v="$v" '$1 == ds && $2 == v && ($3 == "private" || $3 == "non-private") {
					if (!k++ || $4 < lo) lo = $4
					if (k == 1 || $6 > hi) hi = $6
				}
				END {
					pad = (hi - lo) * 0.08
					if (pad <= 0) pad = (lo == 0 ? 1 : (lo < 0 ? -lo : lo) * 0.05)
					printf "set xrange [%.10g:%.10g]\n", lo - pad, hi + pad
				}' "$csv"
			echo "set title '$ds: $v' offset 0,-0.6"
			echo "plot \$d using (\$1 == 1 ? \$2 : 1/0):1:3:4 with xerrorbars pt 7 ps 0.6 lw 2 lc rgb '#1f77b4', \\"
			echo "     \$d using (\$1 == 2 ? \$2 : 1/0):1:3:4 with xerrorbars pt 7 ps 0.6 lw 2 lc rgb '#d62728'"
		done < <(awk -F, -v ds="$ds" '$1 == ds && !seen[$2]++ {print $2}' "$csv")
		# empty panels fill the column
		while [ "$n" -lt "$nrow" ]; do
			n=$((n + 1))
			echo "set multiplot next"
		done
	done
	echo "unset multiplot"
} | gnuplot
