#!/usr/bin/env bash
# bench/release_throughput.sh — throughput of dpbayes.logistic_release at
# d = 10 on BENCH_ROWS rows (default 1M), against
#
#   R  the release, in its fastest form (the features as separate
#      arguments, no array per row):
#                    SELECT dpbayes.logistic_release(y, dpbayes.privacy(...),
#                    x1, ..., x10) FROM t
#   RA the same release in the array form (reported as R_arr, for honesty):
#                    SELECT dpbayes.logistic_release(ARRAY[x1..x10], y,
#                    dpbayes.privacy(...)) FROM t
#   A  the same 77 sums in plain SQL (clip as the extension does, then
#      sum(y), sum(y z_j), sum(z_j), sum(z_i z_j), i <= j), without noise:
#      a cost floor for computing the statistics in SQL
#   B  one read of the same columns: SELECT sum(x1 + ... + x10), count(y)
#   AJ A again, with jit = on (PostgreSQL's default; of the four queries only
#      A costs enough for the default jit_above_cost), so that A is not
#      handicapped by the jit = off of the other queries
#   C  (diagnostic, not part of the goals) building the feature arrays only:
#      SELECT count(ARRAY[x1, ..., x10]), count(y); R_arr - C is the time
#      spent in the array form's transition function
#
# each serially (max_parallel_workers_per_gather = 0) and with 2 parallel
# workers.  Time is the "Execution Time" of EXPLAIN (ANALYZE, TIMING OFF),
# measured inside the server, all runs of a mode in one session; the runs
# are interleaved (R RA A AJ B C R RA ...) so that drift of the machine
# hits all queries alike.  Goals (from the issue): A/R >= 3 (judged against
# the faster of A and AJ) and R/B <= 2; the same ratios of R_arr are
# reported beside them.
#
# The report records OPENBLAS_NUM_THREADS as the server sees it: run
# `OPENBLAS_NUM_THREADS=1 bash bench/release_throughput.sh` to measure the
# recommended server setting (see bench/README.md).
#
# Prints a Markdown report and writes it to $BENCH_OUT.
#
# Environment:
#   BENCH_ROWS=1000000    rows in the table
#   BENCH_RUNS=7          timed runs per query and mode (after 1 warm-up)
#   BENCH_OUT             report file; default bench/results/release_throughput.md
#                         for the default size and runs, otherwise
#                         bench/results/release_throughput.<rows>x<runs>.tmp
#                         (ignored by git)
#   BENCH_JIT=off         the jit setting of the benchmark sessions (AJ always
#                         runs with jit = on)
#   BENCH_SHARED_BUFFERS=1GB  so that the table stays in shared buffers (a
#                         seq scan of a table above 1/4 of them uses a ring)
#   BENCH_SKIP_BUILD=1    do not run make / make install
#   DPBAYES_PGPORT, DPBAYES_PGUSER, DPBAYES_KEEP_TMP, PG_CONFIG: see
#                         test/pgcluster.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

ROWS=${BENCH_ROWS:-1000000}
RUNS=${BENCH_RUNS:-7}
JIT=${BENCH_JIT:-off}
SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-1GB}
D=10
if [ -n "${BENCH_OUT:-}" ]; then
	OUT=$BENCH_OUT
elif [ "$ROWS" = 1000000 ] && [ "$RUNS" = 7 ]; then
	OUT=bench/results/release_throughput.md
else
	OUT=bench/results/release_throughput.${ROWS}x${RUNS}.tmp
fi
[[ $ROWS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_ROWS must be a positive integer" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_RUNS must be a positive integer" >&2; exit 2; }

say() { printf '[bench] %s\n' "$*" >&2; }
t_start=$(date +%s)

# ---------------------------------------------------------------- build
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	say "make, make install"
	make -s PG_CONFIG="$PG_CONFIG" >&2
	dpb_make_install >&2
fi

# ---------------------------------------------------------------- queries
# Public bounds: feature j lies in [0, 2j] (the data overshoot them a little,
# so some values are clamped).  Box scaling, clip R = 1: z_j in [-s, s] with
# s = R / sqrt(d), and the whole box lies in the unit ball.
lower="" upper="" cols=""
for j in $(seq 1 $D); do
	lower+="${lower:+, }0"
	upper+="${upper:+, }$((2 * j))"
	cols+="${cols:+, }x$j"
done
PRIV="dpbayes.privacy(epsilon => 1, delta => 1e-5, lower => ARRAY[$lower]::float8[], upper => ARRAY[$upper]::float8[])"
Q_R="SELECT dpbayes.logistic_release(y, $PRIV, $cols) FROM t"
# shellcheck disable=SC2034 # used through ${!v}
Q_RA="SELECT dpbayes.logistic_release(ARRAY[$cols], y, $PRIV) FROM t"

# A: centre and gain computed in double precision exactly as
# src/core/release/clip.c does (centre = lo/2 + hi/2, gain = s / (hi/2 - lo/2)),
# printed with 17 significant digits so that SQL sees the same doubles.
# z_j = (least(greatest(x_j, lo_j), hi_j) - centre_j) * gain_j.  The
# extension also clamps z_j to [-s, s] against rounding and projects onto the
# ball if ||z|| > R; with box scaling neither changes anything (up to the
# last bit), so A leaves them out: A is a lower bound on plain SQL's cost.
# The clipped record is computed once per row in a subquery (OFFSET 0 keeps
# the planner from inlining z_j into each of the 77 sums, which would
# evaluate every z_j 13 times); sy is y as +1 / -1.
zdefs="CASE WHEN y THEN 1.0::float8 ELSE -1.0::float8 END AS sy"
for j in $(seq 1 $D); do
	read -r c g < <(awk -v lo=0 -v hi=$((2 * j)) -v d=$D \
		'BEGIN { s = 1 / sqrt(d); printf "%.17g %.17g\n", 0.5 * lo + 0.5 * hi, s / (0.5 * hi - 0.5 * lo) }')
	zdefs+=", (least(greatest(x$j, 0::float8), $((2 * j))::float8) - $c::float8) * $g::float8 AS z$j"
done
# The 77 sums in the order of the release (layout.h, logistic with
# intercept: block YT1 = y, y z_1..y z_d; block T2 = z_1..z_d, then z_i z_j
# for 1 <= i <= j <= d).
sums="sum(sy)"
for j in $(seq 1 $D); do sums+=", sum(sy * z$j)"; done
for j in $(seq 1 $D); do sums+=", sum(z$j)"; done
for i in $(seq 1 $D); do
	for j in $(seq "$i" $D); do sums+=", sum(z$i * z$j)"; done
done
# the count block of add/remove neighbours (the default) comes last
sums+=", sum(1::float8)"
NSUMS=$(grep -o 'sum(' <<<"$sums" | wc -l)
[ "$NSUMS" -eq $((2 + D + D + D * (D + 1) / 2)) ] || { echo "internal error: $NSUMS sums" >&2; exit 1; }
Q_A="SELECT $sums FROM (SELECT $zdefs FROM t OFFSET 0) q"

bsum=""
for j in $(seq 1 $D); do bsum+="${bsum:+ + }x$j"; done
Q_B="SELECT sum($bsum), count(y) FROM t"
# shellcheck disable=SC2034 # used through ${!v}
Q_AJ=$Q_A
Q_C="SELECT count(ARRAY[$cols]), count(y) FROM t"
QUERIES="R RA A AJ B C"

SET_SERIAL="SET max_parallel_workers_per_gather = 0;"
SET_PARALLEL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
SET_COMMON="SET jit = $JIT;"

# ---------------------------------------------------------------- cluster
pgc_start
# A bigger shared_buffers and no autovacuum need a restart (pgcluster.sh
# has no hook for extra settings).
psql -X -q -v ON_ERROR_STOP=1 -c "ALTER SYSTEM SET shared_buffers = '$SHARED_BUFFERS'" \
	-c "ALTER SYSTEM SET autovacuum = off" -c "ALTER SYSTEM SET max_parallel_workers = 8" >/dev/null
_pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -l "$PGC_LOG" -w -t 60 restart >>"$PGC_DIR/pg_ctl.log" 2>&1 || {
	say "restart failed"
	pgc_log 50
	exit 1
}

psql=(psql -X -q -v ON_ERROR_STOP=1 -P pager=off)
"${psql[@]}" -c 'CREATE DATABASE bench' >/dev/null
export PGDATABASE=bench

xdefs=""
for j in $(seq 1 $D); do
	xdefs+=", $j + 1.05 * $j * sin(i * (0.1 + 0.013 * $j) + $j) AS x$j"
done
say "creating table t: $ROWS rows, x1..x$D double precision, y boolean"
"${psql[@]}" <<SQL
CREATE EXTENSION dpbayes;
CREATE TABLE t AS
SELECT ${xdefs#, },
       (sin(i * 0.7) + cos(i * 0.0131) + ((i::bigint * 7919) % 13) / 13.0 > 0.9) AS y
FROM generate_series(1, $ROWS) AS g(i);
VACUUM (FREEZE, ANALYZE) t;
CHECKPOINT;
SQL

PGVERSION_FULL=$("${psql[@]}" -At -c 'SELECT version()')
IFS='|' read -r TSIZE YFRAC < <("${psql[@]}" -At -c \
	"SELECT pg_size_pretty(pg_table_size('t')), round(avg(y::int), 3) FROM t")
outside=""
for j in $(seq 1 $D); do outside+="(x$j < 0 OR x$j > $((2 * j)))::int + "; done
CLAMPED=$("${psql[@]}" -At -c "SELECT round(avg(($outside 0) / $D.0), 3) FROM t")
say "table t: $TSIZE, fraction y true $YFRAC, fraction of feature values clamped $CLAMPED"

# ---------------------------------------------------------------- checks
say "warm-up and checks"
# The table must stay in shared buffers: two full scans, then no reads.
"${psql[@]}" -At -c "SELECT count(*) FROM t" -c "SELECT count(*) FROM t" >/dev/null
BUFLINE=$("${psql[@]}" -At -c "$SET_COMMON $SET_SERIAL" \
	-c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) $Q_B" | grep -m1 'Buffers:' | sed 's/^ *//')
case $BUFLINE in
*read=*) say "warning: the table is not fully in shared buffers ($BUFLINE)" ;;
esac

# A computes the same statistics as R and R_arr: compare with releases at
# epsilon = 1e12, whose noise is tiny (sd about 1.5e-5); the largest
# |R - A| in units of (the noise sd + the quantisation bound) must be small
# (< 8 with 77 statistics).  The release sums records quantised to 26 bits
# (docs/privacy.md §15): a degree-2 sum of N records (R = 1) moves by at most
# N 2^-26 even when every record rounds the same way (clamped features do).
PRIV_EXACT=${PRIV/epsilon => 1,/epsilon => 1e12,}
for form in R RA; do
if [ "$form" = R ]; then
	rel="dpbayes.logistic_release(y, $PRIV_EXACT, $cols)"
else
	rel="dpbayes.logistic_release(ARRAY[$cols], y, $PRIV_EXACT)"
fi
CHECK=$("${psql[@]}" -At -F ' ' -c "$SET_COMMON $SET_SERIAL" -c "
WITH a AS (SELECT ARRAY[$sums] AS v FROM (SELECT $zdefs FROM t OFFSET 0) q),
     r AS (SELECT $rel AS rel FROM t),
     s AS (SELECT st.k, st.value, st.sd FROM r, dpbayes.release_stats(r.rel)
                  WITH ORDINALITY AS st(block, entry, value, sd, k))
SELECT count(*), round(max(abs(s.value - a.v[s.k]) / (s.sd + $ROWS * power(2, -26) + 1e-12 * abs(a.v[s.k])))::numeric, 2),
       max(s.sd)
FROM s, a")
read -r NCHK MAXDEV MAXSD <<<"$CHECK"
say "$form (epsilon = 1e12, noise sd <= $MAXSD) vs A: $NCHK statistics, max |$form - A| = $MAXDEV (noise sd + quantisation bound)"
if [ "$NCHK" != "$NSUMS" ] || ! awk -v m="$MAXDEV" 'BEGIN { exit !(m + 0 < 8) }'; then
	say "error: plain SQL (A) and the release ($form) disagree"
	exit 1
fi
[ "$form" = R ] && { MAXDEV_R=$MAXDEV; MAXSD_R=$MAXSD; }
done
MAXDEV_RA=$MAXDEV

# The parallel plans: each query must get a Gather with 2 workers, and all
# but A a partial aggregate in the workers.  A cannot have one: PostgreSQL
# does not push a partial aggregate below the (OFFSET 0) subquery, so the
# workers scan and clip and the leader sums; the inlined form does get a
# partial aggregate but evaluates every z_j 13 times and is slower (see
# bench/README.md).
PLANS=""
for q in $QUERIES; do
	[ "$q" = AJ ] && continue
	v=Q_$q
	plan=$("${psql[@]}" -At -c "$SET_COMMON $SET_PARALLEL" -c "EXPLAIN (COSTS OFF) ${!v}")
	if ! grep -q 'Workers Planned: 2' <<<"$plan" ||
		{ [ "$q" != A ] && ! grep -q 'Partial Aggregate' <<<"$plan"; }; then
		say "error: no parallel plan with 2 workers for $q:"
		printf '%s\n' "$plan" >&2
		exit 1
	fi
	if [ "$q" = R ]; then
		say "parallel plan of R:"
		printf '    %s\n' "${plan//$'\n'/$'\n'    }" >&2
	fi
	PLANS+="$q:"$'\n'"    ${plan//$'\n'/$'\n'    }"$'\n'
done

# ---------------------------------------------------------------- timed runs
# A warm-up round (round 0, not reported), then RUNS rounds of $QUERIES.
# Every query runs in a fresh session: a parallel worker loads every library
# its leader has loaded, so in a session that has run R once, the workers of
# every later query (plain SQL too) would load dpbayes.so and its BLAS (about
# 15 ms per process here) and B would look slower than it is.
# Output lines: mode query round ms workers_launched jit_used.
run_mode() {
	local mode=$1 settings=$2 k q v jit
	for k in $(seq 0 "$RUNS"); do
		for q in $QUERIES; do
			v=Q_$q
			jit=$JIT
			[ "$q" != AJ ] || jit=on
			"${psql[@]}" -At -c "SET jit = $jit; $settings" \
				-c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) ${!v}" |
				awk -v key="$mode $q $k" '
					/Workers Launched:/ { w = $NF }
					/^JIT:/ { jit = 1 }
					/^Execution Time:/ { t = $3 }
					END { if (t != "") print key, t, w + 0, jit + 0 }'
		done
	done
}

# How busy the machine is besides the benchmark: CPU time of all processes
# (/proc/stat) minus that of the cluster (the postmaster, its live children
# and, through cutime, its exited children such as parallel workers).
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
cluster_cpu() {
	local pm
	pm=$(head -n 1 "$PGC_DATA/postmaster.pid")
	cat /proc/[0-9]*/stat 2>/dev/null | sed 's/^\([0-9]*\) (.*) /\1 /' |
		awk -v pm="$pm" '$1 == pm { s += $13 + $14 + $15 + $16 } $3 == pm { s += $13 + $14 } END { print s + 0 }'
}

TIMES=$PGC_DIR/times.txt
: >"$TIMES"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy0=$(cpu_busy) ours0=$(cluster_cpu) wall0=$(date +%s.%N)
say "serial: $((RUNS + 1)) rounds of $QUERIES"
run_mode serial "$SET_SERIAL" >>"$TIMES"
say "parallel (2 workers): $((RUNS + 1)) rounds of $QUERIES"
run_mode parallel "$SET_PARALLEL" >>"$TIMES"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
busy1=$(cpu_busy) ours1=$(cluster_cpu) wall1=$(date +%s.%N)
# percent of one CPU used by other processes during the timed runs
OTHERS=$(awk -v b="$((busy1 - busy0))" -v o="$((ours1 - ours0))" -v w0="$wall0" -v w1="$wall1" \
	-v hz="$(getconf CLK_TCK)" 'BEGIN { x = (b - o) / hz / (w1 - w0) * 100; printf "%.0f", x < 0 ? 0 : x }')
say "timed runs: other processes used ${OTHERS}% of one CPU (load average $LOAD_BEFORE -> $LOAD_AFTER)"

nq=$(wc -w <<<"$QUERIES")
n_got=$(awk '$3 > 0' "$TIMES" | wc -l)
[ "$n_got" -eq $((2 * nq * RUNS)) ] || {
	say "error: expected $((2 * nq * RUNS)) timings, got $n_got"
	exit 1
}
# every timed parallel run must have launched its 2 workers
PAR_OK=yes
if awk '$1 == "parallel" && $3 > 0 && $5 != 2 { bad = 1 } END { exit !bad }' "$TIMES"; then
	PAR_OK=no
	say "warning: some parallel runs did not launch 2 workers:"
	awk '$1 == "parallel" && $3 > 0 && $5 != 2' "$TIMES" >&2
fi

# ---------------------------------------------------------------- report
# T mode query median min max rows/s ns/row      (over rounds 1..RUNS)
# Q mode form A/form AJ/form form/B               (medians of per-round values;
#   min(A,AJ)/min form, min form/min B            form = R or RA), then the
#                                                 ratios of the fastest runs
# D mode RA-C                                    (median of per-round values)
STATS=$(awk -v rows="$ROWS" -v queries="$QUERIES" '
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$3 > 0 { t[$1, $2, $3] = $4; if ($3 > nk) nk = $3 }
	END {
		nm = split("serial parallel", modes, " "); nq = split(queries, qs, " ")
		for (mi = 1; mi <= nm; mi++) {
			m = modes[mi]
			for (qi = 1; qi <= nq; qi++) {
				q = qs[qi]; n = 0; lo = 1e300; hi = 0
				for (k = 1; k <= nk; k++) { v = t[m, q, k]; a[++n] = v; if (v < lo) lo = v; if (v > hi) hi = v }
				med = median(a, n)
				printf "T %s %s %.1f %.1f %.1f %.0f %.0f\n", m, q, med, lo, hi, rows / (med / 1000), med * 1e6 / rows
			}
			for (qi = 1; qi <= nq; qi++) {
				q = qs[qi]; mn[q] = 1e300
				for (k = 1; k <= nk; k++) if (t[m, q, k] < mn[q]) mn[q] = t[m, q, k]
			}
			for (fi = 1; fi <= 2; fi++) {
				f = fi == 1 ? "R" : "RA"
				n = 0; for (k = 1; k <= nk; k++) a[++n] = t[m, "A", k] / t[m, f, k]
				ar = median(a, n)
				n = 0; for (k = 1; k <= nk; k++) a[++n] = t[m, "AJ", k] / t[m, f, k]
				ajr = median(a, n)
				n = 0; for (k = 1; k <= nk; k++) a[++n] = t[m, f, k] / t[m, "B", k]
				rb = median(a, n)
				printf "Q %s %s %.2f %.2f %.2f %.2f %.2f\n", m, f, ar, ajr, rb, \
					(mn["A"] < mn["AJ"] ? mn["A"] : mn["AJ"]) / mn[f], mn[f] / mn["B"]
			}
			n = 0; for (k = 1; k <= nk; k++) a[++n] = t[m, "RA", k] - t[m, "C", k]
			printf "D %s %.1f\n", m, median(a, n)
		}
	}' "$TIMES")

qname() {
	case $1 in
	R) echo "R: logistic_release(y, p, x1, ..., x10)" ;;
	RA) echo "R_arr: logistic_release(ARRAY[x1, ..., x10], y, p)" ;;
	A) echo "A: the 77 sums in plain SQL" ;;
	AJ) echo "AJ: A with jit = on" ;;
	B) echo "B: sum(x1 + ... + x10)" ;;
	C) echo "C: count(ARRAY[x1, ..., x10]) (diagnostic)" ;;
	esac
}
mrows() { awk -v r="$1" 'BEGIN { printf "%.2f M", r / 1e6 }'; }

TABLE="| mode | query | median ms | min ms | max ms | rows/s | ns/row |"$'\n'
TABLE+="|---|---|---:|---:|---:|---:|---:|"$'\n'
while read -r tag m q med lo hi rps nsr; do
	[ "$tag" = T ] || continue
	TABLE+="| $m | $(qname "$q") | $med | $lo | $hi | $(mrows "$rps") | $nsr |"$'\n'
done <<<"$STATS"
RATIOS="| mode | release R | A/R | AJ/R | R/B | goals: A/R, AJ/R >= 3; R/B <= 2 | min(A, AJ) / min R | min R / min B |"$'\n'
RATIOS+="|---|---|---:|---:|---:|---|---:|---:|"$'\n'
ALL_MET=yes
while read -r tag m f ar ajr rb mar mrb; do
	[ "$tag" = Q ] || continue
	met=$(awk -v ar="$ar" -v ajr="$ajr" -v rb="$rb" 'BEGIN {
		a = ar < ajr ? ar : ajr
		printf "%s, %s", (a >= 3) ? "A/R yes" : "A/R **no**", (rb <= 2) ? "R/B yes" : "R/B **no**" }')
	if [ "$f" = R ]; then
		case $met in *no*) ALL_MET=no ;; esac
		fname="R (column form)"
	else
		met="($met: the array form, for comparison)"
		fname="R_arr (array form)"
	fi
	RATIOS+="| $m | $fname | $ar | $ajr | $rb | $met | $mar | $mrb |"$'\n'
done <<<"$STATS"
RA_C_SERIAL=$(awk '$1 == "D" && $2 == "serial" { print $3 }' <<<"$STATS")
RA_C_PAR=$(awk '$1 == "D" && $2 == "parallel" { print $3 }' <<<"$STATS")
# OPENBLAS_NUM_THREADS in the server's environment
BLAS_THREADS=$(tr '\0' '\n' <"/proc/$(head -n 1 "$PGC_DATA/postmaster.pid")/environ" 2>/dev/null |
	sed -n 's/^OPENBLAS_NUM_THREADS=//p')
BLAS_THREADS=${BLAS_THREADS:-unset}
R_SERIAL_RPS=$(awk '$1 == "T" && $2 == "serial" && $3 == "R" { print $7 }' <<<"$STATS")
R_PAR_RPS=$(awk '$1 == "T" && $2 == "parallel" && $3 == "R" { print $7 }' <<<"$STATS")

CPU=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//' || true)
MEM=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- src dpbayes--*.sql dpbayes.mk 2>/dev/null)" ]; then
	COMMIT+=" plus uncommitted changes in src/"
fi
NOW=$(date -u '+%Y-%m-%d %H:%M UTC')
CMD="bash bench/release_throughput.sh"
[ "$ROWS" = 1000000 ] || CMD="BENCH_ROWS=$ROWS $CMD"
[ "$RUNS" = 7 ] || CMD="BENCH_RUNS=$RUNS $CMD"
[ "$JIT" = off ] || CMD="BENCH_JIT=$JIT $CMD"
[ "$SHARED_BUFFERS" = 1GB ] || CMD="BENCH_SHARED_BUFFERS=$SHARED_BUFFERS $CMD"
elapsed=$(($(date +%s) - t_start))
if awk '$2 == "AJ" && $3 > 0 && $6 != 1 { bad = 1 } END { exit !bad }' "$TIMES"; then
	AJ_JIT_NOTE="**not every run of AJ was JIT-compiled**."
else
	AJ_JIT_NOTE="every run of it was JIT-compiled (expressions and deforming; its cost is below jit_optimize_above_cost)."
fi
QUIET_NOTE=""
if [ "$OTHERS" -gt 15 ]; then
	QUIET_NOTE=$'.\n  **The machine was not quiet: the times are inflated and the ratios noisy.**'
fi
if [ "$PAR_OK" = yes ]; then
	PAR_NOTE="every timed parallel run launched its 2 workers"
else
	PAR_NOTE="**some timed parallel runs did not launch 2 workers**"
fi

REPORT=$(cat <<EOF
# logistic_release throughput (d = $D, $ROWS rows)

Written by \`$CMD\` (\`make bench\` runs it with the defaults); see
bench/README.md for what is measured and how to read it.

* date: $NOW; dpbayes commit $COMMIT
* machine: $(nproc) CPUs ($CPU), $MEM RAM
* server: $PGVERSION_FULL
* settings: shared_buffers = $SHARED_BUFFERS, jit = $JIT, autovacuum = off; the
  table ($TSIZE) is read from shared buffers (\`$BUFLINE\`); the server's
  OPENBLAS_NUM_THREADS: $BLAS_THREADS
* table t: $ROWS rows, x1..x$D double precision, y boolean (fraction true
  $YFRAC); $CLAMPED of the feature values lie outside the public bounds
  [0, 2j] and are clamped
* timing: "Execution Time" of \`EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF)\`,
  measured inside the server (no client, network or planning time); every
  query in a fresh session (so that only R's parallel workers load
  dpbayes.so); 1 warm-up round, then $RUNS rounds of $QUERIES
  interleaved (RA is R_arr); median, min and max over the $RUNS rounds
* serial: \`$SET_SERIAL\`
* parallel: \`$SET_PARALLEL\` ($PAR_NOTE; the
  leader takes part too, so 3 processes share $(nproc) CPUs)
* ratios: per round (A_k / R_k, AJ_k / R_k, R_k / B_k), then the median
  (the goals are judged on these, for R, the column form); the same for
  R_arr; also the ratios of the fastest runs
* other load: during the timed runs, processes other than the benchmark's
  cluster used ${OTHERS}% of one CPU (of $(nproc)); load average $LOAD_BEFORE before,
  $LOAD_AFTER after$QUIET_NOTE
* check: the 77 sums of A equal the statistics of a release at
  epsilon = 1e12 up to its noise and the 26-bit quantisation of the records
  (max |R - A| = $MAXDEV_R, max |R_arr - A| = $MAXDEV_RA, in units of noise sd
  + N 2^-26; sd <= $MAXSD_R)

## Results

$TABLE
$RATIOS
R releases $(mrows "$R_SERIAL_RPS") rows/s serially and $(mrows "$R_PAR_RPS") rows/s with 2 workers.
Goals (R at least 3 times faster than A and than AJ, R/B <= 2; serial and
parallel) met: **$ALL_MET**.  R_arr - C, the time the array form spends
beyond building its arrays: $RA_C_SERIAL ms serially, $RA_C_PAR ms with 2 workers.

## Queries

R, the release with the features as separate arguments (the privacy
argument is folded into a constant at plan time):

\`\`\`sql
$Q_R
\`\`\`

R_arr, the same release with the features as one array:

\`\`\`sql
$Q_RA
\`\`\`

A, the same 77 sums in plain SQL, **without noise**: a cost floor for the
sums only.  Clamping to the bounds and the affine map onto
[-1/sqrt(10), 1/sqrt(10)] as in src/core/release/clip.c; no ball projection (the
box lies in the ball):

\`\`\`sql
$Q_A
\`\`\`

AJ is the same query run with \`SET jit = on\` (PostgreSQL's default); $AJ_JIT_NOTE

B, one read of the same columns:

\`\`\`sql
$Q_B
\`\`\`

C, diagnostic: builds the feature array of every row, as R_arr does, and
nothing else:

\`\`\`sql
$Q_C
\`\`\`

Parallel plans (\`EXPLAIN (COSTS OFF)\` with the parallel settings):

\`\`\`
$PLANS\`\`\`

The whole run took ${elapsed} s, including build, data generation and checks.
EOF
)

printf '%s\n' "$REPORT"
mkdir -p "$(dirname "$OUT")"
printf '%s\n' "$REPORT" >"$OUT"
say "report written to $OUT"

pgc_stop
