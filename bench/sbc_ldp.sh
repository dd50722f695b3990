#!/usr/bin/env bash
# bench/sbc_ldp.sh — simulation-based calibration of every local-DP
# posterior (ldp_models.h) at eps 0.5 and 2, and the paper's Fig. 3
# histogram setting; writes bench/results/sbc_ldp.md (or $SBC_OUT).  No
# server needed.  SBC_REPS (default 200) replications per model and eps.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
REPS=${SBC_REPS:-200}
# chain length: LDP_SBC_WARMUP warmup iterations, 100 x LDP_SBC_THIN draws
export LDP_SBC_WARMUP=${LDP_SBC_WARMUP:-500}
export LDP_SBC_THIN=${LDP_SBC_THIN:-4}
FIG3_REPS=${FIG3_REPS:-50}
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o bench/ldp_sbc \
	bench/ldp_models.c bench/bench_util.c test/ldp_sim.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=${SBC_OUT:-bench/results/sbc_ldp.md}
{
	echo "# Simulation-based calibration of the local-DP posteriors"
	echo
	echo "Command: \`SBC_REPS=$REPS FIG3_REPS=$FIG3_REPS LDP_SBC_WARMUP=$LDP_SBC_WARMUP LDP_SBC_THIN=$LDP_SBC_THIN bash bench/sbc_ldp.sh\` ($(date -u +%Y-%m-%d)); one process under"
	echo "\`nice\` on the shared test machine ($(nproc) cores, several workers; load average at start"
	echo "$(cut -d' ' -f1 /proc/loadavg)), so the times are indicative only."
	echo
	echo "Per replication: parameters drawn from the model's default prior (docs/ldp.md), N reports"
	echo "simulated from the model, one NUTS chain ($LDP_SBC_WARMUP warmup, $((100 * LDP_SBC_THIN)) draws thinned to L = 100); the rank"
	echo "of the true value among the 100 draws (0..100, jittered to a continuous uniform) for every"
	echo "reported variable; KS p-value of the ranks against uniform.  Settings: gaussian x clipped to"
	echo "[-5, 5], exponential to [0, 5], Laplace scale (b - a)/eps; histogram K = 3, OUE; linear d = 1,"
	echo "one AGM (delta 1e-5) on [x, y] with Delta = sqrt(8) (R = R_y = 1); logistic d = 1, eps/2 to"
	echo "randomized response on the label, eps/2 to an AGM on x with Delta = 2."
	echo
	echo "| model | eps | N | reps | KS p per variable | min p | failed runs | divergences | time |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for eps in 0.5 2; do
		nice ./bench/ldp_sbc sbc gaussian $eps "$REPS" 1000
		nice ./bench/ldp_sbc sbc exponential $eps "$REPS" 1000
		nice ./bench/ldp_sbc sbc histogram $eps "$REPS" 1000
		nice ./bench/ldp_sbc sbc linear $eps "$REPS" 1000
		nice ./bench/ldp_sbc sbc logistic $eps "$REPS" 300
	done
	echo
	echo "## The paper's Fig. 3 setting: K = 3, theta = (0.7, 0.2, 0.1), eps = 0.5"
	echo
	echo "RMSE per component over $FIG3_REPS replications of the posterior mean (Dirichlet(1) prior, NUTS,"
	echo "2 chains x 500 draws) and of the OUE estimate projected onto the simplex in L2 (the paper's"
	echo "baseline), and of the raw (unprojected) OUE estimate; gain = 1 - RMSE_Bayes / RMSE_projected;"
	echo "wins = replications where the posterior mean has the smaller squared error."
	echo
	echo "| N | reps | RMSE posterior mean | RMSE projected OUE | RMSE raw OUE | gain | wins |"
	echo "|---|---|---|---|---|---|---|"
	for n in 50 100 200 500 1000; do
		nice ./bench/ldp_sbc fig3 $n "$FIG3_REPS"
	done
} | tee "$out"
