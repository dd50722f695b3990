#!/usr/bin/env bash
# bench/tools/glm_agree.sh REV [D N CHAINS DRAWS] — do the noise-aware
# logistic posteriors of git revision REV's src/core and of the working tree
# agree?  Builds bench/tools/glm_summary.c against both, runs each on the
# same release (bench_release; default d = 4, N = 1000, 4 chains x 10000
# draws after 1000 warmup, seed 11) and prints per variable (nuisance
# included) the two means, sds and z = (mean difference) /
# sqrt(mcse_a^2 + mcse_b^2).  The z should look like draws from N(0, 1) (the
# max |z| over 25 variables rarely exceeds 3.5) and the sds should agree to a
# few per cent.  No server needed; the two runs go in parallel.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rev=$1
D=${2:-4} N=${3:-1000} CHAINS=${4:-4} DRAWS=${5:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git archive "$rev" src/core | tar -x -C "$tmp"
. bench/tools/core.sh
build() {	# $1 = core directory (sources in sub-folders by concern), $2 = output
	local inc=""
	for sub in "$1"/*/; do inc="$inc -I$sub"; done
	# shellcheck disable=SC2086
	cc -O2 -std=gnu99 -I"$1" $inc -Ibench $(pkg-config --cflags openblas) \
		${DPB_MVEC_LIBS:+-DDPB_HAVE_LIBMVEC} -o "$2" \
		bench/tools/glm_summary.c bench/bench_util.c "$1"/*/*.c $DPB_CORE_LIBS
}
build "$tmp/src/core" "$tmp/a"
build src/core "$tmp/b"
OPENBLAS_NUM_THREADS=1 "$tmp/a" "$D" "$N" "$CHAINS" "$DRAWS" 11 >"$tmp/a.tsv" &
OPENBLAS_NUM_THREADS=1 "$tmp/b" "$D" "$N" "$CHAINS" "$DRAWS" 11 >"$tmp/b.tsv"
wait
echo "d=$D N=$N, $CHAINS chains x $DRAWS draws: $rev (a) against the working tree (b)"
paste "$tmp/a.tsv" "$tmp/b.tsv" | awk -F'\t' '
NR == 1 { printf "| variable | mean a | mean b | sd a | sd b | z | ESS a | ESS b |\n|---|---|---|---|---|---|---|---|\n"; next }
{
	z = ($8 - $2) / sqrt($4 * $4 + $10 * $10)
	if (z * z > zmax * zmax) zmax = z
	sr = $9 / $3; if (sr > srmax) srmax = sr; if (srmin == 0 || sr < srmin) srmin = sr
	printf "| %s | %.5g | %.5g | %.4g | %.4g | %.2f | %d | %d |\n", $1, $2, $8, $3, $9, z, $5, $11
	n++
}
END { printf "\n%d variables: max |z| %.2f, sd ratio b/a %.3f .. %.3f\n", n, (zmax < 0 ? -zmax : zmax), srmin, srmax }'
