#!/usr/bin/env bash
# bench/sbc_linear.sh — the long simulation-based calibration of noise-aware
# linear regression (the unit test's SBC with more replications), recorded in
# bench/results/sbc_linear.md and quoted in docs/posterior.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-1000}
THIN=${SBC_THIN:-100}
make -s test/unit_run
out=bench/results/sbc_linear.md
{
	echo "# Simulation-based calibration, linear regression (Gibbs-SS)"
	echo
	echo "Command: \`SBC_REPS=$REPS SBC_THIN=$THIN bash bench/sbc_linear.sh\` ($(date -u +%Y-%m-%d)). KS p-values of the"
	echo "ranks of theta0, theta1, theta2, sigma among 100 posterior draws (thinned by $THIN); d = 2, N = 100,"
	echo "epsilon = 0.5 (delta = 1e-5 for Gaussian); parameters and data drawn from the sampler's prior."
	echo
	echo '```'
	DPB_SBC_DEBUG=1 DPB_SBC_THIN=$THIN DPB_SBC_REPS=$REPS ./test/unit_run linear | grep -E "SBC|histogram|ok|FAIL" || true
	echo '```'
} | tee "$out"
