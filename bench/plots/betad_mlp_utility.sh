#!/usr/bin/env bash
# bench/plots/betad_mlp_utility.sh RESULTS.md OUT.png — the betaD network's
# utility table (bench/betad_mlp_utility.sh) as four panels (Boston and the
# simulated design: test RMSE; Pima and breast cancer: test AUC) against
# epsilon: the median over the splits with its [min, max] as error bars for
# the betaD network, betaD logistic / linear and DP-SGD, the non-private
# network's median as a horizontal line.
set -euo pipefail
md=$1 png=$2
# rows of data set $1, method $2 (a prefix): epsilon median min max
rows() {
	awk -F'|' -v ds="$1" -v me="$2" '
		{ d = $2; m = $5; gsub(/^ +| +$/, "", d); gsub(/^ +| +$/, "", m) }
		d == ds && index(m, me) == 1 && $4 !~ /-/ {
			v = $6; gsub(/[][,]/, " ", v); split(v, a, " ")
			e = $4; gsub(/ /, "", e); print e, a[1], a[2], a[3] }' "$md"
}
np() { # the non-private median of data set $1
	awk -F'|' -v ds="$1" '{ d = $2; gsub(/^ +| +$/, "", d) } d == ds && $5 ~ /non-private/ {
		v = $6; gsub(/[][,]/, " ", v); split(v, a, " "); print a[1] }' "$md" | head -1
}
{
	for ds in boston simulated pima "breast cancer"; do
		k=${ds%% *}
		echo "\$${k}_n << EOD"; rows "$ds" "betaD network"; echo "EOD"
		echo "\$${k}_l << EOD"; rows "$ds" "betaD l"; echo "EOD"
		echo "\$${k}_s << EOD"; rows "$ds" "DP-SGD"; echo "EOD"
		echo "${k}_np = $(np "$ds")"
	done
	cat <<'GP'
set terminal pngcairo size 1100,800 font ",10"
set output OUT
set multiplot layout 2,2
set logscale x
set xrange [0.7:14]
set xtics (1, 4, 10)
set xlabel "epsilon (add/remove; DP-SGD at delta 1e-5)"
set grid
set key top right
set ylabel "test RMSE (medv)"
set title "Boston (rm, lstat, ptratio), 354 training rows"
plot $boston_n using ($1*0.95):2:3:4 with yerrorlines lw 2 pt 7 title "betaD network", \
     $boston_l using 1:2:3:4 with yerrorlines lw 2 pt 5 dt 2 title "betaD linear", \
     $boston_s using ($1*1.05):2:3:4 with yerrorlines lw 2 pt 9 dt 3 title "DP-SGD network", \
     boston_np with lines lc "black" dt 4 title "non-private network"
set ylabel "test RMSE"
set title "simulated (d = 5, noise sd 0.5), N = 500"
plot $simulated_n using ($1*0.95):2:3:4 with yerrorlines lw 2 pt 7 title "betaD network", \
     $simulated_l using 1:2:3:4 with yerrorlines lw 2 pt 5 dt 2 title "betaD linear", \
     $simulated_s using ($1*1.05):2:3:4 with yerrorlines lw 2 pt 9 dt 3 title "DP-SGD network", \
     simulated_np with lines lc "black" dt 4 title "non-private network"
set key bottom right
set ylabel "test AUC"
set title "Pima (8 features), 537 training rows"
plot $pima_n using ($1*0.95):2:3:4 with yerrorlines lw 2 pt 7 title "betaD network", \
     $pima_l using 1:2:3:4 with yerrorlines lw 2 pt 5 dt 2 title "betaD logistic", \
     $pima_s using ($1*1.05):2:3:4 with yerrorlines lw 2 pt 9 dt 3 title "DP-SGD network", \
     pima_np with lines lc "black" dt 4 title "non-private network"
set title "breast cancer (9 scores), 478 training rows"
plot $breast_n using ($1*0.95):2:3:4 with yerrorlines lw 2 pt 7 title "betaD network", \
     $breast_l using 1:2:3:4 with yerrorlines lw 2 pt 5 dt 2 title "betaD logistic", \
     $breast_s using ($1*1.05):2:3:4 with yerrorlines lw 2 pt 9 dt 3 title "DP-SGD network", \
     breast_np with lines lc "black" dt 4 title "non-private network"
unset multiplot
GP
} | gnuplot -e "OUT='$png'" /dev/stdin
