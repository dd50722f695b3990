#!/usr/bin/env bash
# bench/release_state_overhead.sh — does the state dpbayes.release_state
# (issue 27: what lets Citus push the array-form release aggregates down)
# cost anything on one server, against the internal state the array form
# had before (and the column form still has)?
#
#   S  SELECT dpbayes.logistic_release(x, y, p) FROM t: the array form, state
#      dpbayes.release_state (an expanded object updated in place; flattened
#      only when a parallel worker hands its partial state to the leader)
#   I  the same aggregate over the internal state: a temporary aggregate on
#      the C entry points of dpbayes 0.1.0 (dpbayes_logistic_trans,
#      _release_combine, _release_serialize, _release_deserialize,
#      dpbayes_logistic_final), which the library keeps
#   C  the column form (internal state), logistic_release(y, p, x1..x10),
#      for reference
#
# d = 10, x stored as a float8[] column for S and I (no array built per row),
# as ten float8 columns for C.  Serially and with 2 parallel workers; runs
# interleaved (S I C S I C ...), time = "Execution Time" of EXPLAIN
# (ANALYZE, TIMING OFF); the median of BENCH_RUNS runs after one warm-up.
# Also checks that S and I give the same release (same test seed).
#
# Environment: BENCH_ROWS (1000000), BENCH_RUNS (7), BENCH_OUT (default
# bench/results/release_state_overhead.md for the default size and runs),
# BENCH_SKIP_BUILD=1, and DPBAYES_PGPORT, PG_CONFIG, DPBAYES_PGBIN
# (test/pgcluster.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

ROWS=${BENCH_ROWS:-1000000}
RUNS=${BENCH_RUNS:-7}
if [ -n "${BENCH_OUT:-}" ]; then
	OUT=$BENCH_OUT
elif [ "$ROWS" = 1000000 ] && [ "$RUNS" = 7 ]; then
	OUT=bench/results/release_state_overhead.md
else
	OUT=bench/results/release_state_overhead.${ROWS}x${RUNS}.tmp
fi
say() { printf '[bench] %s\n' "$*" >&2; }

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	say "make, make install"
	make -s PG_CONFIG="$PG_CONFIG" >&2
	dpb_make_install >&2
fi
pgc_start >&2
psql -X -q -c "ALTER SYSTEM SET shared_buffers = '512MB'" -c "ALTER SYSTEM SET jit = off" >/dev/null
_pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -l "$PGC_LOG" -w restart >/dev/null
libdir=$("$PG_CONFIG" --pkglibdir)

say "table of $ROWS rows"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dpbayes;
CREATE TABLE t AS
SELECT ARRAY[x1, x2, x3, x4, x5, x6, x7, x8, x9, x10]::float8[] AS x, y,
       x1::float8 AS x1, x2::float8 AS x2, x3::float8 AS x3, x4::float8 AS x4, x5::float8 AS x5,
       x6::float8 AS x6, x7::float8 AS x7, x8::float8 AS x8, x9::float8 AS x9, x10::float8 AS x10
FROM (SELECT (i % 97) / 97.0 AS x1, (i % 89) / 89.0 AS x2, (i % 83) / 83.0 AS x3, (i % 79) / 79.0 AS x4,
             (i % 73) / 73.0 AS x5, (i % 71) / 71.0 AS x6, (i % 67) / 67.0 AS x7, (i % 61) / 61.0 AS x8,
             (i % 59) / 59.0 AS x9, (i % 53) / 53.0 AS x10, (i % 7) < 3 AS y
      FROM generate_series(1, $ROWS) i) s;
VACUUM ANALYZE t;
-- the internal state of dpbayes 0.1.0, on the entry points the library keeps
CREATE FUNCTION public.lt_internal(internal, float8[], boolean, dpbayes.privacy) RETURNS internal
AS '$libdir/dpbayes', 'dpbayes_logistic_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE public.logistic_internal(float8[], boolean, dpbayes.privacy) (
    SFUNC = public.lt_internal, STYPE = internal, FINALFUNC = dpbayes._logistic_final,
    COMBINEFUNC = dpbayes._release_combine, SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize, PARALLEL = SAFE);
SELECT count(*) FROM t;
SQL

P="dpbayes.privacy(epsilon => 1, lower => '{0,0,0,0,0,0,0,0,0,0}', upper => '{1,1,1,1,1,1,1,1,1,1}')"
Q_S="SELECT dpbayes.logistic_release(x, y, $P) FROM t"
Q_I="SELECT public.logistic_internal(x, y, $P) FROM t"
Q_C="SELECT dpbayes.logistic_release(y, $P, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10) FROM t"

same=$(psql -X -At <<SQL
SET dpbayes.insecure_noise_seed = 5;
CREATE TEMP TABLE a AS $Q_S;
SET dpbayes.insecure_noise_seed = 6;
SET dpbayes.insecure_noise_seed = 5;
CREATE TEMP TABLE b AS $Q_I;
SELECT (SELECT logistic_release::text FROM a) = (SELECT logistic_internal::text FROM b);
SQL
)
same=$(tail -n 1 <<<"$same")
say "S and I give the same release: $same"

# times (ms) of each query in one session: "name ms" lines
run_mode() {
	local workers=$1 sql i
	sql="SET max_parallel_workers_per_gather = $workers; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;"
	for i in $(seq 0 "$RUNS"); do
		for q in S I C; do
			local qq
			case $q in S) qq=$Q_S ;; I) qq=$Q_I ;; C) qq=$Q_C ;; esac
			sql+=" SELECT '$q $i'; EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $qq;"
		done
	done
	psql -X -At -c "$sql" | awk '/^[SIC] [0-9]+$/ { q = $1; r = $2; next }
		/^Execution Time:/ { if (r > 0) print q, $3 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A med
for w in 0 2; do
	say "runs with $w parallel workers"
	res=$(run_mode $w)
	for q in S I C; do
		med[$q$w]=$(awk -v q=$q '$1 == q { print $2 }' <<<"$res" | median)
	done
done
pgc_stop >&2

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
{
	echo "# release_state vs the internal state on one server"
	echo
	echo "\`bash bench/release_state_overhead.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores shared with other work,"
	echo "PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}'), $ROWS rows, d = 10, median of $RUNS runs after a warm-up,"
	echo "runs interleaved; Execution Time of EXPLAIN ANALYZE, ms)."
	echo
	echo "| query | serial | 2 parallel workers |"
	echo "|---|---|---|"
	echo "| S: array form, state \`dpbayes.release_state\` | ${med[S0]} | ${med[S2]} |"
	echo "| I: array form, internal state (0.1.0) | ${med[I0]} | ${med[I2]} |"
	echo "| C: column form, internal state | ${med[C0]} | ${med[C2]} |"
	echo "| S / I | $(ratio "${med[S0]}" "${med[I0]}") | $(ratio "${med[S2]}" "${med[I2]}") |"
	echo
	echo "S and I give the same release under the same test seed: $same."
} | tee "$OUT"
