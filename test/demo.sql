-- test/demo.sql — the dpbayes demo (run by test/demo.sh, `make demo`).
--
-- Runs in database "demo" after test/demo.sh has done CREATE EXTENSION
-- dpbayes and loaded data/pima_indians_diabetes.csv into table pima.
-- psql variables: none needed.  Sections may be appended below.

\echo
\echo '==== Pima Indians diabetes: differentially private logistic regression release ===='
\echo 'diabetes ~ age + pregnant + pedigree + insulin, epsilon = 1, delta = 1e-5'

CREATE TABLE pima_release AS
SELECT dpbayes.logistic_release(
           ARRAY[age, pregnant, pedigree, insulin],
           diabetes = 'pos',
           dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1,
                           lower => ARRAY[21, 0, 0.078, 0],
                           upper => ARRAY[81, 17, 2.42, 846],
                           features => ARRAY['age', 'pregnant', 'pedigree', 'insulin'])) AS r
FROM pima;

\echo
\echo '---- release metadata (dpbayes.release_summary) ----'
SELECT s.* FROM pima_release, dpbayes.release_summary(pima_release.r) AS s;

\echo '---- released noisy statistics (dpbayes.release_stats) ----'
SELECT s.* FROM pima_release, dpbayes.release_stats(pima_release.r) AS s;

\echo '---- the release as JSON (dpbayes.release_json) ----'
\pset format unaligned
\pset tuples_only on
SELECT jsonb_pretty(dpbayes.release_json(r)) AS release_json FROM pima_release;
\pset format aligned
\pset tuples_only off
\echo

\echo
\echo '==== Pima: noise-aware (private) vs non-private Bayesian logistic regression ===='
\echo '---- posterior 5%, 50%, 95% side by side; the non-private one is NOT private ----'
SELECT variable,
       round(np.q5::numeric, 4) AS nonprivate_q5, round(np.median::numeric, 4) AS nonprivate_median,
       round(np.q95::numeric, 4) AS nonprivate_q95,
       round(na.q5::numeric, 4) AS private_q5, round(na.median::numeric, 4) AS private_median,
       round(na.q95::numeric, 4) AS private_q95, round(na.rhat::numeric, 3) AS private_rhat,
       na.divergences AS private_divergences
FROM pima_release,
     LATERAL dpbayes.posterior_summary(r, seed => 1) na
JOIN LATERAL dpbayes.nonprivate_posterior_summary('logistic',
         (SELECT array_agg(ARRAY[age, pregnant, pedigree, insulin]::float8[]) FROM pima),
         (SELECT array_agg((diabetes = 'pos')::int::float8) FROM pima),
         dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1,
                         lower => ARRAY[21, 0, 0.078, 0], upper => ARRAY[81, 17, 2.42, 846],
                         features => ARRAY['age', 'pregnant', 'pedigree', 'insulin']),
         seed => 1) np USING (variable);

\echo
\echo '==== Boston housing: private (noise-aware) vs non-private Bayesian linear regression ===='
\echo 'medv - 27.5 ~ rm + lstat + ptratio + crim; public bounds; epsilon = 1, delta = 1e-5; N = 506'

CREATE TABLE boston_release AS
SELECT dpbayes.linear_release(ARRAY[rm, lstat, ptratio, crim], medv - 27.5, p) AS r,
       dpbayes.nonprivate_linear_stats(ARRAY[rm, lstat, ptratio, crim], medv - 27.5, p) AS exact
FROM boston,
     (SELECT dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1, y_bound => 22.5,
                             lower => ARRAY[3, 1, 12, 0], upper => ARRAY[9, 40, 23, 90],
                             scaling => 'ball',
                             features => ARRAY['rm', 'lstat', 'ptratio', 'crim']) AS p) pp;

\echo '---- posterior summaries side by side (5%, 50%, 95%; the non-private one is NOT private) ----'
SELECT variable,
       round(np.q5::numeric, 3) AS nonprivate_q5, round(np.median::numeric, 3) AS nonprivate_median,
       round(np.q95::numeric, 3) AS nonprivate_q95,
       round(na.q5::numeric, 3) AS private_q5, round(na.median::numeric, 3) AS private_median,
       round(na.q95::numeric, 3) AS private_q95, round(na.rhat::numeric, 3) AS private_rhat
FROM boston_release,
     LATERAL dpbayes.posterior_summary(exact, seed => 1, method => 'nonprivate') np
JOIN LATERAL dpbayes.posterior_summary(r, warmup => 2000, seed => 1, options => '{"thin": 10}') na USING (variable);

\echo '---- the noise-naive posterior on the same release (too narrow: it ignores the noise) ----'
SELECT variable, round(q5::numeric, 3) AS q5, round(median::numeric, 3) AS median,
       round(q95::numeric, 3) AS q95
FROM boston_release, dpbayes.posterior_summary(r, seed => 1, method => 'naive');
