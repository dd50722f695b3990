#!/usr/bin/env bash
# bench/betad_stan.sh — dpbayes's betaD logistic sampler against Stan's NUTS
# (rstan, Debian's r-cran-rstan) on the same model (bench/stan/
# betad_logistic.stan), data (bench/betad_speed.c's, N rows, d = 10, beta 3,
# prior sd 3) and schedule (4 chains one after the other, WARMUP + ITERS
# each, default 200 + 50): seconds and gradient evaluations of each, and
# their ratio.  Needs R with rstan (apt-get install r-cran-rstan); Debian's
# BH package has no include directory, so a private copy that points at
# /usr/include (libboost-dev) is put first on R's library path.  Writes
# bench/results/betad_stan.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
N=${N:-100000}
WARMUP=${WARMUP:-200}
ITERS=${ITERS:-50}
REPS=${REPS:-3}
command -v Rscript >/dev/null && Rscript -e 'library(rstan)' >/dev/null 2>&1 || {
	echo "betad_stan.sh: needs R and rstan (apt-get install r-cran-rstan)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/rlib"
cp -r "$(Rscript -e 'cat(find.package("BH"))')" "$tmp/rlib/BH"
[ -d "$tmp/rlib/BH/include" ] || ln -s /usr/include "$tmp/rlib/BH/include"
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/betad_speed \
	bench/betad_speed.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
DUMP="$tmp/data.csv" ./bench/betad_speed "$N"
ours=$(OPENBLAS_NUM_THREADS=1 nice ./bench/betad_speed "$N" "$REPS" "$WARMUP" "$ITERS")
stan=$(R_LIBS="$tmp/rlib" nice Rscript bench/betad_stan.R "$tmp/data.csv" "$WARMUP" "$ITERS" 2>/dev/null)
out=bench/results/betad_stan.md
{
	echo "# betaD logistic: dpbayes's sampler vs Stan's NUTS"
	echo
	echo "\`bash bench/betad_stan.sh\`: the same model (bench/stan/betad_logistic.stan), data (N = $N, d = 10,"
	echo "beta 3, prior sd 3) and schedule (4 chains one after the other, $WARMUP warmup + $ITERS each) on one core."
	echo "rstan $(Rscript -e 'cat(as.character(packageVersion("rstan")))' 2>/dev/null), compilation excluded; dpbayes with the"
	echo "secure bit source (/dev/urandom). Machine: $(nproc) cores SHARED with other work (nice); load average at start"
	echo "$(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo
	echo "## dpbayes ($REPS runs)"
	echo
	echo "$ours"
	echo
	echo "## Stan (1 run, seed 1)"
	echo
	echo '```'
	echo "$stan"
	echo '```'
	echo
	ds=$(echo "$ours" | sed -n 's/^median: \([0-9.]*\) s.*/\1/p')
	ss=$(echo "$stan" | sed -n 's/^stan_seconds //p')
	sg=$(echo "$stan" | sed -n 's/^stan_gradients //p')
	awk -v ds="$ds" -v ss="$ss" -v sg="$sg" 'BEGIN {
		printf "Stan: %.1f s for %d gradient evaluations (%.2f ms each). dpbayes: median %.1f s.\n", ss, sg, 1e3 * ss / sg, ds;
		printf "**Ratio Stan / dpbayes: %.1f** (wall time of one release-sized run).\n", ss / ds }'
} | tee "$out"
