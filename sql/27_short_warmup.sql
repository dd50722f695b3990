-- A short warmup is the user's choice (issue 22): the sampler returns its
-- draws with the convergence WARNING, whose HINT names warmup; it never
-- fails for a sampler reason.  (It used to fail with 22003 "the sampler
-- never moved" on 10 of 12 logistic seeds and 3 of 12 linear ones at
-- warmup 20, and on every seed at warmup 1.)  Only input that is really
-- wrong fails: a prior with no mass where the likelihood is (unit test
-- nuts, test_no_mass).
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 27;
SELECT setseed(0.27);
CREATE TABLE sw AS
SELECT ARRAY[a, b] AS x, random() < 1 / (1 + exp(-(0.3 + a - b))) AS yl,
       0.5 + a - 0.5 * b + 0.3 * (random() - 0.5) AS y
FROM (SELECT random() - 0.5 AS a, random() - 0.5 AS b FROM generate_series(1, 2000)) s;
SET client_min_messages = error;
CREATE TABLE swrel AS SELECT
  dpbayes.logistic_release(x, yl, dpbayes.privacy(epsilon => 1, delta => 1e-5,
      lower => ARRAY[-1, -1], upper => ARRAY[1, 1])) AS rl,
  dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, delta => 1e-5, y_bound => 2,
      lower => ARRAY[-1, -1], upper => ARRAY[1, 1])) AS rlin
FROM sw;
-- 12 seeds x warmup 1 and 20 x both models: every run returns its 200
-- draws of every variable (the warnings are hidden here: which one a run
-- gets depends on its chain)
WITH runs AS (
  SELECT 'logistic' AS model, w, s,
         (SELECT count(*) FROM dpbayes.posterior(rl, draws => 200, chains => 1, warmup => w, seed => s)) AS n
  FROM swrel, unnest(ARRAY[1, 20]) w, generate_series(1, 12) s
  UNION ALL
  SELECT 'linear', w, s,
         (SELECT count(*) FROM dpbayes.posterior(rlin, draws => 200, chains => 1, warmup => w, seed => s))
  FROM swrel, unnest(ARRAY[1, 20]) w, generate_series(1, 12) s)
SELECT model, w AS warmup, count(*) AS runs,
       count(*) FILTER (WHERE n > 0 AND n % 200 = 0) AS runs_with_all_draws
FROM runs GROUP BY model, w ORDER BY model, w;
RESET client_min_messages;
-- the WARNING: a NUTS warmup under 150 iterations always warns (its detail,
-- a stuck chain or R-hat and ESS, depends on the chain; the message does not)
\set VERBOSITY terse
SELECT count(*) AS values FROM swrel, dpbayes.posterior(rl, draws => 200, chains => 1, warmup => 1, seed => 1);
SELECT count(*) AS values FROM swrel, dpbayes.posterior(rlin, draws => 200, chains => 2, warmup => 20, seed => 3);
\set VERBOSITY default
-- in full: one draw per chain leaves R-hat and ESS undefined, so the detail
-- does not depend on the chain either
SELECT count(*) AS values FROM swrel, dpbayes.posterior(rl, draws => 1, chains => 1, warmup => 20, seed => 1);
-- the default warmup converges: no warning
SELECT variable, rhat < 1.02 AS converged FROM swrel,
       dpbayes.posterior_summary(rl, draws => 1000, chains => 4, seed => 5) ORDER BY variable;
DROP TABLE sw, swrel;
