#!/usr/bin/env bash
# bench/linear_ess_per_s.sh — ESS per second of the default linear sampler
# (NUTS on the marginal likelihood) against the old default (Gibbs-SS) on
# the same releases: d = 2, 5 x N = 1e3, 5e4, 1e6 x epsilon 0.5, 1 x
# Gaussian, Laplace; the default run (4 x 1000 after 1000 warmup) of each.
# Writes bench/results/linear_ess_per_s.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/linear_ess_per_s \
	bench/linear_ess_per_s.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=bench/results/linear_ess_per_s.md
{
	echo "# ESS per second: the default linear sampler (NUTS) against Gibbs-SS"
	echo
	echo "The default run (4 chains x 1000 draws after 1000 warmup, seed 1) of each sampler on the same"
	echo "release (bench_util.c: x_j ~ N(0, 0.25^2), y = 0.5 + x_0 - x_1 + ... + N(0, 0.5^2), y_bound 4,"
	echo "add/remove neighbours so N is unknown). min ESS = the smallest bulk or tail ESS over the reported"
	echo "variables (theta, sigma, n); ESS/s = min ESS / wall seconds of the run; ratio = NUTS / Gibbs."
	echo "Machine: $(nproc) cores shared with several other workers (timings are noisy), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%d); OpenBLAS one thread."
	echo "Command: \`bash bench/linear_ess_per_s.sh\`"
	echo
	nice ./bench/linear_ess_per_s
} | tee "$out"
