#!/usr/bin/env bash
# bench/sbc_linear_noisy.sh — simulation-based calibration of Gibbs-SS with
# the "noisy" moments (x_moments): the unit test's SBC (d = 2, theta, sigma,
# x from the sampler's prior; ranks among 100 draws thinned by 25), with the
# release spending the share SHARE of the budget on the third and fourth
# moments of the features, at the CI setting (N = 100, eps = 0.5) and at a
# larger N.  Results: bench/results/sbc_linear_noisy.md (docs/posterior.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-200}
SHARE=${SHARE:-0.5}
make -s test/unit_run
out=bench/results/sbc_linear_noisy.md
{
	echo "# Simulation-based calibration, linear regression with noisy moments"
	echo
	echo "Command: \`SBC_REPS=$REPS SHARE=$SHARE bash bench/sbc_linear_noisy.sh\` ($(date -u +%Y-%m-%d))."
	echo "KS p-values of the ranks of theta0, theta1, theta2, sigma; x_moments share $SHARE."
	for setting in "100 0.5" "5000 1"; do
		set -- $setting
		echo
		echo "## N = $1, epsilon = $2"
		echo
		echo '```'
		DPB_SBC_NOISY=$SHARE DPB_SBC_N=$1 DPB_SBC_EPS=$2 DPB_SBC_DEBUG=1 DPB_SBC_REPS=$REPS \
			./test/unit_run linear | grep -E "SBC|histogram" || true
		echo '```'
	done
} | tee "$out"
