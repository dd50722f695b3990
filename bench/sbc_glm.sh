#!/usr/bin/env bash
# bench/sbc_glm.sh — the long simulation-based calibration of noise-aware
# logistic and Poisson regression (the unit test's SBC with more
# replications), recorded in bench/results/sbc_glm.md (or $SBC_OUT), with the
# rank histograms (drawn by bench/plots/sbc_ranks.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-400}
make -s test/unit_run
out=${SBC_OUT:-bench/results/sbc_glm.md}
{
	echo "# Simulation-based calibration, logistic and Poisson regression (NUTS, exact moments)"
	echo
	echo "Command: \`SBC_REPS=$REPS bash bench/sbc_glm.sh\` ($(date -u +%Y-%m-%d)). d = 2, N = 2000,"
	echo "epsilon = 1, delta = 1e-5; (theta, mu, tau, Omega) and the table drawn from the sampler's"
	echo "prior (theta ~ N(0, 1), mu ~ N(0, 0.1^2), tau ~ half-normal(0.15), Omega ~ LKJ(2)); one chain,"
	echo "200 warmup, 100 draws; KS p-values of the ranks of theta0, theta1, theta2, and their rank"
	echo "histograms in 10 bins (expected reps/10 each), logistic then Poisson."
	echo
	echo '```'
	DPB_SBC_DEBUG=1 DPB_SBC_REPS=$REPS ./test/unit_run glm | grep -E "SBC|rank histogram|ok|FAIL" || true
	echo '```'
	echo
	echo "Clipped counts: the same with the Poisson bound y_bound = 3 instead of 40, so that about"
	echo "10% of the counts are clipped (the model has the moments of min(y, y_bound); the logistic"
	echo "lines repeat the run above)."
	echo
	echo '```'
	DPB_SBC_DEBUG=1 DPB_SBC_REPS=$REPS DPB_SBC_YBOUND=3 ./test/unit_run glm | grep -E "SBC poisson|ok|FAIL" || true
	echo '```'
} | tee "$out"
