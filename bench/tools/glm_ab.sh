#!/usr/bin/env bash
# bench/tools/glm_ab.sh REV [D N SEED0 NSEEDS MODEL] — wall time, gradients
# per iteration, divergences and ESS of the default noise-aware GLM posterior
# for git revision REV's src/core ("old") and the working tree ("new"),
# alternated seed by seed in one process sequence so that both see the same
# machine load (default: logistic, d = 12, N = 1000, seeds 7, 8, 9).  No
# server needed.  Used for bench/results/glm_speed.md (2026-11-26).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rev=$1
D=${2:-12} N=${3:-1000} SEED0=${4:-7} NSEEDS=${5:-3} MODEL=${6:-logistic}
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
		bench/tools/glm_seeds.c bench/bench_util.c "$1"/*/*.c $DPB_CORE_LIBS
}
build "$tmp/src/core" "$tmp/old"
build src/core "$tmp/new"
for ((s = SEED0; s < SEED0 + NSEEDS; s++)); do
	for v in old new; do
		printf '%s ' "$v"
		OPENBLAS_NUM_THREADS=1 "$tmp/$v" "$D" "$N" "$s" 1 "$MODEL"
	done
done
