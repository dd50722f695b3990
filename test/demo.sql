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
