#!/usr/bin/env bash
# bench/governed_release.sh — the cost of the governed path
# (docs/governance.md; issue 23: "the governed path's overhead stays under
# 10 % at 10^6 rows").  On a throwaway cluster (test/pgcluster.sh) it makes a
# table t of BENCH_ROWS rows (default 10^6: x1..x4 double precision in
# [0, 1], a numeric response y, a boolean response yb, a privacy-unit column
# pid, a group column region), sets governance up as a deployment would
# (dpbayes.governance_setup with an owner and an analyst role, the table owned
# by the owner role, register_dataset with a large budget, grant_dataset), and
# times, interleaved:
#
#   B   the bare aggregate, run by the data owner:
#         SELECT dpbayes.linear_release(y, p, x1, x2, x3, x4) IS NOT NULL FROM t
#   G   the governed path, run by an analyst (a fresh request id each time):
#         CALL dpbayes.release('t', 'linear', 'y', '{x1,x2,x3,x4}', p, 'bench-...')
#       (check-and-charge under the dataset lock, COMMIT, the release, the
#       check of its rho, the Ed25519 signature, storing it, COMMIT)
#   BL, GL  the same for logistic_release (response yb)
#   U   the governed path on t_unit, a view of t registered with
#       privacy_unit => 'pid', max_rows_per_unit => 2 (every release first
#       keeps at most 2 random rows per unit: a window sort of the table)
#   BU  diagnostic for U: the owner runs the bare aggregate over the same
#       bounded rows by hand (the FROM item dpbayes._source builds)
#   BG  the bare aggregate per group: ... FROM t GROUP BY region
#   GG  the governed path with public group keys: group_by => 'region',
#       group_keys => '{0,1,2,3,4}' (key 4 has no rows: noise only)
#
# with the same privacy parameters in each pair (add/remove neighbours, the
# same bounds; Gaussian, epsilon 1, delta 1e-6).  Ratios: G/B, GL/BL, U/B
# (what a privacy unit costs in all), U/BU (the governance on top of the
# bounding), GG/BG.
#
# Two modes, interleaved in one session (every round runs both):
#   serial   max_parallel_workers_per_gather = 0 for both sides: the cost of
#            the governance itself, plan for plan (the mode --check judges);
#   default  the server's parallel settings (2 workers per gather): what a user
#            gets.  The governed path's query runs inside a PL/pgSQL
#            FOR ... IN EXECUTE loop, i.e. through a cursor, and PostgreSQL
#            never plans a cursor's query in parallel; the bare aggregate gets
#            2 workers.  How much that costs depends on the free cores: on a
#            busy 2-CPU machine the parallel plan may gain nothing.
#
# Timing: server-side wall time of each top-level statement, from the server
# log (log_min_duration_statement = 0 in the benchmark session; for CALL it
# includes both COMMITs); psql's \timing (client round trip) is recorded too
# and reported as a cross-check.  A warm-up round (not counted), then
# BENCH_RUNS rounds of B G BL GL BU U BG GG in each mode, the order (of the
# modes and of the queries) reversed every other round.  Reported per query: median, min, max; per pair: the ratio of the
# medians, the median of the per-round ratios with a distribution-free
# confidence interval (order statistics, >= 95 %) and their min-max.
#
# Usage:
#   bash bench/governed_release.sh              # 10^6 rows, 11 rounds (about 2 min)
#   bash bench/governed_release.sh --quick      # 10^5 rows, 5 rounds (under a minute)
#   bash bench/governed_release.sh --check      # exit 1 if G/B (ratio of the
#                                               # medians) exceeds 1.10 in the serial
#                                               # mode (in the default mode when
#                                               # run with --modes default)
#   options: --rows N  --runs N  --modes serial,default  --out FILE
#            --skip-build  --check  --quick  -h
#   When other jobs install into the same PostgreSQL, serialise with them:
#     flock /tmp/dpb-regress.lock bash bench/governed_release.sh
#
# Environment (the options override it):
#   BENCH_ROWS=1000000   rows in t
#   BENCH_RUNS=11        counted rounds per mode (after 1 warm-up round)
#   BENCH_MODES=serial,default
#   BENCH_OUT            report file; default bench/results/governed_release.md
#                        for the default rows, runs and modes, otherwise
#                        bench/results/governed_release.<rows>x<runs>.tmp
#                        (ignored by git)
#   BENCH_SKIP_BUILD=1   do not run make / make install
#   BENCH_SHARED_BUFFERS=1GB  so that t stays in shared buffers
#   BENCH_JIT=off        the jit setting of the session (both sides)
#   BENCH_WORK_MEM       work_mem of the session (default: the server's, 4MB;
#                        U and BU sort the table and spill at 4MB)
#   PG_CONFIG            pg_config of the PostgreSQL 15 to build against and run
#   DPBAYES_PGBIN        the server's bin directory (test/pgcluster.sh); when
#                        set without PG_CONFIG, $DPBAYES_PGBIN/pg_config is used
#   DPBAYES_PGPORT, DPBAYES_PGUSER, DPBAYES_KEEP_TMP: see test/pgcluster.sh
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^#   DPBAYES_PGPORT/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

ROWS=${BENCH_ROWS:-1000000}
RUNS=${BENCH_RUNS:-11}
MODES=${BENCH_MODES:-serial,default}
OUT=${BENCH_OUT:-}
SKIP_BUILD=${BENCH_SKIP_BUILD:-0}
SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-1GB}
JIT=${BENCH_JIT:-off}
WORK_MEM=${BENCH_WORK_MEM:-}
CHECK=0
LIMIT=1.10
ARGS=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--rows) ROWS=${2:-}; shift 2 ;;
	--rows=*) ROWS=${1#*=}; shift ;;
	--runs) RUNS=${2:-}; shift 2 ;;
	--runs=*) RUNS=${1#*=}; shift ;;
	--modes) MODES=${2:-}; shift 2 ;;
	--modes=*) MODES=${1#*=}; shift ;;
	--out) OUT=${2:-}; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--quick) ROWS=100000 RUNS=5; shift ;;
	--check) CHECK=1; shift ;;
	--skip-build) SKIP_BUILD=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "governed_release.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
if ! [[ $ROWS =~ ^[1-9][0-9]*$ ]] || [ "$ROWS" -lt 1000 ]; then echo "--rows: an integer >= 1000" >&2; exit 2; fi
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "--runs: a positive integer" >&2; exit 2; }
MODES=${MODES//,/ }
for m in $MODES; do
	case $m in serial | default) ;; *) echo "--modes: serial and/or default, comma-separated" >&2; exit 2 ;; esac
done
[ -n "${MODES// /}" ] || { echo "--modes: serial and/or default" >&2; exit 2; }

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "$OUT" ]; then
	if [ "$ROWS" = 1000000 ] && [ "$RUNS" = 11 ] && [ "$MODES" = "serial default" ]; then
		OUT=bench/results/governed_release.md
	else
		OUT=bench/results/governed_release.${ROWS}x${RUNS}.tmp
	fi
fi
if [ -z "${PG_CONFIG:-}" ] && [ -n "${DPBAYES_PGBIN:-}" ] && [ -x "$DPBAYES_PGBIN/pg_config" ]; then
	export PG_CONFIG=$DPBAYES_PGBIN/pg_config
fi
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

say() { printf '[bench] %s\n' "$*" >&2; }
t_start=$(date +%s)

# ---------------------------------------------------------------- build
if [ "$SKIP_BUILD" != 1 ]; then
	say "make, make install (PG_CONFIG=$PG_CONFIG)"
	make -s PG_CONFIG="$PG_CONFIG" >&2
	dpb_make_install >&2
fi

# ---------------------------------------------------------------- cluster
pgc_start
# shared_buffers and autovacuum need a restart (pgcluster.sh has no hook)
psql -X -q -v ON_ERROR_STOP=1 -c "ALTER SYSTEM SET shared_buffers = '$SHARED_BUFFERS'" \
	-c "ALTER SYSTEM SET autovacuum = off" >/dev/null
_pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -l "$PGC_LOG" -w -t 60 restart >>"$PGC_DIR/pg_ctl.log" 2>&1 || {
	say "restart failed"
	pgc_log 50
	exit 1
}
psql=("$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
"${psql[@]}" -c 'CREATE DATABASE bench' >/dev/null
export PGDATABASE=bench

# ---------------------------------------------------------------- data, governance
UNITS=$(((ROWS + 2) / 3)) # about 3 rows per unit (Poisson), at most 2 kept
KEYS='{0,1,2,3,4}'        # region takes 0..3; key 4 is public but has no rows
say "table t: $ROWS rows; roles, governance_setup, two registered datasets"
"${psql[@]}" >/dev/null <<SQL
CREATE EXTENSION dpbayes;
CREATE ROLE bench_owner NOLOGIN;                         -- data owners
CREATE ROLE bench_analyst NOLOGIN;                       -- analysts
CREATE ROLE bench_alice LOGIN IN ROLE bench_analyst;     -- one analyst
SELECT dpbayes.governance_setup('bench_owner', 'bench_analyst');
GRANT USAGE ON SCHEMA public TO bench_analyst;

SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.23);
CREATE TABLE t AS
SELECT i, pid, region, x1, x2, x3, x4,
       0.4 * x1 - 0.3 * x2 + 0.2 * x3 - 0.1 * x4 + 0.5 * (e - 0.5) AS y,
       u < 1 / (1 + exp(-(2 * x1 - x2 + x3 - 1.5 * x4))) AS yb
FROM (SELECT i, floor(random() * $UNITS)::integer AS pid, floor(random() * 4)::integer AS region,
             random() AS x1, random() AS x2, random() AS x3, random() AS x4,
             random() AS e, random() AS u
      FROM generate_series(1, $ROWS) AS g(i) OFFSET 0) s;
ALTER TABLE t OWNER TO bench_owner;
-- the same rows as a second dataset, with a privacy unit
CREATE VIEW t_unit AS SELECT * FROM t;
ALTER VIEW t_unit OWNER TO bench_owner;
-- the ledger role reads the registered datasets (dpbayes 0.2.0)
GRANT SELECT ON t, t_unit TO dpbayes_ledger;
VACUUM (FREEZE, ANALYZE) t;
CHECKPOINT;

SET SESSION AUTHORIZATION bench_owner;
SELECT dpbayes.register_dataset('t', 1e9, 1e-3);
SELECT dpbayes.register_dataset('t_unit', 1e9, 1e-3, privacy_unit => 'pid', max_rows_per_unit => 2);
SELECT dpbayes.grant_dataset('t', 'bench_analyst');
SELECT dpbayes.grant_dataset('t_unit', 'bench_analyst');
RESET SESSION AUTHORIZATION;
SQL
PGVERSION_FULL=$("${psql[@]}" -At -c 'SELECT version()')
IFS='|' read -r TSIZE NUNITS KEPT YFRAC < <("${psql[@]}" -At -c "
	SELECT pg_size_pretty(pg_table_size('t')), count(*), sum(least(n, 2)), round((SELECT avg(yb::int) FROM t), 3)
	FROM (SELECT count(*) AS n FROM t GROUP BY pid) u")
# the scan must be served from shared buffers (no reads)
"${psql[@]}" -At -c 'SELECT count(*) FROM t' -c 'SELECT count(*) FROM t' >/dev/null
BUFLINE=$("${psql[@]}" -At -c 'SET max_parallel_workers_per_gather = 0' \
	-c 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) SELECT count(x1) FROM t' | grep -m1 'Buffers:' | sed 's/^ *//')
case $BUFLINE in *read=*) say "warning: t is not fully in shared buffers ($BUFLINE)" ;; esac
say "t: $TSIZE, $NUNITS units (at most 2 rows kept of each: $KEPT rows), fraction yb true $YFRAC"

# ---------------------------------------------------------------- queries
P_LIN="dpbayes.privacy(epsilon => 1, delta => 1e-6, y_bound => 1, lower => '{0,0,0,0}', upper => '{1,1,1,1}')"
P_LOG="dpbayes.privacy(epsilon => 1, delta => 1e-6, lower => '{0,0,0,0}', upper => '{1,1,1,1}')"
FEAT='{x1,x2,x3,x4}'
COLS='x1, x2, x3, x4'
QUERIES="B G BL GL BU U BG GG"
# the statement of query $1 with request id $2 (governed ones)
stmt() {
	case $1 in
	B) echo "SELECT dpbayes.linear_release(y, $P_LIN, $COLS) IS NOT NULL FROM t" ;;
	G) echo "CALL dpbayes.release('t', 'linear', 'y', '$FEAT', $P_LIN, '$2')" ;;
	BL) echo "SELECT dpbayes.logistic_release(yb, $P_LOG, $COLS) IS NOT NULL FROM t" ;;
	GL) echo "CALL dpbayes.release('t', 'logistic', 'yb', '$FEAT', $P_LOG, '$2')" ;;
	BU) echo "SELECT dpbayes.linear_release(y, $P_LIN, $COLS) IS NOT NULL FROM (SELECT t.*, row_number() OVER (PARTITION BY t.pid ORDER BY random()) AS rn FROM t) b WHERE rn <= 2" ;;
	U) echo "CALL dpbayes.release('t_unit', 'linear', 'y', '$FEAT', $P_LIN, '$2')" ;;
	BG) echo "SELECT region, dpbayes.linear_release(y, $P_LIN, $COLS) IS NOT NULL FROM t GROUP BY region" ;;
	GG) echo "CALL dpbayes.release('t', 'linear', 'y', '$FEAT', $P_LIN, '$2', group_by => 'region', group_keys => '$KEYS')" ;;
	esac
}
governed() { case $1 in G | GL | U | GG) return 0 ;; *) return 1 ;; esac; }
PAIRS="G/B GL/BL U/B U/BU GG/BG"

# ---------------------------------------------------------------- timed runs
# How busy the machine is besides the benchmark (as in release_throughput.sh):
# CPU time of all processes minus that of the cluster.
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
cluster_cpu() {
	local pm
	pm=$(head -n 1 "$PGC_DATA/postmaster.pid")
	cat /proc/[0-9]*/stat 2>/dev/null | sed 's/^\([0-9]*\) (.*) /\1 /' |
		awk -v pm="$pm" '$1 == pm { s += $13 + $14 + $15 + $16 } $3 == pm { s += $13 + $14 } END { print s + 0 }'
}

# One session, both modes interleaved within every round (so that both see
# the same load): SET max_parallel_workers_per_gather = 0 before a serial
# block, RESET (the server's default) before a default block.  The baselines
# run as bench_owner, the governed requests as bench_alice (SET SESSION
# AUTHORIZATION: session_user is who _charge checks).  Each timed statement
# carries a comment "dpb-bench mode q k" for the server log and is preceded
# by \echo of the same tag for \timing.  Odd rounds reverse the order of
# the modes and of the queries.
mode_set() { if [ "$1" = serial ]; then echo "SET max_parallel_workers_per_gather = 0;"; else echo "RESET max_parallel_workers_per_gather;"; fi; }
rev() { tr ' ' '\n' <<<"$1" | grep . | tac | tr '\n' ' '; }
session_script() {
	local k q mode order morder who
	echo "SET jit = $JIT;"
	[ -z "$WORK_MEM" ] || echo "SET work_mem = '$WORK_MEM';"
	echo "SET log_min_duration_statement = 0;"
	for mode in $MODES; do
		mode_set "$mode"
		echo "SELECT 'settings', '$mode', current_setting('max_parallel_workers_per_gather'), current_setting('work_mem'), current_setting('jit');"
	done
	echo '\timing on'
	for k in $(seq 0 "$RUNS"); do
		order=$QUERIES morder=$MODES
		if [ $((k % 2)) -eq 1 ]; then order=$(rev "$QUERIES") morder=$(rev "$MODES"); fi
		for mode in $morder; do
			mode_set "$mode"
			for q in $order; do
				if governed "$q"; then who=bench_alice; else who=bench_owner; fi
				echo "SET SESSION AUTHORIZATION $who;"
				echo "\\echo T $mode $q $k"
				echo "/* dpb-bench $mode $q $k */ $(stmt "$q" "bench-$mode-$q-$k");"
			done
		done
	done
	echo 'RESET SESSION AUTHORIZATION;'
}

SERVER=$PGC_DIR/times.server CLIENT=$PGC_DIR/times.client
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy0=$(cpu_busy) ours0=$(cluster_cpu) wall0=$(date +%s.%N)
say "1 warm-up round + $RUNS rounds of $QUERIES in each mode ($MODES), interleaved"
session_script >"$PGC_DIR/session.sql"
"${psql[@]}" -At -f "$PGC_DIR/session.sql" >"$PGC_DIR/session.out"
SETTINGS=$(grep '^settings|' "$PGC_DIR/session.out" | awk -F'|' \
	'{ printf "%s%s: max_parallel_workers_per_gather = %s, work_mem = %s, jit = %s", (NR > 1 ? "; " : ""), $2, $3, $4, $5 }')
# "T mode q k", then (after the statement's output) "Time: x ms"
awk '/^T [a-z]+ [A-Z]+ [0-9]+$/ { tag = $2 " " $3 " " $4; next }
     /^Time: / && tag != "" { print tag, $2; tag = "" }' "$PGC_DIR/session.out" >"$CLIENT"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
busy1=$(cpu_busy) ours1=$(cluster_cpu) wall1=$(date +%s.%N)
OTHERS=$(awk -v b="$((busy1 - busy0))" -v o="$((ours1 - ours0))" -v w0="$wall0" -v w1="$wall1" \
	-v hz="$(getconf CLK_TCK)" 'BEGIN { x = (b - o) / hz / (w1 - w0) * 100; printf "%.0f", x < 0 ? 0 : x }')
TIMED_S=$(awk -v a="$wall0" -v b="$wall1" 'BEGIN { printf "%.0f", b - a }')
say "timed runs: ${TIMED_S} s; other processes used ${OTHERS}% of one CPU (load average $LOAD_BEFORE -> $LOAD_AFTER)"
sed -n 's/.*duration: \([0-9.]*\) ms  statement: \/\* dpb-bench \([a-z]*\) \([A-Z]*\) \([0-9]*\) \*\/.*/\2 \3 \4 \1/p' \
	"$PGC_LOG" >"$SERVER"

nmodes=$(wc -w <<<"$MODES")
nq=$(wc -w <<<"$QUERIES")
want=$((nmodes * nq * (RUNS + 1)))
for f in "$SERVER" "$CLIENT"; do
	got=$(wc -l <"$f")
	[ "$got" -eq "$want" ] || { say "error: expected $want timings in $f, got $got"; pgc_log 30; exit 1; }
done

# ---------------------------------------------------------------- checks
# every governed request charged once and released; every release signed
ngov=$((nmodes * 4 * (RUNS + 1)))
nrel=$((nmodes * (3 + 5) * (RUNS + 1)))
LEDGER=$("${psql[@]}" -At -F ' ' -c "
	SELECT (SELECT count(*) FROM dpbayes.charge),
	       (SELECT count(*) FROM dpbayes.charge WHERE status = 'released'),
	       (SELECT count(*) FROM dpbayes.released),
	       (SELECT count(*) FROM dpbayes.charge WHERE relation = 't_unit'::regclass AND unit_rows = 2),
	       (SELECT round(epsilon_spent::numeric, 2) || ' ' || method FROM dpbayes.budget('t'))")
VERIFIED=$("${psql[@]}" -At -F ' ' -c 'SET SESSION AUTHORIZATION bench_alice' -c "
	SELECT count(*) FILTER (WHERE dpbayes.verify(release)), count(*) FROM dpbayes.my_requests")
read -r NCH NRELD NREL NUNITCH SPENT_EPS SPENT_METHOD <<<"$LEDGER"
read -r NVER NMY <<<"$VERIFIED"
say "ledger: $NCH charges ($NRELD released), $NREL releases stored, $NVER of $NMY verify"
if [ "$NCH" != "$ngov" ] || [ "$NRELD" != "$ngov" ] || [ "$NREL" != "$nrel" ] ||
	[ "$NVER" != "$nrel" ] || [ "$NMY" != "$nrel" ] || [ "$NUNITCH" != "$((nmodes * (RUNS + 1)))" ]; then
	say "error: expected $ngov charges, all released, $nrel releases that verify, $((nmodes * (RUNS + 1))) unit charges"
	exit 1
fi
# The plans with the server's default settings, as executed: auto_explain
# logs B's and the query dpbayes._compute runs inside one more governed
# request (after the checks above; not timed).
logsize=$(stat -c %s "$PGC_LOG")
"${psql[@]}" >/dev/null <<SQL
LOAD 'auto_explain';
SET jit = $JIT;
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_analyze = on;
SET auto_explain.log_timing = off;
SET auto_explain.log_buffers = off;
SET SESSION AUTHORIZATION bench_owner;
/* dpb-plan B */ $(stmt B);
SET SESSION AUTHORIZATION bench_alice;
$(stmt G bench-plan-G);
SQL
# plan blocks: the lines starting with a tab after a "plan:" line
PLANS=$(tail -c +"$((logsize + 1))" "$PGC_LOG" | awk '
	function flush() { if (blk ~ /linear_release/) printf "%s", blk; blk = "" }
	/^\t/ { sub(/^\t/, ""); blk = blk $0 "\n"; next }
	{ flush() }
	END { flush() }')
PLAN_B=$(awk '/^Query Text: .*dpb-plan B/ { p = 1; next } /^Query Text:/ { p = 0 } p' <<<"$PLANS")
PLAN_G=$(awk '/^Query Text: SELECT .* AS key, dpbayes.linear_release/ { p = 1; next } /^Query Text:/ { p = 0 } p' <<<"$PLANS")
if [ -z "$PLAN_B" ] || [ -z "$PLAN_G" ]; then say "warning: the plans were not found in the server log"; fi

# ---------------------------------------------------------------- statistics
# lines: Q source mode q median min max             (rounds 1..RUNS)
#        R mode pair ratio_of_medians median_ratio ci_lo ci_hi coverage min max
#          median_difference_ms
STATS=$(awk -v modes="$MODES" -v queries="$QUERIES" -v pairs="$PAIRS" '
	function sort(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	}
	function median(a, n) { sort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	FNR == 1 { src++ }
	$3 > 0 { t[src, $1, $2, $3] = $4; if ($3 > nk) nk = $3 }
	END {
		nm = split(modes, ms, " "); nq = split(queries, qs, " "); np = split(pairs, ps, " ")
		for (s = 1; s <= 2; s++)
			for (mi = 1; mi <= nm; mi++)
				for (qi = 1; qi <= nq; qi++) {
					n = 0; for (k = 1; k <= nk; k++) a[++n] = t[s, ms[mi], qs[qi], k]
					med[s, ms[mi], qs[qi]] = median(a, n)
					printf "Q %s %s %s %.1f %.1f %.1f\n", s == 1 ? "server" : "client", ms[mi], qs[qi], med[s, ms[mi], qs[qi]], a[1], a[n]
				}
		# the distribution-free interval for the median of n per-round
		# ratios: (X_(j), X_(n+1-j)) with the largest j such that
		# P(Bin(n, 1/2) <= j - 1) <= 0.025; coverage 1 - 2 P(Bin <= j - 1)
		cdf = 0; j = 0; c = 1
		for (i = 0; i <= nk; i++) {
			if (i > 0) c = c * (nk - i + 1) / i
			if (cdf + c / 2 ^ nk > 0.025) break
			cdf += c / 2 ^ nk; j = i + 1
		}
		for (mi = 1; mi <= nm; mi++)
			for (pi = 1; pi <= np; pi++) {
				m = ms[mi]; split(ps[pi], qq, "/")
				n = 0; for (k = 1; k <= nk; k++) a[++n] = t[1, m, qq[1], k] / t[1, m, qq[2], k]
				mr = median(a, n)
				if (j >= 1) { lo = a[j]; hi = a[n + 1 - j]; cov = 100 * (1 - 2 * cdf) } else { lo = hi = cov = -1 }
				mn = a[1]; mx = a[n]
				n = 0; for (k = 1; k <= nk; k++) b[++n] = t[1, m, qq[1], k] - t[1, m, qq[2], k]
				printf "R %s %s %.3f %.3f %.3f %.3f %.1f %.3f %.3f %.1f\n", m, ps[pi], med[1, m, qq[1]] / med[1, m, qq[2]], mr, lo, hi, cov, mn, mx, median(b, n)
			}
		# client minus server, per statement (the round trip psql adds)
		n = 0
		for (mi = 1; mi <= nm; mi++) for (qi = 1; qi <= nq; qi++) for (k = 1; k <= nk; k++)
			a[++n] = t[2, ms[mi], qs[qi], k] - t[1, ms[mi], qs[qi], k]
		printf "D %.2f %.2f %.2f\n", median(a, n), a[1], a[n]
	}' "$SERVER" "$CLIENT")

qname() {
	case $1 in
	B) echo "B: \`linear_release\` aggregate (owner)" ;;
	G) echo "G: \`CALL dpbayes.release(... 'linear' ...)\` (analyst)" ;;
	BL) echo "BL: \`logistic_release\` aggregate (owner)" ;;
	GL) echo "GL: \`CALL dpbayes.release(... 'logistic' ...)\` (analyst)" ;;
	BU) echo "BU: aggregate over ≤ 2 random rows per unit, by hand (owner)" ;;
	U) echo "U: \`CALL dpbayes.release('t_unit', ...)\`, privacy unit, k = 2 (analyst)" ;;
	BG) echo "BG: aggregate \`GROUP BY region\` (owner)" ;;
	GG) echo "GG: \`CALL dpbayes.release(..., group_by => 'region', group_keys => '$KEYS')\` (analyst)" ;;
	esac
}
pname() {
	case $1 in
	G/B) echo "**G/B** (linear: governed / bare)" ;;
	GL/BL) echo "GL/BL (logistic)" ;;
	U/B) echo "U/B (privacy unit, in all)" ;;
	U/BU) echo "U/BU (privacy unit, governance on top of the bounding)" ;;
	GG/BG) echo "GG/BG (5 group keys)" ;;
	esac
}

TIMES_TABLE="| mode | query | median ms | min ms | max ms |"$'\n'"|---|---|---:|---:|---:|"$'\n'
while read -r tag src m q med lo hi; do
	[ "$tag" = Q ] && [ "$src" = server ] || continue
	TIMES_TABLE+="| $m | $(qname "$q") | $med | $lo | $hi |"$'\n'
done <<<"$STATS"
RATIO_TABLE="| mode | ratio | ratio of medians | median of per-round ratios | CI of that median | min–max per round | median difference, ms |"$'\n'
RATIO_TABLE+="|---|---|---:|---:|---|---|---:|"$'\n'
# --check judges the serial mode (the default mode if it is the only one)
JUDGED=default
case " $MODES " in *" serial "*) JUDGED=serial ;; esac
VERDICT="" FAILED=0
while read -r tag m p rom mr lo hi cov mn mx dif; do
	[ "$tag" = R ] || continue
	if [ "$cov" = "-1.0" ]; then ci="(too few rounds)"; else ci="$lo–$hi (${cov} %)"; fi
	RATIO_TABLE+="| $m | $(pname "$p") | $rom | $mr | $ci | $mn–$mx | $dif |"$'\n'
	if [ "$p" = G/B ]; then
		ok=$(awk -v r="$rom" -v l="$LIMIT" 'BEGIN { print (r <= l) ? "yes" : "no" }')
		VERDICT+="* $m: G/B = $rom (ratio of the medians), overhead $(awk -v r="$rom" 'BEGIN { printf "%+.1f", 100 * (r - 1) }') %: "
		if [ "$ok" = yes ]; then VERDICT+="within ${LIMIT}"; else VERDICT+="**over ${LIMIT}**"; fi
		if [ "$m" = "$JUDGED" ]; then
			VERDICT+=" (the mode \`--check\` judges)"
			[ "$ok" = yes ] || FAILED=1
		fi
		VERDICT+=$'\n'
	fi
done <<<"$STATS"
read -r _ DMED DMIN DMAX < <(grep '^D ' <<<"$STATS")

# ---------------------------------------------------------------- report
CPU=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//' || true)
MEM=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- src dpbayes--*.sql dpbayes.mk 2>/dev/null)" ]; then
	COMMIT+=" plus uncommitted changes in src/"
fi
NOW=$(date -u '+%Y-%m-%d %H:%M UTC')
CMD="bash bench/governed_release.sh${ARGS[*]:+ ${ARGS[*]}}"
QUIET_NOTE=""
if [ "$OTHERS" -gt 15 ]; then
	QUIET_NOTE=" **The machine was not quiet: the times are inflated and the ratios noisy.**"
fi
if [ "$CHECK" = 1 ]; then
	CHECK_NOTE="Checked (\`--check\`): the run fails if G/B, the ratio of the medians, exceeds $LIMIT in the $JUDGED mode: $([ "$FAILED" = 1 ] && echo '**failed**' || echo passed)."
else
	CHECK_NOTE="Not judged (\`--check\` fails the run when G/B, the ratio of the medians, exceeds $LIMIT in the $JUDGED mode)."
fi
elapsed=$(($(date +%s) - t_start))
# in the order they ran (the client's file is in that order)
RAW=$(awk 'BEGIN { print "round mode     query server_ms client_ms" }
	FNR == NR { s[$1, $2, $3] = $4; next }
	{ printf "%5d %-8s %-5s %9.1f %9.1f\n", $3, $1, $2, s[$1, $2, $3], $4 }' "$SERVER" "$CLIENT")

REPORT=$(cat <<EOF
# The governed path against the bare aggregate ($ROWS rows, d = 4)

Written by \`$CMD\` (\`make bench\` runs it with the defaults); the header
of bench/governed_release.sh says what is measured.

* date: $NOW; dpbayes commit $COMMIT
* machine: $(nproc) CPUs ($CPU), $MEM RAM; shared with other jobs
* server: $PGVERSION_FULL (\`$PGC_BIN\`); shared_buffers = $SHARED_BUFFERS, autovacuum = off;
  t ($TSIZE) is read from shared buffers (\`$BUFLINE\`)
* session: $SETTINGS
* table t: $ROWS rows, x1..x4 in [0, 1], y numeric, yb boolean (fraction true $YFRAC),
  pid with $NUNITS units (about 3 rows each; at most 2 kept: $KEPT rows), region 0..3
* set-up as a deployment: roles bench_owner (owns t and the view t_unit) and
  bench_analyst, \`dpbayes.governance_setup\`, \`register_dataset('t', 1e9, 1e-3)\`,
  \`register_dataset('t_unit', 1e9, 1e-3, privacy_unit => 'pid', max_rows_per_unit => 2)\`,
  \`grant_dataset\` to bench_analyst; the governed requests run as bench_alice (a
  member of bench_analyst), the bare aggregates as bench_owner
* privacy: linear \`$P_LIN\`; logistic \`$P_LOG\`
  (Gaussian, add/remove neighbours); the bare aggregates return \`IS NOT NULL\` (no
  release text to the client)
* timing: server-side wall time of each statement (server log,
  \`log_min_duration_statement = 0\`; for CALL both commits included); 1 warm-up round,
  then $RUNS rounds of $QUERIES in each mode, the modes interleaved in every round and
  the order (of the modes and of the queries) reversed every other round; psql's
  \\timing was $DMED ms higher per statement (median; $DMIN to $DMAX)
* ratios: per round (e.g. G_k / B_k), their median with a distribution-free
  confidence interval (order statistics of the per-round ratios, coverage in
  brackets), and the ratio of the medians; the median per-round difference
  (e.g. G_k - B_k) in ms
* other load: during the timed runs (${TIMED_S} s) processes other than the benchmark's
  cluster used ${OTHERS}% of one CPU (of $(nproc)); load average $LOAD_BEFORE before,
  $LOAD_AFTER after.$QUIET_NOTE
* ledger after the runs: $NCH charges, all released; $NREL releases stored, every one
  verifies (\`dpbayes.verify\`); ε spent on t: $SPENT_EPS ($SPENT_METHOD)

## Times

$TIMES_TABLE
## Ratios

$RATIO_TABLE
Overhead of the governed path (issue 23: under 10 % at 10^6 rows):

$VERDICT
$CHECK_NOTE

The modes: **serial** (\`max_parallel_workers_per_gather = 0\` on both sides)
measures the governance itself, the same plan on both sides; **default** (the
server's parallel settings) is what a user gets: the bare aggregate runs with
parallel workers, the governed path cannot (its query runs in a PL/pgSQL
\`FOR ... IN EXECUTE\` loop, a cursor, which PostgreSQL never plans in
parallel). What that costs depends on how many cores are free: with 2 CPUs
shared by the leader, its 2 workers and other jobs, the parallel plan gains
little or nothing, and the default-mode ratios swing with the other load. The
plans with the default settings:

\`\`\`
-- B, the bare aggregate (EXPLAIN ANALYZE by auto_explain)
$PLAN_B
-- the query dpbayes._compute runs inside CALL dpbayes.release for G (auto_explain, nested)
$PLAN_G
\`\`\`

## Rerun

\`\`\`sh
bash bench/governed_release.sh                 # the default report (10^6 rows, 11 rounds, both modes)
bash bench/governed_release.sh --quick         # 10^5 rows, 5 rounds: a quick look (.tmp report)
bash bench/governed_release.sh --check         # exit 1 when G/B > $LIMIT (serial mode)
PG_CONFIG=/path/to/pg_config bash bench/governed_release.sh   # another PostgreSQL 15
\`\`\`

The whole run took ${elapsed} s, including build, data and checks.

## Raw times (ms), in the order they ran

\`\`\`
$RAW
\`\`\`
EOF
)

printf '%s\n' "$REPORT"
mkdir -p "$(dirname "$OUT")"
printf '%s\n' "$REPORT" >"$OUT"
say "report written to $OUT"
pgc_stop
if [ "$CHECK" = 1 ] && [ "$FAILED" = 1 ]; then
	say "check failed: G/B over $LIMIT in the $JUDGED mode"
	exit 1
fi
exit 0
