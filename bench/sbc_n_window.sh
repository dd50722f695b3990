#!/usr/bin/env bash
# bench/sbc_n_window.sh — what a prior for an unknown N cut to the released
# count's window n_hat -+ k s costs in calibration (issue 26, item 3;
# dpb_n_prior_suggest, docs/posterior.md "The number of records"): SBC of
# the default linear sampler (NUTS) on add/remove releases of round(N)
# records, N ~ U(LO, HI) (default 0.5, 600.5: down to the few records where
# a noisy count's posterior reaches), epsilon EPS (0.1), Laplace (MECHS=all:
# Gaussian too), the harness of test/test_linear.c (run_sbc: d = 2, data from
# the sampler's prior, 100 kept draws of one chain after 500 warmup); the
# sampler's prior of N is U(LO, HI) cut to the window, for each k of KS
# (default "0 5 7"; 0: no window, the exact model).  Writes
# bench/results/sbc_n_window.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-1000}
LO=${LO:-0.5}
HI=${HI:-600.5}
EPS=${EPS:-0.1}
KS=${KS:-0 5 7}
make -s test/unit_run
out=${OUT:-bench/results/sbc_n_window.md}
tmp=$(mktemp)
t0=$(date +%s)
for k in $KS; do
	DPB_SBC_SAMPLER=nuts DPB_SBC_UN_LO=$LO DPB_SBC_UN_HI=$HI DPB_SBC_EPS=$EPS DPB_SBC_REPS=$REPS \
		DPB_SBC_NWINDOW=$k DPB_SBC_MECHS=$([ "${MECHS:-laplace}" = all ] || echo laplace) \
		OPENBLAS_NUM_THREADS=1 nice ./test/unit_run linear | grep "^SBC nuts unknown" >>"$tmp"
done
t1=$(date +%s)
{
	echo "# SBC of an unknown N with the prior cut to the count's window"
	echo
	echo "Command: \`SBC_REPS=$REPS LO=$LO HI=$HI EPS=$EPS KS=\"$KS\"${MECHS:+ MECHS=$MECHS} bash bench/sbc_n_window.sh\`"
	echo "($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $((t1 - t0)) s wall on a shared 2-core machine)."
	echo "KS p-values of the ranks of theta0, theta1, theta2, sigma and N; \"true N outside\": the"
	echo "replications whose true N lay outside the window (expected e^-k of them for Laplace)."
	echo
	echo '```'
	cat "$tmp"
	echo '```'
} | tee "$out"
rm -f "$tmp"
