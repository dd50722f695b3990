#!/usr/bin/env bash
# bench/pima_logistic.sh — the Pima diabetes check of noise-aware logistic
# regression (features age, pregnant, pedigree, insulin, as in the GLM
# paper's Fig. 3, scaled by public bounds): over RELEASES independent
# releases at epsilon = 1, delta = 1e-5, how often the non-private posterior
# mean of each coefficient lies inside the noise-aware 90% interval, and the
# R-hat of every run.  Writes bench/results/pima_logistic.md.
#
# The releases use the deterministic test noise stream (seeded, so the run
# is reproducible); each release draws fresh noise from the stream.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RELEASES=${RELEASES:-20}
DPBAYES_PGPORT=${DPBAYES_PGPORT:-54331}
export DPBAYES_PGPORT
source test/pgcluster.sh
bash test/deps.sh
make -s
dpb_make_install
pgc_start
psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION dpbayes' >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE pima (pregnant int, glucose int, pressure int, triceps int, insulin int,
                   mass float8, pedigree float8, age int, diabetes text);
\copy pima FROM 'data/pima_indians_diabetes.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE params AS SELECT dpbayes.privacy(epsilon => 1, delta => 1e-5,
    lower => ARRAY[21, 0, 0.078, 0], upper => ARRAY[81, 17, 2.42, 846],
    features => ARRAY['age', 'pregnant', 'pedigree', 'insulin']) AS p;
CREATE TABLE np AS
SELECT s.* FROM params, dpbayes.nonprivate_posterior_summary('logistic',
    (SELECT array_agg(ARRAY[age, pregnant, pedigree, insulin]::float8[]) FROM pima),
    (SELECT array_agg((diabetes = 'pos')::int::float8) FROM pima), p, seed => 1) s;
CREATE TABLE runs (k int, variable text, q5 float8, median float8, q95 float8, rhat float8,
                   ess_bulk float8, divergences bigint, seconds float8);
SQL
start=$(date +%s)
for k in $(seq 1 "$RELEASES"); do
	psql -X -q -v ON_ERROR_STOP=1 -v k="$k" <<'SQL'
SET dpbayes.insecure_noise_seed = 2026;
-- advance the stream: release k uses the k-th draw of the stream
SELECT count(*) FROM (SELECT dpbayes.logistic_release(ARRAY[1.0], true, dpbayes.privacy(epsilon => 1, scaling => 'none'))
                      FROM generate_series(1, :k - 1) g GROUP BY g) s \g /dev/null
CREATE TEMP TABLE r AS SELECT dpbayes.logistic_release(ARRAY[age, pregnant, pedigree, insulin],
    diabetes = 'pos', p) AS r FROM pima, params GROUP BY p;
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
INSERT INTO runs SELECT :k, variable, q5, median, q95, rhat, ess_bulk, divergences,
    extract(epoch FROM clock_timestamp() - (SELECT t FROM t0))
FROM r, dpbayes.posterior_summary(r.r, seed => :k) s;
UPDATE runs SET seconds = extract(epoch FROM clock_timestamp() - (SELECT t FROM t0)) WHERE k = :k;
SQL
	echo "release $k done"
done
psql -X -q -c "\\copy runs TO 'bench/results/pima_logistic_runs.csv' WITH (FORMAT csv, HEADER true)"
out=bench/results/pima_logistic.md
{
	echo "# Pima diabetes: noise-aware logistic regression vs the non-private posterior"
	echo
	echo "\`RELEASES=$RELEASES bash bench/pima_logistic.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores)."
	echo "768 records; diabetes ~ age + pregnant + pedigree + insulin; public bounds"
	echo "[21, 81], [0, 17], [0.078, 2.42], [0, 846]; epsilon = 1, delta = 1e-5; each release"
	echo "analysed with 4 chains x 1000 draws after 1000 warmup (NUTS, exact moments)."
	echo "Total wall time $(( $(date +%s) - start )) s."
	echo
	echo "## Non-private posterior (NOT private; the reference)"
	echo
	psql -X -q -P format=unaligned -P fieldsep='|' -P footer=off -c \
		"SELECT '| ' || variable || ' | ' || round(mean::numeric, 4) || ' | ' || round(q5::numeric, 4) || ' | ' || round(q95::numeric, 4) || ' |' AS \"| variable | mean | q5 | q95 |\" FROM np ORDER BY variable" | sed '1a |---|---|---|---|'
	echo
	echo "## Coverage: non-private mean inside the noise-aware 90% interval"
	echo
	psql -X -q -P format=unaligned -P footer=off -c \
		"SELECT '| ' || variable || ' | ' || sum((runs.q5 <= np.mean AND np.mean <= runs.q95)::int) || ' / ' || count(*) || ' | ' || round(max(runs.rhat)::numeric, 4) || ' | ' || round(min(runs.ess_bulk)::numeric, 0) || ' | ' || sum(runs.divergences) || ' |' AS \"| variable | covered | max R-hat | min bulk ESS | divergences |\" FROM runs JOIN np USING (variable) GROUP BY variable ORDER BY variable" | sed '1a |---|---|---|---|---|'
	echo
	psql -X -q -At -c "SELECT 'Overall: ' || sum((runs.q5 <= np.mean AND np.mean <= runs.q95)::int) || ' of ' || count(*) || ' (release, coefficient) pairs covered (' || round(100.0 * avg((runs.q5 <= np.mean AND np.mean <= runs.q95)::int), 1) || '%); max R-hat ' || round(max(runs.rhat)::numeric, 4) || '; runs with R-hat >= 1.01: ' || count(DISTINCT k) FILTER (WHERE runs.rhat >= 1.01) || '; median seconds per posterior ' || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds))::numeric, 1) FROM runs JOIN np USING (variable)"
} | tee "$out"
