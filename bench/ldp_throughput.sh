#!/usr/bin/env bash
# bench/ldp_throughput.sh — local-DP throughput (issue 11):
#   1. the production CLI randomizing N records (rr and ss_linear, d = 2 with
#      an intercept: 9 values per report): reports per second;
#   2. dpbayes.ldp_release summing the N reports in the database, against a
#      plain sum() of the same report columns in the same query shape (the
#      baseline): the ratio.
# Medians of REPS runs each; serial plans (max_parallel_workers_per_gather
# = 0).  Writes bench/results/ldp_throughput.md.  Installs the extension:
# run it under the regression lock,
#   flock /tmp/dpb-regress.lock nice bash bench/ldp_throughput.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${N:-1000000}
REPS=${REPS:-3}
DPBAYES_PGPORT=${DPBAYES_PGPORT:-54342}
export DPBAYES_PGPORT
source test/pgcluster.sh
bash test/deps.sh
make -s
make -s ldp-cli
W=$(mktemp -d)
chmod 755 "$W"
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }

echo '{"mechanism":"rr","epsilon":1}' >"$W/rr.json"
echo '{"mechanism":"ss_linear","epsilon":1,"delta":1e-6,"d":2,"lower":[-1,-1],"upper":[1,1],"y_bound":3}' >"$W/lin.json"
awk -v n="$N" 'BEGIN { srand(11); for (i = 0; i < n; i++) print (rand() < 0.3) ? 1 : 0 }' >"$W/rr.csv"
awk -v n="$N" 'BEGIN { srand(12); for (i = 0; i < n; i++) { a = 2 * rand() - 1; b = 2 * rand() - 1;
	printf "%.6f,%.6f,%.6f\n", a, b, a - 0.5 * b + 0.5 * (rand() + rand() + rand() - 1.5) } }' >"$W/lin.csv"
declare -A cli
for m in rr lin; do
	for r in $(seq 1 "$REPS"); do
		t0=$(now)
		src/cli/dpbayes-ldp randomize --protocol "$W/$m.json" --input "$W/$m.csv" --output "$W/$m.rep" 2>/dev/null
		t1=$(now)
		echo "$t1 - $t0" | bc -l
	done | median >"$W/$m.t"
	cli[$m]=$(cat "$W/$m.t")
	echo "cli $m: ${cli[$m]} s"
done

dpb_make_install
pgc_start
trap 'rm -rf "$W"; pgc_stop' EXIT
sed '1d; s/^\([^,]*\),\(.*\)$/\1,"{\2}"/' "$W/lin.rep" >"$W/lin_arr.csv"
P=$(src/cli/dpbayes-ldp protocol --protocol "$W/lin.json")
psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION dpbayes' >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE reports (protocol_id text NOT NULL, report float8[] NOT NULL)"
psql -X -q -v ON_ERROR_STOP=1 -c "\\copy reports FROM '$W/lin_arr.csv' WITH (FORMAT csv)"
psql -X -q -v ON_ERROR_STOP=1 -c "VACUUM ANALYZE reports"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE proto AS SELECT '$P'::text AS p"
time_sql() {
	for r in $(seq 1 "$REPS"); do
		psql -X -q -At -v ON_ERROR_STOP=1 <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
SET max_parallel_workers_per_gather = 0;
\\timing on
$1 \\g /dev/null
SQL
	done | median
}
Q_SUM="SELECT sum(report[1]), sum(report[2]), sum(report[3]), sum(report[4]), sum(report[5]), sum(report[6]), sum(report[7]), sum(report[8]), sum(report[9]), count(*) FROM reports"
Q_LDPID="SELECT dpbayes.ldp_release(protocol_id, report, (SELECT p FROM proto)) FROM reports"
t_sum=$(time_sql "$Q_SUM")
t_ldpid=$(time_sql "$Q_LDPID")
ok=$(psql -X -q -At -c "SELECT dpbayes.release_json(dpbayes.ldp_release(protocol_id, report, (SELECT p FROM proto)))->>'n' FROM reports")
out=bench/results/ldp_throughput.md
{
	echo "# Local DP throughput: the CLI and the summing aggregate"
	echo
	echo "\`bash bench/ldp_throughput.sh\` ($(date -u +%Y-%m-%d); N = $N records; medians of $REPS runs;"
	echo "the machine was shared: $(nproc) cores, several workers running builds and tests, so"
	echo "absolute times are noisy; the ratio is measured in the same script, minutes apart)."
	echo
	echo "## The CLI (production build, getrandom), one process, output to a file"
	echo
	echo "| protocol | values per report | seconds | reports per second |"
	echo "|---|---|---|---|"
	echo "| rr, epsilon 1 | 1 | ${cli[rr]} | $(echo "$N / ${cli[rr]}" | bc) |"
	echo "| ss_linear, d = 2, intercept | 9 | ${cli[lin]} | $(echo "$N / ${cli[lin]}" | bc) |"
	echo
	echo "## Summing $ok ss_linear reports in the database (serial plan)"
	echo
	echo "| query | ms | ratio to plain sum |"
	echo "|---|---|---|"
	echo "| plain \`sum(report[k])\` of the 9 columns + count (baseline) | $t_sum | 1 |"
	echo "| \`dpbayes.ldp_release(protocol_id, report, p)\` | $t_ldpid | $(printf '%.2f' "$(echo "$t_ldpid / $t_sum" | bc -l)") |"
	echo
	echo "ldp_release also checks every report (width, finiteness, grid, plausible range) and sums"
	echo "exactly in 128-bit grid units; the baseline sums doubles without any check."
} | tee "$out"
