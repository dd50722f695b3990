#!/usr/bin/env bash
# bench/betad_mlp_utility.sh — utility of the betaD network (issue 28, item
# 4): test AUC / log-loss (Pima, breast cancer) and test RMSE (Boston, a
# simulated design) of one betaD network draw, one betaD logistic / linear
# draw, DP-SGD at the same epsilon (delta 1e-5; bench-only baseline with
# its RDP accountant, checked first) and the non-private network, over
# SPLITS random 70/30 splits (bench/betad_mlp_utility.c defines it all).
# No server needed.  NOT PRIVATE: seeded test streams, reproducible.
# Writes bench/results/betad_mlp_utility.md.
#   SPLITS (5), DATA ("boston sim pima breast"), SIM_NS (sim training rows, "500"),
#   SIM_SPLITS (splits of sim beyond its first n, 3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
SPLITS=${SPLITS:-5}
DATA=${DATA:-"boston sim pima breast"}
SIM_NS=${SIM_NS:-500}
SIM_SPLITS=${SIM_SPLITS:-3}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/betad_mlp_utility \
	bench/betad_mlp_utility.c $DPB_CORE_SRCS $DPB_CORE_LIBS
run() { OPENBLAS_NUM_THREADS=1 nice -n 10 ./bench/betad_mlp_utility "$@"; }
out=bench/results/betad_mlp_utility.md
start=$(date -u +%s)
{
	echo "# betaD network: utility against betaD logistic/linear, DP-SGD and the non-private network"
	echo
	echo "Machine: $(nproc) cores SHARED with other workers and a CI run (nice -n 10); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo "Command: \`SPLITS=$SPLITS DATA=\"$DATA\" SIM_NS=\"$SIM_NS\" SIM_SPLITS=$SIM_SPLITS bash bench/betad_mlp_utility.sh\`"
	echo
	run check
	echo
	echo "## Regression: test RMSE in y's units, median [min, max] over splits"
	echo
	echo "| data | training rows | epsilon | method | test RMSE |"
	echo "|---|---|---|---|---|"
	first=1
	for dset in $DATA; do
		case $dset in
		boston) run run boston "$SPLITS" ;;
		sim)
			for n in $SIM_NS; do
				if [ $first = 1 ]; then run run sim "$SPLITS" "$n"; first=0; else run run sim "$SIM_SPLITS" "$n"; fi
			done ;;
		esac
	done
	echo
	echo "## Classification: test AUC and log-loss, median [min, max] over splits"
	echo
	echo "| data | training rows | epsilon | method | test AUC | test log-loss |"
	echo "|---|---|---|---|---|---|"
	for dset in $DATA; do
		case $dset in pima | breast) run run "$dset" "$SPLITS" ;; esac
	done
	echo
	echo "Wall time: $(( $(date -u +%s) - start )) s."
} 2> >(tee bench/results/betad_mlp_utility.log >&2) | tee "$out"
