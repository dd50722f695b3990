-- The analyst's experience (issue 25): wrong input is refused with a clear
-- error naming the option, the documented size limits are exact.
CREATE EXTENSION IF NOT EXISTS dpbayes;
-- (secure noise: nothing printed here depends on the release's values)
SELECT setseed(0.28);
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- 300 records, two features in [-1, 1]
CREATE TABLE ux AS
SELECT ARRAY[2 * random() - 1, 2 * random() - 1] AS x, random() AS u
FROM generate_series(1, 300);
CREATE TABLE uxrel AS SELECT
  dpbayes.linear_release(x, x[1] + u, dpbayes.privacy(epsilon => 1, y_bound => 2,
      lower => ARRAY[-1, -1], upper => ARRAY[1, 1])) AS rg,
  dpbayes.linear_release(x, x[1] + u, dpbayes.privacy(epsilon => 1, y_bound => 2, mechanism => 'laplace',
      lower => ARRAY[-1, -1], upper => ARRAY[1, 1])) AS rl,
  dpbayes.logistic_release(x, u < 0.5, dpbayes.privacy(epsilon => 1,
      lower => ARRAY[-1, -1], upper => ARRAY[1, 1])) AS rb
FROM ux;

-- options that do not apply to the run are errors naming the option (they
-- used to be ignored silently)
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"laplace_noise": "latent"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rl, 5, 1, 5, 1, method => 'naive', options => '{"laplace_noise": "latent"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rl, 5, 1, 5, 1, options => '{"laplace_noise": "latent", "sampler": "gibbs"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"sampler": "gibbs", "target_accept": 0.9}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, method => 'naive', options => '{"max_depth": 5}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, method => 'naive', options => '{"thin": 5}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"x_moments": "prior", "x_df": 5}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"x_cov": [[1, 0], [0, 1]]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rb, 5, 1, 5, 1, options => '{"thin": 2}')$q$);
-- the array form of the non-private tuning function takes labels 0 and 1
SELECT pg_temp.err($q$SELECT * FROM dpbayes.betad_tune_NOT_PRIVATE(ARRAY[[0.1], [0.2]], ARRAY[0.5, 1],
    dpbayes.betad(1, 'logistic', lower => ARRAY[0], upper => ARRAY[1]))$q$);
-- ... and where they apply they still work
SET client_min_messages = error;
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rl, 5, 1, 5, 1, options => '{"laplace_noise": "omega", "target_accept": 0.9}');
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"x_moments": "prior", "x_cov": [[0.3, 0], [0, 0.3]]}');
RESET client_min_messages;

-- the size limits of docs/posterior.md ("Limits") are exact: at d - 1 the
-- run starts (its estimate is at least 44 s: statement_timeout cancels it),
-- at d it is refused (54000) with the sampler, the model, d and an
-- estimate that reads as more than the limit
CREATE TABLE uxlim AS
SELECT model, d, opts::jsonb AS opts,
       (SELECT CASE model
          WHEN 'linear' THEN dpbayes.linear_release(array_fill(0.5 + 0 * i, ARRAY[d]), 1,
              dpbayes.privacy(epsilon => 1, y_bound => 2, lower => array_fill(0::float8, ARRAY[d]),
                              upper => array_fill(1::float8, ARRAY[d])))
          WHEN 'logistic' THEN dpbayes.logistic_release(array_fill(0.5 + 0 * i, ARRAY[d]), i % 2 = 0,
              dpbayes.privacy(epsilon => 1, lower => array_fill(0::float8, ARRAY[d]),
                              upper => array_fill(1::float8, ARRAY[d])))
          ELSE dpbayes.poisson_release(array_fill(0.5 + 0 * i, ARRAY[d]), 1,
              dpbayes.privacy(epsilon => 1, y_bound => 2, lower => array_fill(0::float8, ARRAY[d]),
                              upper => array_fill(1::float8, ARRAY[d])))
        END FROM generate_series(1, 10) i) AS r
FROM (VALUES ('linear', 43, '{"sampler": "gibbs"}'), ('linear', 44, '{"sampler": "gibbs"}'),
             ('linear', 46, '{"sampler": "nuts"}'), ('linear', 47, '{"sampler": "nuts"}'),
             ('logistic', 49, '{}'), ('logistic', 50, '{}'),
             ('poisson', 35, '{}'), ('poisson', 36, '{}')) v(model, d, opts);
CREATE FUNCTION pg_temp.limit_at(model text, d int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; det text;
BEGIN
  PERFORM count(*) FROM uxlim, dpbayes.posterior(r, draws => 100, chains => 1, warmup => 100, seed => 1, options => opts)
  WHERE uxlim.model = limit_at.model AND uxlim.d = limit_at.d;
  RETURN model || ' d = ' || d || ': ran to the end';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RETURN model || ' d = ' || d || ': ' || SQLSTATE || CASE WHEN SQLSTATE = '54000' THEN ': ' || m || ' / ' || det ELSE '' END;
END $$;
SET client_min_messages = error;
\set SHOW_CONTEXT never
SET statement_timeout = '400ms';
SELECT pg_temp.limit_at('linear', 43) AS gibbs;
SELECT pg_temp.limit_at('linear', 44) AS gibbs;
SELECT pg_temp.limit_at('linear', 46) AS nuts;
SELECT pg_temp.limit_at('linear', 47) AS nuts;
SELECT pg_temp.limit_at('logistic', 49);
SELECT pg_temp.limit_at('logistic', 50);
SELECT pg_temp.limit_at('poisson', 35);
SELECT pg_temp.limit_at('poisson', 36);
RESET statement_timeout;
RESET client_min_messages;
\set SHOW_CONTEXT errors

DROP TABLE ux, uxrel, uxlim;
