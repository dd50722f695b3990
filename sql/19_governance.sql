-- Governed releases (docs/governance.md): datasets, the ledger, the release
-- procedure, roles.  No noisy value is printed: only charges, statuses and
-- metadata.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

CREATE TABLE gov_pat AS
SELECT i, (i % 10) / 10.0 AS x1, ((i % 7) / 7.0)::float8 AS x2,
       ((i % 13) / 13.0 - 0.5)::float8 AS y, (i * 7919) % 1000 < 137 AS hiv,
       'secret ' || i AS note
FROM generate_series(1, 400) i;
-- a view that fails when read: the release fails after its charge
CREATE VIEW gov_bad AS SELECT x1, x2, y / (i - 200) AS y FROM gov_pat;

-- ---- the exact charge, from the parameters alone, equals what the release records ----
WITH p AS (SELECT dpbayes.privacy(epsilon => 1, y_bound => 1, lower => '{0,0}', upper => '{1,1}') AS p),
     c AS (SELECT (dpbayes.charge_of('linear', 2, p)).* FROM p),
     r AS (SELECT dpbayes.release_json(dpbayes.linear_release(y, p, x1::float8, x2)) AS j
           FROM gov_pat, p GROUP BY p)
SELECT c.mechanism, c.neighbours, c.epsilon, c.delta,
       c.sensitivity = (j->>'sensitivity')::float8 AS same_sens,
       c.noise_scale = (j->>'noise_scale')::float8 AS same_scale,
       c.rho = (j->>'zcdp_rho')::float8 AS same_rho, c.rho > 0 AS rho_pos
FROM c, r;
SELECT mechanism, rho = 0.5 AS rho_is_eps2_over_2, epsilon, delta
FROM dpbayes.charge_of('linear', 2, dpbayes.privacy(epsilon => 1, mechanism => 'laplace',
                       y_bound => 1, lower => '{0,0}', upper => '{1,1}'));
SELECT pg_temp.err($q$SELECT dpbayes.charge_of('probit', 2, dpbayes.privacy(epsilon => 1))$q$);
SELECT pg_temp.err($q$SELECT dpbayes.charge_of('linear', 3, dpbayes.privacy(epsilon => 1, lower => '{0,0}', upper => '{1,1}'))$q$);

-- ---- the accountant ----
-- 4 identical Gaussian charges = one with sigma / 2 (rho x 4)
WITH g AS (SELECT (dpbayes.charge_of('linear', 2, dpbayes.privacy(epsilon => 0.5, delta => 1e-7,
                     y_bound => 1, lower => '{0,0}', upper => '{1,1}'))).* )
SELECT a.method, a.fits, round(a.epsilon_spent::numeric, 9) = round(b.epsilon_spent::numeric, 9) AS same,
       a.epsilon_spent < 4 * g.epsilon AS tighter_than_basic
FROM g, dpbayes.compose(4 * g.rho, 4 * g.epsilon, 4 * g.delta, 4, 10, 1e-5) a,
     dpbayes.compose(4 * g.rho, 100, 0, 1, 10, 1e-5) b;
-- all Laplace, delta budget 0: basic composition, exactly at the budget
SELECT * FROM dpbayes.compose(1.5, 3, 0, 3, 3, 0);
SELECT * FROM dpbayes.compose(2, 4, 0, 4, 3, 0);
SELECT pg_temp.err($q$SELECT dpbayes.compose(-1, 1, 0, 1, 1, 0)$q$);

-- ---- datasets ----
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 0, 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 'Infinity', 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 1, 1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 1, 0, 'i')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 1, 0, 'nope', 2)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat_i_seq', 1, 0)$q$);
SELECT dpbayes.register_dataset('gov_pat', 2.5, 0);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_pat', 1, 0)$q$);
SELECT dpbayes.register_dataset('gov_bad', 10, 1e-5);
SELECT * FROM dpbayes.budget('gov_pat');

-- ---- governed releases: Laplace eps 1 against a budget of 2.5 allows 2 ----
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS lap \gset
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0}', upper => '{1}') AS lap1 \gset
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1,x2}', :'lap', 'r1');
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1,x2}', :'lap', 'r1');  -- idempotent
SELECT charges, epsilon_spent, method, epsilon_remaining FROM dpbayes.budget('gov_pat');
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1,x2}', :'lap', 'r2');
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1,x2}', :'lap', 'r3');  -- DP001
SELECT charges, epsilon_spent, method, epsilon_remaining FROM dpbayes.budget('gov_pat');
SELECT request_id, status, mechanism, epsilon, rho, neighbours, group_count,
       (dpbayes.release_json(release)->>'zcdp_rho')::float8 = rho AS release_matches_charge,
       (dpbayes.release_json(release)->>'noise_scale')::float8 = noise_scale AS same_noise_scale
FROM dpbayes.my_requests ORDER BY request_id;
SELECT request_id, outcome, epsilon FROM dpbayes.audit ORDER BY id;
-- the same request id for another request
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x2,x1}', :'lap', 'r1');
-- inside a transaction block: refused before anything is charged
BEGIN;
CALL dpbayes.release('gov_bad', 'linear', 'y', '{x1,x2}', :'lap', 'b0');
ROLLBACK;
SELECT count(*) AS charges_b0 FROM dpbayes.charge WHERE request_id = 'b0';
-- a failure after the charge: the charge stays, the failure is recorded
CALL dpbayes.release('gov_bad', 'linear', 'y', '{x1,x2}', :'lap', 'b1');
SELECT request_id, status, error_sqlstate, release IS NULL AS no_release FROM dpbayes.my_requests
WHERE request_id = 'b1';
SELECT charges, epsilon_spent FROM dpbayes.budget('gov_bad');
-- Gaussian releases compose by zCDP
CALL dpbayes.release('gov_bad', 'linear', 'x2', '{x1}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 1, lower => '{0}', upper => '{1}'), 'g1');
-- (two charges: basic composition is the tighter here)
SELECT charges, method, epsilon_spent <= 1.5 AS never_looser_than_basic, delta_spent FROM dpbayes.budget('gov_bad');
-- validation: unknown columns, injected identifiers, types, unregistered relations
CALL dpbayes.release('gov_pat', 'linear', 'y', '{"x1; DROP TABLE gov_pat"}', :'lap', 'i1');
CALL dpbayes.release('gov_pat', 'linear', 'note', '{x1}', :'lap1', 'i2');
CALL dpbayes.release('gov_pat', 'logistic', 'y', '{x1}', :'lap1', 'i3');
CALL dpbayes.release('gov_pat', 'probit', 'y', '{x1}', :'lap1', 'i4');
CALL dpbayes.release('pg_class', 'linear', 'y', '{x1}', :'lap1', 'i5');
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}',
                     neighbours => 'replace'), 'i6');
SET dpbayes.insecure_noise_seed = 3;
CALL dpbayes.release('gov_pat', 'linear', 'y', '{x1}', :'lap1', 'i7');
RESET dpbayes.insecure_noise_seed;
SELECT count(*) AS charges_i FROM dpbayes.charge WHERE request_id LIKE 'i%';
-- the two steps (here called directly by the superuser; analysts are not
-- granted them): a release is computed only for a charge committed earlier
BEGIN;
SELECT dpbayes._charge('gov_bad', 'linear', 'x2', '{x1}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 1, lower => '{0}', upper => '{1}'), 'g2');
SELECT pg_temp.err($q$SELECT dpbayes._compute('g2')$q$);
SELECT status FROM dpbayes.my_requests WHERE request_id = 'g2';
ROLLBACK;
SELECT count(*) AS charges_g2 FROM dpbayes.my_requests WHERE request_id = 'g2';
SELECT dpbayes._charge('gov_bad', 'linear', 'x2', '{x1}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 1, lower => '{0}', upper => '{1}'), 'g2');
-- a release computed and rolled back never shows
BEGIN;
SELECT dpbayes._compute('g2');
SELECT status, release IS NULL AS hidden_until_committed FROM dpbayes.my_requests WHERE request_id = 'g2';
ROLLBACK;
SELECT status FROM dpbayes.my_requests WHERE request_id = 'g2';
SELECT dpbayes._compute('g2');
SELECT status, release IS NOT NULL AS shown FROM dpbayes.my_requests WHERE request_id = 'g2';
SELECT dpbayes._compute('g2');   -- made once: never again

-- ---- roles ----
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_owner') THEN
    CREATE ROLE dpbayes_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_analyst') THEN
    CREATE ROLE dpbayes_analyst NOLOGIN;
  END IF;
END $$;
SELECT dpbayes.governance_setup('dpbayes_owner', 'dpbayes_analyst');
ALTER TABLE gov_pat OWNER TO dpbayes_owner;
GRANT USAGE ON SCHEMA public TO dpbayes_analyst;
GRANT CREATE ON SCHEMA public TO dpbayes_owner;
SELECT rolsuper FROM pg_roles WHERE rolname = 'dpbayes_owner';
-- the owner registers, with a fresh budget
SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE gov_own AS SELECT * FROM gov_pat;
-- the ledger role must be able to read it
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_own', 1.5, 0)$q$);
GRANT SELECT ON gov_own TO dpbayes_ledger;
SELECT dpbayes.register_dataset('gov_own', 1.5, 0);
SELECT dpbayes.grant_dataset('gov_own', 'dpbayes_analyst');
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT pg_temp.err($q$SELECT count(*) FROM gov_own$q$);
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(y, dpbayes.privacy(epsilon => 100, y_bound => 1, lower => '{0}', upper => '{1}'), x2) FROM gov_own$q$);
SELECT pg_temp.err($q$INSERT INTO dpbayes.charge SELECT * FROM dpbayes.charge LIMIT 1$q$);
SELECT pg_temp.err($q$DELETE FROM dpbayes.charge$q$);
SELECT pg_temp.err($q$UPDATE dpbayes.dataset SET epsilon = 1000$q$);
SELECT pg_temp.err($q$SELECT count(*) FROM dpbayes.released$q$);
SELECT pg_temp.err($q$SELECT count(*) FROM dpbayes.audit$q$);
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gov_own', 100, 0)$q$);
SELECT pg_temp.err($q$SET dpbayes.insecure_noise_seed = 1$q$);
SELECT pg_temp.err($q$SELECT dpbayes.governance_setup('dpbayes_analyst', 'dpbayes_analyst')$q$);
-- the steps of a release are granted to nobody
SELECT pg_temp.err($q$SELECT dpbayes._charge('gov_own', 'linear', 'y', '{x1}', dpbayes.privacy(epsilon => 1, y_bound => 1, lower => '{0}', upper => '{1}'), 'd1')$q$);
SELECT pg_temp.err($q$SELECT dpbayes._compute('d1')$q$);
-- the governed path works, and search_path cannot redirect it
SET search_path = pg_temp, public;
CALL dpbayes.release('gov_own', 'linear', 'y', '{x1,x2}', :'lap', 'a1');
CALL dpbayes.release('gov_own', 'linear', 'y', '{x1,x2}', :'lap', 'a2');  -- DP001
RESET search_path;
SELECT request_id, status, epsilon FROM dpbayes.my_requests ORDER BY request_id;
SELECT charges, epsilon_spent, method FROM dpbayes.budget('gov_own');
-- (50 draws of one chain always warn, whatever the chain: the ESS is
-- capped at S log10(S) = 85 < 100)
SELECT count(*) > 0 AS posterior_runs
FROM dpbayes.my_requests, dpbayes.posterior_summary(release, draws => 50, chains => 1, warmup => 50, seed => 1)
WHERE request_id = 'a1';
RESET SESSION AUTHORIZATION;
-- owners read the ledger and the audit log
SET SESSION AUTHORIZATION dpbayes_owner;
SELECT count(*) > 0 AS owner_reads_audit FROM dpbayes.audit;
RESET SESSION AUTHORIZATION;
SELECT request_id, requested_by, status FROM dpbayes.charge WHERE relation = 'gov_own'::regclass;
SELECT who, request_id, outcome FROM dpbayes.audit WHERE relation = 'gov_own'::regclass ORDER BY id;
