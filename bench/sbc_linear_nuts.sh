#!/usr/bin/env bash
# bench/sbc_linear_nuts.sh — simulation-based calibration of the default
# linear sampler (NUTS on the marginal release likelihood; Laplace with the
# omega augmentation) at N = 100 and 1e4, epsilon 0.5 and 1, Gaussian and
# Laplace releases: the harness of test/test_linear.c (run_sbc: d = 2,
# parameters and data from the sampler's prior, 100 kept draws of one chain
# after 500 warmup), DPB_SBC_SAMPLER=nuts.  Recorded in
# bench/results/sbc_linear_nuts.md and quoted in docs/posterior.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPS=${SBC_REPS:-400}
# LAPLACE_NOISE: options laplace_noise of the Laplace releases: omega (recorded
# in sbc_linear_nuts.md), latent (the root form since 2026-11-26;
# sbc_linear_latent.md holds the Cholesky form's run, now latent_chol) or
# auto, the default (sbc_linear_auto.md: the Cholesky form's run;
# sbc_linear_root.md: the root form's, with OUT); the Gaussian lines repeat
# the default run.
# POLAR=0|1: options polar (the slopes and sigma in polar coordinates; unset:
# the default).  Y_BOUND: the data's y_bound (default 2; 1.1 clamps about 1% of
# y: bench/results/sbc_linear_clamp.md); CLAMP=0|1: o->lin.clamp, y's clamping
# modelled (unset: the default, auto).  CCOUNT=s: a simulated noisy count of the
# clamped records of budget share s; YCLAMPED=s: the release's own count (block
# y_clamped, share s).  MECHS=laplace: the Laplace releases only.  EPSS: the epsilons (default
# "0.5 1"); NS: the Ns (default "100 10000").
LAPLACE_NOISE=${LAPLACE_NOISE:-omega}
EPSS=${EPSS:-0.5 1}
NS=${NS:-100 10000}
make -s test/unit_run
out=bench/results/sbc_linear_nuts.md
[ "$LAPLACE_NOISE" = latent ] && out=bench/results/sbc_linear_latent.md
[ "$LAPLACE_NOISE" = auto ] && out=bench/results/sbc_linear_auto.md
out=${OUT:-$out}
tmp=$(mktemp -d)
t0=$(date +%s)
# two settings at a time (the machine's two cores)
for N in $NS; do
	for eps in $EPSS; do
		( DPB_SBC_MECHS=${MECHS:-} DPB_SBC_POLAR=${POLAR:-} DPB_SBC_Y_BOUND=${Y_BOUND:-2} DPB_SBC_CLAMP=${CLAMP:-} DPB_SBC_CCOUNT=${CCOUNT:-} DPB_SBC_YCLAMPED=${YCLAMPED:-} DPB_SBC_LAPLACE_NOISE=$LAPLACE_NOISE DPB_SBC_SAMPLER=nuts DPB_SBC_N=$N \
			DPB_SBC_EPS=$eps DPB_SBC_REPS=$REPS \
			nice ./test/unit_run linear | grep "^SBC nuts" > "$tmp/$N-$eps.txt" ) &
	done
	wait
done
t1=$(date +%s)
{
	echo "# Simulation-based calibration, linear regression, the default sampler (NUTS, marginalised statistics)"
	echo
	echo "Command: \`SBC_REPS=$REPS LAPLACE_NOISE=$LAPLACE_NOISE${Y_BOUND:+ Y_BOUND=$Y_BOUND}${CLAMP:+ CLAMP=$CLAMP}${CCOUNT:+ CCOUNT=$CCOUNT}${YCLAMPED:+ YCLAMPED=$YCLAMPED}${MECHS:+ MECHS=$MECHS} EPSS=\"$EPSS\" NS=\"$NS\" bash bench/sbc_linear_nuts.sh\` ($(date -u +%Y-%m-%d), $((t1 - t0)) s wall on a"
	echo "shared 2-core machine with several other workers). KS p-values of the ranks (randomised to"
	echo "uniforms) of theta0, theta1, theta2, sigma among 100 draws (one chain, 500 warmup, no thinning);"
	echo "d = 2, clip 1, y_bound ${Y_BOUND:-2}, delta = 1e-5 for Gaussian; parameters and data drawn from the sampler's"
	echo "prior (test/test_linear.c, run_sbc). Pass: every p > 0.01. latent=K: the Laplace"
	echo "replications that ran in the latent form (laplace_noise \"auto\" chooses per release)."
	echo
	echo '```'
	for N in $NS; do for eps in $EPSS; do cat "$tmp/$N-$eps.txt"; done; done
	echo '```'
	echo
	awk '{for (i = NF - 3; i <= NF; i++) if ($i + 0 < m || m == "") m = $i + 0} END {printf "Smallest p over the settings x 4 variables: %.4g (threshold 0.01).\n", m}' "$tmp"/*.txt
} | tee "$out"
rm -rf "$tmp"
