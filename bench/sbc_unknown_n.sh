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
	echo "$(git rev-parse --short HEAD)). Add/remove releases (the count released with noise, its sd from"
	echo "the release's calibration) of round(N) records, N ~ U(29.5, 70.5) (the discrete uniform on"
	echo "30..70, made continuous), the sampler's prior \`n_prior\` [29.5, 70.5]. Linear (Gibbs-SS, N"
	echo "step by slice sampling): d = 2, epsilon = 0.5, the prior of test_linear, 500 warmup, 100 draws"
	echo "thinned by 25; ranks of theta0, theta1, theta2, sigma, N. Logistic (NUTS): d = 2, epsilon = 1,"
	echo "the prior of test_glm, 200 warmup, 100 draws; ranks of theta0, theta1, theta2, N; Poisson"
	echo "likewise (y_bound 40). KS p-values."
	echo "Last line: the same logistic tables and releases, the sampler given the exact N (known N),"
	echo "to tell what the unknown N adds from what the small N does."
	echo
	echo '```'
	DPB_SBC_REPS=$REPS ./test/unit_run linear_unknown_n | grep -E "SBC|ok|FAIL" || true
	DPB_SBC_POISSON=1 DPB_SBC_REPS=$REPS ./test/unit_run glm_unknown_n | grep -E "SBC|ok|FAIL" || true
	DPB_SBC_KNOWN_N=1 DPB_SBC_REPS=$REPS ./test/unit_run glm_unknown_n | grep -E "SBC" |
		sed 's/^  SBC logistic,/  SBC logistic, KNOWN N (same tables),/' || true
	echo '```'
} | tee "$out"
