-- Posterior inference on linear releases: the API, reproducibility, the
-- non-private reference, closeness to it at large N, bad input, cancel.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 5;
SELECT setseed(0.25);
-- 2M records, features uniform on the disc of radius 2 (so that, with
-- bounds [-2, 2] and ball scaling, no record is clipped), y = 1 + 0.5 a -
-- 0.8 b + N(0, 1).  The noise weights give the y*x block (which drives
-- theta) less noise than x x^T and y^2 (which barely matter here): absolute
-- block noise scales 4 * 2.83, 17, 4 * 36, about 4, 1, 4 times each
-- block's sensitivity.
CREATE TABLE lin AS
SELECT ARRAY[2 * sqrt(u) * cos(phi), 2 * sqrt(u) * sin(phi)] AS x,
       1 + 0.5 * 2 * sqrt(u) * cos(phi) - 0.8 * 2 * sqrt(u) * sin(phi)
         + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS y
FROM (SELECT random() AS u, 2 * pi() * random() AS phi FROM generate_series(1, 2000000)) s;
SELECT count(*) FILTER (WHERE abs(y) > 6) AS clipped_y FROM lin;
CREATE TABLE linrel AS SELECT
  dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, delta => 1e-5, y_bound => 6,
      lower => ARRAY[-2, -2], upper => ARRAY[2, 2], scaling => 'ball', features => ARRAY['a', 'b'],
      noise_weights => ARRAY[11.3, 17, 144, 1])) AS r,
  dpbayes.nonprivate_linear_stats(x, y, dpbayes.privacy(epsilon => 1, delta => 1e-5, y_bound => 6,
      lower => ARRAY[-2, -2], upper => ARRAY[2, 2], scaling => 'ball', features => ARRAY['a', 'b'])) AS np
FROM lin;
DROP TABLE lin;

-- long format, variables named after the features, original units
-- (whether a run this short warns, and its numbers, depend on the chain's
-- floating-point path, which OpenBLAS's CPU-specific kernels change: the
-- short runs of this section hide their warnings)
SET client_min_messages = error;
SELECT variable, count(*), count(DISTINCT chain) AS chains, min(iteration), max(iteration),
       min(draw), max(draw)
FROM linrel, dpbayes.posterior(r, draws => 100, chains => 3, warmup => 50, seed => 1)
GROUP BY variable ORDER BY variable;
RESET client_min_messages;
-- (one draw has no R-hat or ESS: only the insecure-noise warning shows)
SELECT variable FROM linrel, dpbayes.posterior(r, draws => 1, chains => 1, warmup => 10, seed => 1,
       options => '{"nuisance": true}') ORDER BY variable;
SET client_min_messages = error;
-- the same seed gives identical draws; another seed does not
SELECT (SELECT array_agg(value ORDER BY draw, variable) FROM linrel, dpbayes.posterior(r, draws => 50, chains => 2, warmup => 20, seed => 42))
     = (SELECT array_agg(value ORDER BY draw, variable) FROM linrel, dpbayes.posterior(r, draws => 50, chains => 2, warmup => 20, seed => 42))
       AS same_seed_same_draws,
       (SELECT array_agg(value ORDER BY draw, variable) FROM linrel, dpbayes.posterior(r, draws => 50, chains => 2, warmup => 20, seed => 42))
     = (SELECT array_agg(value ORDER BY draw, variable) FROM linrel, dpbayes.posterior(r, draws => 50, chains => 2, warmup => 20, seed => 43))
       AS other_seed_same_draws;
-- thin keeps every k-th draw of a longer chain
SELECT count(*) FROM linrel, dpbayes.posterior(r, draws => 10, chains => 1, warmup => 10, seed => 1,
       options => '{"thin": 5}');
RESET client_min_messages;

-- at large N the noise-aware posterior is close to the non-private one:
-- two-sample KS distance of each coefficient's draws <= 0.1; it covers the
-- truth, converges, and the naive posterior is reported too.  (Measured
-- over posterior seeds, as a stand-in for the CPU kernels: KS 0.020 +-
-- 0.009, at most 0.036; noise-aware R-hat at most 1.0042 with sd 0.0016,
-- so R-hat < 1.02 sits over 10 sd away, where the warning's own 1.01 is
-- only 5 sd away: the warnings of these runs are not shown; bulk ESS
-- >= 4185.)  An error that moves theta by half its posterior sd (0.0007)
-- or more, such as a wrong scaling back to the original units, puts the KS
-- distance past 0.1.
SET client_min_messages = error;
CREATE TEMP TABLE d AS
SELECT 'noise_aware' AS src, variable, value FROM linrel, dpbayes.posterior(r, seed => 11)
UNION ALL
SELECT 'nonprivate', variable, value FROM linrel, dpbayes.posterior(np, seed => 12, method => 'nonprivate');
WITH e AS (
  SELECT variable, src, value,
         cume_dist() OVER (PARTITION BY variable, src ORDER BY value) AS f
  FROM d),
g AS (
  SELECT variable,
         max(f) FILTER (WHERE src = 'noise_aware') OVER w AS fa,
         max(f) FILTER (WHERE src = 'nonprivate') OVER w AS fb
  FROM e WINDOW w AS (PARTITION BY variable ORDER BY value
                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
SELECT variable, max(abs(coalesce(fa, 0) - coalesce(fb, 0))) <= 0.1 AS ks_within_0_1
FROM g WHERE variable LIKE 'theta%' GROUP BY 1 ORDER BY 1;
SELECT variable, rhat < 1.02 AS converged, ess_bulk > 400 AS enough_draws
FROM linrel, dpbayes.posterior_summary(r, seed => 11) ORDER BY variable;
-- (the naive posterior's draws are iid: R-hat at most 1.002)
SELECT variable, rhat < 1.01 AS converged FROM linrel,
       dpbayes.posterior_summary(r, seed => 11, method => 'naive') ORDER BY variable;
RESET client_min_messages;
DROP TABLE d;

-- bad input
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, draws => 0)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, draws => 100001)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, chains => 0)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, chains => 17)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, warmup => -1)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, draws => NULL)$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, method => 'magic')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, method => 'nonprivate')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(np, seed => 1, method => 'naive')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"prior": 1}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"priors": "nig"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '[1]')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"theta_precision": -1}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"theta_precision": [1, 2]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"theta_mean": "zero"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"sigma2_shape": 0}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"x_moments": "noisy"}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"x_cov": [[1, 0.5], [0.4, 1]]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"x_cov": [[1, 0], [0, -1]]}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"x_df": 0.5}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"thin": 0}')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(r, seed => 1, options => '{"nuisance": 1}')$q$);
-- a release of another model, a forged release
SELECT pg_temp.err($q$SELECT * FROM dpbayes.posterior((SELECT dpbayes.logistic_release(ARRAY[1.0], true,
    dpbayes.privacy(epsilon => 1, scaling => 'none'))), seed => 1, method => 'naive')$q$);
SELECT pg_temp.err($q$SELECT * FROM linrel, dpbayes.posterior(jsonb_set(r::jsonb, '{noise_scale}', '1')::text::dpbayes.release, seed => 1)$q$);

-- a long run stops promptly when cancelled (statement_timeout)
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SET statement_timeout = '300ms';
SELECT count(*) FROM linrel, dpbayes.posterior(r, draws => 100000, chains => 16,
                                               warmup => 100000, seed => 1);
RESET statement_timeout;
SELECT clock_timestamp() - t < interval '1.3 s' AS cancelled_within_a_second FROM t0;
DROP TABLE linrel;
