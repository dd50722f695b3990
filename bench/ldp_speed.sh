#!/usr/bin/env bash
# bench/ldp_speed.sh — wall time of the local-DP posteriors (ldp_models.h)
# at N = 1e4 and 1e5 reports: one NUTS chain, 500 warmup + 500 draws, and
# the time of one log-density + gradient evaluation.  No server needed;
# writes bench/results/ldp_speed.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o bench/ldp_models \
	bench/ldp_models.c bench/bench_util.c test/ldp_sim.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=bench/results/ldp_speed.md
{
	echo "# Local-DP posteriors: wall time"
	echo
	echo "Command: \`bash bench/ldp_speed.sh\` ($(date -u +%Y-%m-%d)); one process under \`nice\` on the"
	echo "shared test machine ($(nproc) cores, several workers; load average at start $(cut -d' ' -f1 /proc/loadavg)):"
	echo "indicative only.  One NUTS chain, 500 warmup + 500 draws (logistic: 100 + 100 at N = 1e4, the"
	echo "evaluation time only at 1e5); 'terms' is what one evaluation"
	echo "loops over (in-range reports for the scalar models, distinct patterns for OUE, reports for"
	echo "logistic; linear is O(1)); 'evals' the density+gradient evaluations of the run (warmup"
	echo "included).  Settings as in bench/results/sbc_ldp.md (regression d = 2); data simulated at"
	echo "gaussian (mu, sigma) = (1, 1.5); exponential rate 0.7; histogram theta = (0.7, 0.2, 0.1);"
	echo "logistic theta = (-0.3, 1, -1), x ~ N(0, I).  Scalar and histogram models at eps 0.5, the regressions at"
	echo "eps 2 (at eps 0.5 the features' noise sd is about 50 times theirs and the logistic posterior is a"
	echo "narrow ridge: NUTS then runs trees of hundreds of steps)."
	echo
	echo "| model | N | eps | terms | one evaluation | evals | run |"
	echo "|---|---|---|---|---|---|---|"
	for n in 10000 100000; do
		for m in gaussian exponential histogram; do
			nice ./bench/ldp_models speed $m $n 0.5
		done
		nice ./bench/ldp_models speed linear $n 2
	done
	# logistic: a full run takes about 80 evaluations per iteration here, so
	# only 100 + 100 iterations at N = 1e4 and the evaluation time at 1e5
	LDP_SPEED_ITERS=100 nice ./bench/ldp_models speed logistic 10000 2
	LDP_SPEED_ITERS=0 nice ./bench/ldp_models speed logistic 100000 2
} | tee "$out"
