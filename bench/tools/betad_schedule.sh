#!/usr/bin/env bash
# bench/tools/betad_schedule.sh — NOT PRIVATE study behind the default public
# schedule of the betaD mechanism (docs/betad.md, "Choosing the default
# schedule"): bench/tools/betad_schedule.c on synthetic logistic data, d = 10,
# beta 3; cost (gradient evaluations) and the z-scores of the released draw
# against a long reference run.  Writes bench/results/betad_schedule.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
bin=$(mktemp /tmp/betad_schedule.XXXXXX)
refs=$(mktemp -d)
trap 'rm -rf "$bin" "$refs"' EXIT
cc -O2 -std=gnu99 $DPB_CORE_INC -Ibench -o "$bin" bench/tools/betad_schedule.c \
	bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
run() {	# corr N W I C R dense
	CORR=$1 REF_CACHE="$refs/ref_$1_$2" OPENBLAS_NUM_THREADS=1 nice "$bin" "$2" "$3" "$4" "$5" "$6" "$7"
	echo
}
{
	echo "# betaD mechanism: choosing the default schedule (NOT PRIVATE study)"
	echo
	echo "\`bash bench/tools/betad_schedule.sh\` ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)); machine: $(nproc) cores"
	echo "shared with other work, so seconds are noisy (gradient evaluations are not). Each replicate runs the"
	echo "chains from prior draws with a seeded generator and releases one uniformly chosen kept draw; z ="
	echo "(draw - mean) / sd per coordinate against a reference run of 4 chains x (2000 + 2000). Exact draws"
	echo "give mean z^2 = 1 and z ~ N(0, 1) (the KS p treats the 11 coordinates of a draw as independent,"
	echo "which they are not quite)."
	echo
	echo '```'
	run 0 10000 1000 1000 4 3 0
	run 0 10000 200 50 4 40 0
	run 0 10000 200 50 4 40 1
	run 0.9 10000 200 50 4 40 0
	run 0.9 10000 200 50 4 40 1
	run 0 100000 200 50 4 8 1
	echo '```'
} | tee bench/results/betad_schedule.md
