#!/usr/bin/env bash
# test/seed_sweep.sh — rerun the C unit tests on other seeds and under other
# OpenBLAS kernels, to check that no verdict rests on where one fixed-seed
# chain lands (test/unit.h, USEED).
#
#   bash test/seed_sweep.sh [SHIFTS] [KERNELS] [TESTS]
#
#   SHIFTS   seed shifts, e.g. "0 1 2 3" (default "1 2 3 4")
#   KERNELS  OPENBLAS_CORETYPE values, "native" for the CPU's own
#            (default "native")
#   TESTS    unit test names (test/unit_main.c), default all
#
# Runs two at a time (JOBS=n to change) and prints every FAIL line with its
# shift and kernel, then one line per run: "<kernel> shift <k>: N passed,
# N failed".  Exit status 1 if any run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shifts=${1:-"1 2 3 4"}
kernels=${2:-native}
tests=${3:-}
jobs=${JOBS:-2}
make -s test/unit_run >/dev/null || exit 2
out=$(mktemp -d)
run_one() {
	local k=$1 s=$2 f="$out/$1.$2"
	if [ "$k" = native ]; then
		env -u OPENBLAS_CORETYPE DPB_TEST_SEED_SHIFT="$s" ./test/unit_run $tests >"$f" 2>&1
	else
		OPENBLAS_CORETYPE=$k DPB_TEST_SEED_SHIFT="$s" ./test/unit_run $tests >"$f" 2>&1
	fi
}
running=0
for k in $kernels; do
	for s in $shifts; do
		run_one "$k" "$s" &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n
			running=$((running - 1))
		fi
	done
done
wait
status=0
for k in $kernels; do
	for s in $shifts; do
		f="$out/$k.$s"
		grep '^FAIL' "$f" | sed "s/^/[$k shift $s] /"
	done
done
for k in $kernels; do
	for s in $shifts; do
		f="$out/$k.$s"
		last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" | tail -1)
		echo "$k shift $s: ${last:-no summary (crashed?)}"
		grep -qE '^[0-9]+ passed, 0 failed' "$f" || status=1
	done
done
echo "logs: $out"
exit $status
