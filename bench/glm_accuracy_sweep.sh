#!/usr/bin/env bash
# bench/glm_accuracy_sweep.sh — accuracy of noise-aware logistic regression
# versus signal strength: ||theta|| from 0.5 to 6 on synthetic data (d = 2,
# x ~ N(0, I) used as given with clip CLIP (3), N = NROWS, epsilon = 1 or each
# of EPSILONS), for the
# exact moments and the GLM paper's Taylor moments: the KS distance between
# the noise-aware and the non-private posterior draws of each coefficient,
# and whether the 90% interval covers the true theta.  Writes
# bench/results/glm_accuracy_sweep.md (or SWEEP_OUT); with EPSILONS (e.g.
# "0.1 0.3 1 3 10", NORMS=1) the table has one row per epsilon too
# (bench/results/glm_accuracy_eps.md).  Plots: bench/plots/accuracy.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NROWS=${NROWS:-20000}
CLIP=${CLIP:-3}
NORMS=${NORMS:-"0.5 1 2 3 4 6"}
EPSILONS=${EPSILONS:-1}
DPBAYES_PGPORT=${DPBAYES_PGPORT:-54332}
export DPBAYES_PGPORT
source test/pgcluster.sh
bash test/deps.sh
make -s
dpb_make_install
pgc_start
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION dpbayes;
CREATE TABLE res (norm float8, eps float8, moments text, variable text, ks float8, covers boolean,
                  rhat float8, truth float8, q5 float8, q95 float8);
CREATE TABLE draws (src text, variable text, value float8);
-- the two-sample KS distance between the draws of two sources, per variable
CREATE FUNCTION ks(a text, b text) RETURNS TABLE (variable text, ks float8) LANGUAGE sql AS $$
  WITH e AS (SELECT variable, src, cume_dist() OVER (PARTITION BY variable, src ORDER BY value) f, value
             FROM draws WHERE src IN (a, b)),
  g AS (SELECT variable, max(f) FILTER (WHERE src = a) OVER w fa, max(f) FILTER (WHERE src = b) OVER w fb
        FROM e WINDOW w AS (PARTITION BY variable ORDER BY value ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
  SELECT variable, max(abs(coalesce(fa, 0) - coalesce(fb, 0))) FROM g GROUP BY variable $$;
SQL
start=$(date +%s)
for eps in $EPSILONS; do
for nrm in $NORMS; do
	psql -X -q -v ON_ERROR_STOP=1 -v nrm="$nrm" -v eps="$eps" -v n="$NROWS" -v clip="$CLIP" <<'SQL'
SELECT setseed(0.31);
SET dpbayes.insecure_noise_seed = 11;
-- theta = (-0.3, nrm cos 0.6, nrm sin 0.6)
CREATE TEMP TABLE truth AS SELECT * FROM (VALUES ('theta[intercept]', -0.3),
    ('theta[x1]', :nrm * cos(0.6)), ('theta[x2]', :nrm * sin(0.6))) t(variable, value);
CREATE TEMP TABLE d AS
SELECT ARRAY[x1, x2] AS x,
       random() < 1 / (1 + exp(-(-0.3 + :nrm * cos(0.6) * x1 + :nrm * sin(0.6) * x2))) AS y
FROM (SELECT sqrt(-2 * ln(1 - u1)) * cos(2 * pi() * u2) AS x1,
             sqrt(-2 * ln(1 - u1)) * sin(2 * pi() * u2) AS x2
      FROM (SELECT random() u1, random() u2 FROM generate_series(1, :n)) s) s;
CREATE TEMP TABLE rel AS SELECT dpbayes.logistic_release(x, y, dpbayes.privacy(epsilon => :eps,
    delta => 1e-5, clip => :clip, scaling => 'none')) AS r FROM d;
TRUNCATE draws;
INSERT INTO draws
SELECT 'exact' AS src, variable, value FROM rel, dpbayes.posterior(r, draws => 500, chains => 2,
    warmup => 500, seed => 1, options => '{"moments": "exact", "theta_scale": 10}')
UNION ALL
SELECT 'taylor', variable, value FROM rel, dpbayes.posterior(r, draws => 500, chains => 2,
    warmup => 500, seed => 1, options => '{"moments": "taylor", "theta_scale": 10}')
UNION ALL
SELECT 'nonprivate', variable, value FROM dpbayes.nonprivate_posterior('logistic',
    (SELECT array_agg(x) FROM d), (SELECT array_agg(y::int::float8) FROM d),
    dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => :clip, scaling => 'none'), draws => 500, chains => 2,
    warmup => 300, seed => 1, options => '{"theta_scale": 10}');
INSERT INTO res
SELECT :nrm, :eps, m.src, k.variable, k.ks,
       t.value BETWEEN q.q5 AND q.q95, NULL, t.value, q.q5, q.q95
FROM (VALUES ('exact'), ('taylor')) m(src),
     LATERAL ks(m.src, 'nonprivate') k
     JOIN truth t USING (variable)
     JOIN LATERAL (SELECT percentile_cont(0.05) WITHIN GROUP (ORDER BY value) q5,
                          percentile_cont(0.95) WITHIN GROUP (ORDER BY value) q95
                   FROM draws WHERE src = m.src AND variable = k.variable) q ON true;
SQL
	echo "norm $nrm epsilon $eps done"
done
done
out=${SWEEP_OUT:-bench/results/glm_accuracy_sweep.md}
{
	echo "# Noise-aware logistic regression vs signal strength: exact and Taylor moments"
	echo
	echo "\`NROWS=$NROWS NORMS=\"$NORMS\" EPSILONS=\"$EPSILONS\" bash bench/glm_accuracy_sweep.sh\` ($(date -u +%Y-%m-%d)). d = 2, x ~ N(0, I)"
	echo "used as given (clip $CLIP), theta = (-0.3, ||theta|| cos 0.6, ||theta|| sin 0.6), epsilon = $EPSILONS,"
	echo "delta = 1e-5; 2 chains x 500 draws after 500 warmup; theta prior N(0, 10^2). KS = two-sample"
	echo "KS distance between the noise-aware and the non-private draws (NUTS on the raw rows);"
	echo "covers = the noise-aware 90% interval contains the true theta. Wall time $(( $(date +%s) - start )) s."
	echo
	echo "| norm | epsilon | variable | KS exact | KS taylor | covers exact | covers taylor | 90% exact | 90% taylor |"
	echo "|---|---|---|---|---|---|---|---|---|"
	psql -X -q -At -F '|' -c "SELECT '| ' || e.norm, e.eps, e.variable, round(e.ks::numeric, 3), round(t.ks::numeric, 3),
	    e.covers, t.covers, '[' || round(e.q5::numeric, 2) || ', ' || round(e.q95::numeric, 2) || ']',
	    '[' || round(t.q5::numeric, 2) || ', ' || round(t.q95::numeric, 2) || '] |'
	    FROM res e JOIN res t ON e.norm = t.norm AND e.eps = t.eps AND e.variable = t.variable AND t.moments = 'taylor'
	    WHERE e.moments = 'exact' ORDER BY e.eps, e.norm, e.variable" | sed 's/|/ | /g'
} | tee "$out"
