-- betaD-Bayes networks (issue 28; docs/betad.md, "Neural networks"): the
-- parameters (hidden, activation, the networks' defaults), the
-- aggregates betad_mlp_classifier / betad_mlp_regression (array and column
-- forms) on the shipped Pima, breast cancer and Boston data, the release
-- (JSON, text round trip, no n), dpbayes.betad_predict for networks and
-- for the logistic and linear releases, and the refusals.  The draws come
-- from pg_strong_random: only robust booleans are printed.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default

CREATE TEMP TABLE pima (
    pregnant integer, glucose integer, pressure integer, triceps integer, insulin integer,
    mass float8, pedigree float8, age integer, diabetes text);
\copy pima FROM 'data/pima_indians_diabetes.csv' WITH (FORMAT csv, HEADER true)
CREATE TEMP TABLE boston (
    crim float8, zn float8, indus float8, chas text, nox float8, rm float8,
    age float8, dis float8, rad float8, tax float8, ptratio float8, b float8,
    lstat float8, medv float8);
\copy boston FROM 'data/boston_housing.csv' WITH (FORMAT csv, HEADER true)
CREATE TEMP TABLE breast (
    id text, cl_thickness float8, cell_size float8, cell_shape float8, marg_adhesion float8,
    epith_c_size float8, bare_nuclei float8, bl_cromatin float8, normal_nucleoli float8,
    mitoses float8, class text);
\copy breast FROM 'data/breast_cancer.csv' WITH (FORMAT csv, HEADER true)
SELECT (SELECT count(*) FROM pima) AS pima, (SELECT count(*) FROM boston) AS boston,
       (SELECT count(*) FROM breast) AS breast;

-- ---- parameters: the paper's network by default ----
SELECT (p).hidden, (p).activation, (p).prior_sd, (p).chains, (p).warmup, (p).iterations,
       (p).beta, (p).neighbours
FROM (SELECT dpbayes.betad(1, 'mlp_classifier') AS p) s;
SELECT (p).hidden, (p).activation, (p).prior_sd, (p).y_scale
FROM (SELECT dpbayes.betad(2, 'mlp_regression', sigma2_floor => 16, y_scale => 10,
                           hidden => 3, activation => 'tanh', prior_sd => 2) AS p) s;
-- the logistic and linear models keep theirs, with no architecture
SELECT (p).hidden IS NULL AS no_hidden, (p).activation IS NULL AS no_activation, (p).prior_sd,
       (p).chains, (p).warmup, (p).iterations
FROM (SELECT dpbayes.betad(1, 'logistic') AS p) s;
-- beta from epsilon as for the logistic and linear models
SELECT (dpbayes.betad(1, 'mlp_classifier')).beta = (dpbayes.betad(1, 'logistic')).beta AS same_beta,
       (dpbayes.betad(2, 'mlp_regression', sigma2_floor => 16, y_scale => 10)).beta =
       (dpbayes.betad(2, 'linear', sigma2_floor => 16, y_scale => 10)).beta AS same_beta_gauss;

-- refusals
SELECT dpbayes.betad(1, 'logistic', hidden => 5);
SELECT dpbayes.betad(1, 'mlp_classifier', hidden => 0);
SELECT dpbayes.betad(1, 'mlp_classifier', hidden => 65);
SELECT dpbayes.betad(1, 'mlp_classifier', activation => 'sigmoid');
SELECT dpbayes.betad(1, 'mlp_classifier', intercept => false);
SELECT dpbayes.betad(1, 'mlp_classifier', tier => 'exact', neighbours => 'replace');
SELECT dpbayes.betad(1, 'mlp_regression');
SELECT dpbayes.betad(1, 'mlp_classifier', sigma2_floor => 1);
SELECT dpbayes.betad(1, 'mlp_classifier', hidden => 64,
                     lower => array_fill(0::float8, ARRAY[40]), upper => array_fill(1::float8, ARRAY[40]));

-- ---- a classifier on Pima, array form (a short schedule: the test's time) ----
CREATE TEMP TABLE rel AS
SELECT dpbayes.betad_mlp_classifier(
           ARRAY[pregnant, glucose, pressure, triceps, insulin, mass, pedigree, age]::float8[],
           diabetes = 'pos',
           dpbayes.betad(2, 'mlp_classifier',
                         lower => ARRAY[0, 0, 0, 0, 0, 0, 0.078, 21],
                         upper => ARRAY[17, 200, 122, 99, 846, 67.1, 2.42, 81],
                         features => ARRAY['pregnant', 'glucose', 'pressure', 'triceps', 'insulin',
                                           'mass', 'pedigree', 'age'],
                         chains => 2, warmup => 150, iterations => 10)) AS r
FROM pima;
SELECT j->>'kind' AS kind, j->>'model' AS model, j->>'version' AS version, j->'network' AS network,
       j->>'neighbours' AS neighbours, j ? 'n' AS has_n,
       jsonb_array_length(j->'variables') AS nvar,
       jsonb_array_length(j->'draws'->0) AS ndraw,
       j->'variables'->>0 AS first, j->'variables'->>1 AS second, j->'variables'->>90 AS out_bias,
       j->'variables'->>100 AS last, j->'sampler' AS sampler
FROM (SELECT r::jsonb AS j FROM rel) s;
-- the text form reads back to the same release
SELECT (r::text::dpbayes.release)::text = r::text AS text_round_trip FROM rel;
-- class probabilities in [0, 1] for every row
SELECT bool_and(p >= 0 AND p <= 1) AS probabilities, count(*) AS rows
FROM (SELECT dpbayes.betad_predict(r, ARRAY[pregnant, glucose, pressure, triceps, insulin, mass,
                                            pedigree, age]::float8[]) AS p
      FROM pima, rel) s;
-- two releases are different draws (pg_strong_random)
SELECT (SELECT r::text FROM rel) <> (
    SELECT dpbayes.betad_mlp_classifier(ARRAY[glucose, mass]::float8[], diabetes = 'pos',
             dpbayes.betad(2, 'mlp_classifier', lower => ARRAY[0, 0], upper => ARRAY[200, 67.1],
                           hidden => 2, chains => 1, warmup => 50, iterations => 5))::text
    FROM pima) AS differ;

-- ---- breast cancer, column form, tanh ----
CREATE TEMP TABLE rel_bc AS
SELECT dpbayes.betad_mlp_classifier(
           class = 'malignant',
           dpbayes.betad(1, 'mlp_classifier', hidden => 3, activation => 'tanh',
                         lower => ARRAY[1, 1, 1], upper => ARRAY[10, 10, 10],
                         chains => 2, warmup => 150, iterations => 20),
           cl_thickness, cell_size, bl_cromatin) AS r
FROM breast;
SELECT r::jsonb->'network' AS network, jsonb_array_length(r::jsonb->'variables') AS nvar,
       r::jsonb->'features' AS features
FROM rel_bc;
SELECT bool_and(p >= 0 AND p <= 1) AS probabilities
FROM (SELECT dpbayes.betad_predict(r, ARRAY[cl_thickness, cell_size, bl_cromatin]) AS p
      FROM breast, rel_bc) s;

-- ---- Boston, regression: medv in units of 10, residual sd >= 4 ----
CREATE TEMP TABLE rel_b AS
SELECT dpbayes.betad_mlp_regression(
           medv,
           dpbayes.betad(2, 'mlp_regression', sigma2_floor => 16, y_scale => 10, hidden => 5,
                         lower => ARRAY[3, 1, 12], upper => ARRAY[9, 38, 23],
                         chains => 2, warmup => 200, iterations => 20),
           rm, lstat, ptratio) AS r
FROM boston;
SELECT j->>'model' AS model, j->'network' AS network, j->'sigma2_floor' AS floor,
       j->'y_scale' AS y_scale, (j->'draws'->0->>26)::float8 >= 16 AS sigma2_above_floor,
       j->'variables'->>26 AS last
FROM (SELECT r::jsonb AS j FROM rel_b) s;
SELECT bool_and(m > -1e6 AND m < 1e6) AS finite_means
FROM (SELECT dpbayes.betad_predict(r, ARRAY[rm, lstat, ptratio]) AS m FROM boston, rel_b) s;
-- the array form
SELECT dpbayes.betad_mlp_regression(ARRAY[rm, lstat]::float8[], medv,
           dpbayes.betad(2, 'mlp_regression', sigma2_floor => 16, y_scale => 10, hidden => 2,
                         lower => ARRAY[3, 1], upper => ARRAY[9, 38],
                         chains => 1, warmup => 50, iterations => 5))::jsonb->>'model' AS model
FROM boston;

-- ---- betad_predict of the logistic and linear releases: the linear
-- predictor of the released draw (sigma of it for logistic) ----
CREATE TEMP TABLE rel_l AS
SELECT dpbayes.betad_logistic(ARRAY[glucose, mass]::float8[], diabetes = 'pos',
           dpbayes.betad(2, 'logistic', lower => ARRAY[0, 0], upper => ARRAY[200, 67.1],
                         chains => 2, warmup => 100, iterations => 10)) AS r
FROM pima;
SELECT abs(dpbayes.betad_predict(r, ARRAY[120, 30]) -
           1 / (1 + exp(-((j->'draws'->0->>0)::float8 + 120 * (j->'draws'->0->>1)::float8
                          + 30 * (j->'draws'->0->>2)::float8)))) < 1e-12 AS logistic_ok
FROM (SELECT r, r::jsonb AS j FROM rel_l) s;
CREATE TEMP TABLE rel_lin AS
SELECT dpbayes.betad_linear(medv, dpbayes.betad(2, 'linear', sigma2_floor => 16, y_scale => 10,
                                                lower => ARRAY[3, 1], upper => ARRAY[9, 38],
                                                chains => 2, warmup => 100, iterations => 10),
                            rm, lstat) AS r
FROM boston;
SELECT abs(dpbayes.betad_predict(r, ARRAY[6, 10]) -
           ((j->'draws'->0->>0)::float8 + 6 * (j->'draws'->0->>1)::float8
            + 10 * (j->'draws'->0->>2)::float8)) < 1e-9 AS linear_ok
FROM (SELECT r, r::jsonb AS j FROM rel_lin) s;

-- ---- refusals of the aggregates and of betad_predict ----
SELECT dpbayes.betad_logistic(ARRAY[glucose]::float8[], diabetes = 'pos',
           dpbayes.betad(1, 'mlp_classifier', lower => ARRAY[0], upper => ARRAY[200]))
FROM pima;
SELECT dpbayes.betad_mlp_classifier(ARRAY[glucose]::float8[], diabetes = 'pos',
           dpbayes.betad(1, 'logistic', lower => ARRAY[0], upper => ARRAY[200]))
FROM pima;
SELECT dpbayes.betad_mlp_regression(medv, dpbayes.betad(1, 'mlp_classifier', lower => ARRAY[3],
                                                        upper => ARRAY[9]), rm)
FROM boston;
SELECT dpbayes.betad_predict(r, ARRAY[1, 2]) FROM rel_b;
SELECT dpbayes.betad_predict(r, ARRAY[1, NULL, 2]) FROM rel_b;
SELECT dpbayes.betad_predict(r, ARRAY['NaN', 1, 2]::float8[]) FROM rel_b;
SELECT dpbayes.betad_predict(r, NULL) IS NULL AS strict FROM rel_b;
SELECT dpbayes.betad_predict(dpbayes.linear_release(ARRAY[rm]::float8[], medv,
           dpbayes.privacy(epsilon => 1, delta => 1e-5, clip => 1, y_bound => 50,
                           lower => ARRAY[3], upper => ARRAY[9])), ARRAY[6])
FROM boston;

-- ---- NOT PRIVATE tuning runs the network too (seeded, every chain out) ----
SELECT count(DISTINCT variable) AS variables, count(*) AS values,
       bool_and(value = value AND abs(value) < 1e6) AS finite
FROM dpbayes.betad_tune_NOT_PRIVATE(
         ARRAY[[0.1, 0.2], [0.5, -0.3], [-0.4, 0.9], [0.7, 0.7], [-0.2, -0.6]]::float8[],
         ARRAY[1, 0, 1, 0, 1]::float8[],
         dpbayes.betad(1, 'mlp_classifier', hidden => 2, scaling => 'none',
                       chains => 2, warmup => 20, iterations => 5), 1)
WHERE iteration IS NOT NULL;

-- the summary names the network
SELECT key, value FROM rel_bc, dpbayes.release_summary(r)
WHERE key IN ('model', 'network', 'prior') ORDER BY key;
SELECT count(*) AS draw_entries FROM rel_bc, dpbayes.release_summary(r) WHERE key LIKE 'draw: %';

-- governed releases (dpbayes.release_betad) of networks are charged like any
-- betaD draw: the bound of the loss does not depend on the network
-- (sql/30_governed_betad makes one)
SELECT (dpbayes.betad_charge_of(dpbayes.betad(1, 'mlp_classifier', scaling => 'none'))).*
EXCEPT
SELECT (dpbayes.betad_charge_of(dpbayes.betad(1, 'logistic', scaling => 'none'))).*;
