#!/usr/bin/env bash
# bench/run_all.sh — what `make bench` runs: every benchmark script in bench/
# (bench/*.sh except this one), in name order, each in its own bash process
# (each starts and stops its own throwaway cluster).  A failing benchmark
# does not stop the others; the exit status is non-zero if any failed.
# The environment is passed through (BENCH_ROWS, BENCH_RUNS, ...: see each
# script and bench/README.md).
#
#   BENCH_ONLY="release_throughput glm_speed"   run only these (names without
#                                               .sh); default: all
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

scripts=()
for f in bench/*.sh; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .sh)
	[ "$name" = run_all ] && continue
	if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $name "* ]]; then
		continue
	fi
	scripts+=("$f")
done
if [ "${#scripts[@]}" -eq 0 ]; then
	echo "no benchmarks in bench/${BENCH_ONLY:+ matching BENCH_ONLY=$BENCH_ONLY}"
	exit 0
fi

failed=()
for f in "${scripts[@]}"; do
	printf '\n======== %s ========\n' "$f"
	start=$(date +%s)
	if bash "$f"; then
		printf '======== %s: ok (%d s) ========\n' "$f" $(($(date +%s) - start))
	else
		printf '======== %s: FAILED (%d s) ========\n' "$f" $(($(date +%s) - start))
		failed+=("$f")
	fi
done

printf '\n%d benchmark(s) run, %d failed%s\n' "${#scripts[@]}" "${#failed[@]}" \
	"$([ "${#failed[@]}" -eq 0 ] || printf ': %s' "${failed[*]}")"
[ "${#failed[@]}" -eq 0 ]
