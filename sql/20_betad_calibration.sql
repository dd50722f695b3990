-- betaD-Bayes calibration helpers (issue 10, first part): epsilon <-> beta,
-- epsilon_min, and clear errors.  Check values from the digest (§B2, §B7.3).
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- logistic: beta = 1 + 2 / epsilon
SELECT e AS epsilon, round(dpbayes.betad_beta(e, 'logistic')::numeric, 6) AS beta,
       round(dpbayes.betad_epsilon(dpbayes.betad_beta(e, 'logistic'), 'logistic')::numeric, 9) AS round_trip
FROM unnest(ARRAY[0.2, 0.5, 1, 2, 5, 6]::float8[]) e;

-- Gaussian regression: the smallest reachable epsilon against the floor
SELECT s2 AS sigma2_floor, round(dpbayes.betad_epsilon_min(s2)::numeric, 3) AS epsilon_min
FROM unnest(ARRAY[1e-4, 1e-3, 1e-2, 0.05, 0.1, 1]::float8[]) s2;

-- both roots at s^2 = 0.01, and one root at s^2 = 1
SELECT e AS epsilon,
       round((dpbayes.betad_beta(e, 'linear', sigma2_floor => 0.01) - 1)::numeric, 4) AS b_smaller,
       round((dpbayes.betad_beta(e, 'linear', sigma2_floor => 0.01, root => 'larger') - 1)::numeric, 4) AS b_larger
FROM unnest(ARRAY[8, 10, 20]::float8[]) e;
SELECT e AS epsilon, round((dpbayes.betad_beta(e, 'linear', sigma2_floor => 1) - 1)::numeric, 4) AS b
FROM unnest(ARRAY[0.5, 1, 2, 5]::float8[]) e;

-- the public code's calibration with the prior variance (9) instead of the
-- floor (0.01) overstates privacy: the true epsilon of its betas
SELECT e AS claimed_epsilon,
       round(dpbayes.betad_epsilon(dpbayes.betad_beta(e, 'linear', sigma2_floor => 9), 'linear',
                                   sigma2_floor => 0.01)::numeric, 2) AS true_epsilon
FROM unnest(ARRAY[0.2, 0.5, 1, 5]::float8[]) e;

-- y on a public scale: only sigma2_floor / y_scale^2 matters
SELECT dpbayes.betad_epsilon_min(0.09, y_scale => 3) = dpbayes.betad_epsilon_min(0.01) AS same;

-- errors
SELECT dpbayes.betad_beta(5, 'linear', sigma2_floor => 0.01);
SELECT dpbayes.betad_beta(1, 'linear');
SELECT dpbayes.betad_beta(1, 'logistic', sigma2_floor => 1);
SELECT dpbayes.betad_beta(1, 'poisson');
SELECT dpbayes.betad_beta(-1, 'logistic');
SELECT dpbayes.betad_beta(1, 'linear', sigma2_floor => 1, root => 'middle');
SELECT dpbayes.betad_epsilon(1, 'logistic');
SELECT dpbayes.betad_epsilon_min(0);
SELECT dpbayes.betad_beta(NULL, 'logistic');
