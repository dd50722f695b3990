#!/usr/bin/env bash
# bench/citus_release.sh — a release over a table distributed by Citus
# (issue 27, docs/scale-out.md) against one server holding the same rows.
#
# A coordinator and two workers on this machine (test/citus.sh), a table of
# BENCH_ROWS rows (default 10^7; y boolean and d = 10 float8 features, plus
# an id) distributed on id in 32 shards, and the same rows in an ordinary
# table of the coordinator (the one server: the standard executor, no
# Citus in the plan).  Measured, BENCH_RUNS times interleaved, wall time at
# the client (psql \timing), median:
#
#   D   logistic_release(ARRAY[x1..x10], y, p) over the distributed table:
#       each shard's worker_partial_agg, the states combined on the
#       coordinator (Citus's default executor settings)
#   L1  the same query over the local table, serially
#   L2  the same, with 2 parallel workers (the machine has 2 cores)
#   LC  the column form logistic_release(y, p, x1, ..., x10) over the local
#       table, serially: the fastest single-server form
#
# and the bytes the coordinator receives, against the table's size
# (citus_table_size):
#
#   D   the 32 partial states: the sum over the shards of the length of the
#       worker_partial_agg value each sends (run_command_on_shards runs the
#       task's aggregate on every shard).  Citus 12.1's EXPLAIN ANALYZE
#       cannot run these tasks: it wraps each in worker_save_query_explain_
#       analyze(...) AS (field_0 cstring), and a column cannot have the
#       pseudo-type cstring ("column field_0 has pseudo-type cstring")
#   DC  the column form over the distributed table (VARIADIC "any": Citus
#       gathers the rows): "Tuple data received from nodes" of EXPLAIN
#       (ANALYZE), run with citus.enable_binary_protocol = off (with the
#       binary protocol, Citus 12.1's EXPLAIN ANALYZE of this query fails on
#       the boolean column); its wall time is measured once, plainly
#
# The releases of D and L1 are checked to be the same under the same test
# seed.
#
# On one machine the two workers share its cores with the coordinator and
# with everything else running: the ratio of the times is reported, not a
# speed-up; the bytes are the point (O(shards x statistics), not rows).
#
# Environment: BENCH_ROWS (10000000), BENCH_RUNS (5), BENCH_OUT (default
# bench/results/citus_release.md for the default size and runs, else
# bench/results/citus_release.<rows>x<runs>.tmp), BENCH_SKIP_BUILD=1,
# BENCH_SKIP_GATHER=1 (no gathered column-form run), DPBAYES_CITUS_PORT
# (54370 here), PG_CONFIG, DPBAYES_PGBIN (test/pgcluster.sh).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh
# shellcheck source=test/citus.sh
source test/citus.sh

ROWS=${BENCH_ROWS:-10000000}
RUNS=${BENCH_RUNS:-5}
if [ -n "${BENCH_OUT:-}" ]; then
	OUT=$BENCH_OUT
elif [ "$ROWS" = 10000000 ] && [ "$RUNS" = 5 ]; then
	OUT=bench/results/citus_release.md
else
	OUT=bench/results/citus_release.${ROWS}x${RUNS}.tmp
fi
say() { printf '[bench] %s\n' "$*" >&2; }
t_start=$(date +%s)

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	say "make, make install"
	make -s PG_CONFIG="$PG_CONFIG" >&2 || exit 1
	dpb_make_install >&2 || exit 1
fi
citus_ensure >&2 || { say "Citus: $CITUS_SKIPPED"; exit 1; }
export DPBAYES_CITUS_PORT=${DPBAYES_CITUS_PORT:-54370}
# the workers hold half the table each, the coordinator the local copy
export DPBAYES_CITUS_CONF="shared_buffers = 1536MB
max_parallel_workers_per_gather = 0
jit = off"
trap citus_stop EXIT
trap 'citus_stop; trap - INT; kill -s INT $$' INT
trap 'citus_stop; trap - TERM; kill -s TERM $$' TERM
citus_start >&2 || exit 1
q() { _cit_psql 0 -v ON_ERROR_STOP=1 "$@"; }

say "loading $ROWS rows twice (distributed in 32 shards; local on the coordinator)"
t0=$(date +%s)
q <<SQL || exit 1
SET client_min_messages = warning;
CREATE EXTENSION dpbayes;
SET citus.shard_count = 32;
CREATE TABLE t (id bigint, y boolean, x1 float8, x2 float8, x3 float8, x4 float8, x5 float8,
                x6 float8, x7 float8, x8 float8, x9 float8, x10 float8);
SELECT create_distributed_table('t', 'id');
CREATE VIEW gen AS
SELECT i AS id, (sin(i * 0.7) + 0.5 * cos(i * 1.1) + 0.3 * sin(i * 2.3)) > 0 AS y,
       sin(i * 0.7) AS x1, cos(i * 1.1) AS x2, sin(i * 1.3) AS x3, cos(i * 1.7) AS x4,
       sin(i * 1.9) AS x5, cos(i * 2.3) AS x6, sin(i * 2.9) AS x7, cos(i * 3.1) AS x8,
       sin(i * 3.7) AS x9, cos(i * 4.1) AS x10
FROM generate_series(1::bigint, $ROWS) i;
CREATE TABLE t_local AS SELECT * FROM gen;
INSERT INTO t SELECT * FROM gen;
VACUUM ANALYZE t_local;
VACUUM ANALYZE t;
SQL
load_s=$(($(date +%s) - t0))
say "loaded in $load_s s"

P="dpbayes.privacy(epsilon => 1, lower => '{-1,-1,-1,-1,-1,-1,-1,-1,-1,-1}', upper => '{1,1,1,1,1,1,1,1,1,1}')"
XS="x1, x2, x3, x4, x5, x6, x7, x8, x9, x10"
Q_D="SELECT dpbayes.logistic_release(ARRAY[$XS], y, $P) FROM t"
Q_L="SELECT dpbayes.logistic_release(ARRAY[$XS], y, $P) FROM t_local"
Q_LC="SELECT dpbayes.logistic_release(y, $P, $XS) FROM t_local"
Q_DC="SELECT dpbayes.logistic_release(y, $P, $XS) FROM t"

same=$(q -At <<SQL | tail -n 1
SET dpbayes.insecure_noise_seed = 2; SET dpbayes.insecure_noise_seed = 1;
CREATE TEMP TABLE a AS $Q_D;
SET dpbayes.insecure_noise_seed = 2; SET dpbayes.insecure_noise_seed = 1;
CREATE TEMP TABLE b AS $Q_L;
SELECT (SELECT logistic_release::text FROM a) = (SELECT logistic_release::text FROM b);
SQL
)
say "the distributed and the local release are the same (same seed): $same"

# warm-up, then RUNS interleaved rounds; "name ms" lines
timings() {
	local i sql="\\timing on
SET max_parallel_workers_per_gather = 0;
"
	for i in $(seq 0 "$RUNS"); do
		sql+="\\echo @D $i
$Q_D;
\\echo @L1 $i
$Q_L;
SET max_parallel_workers_per_gather = 2;
\\echo @L2 $i
$Q_L;
SET max_parallel_workers_per_gather = 0;
\\echo @LC $i
$Q_LC;
"
	done
	q -At <<<"$sql" | awk '/^@/ { k = substr($1, 2); r = $2; next }
		/^Time: / { if (r > 0) print k, $2 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
say "timing $RUNS rounds (D L1 L2 LC) after a warm-up"
res=$(timings)
declare -A med
for k in D L1 L2 LC; do
	med[$k]=$(awk -v k=$k '$1 == k { print $2 }' <<<"$res" | median)
done

say "bytes received by the coordinator"
plan_d=$(q -At -c "EXPLAIN (VERBOSE, COSTS OFF) $Q_D")
tasks_d=$(sed -n 's/.*Task Count: \([0-9]*\).*/\1/p' <<<"$plan_d" | head -n 1)
bytes_d=$(q -At <<SQL
SELECT sum(result::bigint) || ' ' || count(*) || ' ' || min(result::bigint) || ' ' || max(result::bigint)
FROM run_command_on_shards('t', \$\$SELECT octet_length(pg_catalog.worker_partial_agg(
    'dpbayes.logistic_release(double precision[],boolean,dpbayes.privacy)'::regprocedure,
    ROW(ARRAY[$XS], y, $P))::text) FROM %s\$\$) WHERE success;
SQL
)
read -r bytes_d nshards min_d max_d <<<"$bytes_d"
sizes=$(q -At -c "SELECT citus_table_size('t'), pg_table_size('t_local')")
size_t=${sizes%%|*}
size_l=${sizes##*|}
bytes_g="" time_g=""
if [ "${BENCH_SKIP_GATHER:-0}" != 1 ]; then
	say "the column form over the distributed table (rows gathered; slow): once plainly, once EXPLAIN ANALYZE"
	t0=$(date +%s%N)
	q -At -c "$Q_DC" >/dev/null
	time_g=$((($(date +%s%N) - t0) / 1000000))
	plan_g=$(q -At -c "SET citus.enable_binary_protocol = off" -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $Q_DC")
	bytes_g=$(sed -n 's/.*Tuple data received from nodes: \([0-9.]*\) \([kMG]*B\|bytes\).*/\1 \2/p' <<<"$plan_g" | head -n 1)
fi
citus_stop

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }
{
	echo "# A release over a table distributed by Citus, against one server"
	echo
	echo "\`bash bench/citus_release.sh\` ($(date -u +%Y-%m-%d); Citus $CITUS_VERSION, PostgreSQL"
	echo "$("$PG_CONFIG" --version | awk '{print $2}'); a coordinator and two workers on one machine with $(nproc) cores"
	echo "shared with other work; $ROWS rows, y boolean and d = 10 double precision features, distributed on"
	echo "id in 32 shards; the one server is an ordinary table of the coordinator with the same rows;"
	echo "logistic_release at epsilon = 1; wall time at the client, median of $RUNS interleaved rounds after"
	echo "a warm-up; loading took $load_s s)."
	echo
	echo "| query | time (ms) | / D |"
	echo "|---|---|---|"
	echo "| D: array form over the distributed table (worker_partial_agg on the 32 shards, combined on the coordinator) | ${med[D]} | 1 |"
	echo "| L1: the same query over the local table, serial | ${med[L1]} | $(ratio "${med[L1]}" "${med[D]}") |"
	echo "| L2: the same, 2 parallel workers | ${med[L2]} | $(ratio "${med[L2]}" "${med[D]}") |"
	echo "| LC: column form over the local table, serial (the fastest single-server form) | ${med[LC]} | $(ratio "${med[LC]}" "${med[D]}") |"
	echo
	echo "The distributed and the single-server release are the same, bit for bit, under the same test"
	echo "seed: $same."
	echo
	echo "## Bytes received by the coordinator"
	echo
	echo "| | bytes |"
	echo "|---|---|"
	echo "| the distributed table (citus_table_size) | $size_t ($(mb "$size_t")) |"
	echo "| the local copy (pg_table_size) | $size_l ($(mb "$size_l")) |"
	echo "| D: the $nshards partial states of the $tasks_d tasks (worker_partial_agg; $min_d to $max_d bytes each) | $bytes_d ($(mb "$bytes_d")) |"
	if [ -n "$bytes_g" ]; then
		echo "| DC: the column form over the distributed table: every row gathered ($time_g ms; text protocol) | $bytes_g |"
	fi
	echo
	echo "D moves $(awk -v b="$bytes_d" -v s="$size_t" 'BEGIN { printf "%.2g", b / s }') times the table's size to the coordinator: O(shards x statistics), independent"
	echo "of the number of rows.  Each state is the \\\\x text of the exact 128-bit sums of its shard"
	echo "(78 totals at d = 10) with the public parameters (docs/scale-out.md)."
	echo
	echo "On this machine the two workers and the coordinator share $(nproc) cores with each other and with"
	echo "the other engineers' work, so the times compare executions, not hardware: on real"
	echo "workers each shard's pass runs on its own node's cores.  Run: $(($(date +%s) - t_start)) s."
	echo
	echo "The plan of D:"
	echo
	echo '```'
	printf '%s\n' "$plan_d" | head -n 20
	echo '```'
} | tee "$OUT"
