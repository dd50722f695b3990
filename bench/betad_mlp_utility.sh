#!/usr/bin/env bash
# bench/betad_mlp_utility.sh — utility of the betaD network (issue 28, item
# 4): test AUC / log-loss (Pima, breast cancer) and test RMSE (Boston, a
# simulated design) of one betaD network draw, one betaD logistic / linear
# draw, DP-SGD at the same epsilon (delta 1e-5; bench-only baseline with
# its RDP accountant, checked first) and the non-private network, over
# SPLITS random 70/30 splits (bench/betad_mlp_utility.c defines it all).
# No server needed.  NOT PRIVATE: seeded test streams, reproducible.
# Writes bench/results/betad_mlp_utility.md (and, for that default OUT, the figure
# docs/figures/betad_mlp_utility.png).
#   SPLITS (5), DATA ("boston sim pima breast"), SIM_NS (sim training rows, "500"),
#   SIM_SPLITS (splits of sim beyond its first n, 3), OUT (the results file)
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
out=${OUT:-bench/results/betad_mlp_utility.md}
start=$(date -u +%s)
{
	echo "# betaD network: utility against betaD logistic/linear, DP-SGD and the non-private network"
	echo
	echo "Machine: $(nproc) cores SHARED with other workers (nice -n 10); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo "Command: \`${OUT:+OUT=$OUT }SPLITS=$SPLITS DATA=\"$DATA\" SIM_NS=\"$SIM_NS\" SIM_SPLITS=$SIM_SPLITS bash bench/betad_mlp_utility.sh\`"
	echo
	cat <<'SETUP'
## Setup

- Splits: random 70/30 of the shipped rows (GSL mt19937 seeded 1000 + split); the simulated design draws its N training rows and 2000 test rows afresh per split from the same seed. Medians [min, max] over the splits.
- Data: Pima, all 768 rows and 8 features (zeros kept as recorded), bounds the recorded ranges listed in the UCI description (the data's min and max, treated as public as in bench/betad_utility.c); breast cancer, the 683 complete rows (16 with a missing `bare_nuclei` dropped), 9 scores on their public scale 1-10; Boston, rm, lstat, ptratio with the bounds of bench/betad_utility.c, medv with y_scale 10, sigma2_floor 16; simulated (like the paper's Fig. 3, a truth a network represents and a line does not): d = 5 uniform on [-1, 1], y = 2 tanh(2u) - 0.8 x1^2 + 0.5 e, u = 0.3 + sum_j (1.5 or -1 alternating) x_j / sqrt(5), y_scale 1, sigma2_floor 0.25 (the noise variance; the best possible RMSE is 0.5). Features scaled by the public bounds (clipped), never by the data.
- betaD network: `dpb_betad_run` (the aggregate's core path), 10 ReLU units, prior sd 1, the networks' default schedule 1 x (500 + 50) (4 x (500 + 50) in the runs before 2026-11-26: one uniformly chosen kept draw of independent chains has the law of one chain's), add/remove neighbours, one draw at (epsilon, 0) (epsilon of an exact draw; the MCMC draw is approximate, docs/betad.md); predictions by `dpb_betad_predict`. Seeded test stream `dpb_rbits_new_insecure_seeded(100000 (split + 1) + 10 e + m)`.
- betaD logistic / linear: the same path with the defaults (prior sd 3, 4 x (200 + 50)), one draw at (epsilon, 0).
- DP-SGD (bench-only baseline, same network on the same scaled features): Poisson subsampling with rate q = 64 / n_train, per-example clipping to C = 1, Gaussian noise sigma C on the sum of the clipped gradients, divided by the expected batch 64, plain SGD with learning rate 0.1, 30 epochs (T = ceil(30 / q) steps), He initialisation; loss logistic, or squared error on y / y_scale. sigma: the smallest (bisection) for which the RDP accountant of the sampled Gaussian mechanism (Mironov, Talwar & Zhang 2019, integer orders 2-256, the standard conversion epsilon = min_alpha T RDP(alpha) + log(1/delta) / (alpha - 1)) gives (epsilon, 1e-5), add/remove neighbours. **Hyper-parameters**: fixed once, before any run, as round common values (C = 1, batch 64, lr 0.1, 30 epochs), one setting for every cell, not tuned on any split (a tuned DP-SGD would do better; tuning on the private data also costs privacy that this table does not charge). Noise from GSL mt19937 seeded 5000 + 100 split + e.
- Non-private network: the MAP of the same network under the same N(0, 1) prior, full-batch Adam (lr 0.01, 3000 steps) from a seeded He initialisation (no convergence check: "a long optimisation").
SETUP
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
	echo "DP-SGD noise multipliers (sigma, the same for every split of a data set):"
	echo
	grep 'noise multiplier' "${out%.md}.log" | sed 's/^/- /'
	echo
	echo "Wall time: $(( $(date -u +%s) - start )) s."
} 2> >(tee "${out%.md}.log" >&2) | tee "$out"
if [ -z "${OUT:-}" ]; then bash bench/plots/betad_mlp_utility.sh "$out" docs/figures/betad_mlp_utility.png; fi
