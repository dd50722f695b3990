#!/usr/bin/env bash
# bench/tools/linear_agree.sh [ARGS...] — do the default linear sampler (NUTS)
# and Gibbs-SS agree on the release of test/test_linear_nuts.c,
# check_agreement() ("laplace N unknown": Laplace, add/remove, N = 50 000,
# epsilon 1, release seed 99), beyond Monte Carlo error?  Builds
# bench/tools/linear_agree.c (with test/sim.c, the unit tests' sim_release)
# against src/core in a temporary directory and runs it under nice with one
# OpenBLAS thread; the results of the last study are in
# bench/results/linear_agree.md.
#
# ARGS are linear_agree's (see the head of linear_agree.c); without them the
# main study: 20 seeds x (NUTS 4 x 2500, Gibbs-SS 4 x 2500 thinned by 40)
# on release 99, per-run lines in $RUNS (default /tmp/linear_agree_runs.tsv).
# The binary is left in $BIN (default: a temporary file, removed at exit).
# OPENBLAS_CORETYPE passes through (e.g. OPENBLAS_CORETYPE=Haswell).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BIN:-$tmp/linear_agree}
# shellcheck disable=SC2086
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o "$bin" \
	bench/tools/linear_agree.c test/sim.c $DPB_CORE_SRCS $DPB_CORE_LIBS
if [ $# -eq 0 ]; then
	set -- -R 99 -K 20 -o "${RUNS:-/tmp/linear_agree_runs.tsv}" \
		nuts=nuts:4:2500:1:1000 gibbs=gibbs:4:2500:40:1000
fi
echo "Command: \`${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE }bash bench/tools/linear_agree.sh $*\`"
echo "Machine: $(nproc) cores (shared), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OpenBLAS 1 thread${OPENBLAS_CORETYPE:+, OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE}; $(date -u +%Y-%m-%d)."
echo
OPENBLAS_NUM_THREADS=1 nice -n 10 "$bin" "$@"
