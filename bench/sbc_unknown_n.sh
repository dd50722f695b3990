#!/usr/bin/env bash
# bench/sbc_unknown_n.sh — the long simulation-based calibration of the
# posteriors with an unknown number of records (issue 8: add/remove
# releases, SBC at N = 50): the unit tests linear_unknown_n and
# glm_unknown_n with more replications, recorded in
# bench/results/sbc_unknown_n.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-400}
make -s test/unit_run
out=bench/results/sbc_unknown_n.md
{
	echo "# Simulation-based calibration with an unknown number of records"
	echo
	echo "Command: \`SBC_REPS=$REPS bash bench/sbc_unknown_n.sh\` ($(date -u +%Y-%m-%d), commit"
	echo "$(git rev-parse --short HEAD)). N ~ U(30, 70) (the sampler's prior, \`n_prior\` [30, 70]); the table"
	echo "has round(N) records; the released count is N + noise of sd 5 (Gaussian, or Laplace for a"
	echo "Laplace release). Linear (Gibbs-SS, N step by slice sampling): d = 2, epsilon = 0.5, the"
	echo "prior of test_linear, 500 warmup, 100 draws thinned by 25; ranks of theta0, theta1, theta2,"
	echo "sigma, N. Logistic (NUTS): d = 2, epsilon = 1, the prior of test_glm, 200 warmup, 100 draws;"
	echo "ranks of theta0, theta1, theta2, N. KS p-values."
	echo
	echo '```'
	DPB_SBC_REPS=$REPS ./test/unit_run linear_unknown_n | grep -E "SBC|ok|FAIL" || true
	DPB_SBC_REPS=$REPS ./test/unit_run glm_unknown_n | grep -E "SBC|ok|FAIL" || true
	echo '```'
} | tee "$out"
