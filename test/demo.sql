-- test/demo.sql — the dpbayes demo (run by test/demo.sh, `make demo`).
--
-- Runs in database "demo" after test/demo.sh has loaded test/demo_data.sql
-- (CREATE EXTENSION dpbayes; tables pima and boston).  Leaves the posterior
-- intervals in table demo_intervals, which test/demo.sh plots.

\echo
\echo 'Why the numbers change on every run: a release adds noise drawn from the'
\echo 'operating system''s secure random source, which cannot be seeded, by design (a'
\echo 'seeded noise could be reproduced and subtracted, undoing the privacy). So the'
\echo 'released statistics and the private posterior move from run to run; seed => 1'
\echo 'only fixes the sampler''s own random numbers, so the non-private columns, which'
\echo 'see no released noise, repeat exactly.'

\echo
\echo '==== Pima Indians diabetes: differentially private logistic regression release ===='
\echo 'diabetes ~ age + pregnant + pedigree + insulin, epsilon = 1, delta = 1e-5, N = 768'

CREATE TABLE pima_release AS
SELECT dpbayes.logistic_release(diabetes = 'pos',
           dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1,
                           lower => ARRAY[21, 0, 0.078, 0],
                           upper => ARRAY[81, 17, 2.42, 846],
                           features => ARRAY['age', 'pregnant', 'pedigree', 'insulin']),
           age, pregnant, pedigree, insulin) AS r
FROM pima;

\echo
\echo '---- release metadata (dpbayes.release_summary; the whole release: SELECT r::jsonb FROM pima_release) ----'
SELECT s.* FROM pima_release, dpbayes.release_summary(r) AS s;

\echo '---- the first released noisy statistics, with their noise sd (dpbayes.release_stats) ----'
SELECT s.block, s.entry, round(s.value::numeric, 3) AS value, round(s.noise_sd::numeric, 3) AS noise_sd
FROM pima_release, dpbayes.release_stats(r) AS s LIMIT 8;
SELECT count(*) AS statistics_released FROM pima_release, dpbayes.release_stats(r);

\echo
\echo '==== Pima: noise-aware (private) vs non-private Bayesian logistic regression ===='
\echo 'posterior 5%, 50%, 95% side by side; the non-private one uses the raw rows and is NOT private.'
\echo 'rhat: R-hat compares the 4 chains (between-chain vs within-chain spread). Below 1.01:'
\echo 'they agree, the sampler has converged. 1.01 to 1.05: usable for a first look, raise warmup'
\echo 'and draws for final numbers (a WARNING says so). Above 1.05: do not trust them yet.'

CREATE TABLE demo_intervals (dataset text, variable text, kind text,
                             q5 float8, median float8, q95 float8, rhat float8, ord int);

INSERT INTO demo_intervals
SELECT 'Pima', variable, 'private', q5, median, q95, rhat, row_number() OVER ()
FROM pima_release, dpbayes.posterior_summary(r, seed => 1);
INSERT INTO demo_intervals
SELECT 'Pima', variable, 'non-private', q5, median, q95, rhat, row_number() OVER ()
FROM dpbayes.nonprivate_posterior_summary('logistic',
         (SELECT array_agg(ARRAY[age, pregnant, pedigree, insulin]::float8[]) FROM pima),
         (SELECT array_agg((diabetes = 'pos')::int::float8) FROM pima),
         dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1,
                         lower => ARRAY[21, 0, 0.078, 0], upper => ARRAY[81, 17, 2.42, 846],
                         features => ARRAY['age', 'pregnant', 'pedigree', 'insulin']),
         seed => 1);

SELECT variable,
       round(np.q5::numeric, 4) AS nonprivate_q5, round(np.median::numeric, 4) AS nonprivate_median,
       round(np.q95::numeric, 4) AS nonprivate_q95,
       round(na.q5::numeric, 4) AS private_q5, round(na.median::numeric, 4) AS private_median,
       round(na.q95::numeric, 4) AS private_q95, round(na.rhat::numeric, 3) AS private_rhat
FROM demo_intervals na JOIN demo_intervals np USING (dataset, variable)
WHERE dataset = 'Pima' AND na.kind = 'private' AND np.kind = 'non-private'
ORDER BY na.ord;

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

INSERT INTO demo_intervals
SELECT 'Boston', variable, 'private', q5, median, q95, rhat, row_number() OVER ()
FROM boston_release, dpbayes.posterior_summary(r, seed => 1);
INSERT INTO demo_intervals
SELECT 'Boston', variable, 'non-private', q5, median, q95, rhat, row_number() OVER ()
FROM boston_release, dpbayes.posterior_summary(exact, seed => 1, method => 'nonprivate');
INSERT INTO demo_intervals
SELECT 'Boston', variable, 'naive', q5, median, q95, rhat, row_number() OVER ()
FROM boston_release, dpbayes.posterior_summary(r, seed => 1, method => 'naive');

\echo '---- posterior summaries side by side (5%, 50%, 95%; the non-private one is NOT private) ----'
SELECT variable,
       round(np.q5::numeric, 3) AS nonprivate_q5, round(np.median::numeric, 3) AS nonprivate_median,
       round(np.q95::numeric, 3) AS nonprivate_q95,
       round(na.q5::numeric, 3) AS private_q5, round(na.median::numeric, 3) AS private_median,
       round(na.q95::numeric, 3) AS private_q95, round(na.rhat::numeric, 3) AS private_rhat
FROM demo_intervals na JOIN demo_intervals np USING (dataset, variable)
WHERE dataset = 'Boston' AND na.kind = 'private' AND np.kind = 'non-private'
ORDER BY na.ord;

\echo '---- the noise-naive posterior on the same release (too narrow: it ignores the noise) ----'
SELECT variable, round(q5::numeric, 3) AS q5, round(median::numeric, 3) AS median,
       round(q95::numeric, 3) AS q95
FROM demo_intervals WHERE dataset = 'Boston' AND kind = 'naive' ORDER BY ord;
