#!/usr/bin/env bash
# bench/ldp_breast_cancer.sh — the local-DP worked example of docs/ldp.md on
# real data: logistic regression of malignancy on three cytological scores of
# the Wisconsin breast-cancer data (data/breast_cancer.csv, 699 records) from
# summed-statistics reports, private vs non-private, end to end:
#
#   publish the protocol (SQL) -> every "client" randomizes its own record
#   with the production CLI (OS randomness) -> CSV -> \copy into a table
#   with the ldp_check constraint -> dpbayes.ldp_release -> posterior_summary
#
# for epsilon in EPSILONS (per person), COLLECTIONS independent collections
# each, next to the non-private posterior of the same model and bounds.
# Writes bench/results/ldp_breast_cancer.md.  Run under the regression lock
# (it installs the extension): flock /tmp/dpb-regress.lock bash bench/ldp_breast_cancer.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
EPSILONS=${EPSILONS:-"2 8 32"}
COLLECTIONS=${COLLECTIONS:-3}
DPBAYES_PGPORT=${DPBAYES_PGPORT:-54341}
export DPBAYES_PGPORT
source test/pgcluster.sh
bash test/deps.sh
make -s
make -s ldp-cli
dpb_make_install
pgc_start
W=$(mktemp -d)
trap 'rm -rf "$W"; pgc_stop' EXIT
chmod 755 "$W"
psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION dpbayes' >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE bc (id text, cl_thickness int, cell_size int, cell_shape int, marg_adhesion int,
                 epith_c_size int, bare_nuclei int, bl_cromatin int, normal_nucleoli int,
                 mitoses int, class text);
\copy bc FROM 'data/breast_cancer.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE np AS
SELECT s.* FROM dpbayes.nonprivate_posterior_summary('logistic',
    (SELECT array_agg(ARRAY[cl_thickness, cell_size, bl_cromatin]::float8[]) FROM bc),
    (SELECT array_agg((class = 'malignant')::int::float8) FROM bc),
    dpbayes.privacy(epsilon => 1, lower => ARRAY[1, 1, 1], upper => ARRAY[10, 10, 10],
                    features => ARRAY['x1', 'x2', 'x3']), seed => 1) s;
CREATE TABLE runs (eps float8, k int, variable text, mean float8, sd float8, q5 float8,
                   q95 float8, rhat float8);
SQL
# the clients' records: x1..x3, y in {-1, +1} (one line per person)
psql -X -q -At -F, -c "SELECT cl_thickness, cell_size, bl_cromatin, CASE WHEN class = 'malignant' THEN 1 ELSE -1 END FROM bc" >"$W/records.csv"
start=$(date +%s)
for eps in $EPSILONS; do
	# 1. the analyst publishes the protocol
	psql -X -q -At -c "SELECT dpbayes.ldp_protocol_text(dpbayes.ldp_protocol('ss_logistic', $eps,
	    delta => 1e-6, d => 3, lower => ARRAY[1, 1, 1], upper => ARRAY[10, 10, 10]))" >"$W/protocol.json"
	for k in $(seq 1 "$COLLECTIONS"); do
		# 2. each client randomizes its own record (here all in one CLI run)
		src/cli/dpbayes-ldp randomize --protocol "$W/protocol.json" --input "$W/records.csv" \
			--output "$W/reports.csv" 2>/dev/null
		# 3. reports -> CSV with the values as an array literal -> COPY
		sed '1d; s/^\([^,]*\),\(.*\)$/\1,"{\2}"/' "$W/reports.csv" >"$W/reports_arr.csv"
		P=$(cat "$W/protocol.json")
		psql -X -q -v ON_ERROR_STOP=1 -v p="$P" <<'SQL'
DROP TABLE IF EXISTS reports, rel;
CREATE TABLE reports (protocol_id text NOT NULL, report float8[] NOT NULL);
ALTER TABLE reports ADD CHECK (dpbayes.ldp_check(report, :'p'));
SQL
		psql -X -q -v ON_ERROR_STOP=1 -c "\\copy reports FROM '$W/reports_arr.csv' WITH (FORMAT csv)"
		psql -X -q -v ON_ERROR_STOP=1 -v eps="$eps" -v k="$k" -v p="$P" <<'SQL'
-- 4. sum and infer
CREATE TABLE rel AS SELECT dpbayes.ldp_release(protocol_id, report, :'p') AS r FROM reports;
INSERT INTO runs SELECT :eps, :k, variable, mean, sd, q5, q95, rhat
FROM rel, dpbayes.posterior_summary(r, seed => :k) s;
SQL
	done
	echo "epsilon $eps done"
done
out=bench/results/ldp_breast_cancer.md
{
	echo "# Local DP on real data: breast cancer, logistic regression from summed-statistics reports"
	echo
	echo "\`bash bench/ldp_breast_cancer.sh\` ($(date -u +%Y-%m-%d), shared machine: 2 cores, several"
	echo "workers). 699 records of data/breast_cancer.csv; malignant ~ cl_thickness (x1) + cell_size (x2)"
	echo "+ bl_cromatin (x3), public bounds [1, 10] each, box scaling, intercept; protocol ss_logistic,"
	echo "delta = 1e-6 per person. Each collection: every record randomized by the production CLI (OS"
	echo "randomness, so a re-run differs), reports COPYed into a table with the ldp_check constraint,"
	echo "summed by dpbayes.ldp_release, analysed by dpbayes.posterior_summary (4 chains x 1000 draws)."
	echo "Total wall time $(( $(date +%s) - start )) s."
	echo
	echo "## Non-private posterior (NOT private; the reference)"
	echo
	psql -X -q -P format=unaligned -P footer=off -c \
		"SELECT '| ' || variable || ' | ' || round(mean::numeric, 3) || ' | ' || round(sd::numeric, 3) || ' | [' || round(q5::numeric, 3) || ', ' || round(q95::numeric, 3) || '] |' AS \"| variable | mean | sd | 90% interval |\" FROM np ORDER BY variable" | sed '1a |---|---|---|---|'
	echo
	echo "## Local DP (epsilon per person), one row per collection and coefficient"
	echo
	echo "| epsilon | collection | variable | mean | sd | 90% interval | R-hat |"
	echo "|---|---|---|---|---|---|---|"
	psql -X -q -At -c \
		"SELECT '| ' || eps || ' | ' || k || ' | ' || variable || ' | ' || round(mean::numeric, 3) || ' | ' || round(sd::numeric, 3) || ' | [' || round(q5::numeric, 3) || ', ' || round(q95::numeric, 3) || '] | ' || round(rhat::numeric, 3) || ' |' FROM runs ORDER BY eps, k, variable"
	echo
	psql -X -q -At -c "SELECT 'Non-private mean inside the LDP 90% interval: ' || (SELECT sum((r.q5 <= n.mean AND n.mean <= r.q95)::int) || ' of ' || count(*) FROM runs r JOIN np n USING (variable)) || '; median LDP sd / non-private sd by epsilon: ' || (SELECT string_agg(x.eps || ': ' || x.ratio, ', ' ORDER BY x.eps) FROM (SELECT r.eps, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY r.sd / n.sd))::numeric, 1) AS ratio FROM runs r JOIN np n USING (variable) GROUP BY r.eps) x)"
} | tee "$out"
