#!/usr/bin/env bash
# bench/governed_release.sh — the cost of the governed path
# (docs/governance.md): releases per second through
#
#   G  CALL dpbayes.release('t', 'linear', 'y', '{x1,x2,x3}', p, 'b<i>')
#      (check-and-charge under the dataset lock, COMMIT, the release, the
#      check of its rho, the Ed25519 signature, storing it, COMMIT)
#   B  SELECT dpbayes.linear_release(y, p, x1, x2, x3) FROM t   (the bare
#      aggregate, the same release)
#
# on a BENCH_ROWS-row table (default 10^6), serially
# (max_parallel_workers_per_gather = 0, as the procedure's query runs inside
# a PL/pgSQL EXECUTE in either case), timed by psql's \timing (client
# round trip included for both), runs interleaved B G B G ... after one
# warm-up each.  Reports the medians and the overhead G/B - 1.
#
# Run under the regression lock (it installs the extension):
#   flock /tmp/dpb-regress.lock nice bash bench/governed_release.sh
# Environment: BENCH_ROWS (1000000), BENCH_RUNS (9), BENCH_OUT
# (bench/results/governed_release.md for the defaults), BENCH_SKIP_BUILD=1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

ROWS=${BENCH_ROWS:-1000000}
RUNS=${BENCH_RUNS:-9}
if [ -n "${BENCH_OUT:-}" ]; then
	OUT=$BENCH_OUT
elif [ "$ROWS" = 1000000 ] && [ "$RUNS" = 9 ]; then
	OUT=bench/results/governed_release.md
else
	OUT=bench/results/governed_release.${ROWS}x${RUNS}.tmp
fi
[[ $ROWS =~ ^[1-9][0-9]*$ && $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_ROWS, BENCH_RUNS: positive integers" >&2; exit 2; }
say() { printf '[bench] %s\n' "$*" >&2; }

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	say "make, make install"
	make -s PG_CONFIG="$PG_CONFIG" >&2
	dpb_make_install >&2
fi
pgc_start >&2
psql_() { "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

say "table of $ROWS rows"
psql_ >/dev/null <<SQL
CREATE EXTENSION dpbayes;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE t AS SELECT random() AS x1, random() AS x2, random() AS x3,
       random() - 0.5 AS y FROM generate_series(1, $ROWS);
VACUUM ANALYZE t;
SELECT dpbayes.register_dataset('t', 1e12, 1e-6);
SQL

P="dpbayes.privacy(epsilon => 1, delta => 1e-7, y_bound => 1, lower => '{0,0,0}', upper => '{1,1,1}')"
script=$(mktemp)
{
	echo "SET max_parallel_workers_per_gather = 0;"
	echo '\timing on'
	for i in $(seq 0 "$RUNS"); do
		echo "\\echo B$i"
		echo "SELECT dpbayes.linear_release(y, $P, x1, x2, x3) IS NOT NULL FROM t;"
		echo "\\echo G$i"
		echo "CALL dpbayes.release('t', 'linear', 'y', '{x1,x2,x3}', $P, 'b$i');"
	done
} >"$script"
say "$RUNS interleaved runs of each (+1 warm-up)"
raw=$(psql_ -At -f "$script")
rm -f "$script"
# "B3" / "G3" lines, each followed (after the query's output) by "Time: x ms"
times=$(awk '/^[BG][0-9]+$/ { tag = $1; next } /^Time: / && tag != "" { print substr(tag, 1, 1), substr(tag, 2), $2; tag = "" }' <<<"$raw")
check=$(psql_ -At -c "SELECT count(*) FILTER (WHERE status = 'released'), count(*) FROM dpbayes.charge")
pgc_stop >&2

med() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mB=$(awk '$1 == "B" && $2 > 0 { print $3 }' <<<"$times" | med)
mG=$(awk '$1 == "G" && $2 > 0 { print $3 }' <<<"$times" | med)
over=$(awk -v g="$mG" -v b="$mB" 'BEGIN { printf "%.1f", 100 * (g / b - 1) }')
{
	echo "# Governed release vs the bare aggregate ($ROWS rows, d = 3, linear, Gaussian)"
	echo
	echo "bench/governed_release.sh, $(date -u +%Y-%m-%d), PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}')."
	echo "**Shared machine**: 2 cores shared by several workers (run with nice); medians of $RUNS"
	echo "interleaved runs after a warm-up, serial plans, client-side \\timing."
	echo
	echo "| path | median ms | releases/s |"
	echo "|---|---|---|"
	echo "| bare aggregate \`SELECT dpbayes.linear_release(...) FROM t\` | $mB | $(awk -v m="$mB" 'BEGIN { printf "%.2f", 1000 / m }') |"
	echo "| governed \`CALL dpbayes.release(...)\` (charge, commit, release, sign, store, commit) | $mG | $(awk -v m="$mG" 'BEGIN { printf "%.2f", 1000 / m }') |"
	echo
	echo "Overhead of the governed path: **$over %** (goal: well under 10 %)."
	echo "Charges released / made: $check (one per governed run, warm-up included)."
	echo
	echo "Raw times (ms):"
	echo
	echo '```'
	echo "$times"
	echo '```'
} | tee "$OUT"
