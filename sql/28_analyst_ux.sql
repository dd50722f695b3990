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

-- a release needs public bounds on its features (without them every record
-- was projected onto the unit ball, silently): the error says why, what to
-- pass and how to opt out; every path that releases or charges refuses
\set VERBOSITY default
SELECT dpbayes.linear_release(x, u, dpbayes.privacy(epsilon => 1, y_bound => 2)) FROM ux;
\set VERBOSITY terse
SELECT dpbayes.logistic_release(u < 0.5, dpbayes.privacy(epsilon => 1), x[1], x[2]) FROM ux;
SELECT dpbayes.poisson_release(x, 1, dpbayes.privacy(epsilon => 1, y_bound => 2)) FROM ux;
SELECT dpbayes.nonprivate_linear_stats(x, u, dpbayes.privacy(epsilon => 1, y_bound => 2)) FROM ux;
SELECT dpbayes.logistic_release(x, u < 0.5, dpbayes.privacy(epsilon => 1, features => ARRAY['a', 'b'])) FROM ux WHERE false;
SELECT count(*) FROM dpbayes.nonprivate_posterior('logistic', ARRAY[[0.5], [0.7]], ARRAY[0, 1],
       dpbayes.privacy(epsilon => 1), seed => 1);
SELECT * FROM dpbayes.charge_of('linear', 2, dpbayes.privacy(epsilon => 1, y_bound => 2));
-- betaD: the prior is on the scaled coefficients
\set VERBOSITY default
SELECT dpbayes.betad_logistic(x, u < 0.5, dpbayes.betad(1, 'logistic')) FROM ux;
\set VERBOSITY terse
SELECT dpbayes.betad_linear(u, dpbayes.betad(8, 'linear', sigma2_floor => 0.01), x[1], x[2]) FROM ux;
SELECT * FROM dpbayes.betad_charge_of(dpbayes.betad(1, 'logistic'));
SELECT count(*) FROM dpbayes.betad_tune_NOT_PRIVATE(ARRAY[[0.1], [0.2]], ARRAY[0, 1], dpbayes.betad(1, 'logistic'));
-- the parameters alone are not a release: they can be inspected
SELECT (p).scaling, (p).lower IS NULL AS no_bounds FROM (SELECT dpbayes.privacy(epsilon => 1) AS p) s;
SELECT (p).beta, (p).scaling FROM (SELECT dpbayes.betad(1, 'logistic') AS p) s;
-- scaling => 'none' is the explicit opt-out (features already in the unit
-- ball); it cannot be combined with bounds
SELECT (p).scaling, dpbayes.release_json(r)->>'lower' AS lower
FROM (SELECT dpbayes.privacy(epsilon => 1, y_bound => 2, scaling => 'none') AS p) pp,
     LATERAL (SELECT dpbayes.linear_release(x, u, p) AS r FROM ux) rr;
SELECT (dpbayes.betad_logistic(x, u < 0.5, dpbayes.betad(1, 'logistic', scaling => 'none', chains => 1,
        warmup => 20, iterations => 10)))::jsonb->>'kind' AS kind FROM ux;
SELECT dpbayes.privacy(epsilon => 1, scaling => 'none', lower => ARRAY[0], upper => ARRAY[1]);
SELECT dpbayes.privacy(epsilon => 1, scaling => 'unit');
SELECT dpbayes.betad(1, 'logistic', scaling => 'none', lower => ARRAY[0], upper => ARRAY[1]);
SELECT dpbayes.betad(1, 'logistic', scaling => 'box');
\set VERBOSITY default

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
-- the prior on (theta, sigma^2) (issue 26): the NIG keys need "prior": "nig"
-- (the default is "weak"), the weak prior's keys need the NUTS sampler and
-- the weak prior, intercept_sd an intercept
\set VERBOSITY default
SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"sigma2_shape": 3}');
\set VERBOSITY terse
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"theta_precision": 0.1}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"prior": "nig", "theta_sd": 1}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"sampler": "gibbs", "sigma2_mean": 0.5}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, method => 'naive', options => '{"intercept_sd": 2}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"sampler": "gibbs", "prior": "weak"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"prior": "r2"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"theta_sd": [1, 0]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"theta_sd": [1, 1, 1]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM uxrel, dpbayes.posterior(rb, 5, 1, 5, 1, options => '{"prior": "nig"}')$q$);
-- the array form of the non-private tuning function takes labels 0 and 1
SELECT pg_temp.err($q$SELECT * FROM dpbayes.betad_tune_NOT_PRIVATE(ARRAY[[0.1], [0.2]], ARRAY[0.5, 1],
    dpbayes.betad(1, 'logistic', scaling => 'none'))$q$);
-- ... and where they apply they still work
SET client_min_messages = error;
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rl, 5, 1, 5, 1, options => '{"laplace_noise": "omega", "target_accept": 0.9}');
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"x_moments": "prior", "x_cov": [[0.3, 0], [0, 0.3]]}');
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"prior": "nig", "sigma2_shape": 3, "theta_precision": 0.1}');
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"sampler": "gibbs", "prior": "nig", "sigma2_scale": 1}');
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, 5, 1, 5, 1, options => '{"theta_sd": [1, 2], "intercept_sd": 1, "sigma2_mean": 0.5}');
RESET client_min_messages;

-- common mistakes reach a function that explains them (PostgreSQL would
-- say "function ... does not exist"): a numeric logistic y in both forms,
-- also for an empty group and for betaD; a missing epsilon or model; the
-- American spelling neighbors (named and mixed notation)
\set VERBOSITY default
SELECT dpbayes.logistic_release(x, (u < 0.5)::int, dpbayes.privacy(epsilon => 1, scaling => 'none')) FROM ux;
\set VERBOSITY terse
SELECT dpbayes.logistic_release(u, dpbayes.privacy(epsilon => 1, scaling => 'none'), x[1], x[2]) FROM ux;
SELECT dpbayes.logistic_release(x, 1.0, dpbayes.privacy(epsilon => 1, scaling => 'none')) FROM ux WHERE false;
SELECT dpbayes.betad_logistic(x, u, dpbayes.betad(1, 'logistic', scaling => 'none')) FROM ux;
SELECT dpbayes.betad_logistic(u, dpbayes.betad(1, 'logistic', scaling => 'none'), x[1], x[2]) FROM ux;
\set VERBOSITY default
SELECT dpbayes.privacy(delta => 1e-5, lower => ARRAY[0], upper => ARRAY[1]);
SELECT dpbayes.privacy(epsilon => 1, neighbors => 'replace');
\set VERBOSITY terse
SELECT dpbayes.privacy(1, neighbors => 'replace');
SELECT dpbayes.betad(1, 'logistic', neighbors => 'replace');
SELECT dpbayes.betad(beta => 3);
\set VERBOSITY default
-- the right spellings and types still resolve to the releases
SELECT (dpbayes.privacy(1)).epsilon AS positional_epsilon,
       (dpbayes.betad(model => 'logistic', beta => 3)).epsilon AS epsilon_of_beta;
SELECT dpbayes.logistic_release(x, u < 0.5, dpbayes.privacy(epsilon => 1, scaling => 'none')) IS NOT NULL AS array_form,
       dpbayes.logistic_release(u < 0.5, dpbayes.privacy(epsilon => 1, scaling => 'none'), x[1], x[2]) IS NOT NULL AS cols_form
FROM ux;
SELECT count(*) AS overloads_that_explain FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'dpbayes' AND obj_description(p.oid, 'pg_proc') LIKE 'not %';

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

-- progress NOTICEs of long runs (docs/posterior.md, "Progress"): auto, the
-- default, is off here (the client is pg_regress, not psql); interval 0
-- reports every iteration, which makes the NOTICEs deterministic (their
-- timing, in the DETAIL, is not shown: VERBOSITY terse)
SHOW dpbayes.progress;
SHOW dpbayes.progress_interval;
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rb, draws => 2, chains => 2, warmup => 2, seed => 1);
SET dpbayes.progress = on;
SET dpbayes.progress_interval = 0;
\set VERBOSITY terse
-- NUTS: the schedule with its cost estimate, then chain, phase, iteration
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rb, draws => 2, chains => 2, warmup => 2, seed => 1);
-- Gibbs-SS, and the non-private reference
SELECT count(*) AS draws FROM uxrel, dpbayes.posterior(rg, draws => 2, chains => 1, warmup => 1, seed => 1,
                                                         options => '{"sampler": "gibbs"}');
SELECT count(*) AS draws FROM dpbayes.nonprivate_posterior('logistic', ARRAY[[0.5], [0.7], [0.1]], ARRAY[0, 1, 1],
       dpbayes.privacy(epsilon => 1, scaling => 'none'), draws => 2, chains => 1, warmup => 1, seed => 1);
-- a local-DP posterior
CREATE TABLE uxldp AS
SELECT dpbayes.ldp_collect(dpbayes.ldp_protocol_id(p), ARRAY[v]::float8[], p) AS c
FROM (SELECT (i % 9) * 0.5 - 2 AS v FROM generate_series(1, 40) i) s,
     (SELECT '{"mechanism":"scalar_laplace","epsilon":2,"lower":-5,"upper":5}'::text AS p) q;
SELECT count(*) AS draws FROM uxldp, dpbayes.ldp_posterior(c, '{"seed": 1, "chains": 1, "warmup": 2, "draws": 1}');
-- betaD: the public schedule only, and (not within this short run) the
-- time since the start at fixed clock times: never the chain's position
SET dpbayes.progress_interval = '1h';
SELECT dpbayes.betad_logistic(x, u < 0.5, dpbayes.betad(1, 'logistic', scaling => 'none', chains => 1,
        warmup => 20, iterations => 10))::jsonb->>'kind' AS kind FROM ux;
\set VERBOSITY default
-- cancel stays prompt while every iteration sends a NOTICE (to the server
-- log here: the client sees none, the reporting path runs all the same)
SET dpbayes.progress_interval = 0;
SET log_min_messages = notice;
SET client_min_messages = warning;
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SET statement_timeout = '300ms';
SELECT count(*) FROM uxrel, dpbayes.posterior(rb, draws => 100000, chains => 16, warmup => 100000, seed => 1);
RESET statement_timeout;
SELECT clock_timestamp() - t < interval '1.3 s' AS cancelled_within_a_second FROM t0;
RESET log_min_messages;
RESET client_min_messages;
RESET dpbayes.progress;
RESET dpbayes.progress_interval;

DROP TABLE ux, uxrel, uxlim, uxldp;
