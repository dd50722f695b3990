-- Governed betaD releases (issue 23, P11; docs/governance.md §3,
-- docs/betad.md): CALL dpbayes.release_betad charges the draws' epsilon and
-- rho = k eps1^2 / 8 (bounded range), respects privacy units (group privacy:
-- k eps for one draw) and public group keys (one draw per key, one charge),
-- signs each draw (version 2) and records no exact N.  No draw is printed.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_owner') THEN
    CREATE ROLE dpbayes_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_analyst') THEN
    CREATE ROLE dpbayes_analyst NOLOGIN;
  END IF;
END $$;
SET client_min_messages = warning;
SELECT dpbayes.governance_setup('dpbayes_owner', 'dpbayes_analyst');
RESET client_min_messages;
GRANT USAGE, CREATE ON SCHEMA public TO dpbayes_owner;
GRANT USAGE ON SCHEMA public TO dpbayes_analyst;

SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE g30 AS
SELECT i, (i % 40) AS unit, (i % 2) AS region, ((i % 10) / 10.0)::float8 AS x1,
       ((i * 7919) % 100) < 30 + 40 * ((i % 10) / 10.0) AS y,
       ((i % 13) / 13.0 - 0.5)::float8 AS yl
FROM generate_series(1, 400) i;
GRANT SELECT ON g30 TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g30', 10, 1e-6);
SELECT dpbayes.grant_dataset('g30', 'dpbayes_analyst');
CREATE TABLE g30u AS SELECT * FROM g30;
GRANT SELECT ON g30u TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g30u', 10, 1e-6, 'unit', 3);
SELECT dpbayes.grant_dataset('g30u', 'dpbayes_analyst');
-- 10 000 rows: 160 kB of buffered rows, more than the smallest work_mem
CREATE TABLE g30b AS
SELECT i, ((i % 10) / 10.0)::float8 AS x1, ((i * 7919) % 100) < 30 + 40 * ((i % 10) / 10.0) AS y
FROM generate_series(1, 10000) i;
GRANT SELECT ON g30b TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g30b', 10, 1e-6);
SELECT dpbayes.grant_dataset('g30b', 'dpbayes_analyst');
-- the raw aggregate holds at most work_mem of rows (an error past it) ...
SET work_mem = '64kB';
SELECT pg_temp.err($q$SELECT dpbayes.betad_logistic(ARRAY[x1], y,
    dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}')) FROM g30b$q$);
RESET work_mem;
RESET SESSION AUTHORIZATION;

SET SESSION AUTHORIZATION dpbayes_analyst;
-- one draw at epsilon 1: pure 1-DP, rho = 1/8 (bounded range)
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bd1');
SELECT request_id, status, model, mechanism, epsilon, delta, rho, neighbours, features,
       dpbayes.verify(release) AS verifies,
       (dpbayes.release_signature(release)).version AS sig_version,
       dpbayes.release_json(release) ? 'n' AS records_n,
       dpbayes.release_json(release) -> 'variables' AS variables
FROM dpbayes.my_requests WHERE request_id = 'bd1';
-- the charge is betad_charge_of's, and the budget counts it
SELECT c.mechanism, c.epsilon, c.rho FROM dpbayes.betad_charge_of(
    dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}')) c;
SELECT charges, epsilon_spent, method FROM dpbayes.budget('g30');
-- the same request again: its status, no new charge
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bd1');
SELECT charges FROM dpbayes.budget('g30');
-- three draws at (1, 1e-6): rho = 3 eps1^2 / 8
CALL dpbayes.release_betad('g30', 'betad_linear', 'yl', '{x1}',
     dpbayes.betad(1, 'linear', sigma2_floor => 0.25, y_scale => 1, lower => '{0}', upper => '{1}',
                   draws => 3, delta => 1e-6), 'bd3');
SELECT r.status, r.mechanism, abs(r.rho - 3 * (j ->> 'epsilon_per_draw')::float8 ^ 2 / 8) < 1e-12 AS rho_of_3_draws,
       abs(r.epsilon - (j ->> 'epsilon')::float8) < 1e-12 AS epsilon_recorded,
       (j ->> 'ndraws')::int AS draws, dpbayes.verify(r.release) AS verifies
FROM dpbayes.my_requests r, dpbayes.release_json(r.release) j WHERE r.request_id = 'bd3';
-- public group keys: one draw per key (an absent key gets a draw from the
-- prior alone), one charge (parallel composition)
SELECT charges AS before FROM dpbayes.budget('g30') \gset
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(0.5, 'logistic', lower => '{0}', upper => '{1}'), 'bdg', 'region', '{0,1,7}');
SELECT group_key, status, dpbayes.verify(release) AS verifies,
       (dpbayes.release_signature(release)).dataset AS signed_dataset
FROM dpbayes.my_requests WHERE request_id = 'bdg' ORDER BY group_key;
SELECT charges - :before AS new_charges FROM dpbayes.budget('g30');
-- networks (issue 28): one draw of a 3-unit classifier and of a 2-unit
-- regression, charged like any betaD draw, signed, predicted from the ledger
SELECT charges AS before, epsilon_spent AS spent_before FROM dpbayes.budget('g30') \gset
CALL dpbayes.release_betad('g30', 'betad_mlp_classifier', 'y', '{x1}',
     dpbayes.betad(1, 'mlp_classifier', lower => '{0}', upper => '{1}', hidden => 3), 'bdn1');
CALL dpbayes.release_betad('g30', 'betad_mlp_regression', 'yl', '{x1}',
     dpbayes.betad(1, 'mlp_regression', sigma2_floor => 0.25, y_scale => 1, lower => '{0}', upper => '{1}',
                   hidden => 2, activation => 'tanh'), 'bdn2');
SELECT request_id, status, model, mechanism, epsilon, rho, dpbayes.verify(release) AS verifies,
       (dpbayes.release_signature(release)).version AS sig_version,
       dpbayes.release_json(release) ? 'n' AS records_n,
       (dpbayes.release_json(release) -> 'network') IS NOT NULL AS has_network,
       dpbayes.betad_predict(release, '{0.5}') BETWEEN
         CASE model WHEN 'betad_mlp_classifier' THEN 0 ELSE -1e6 END AND
         CASE model WHEN 'betad_mlp_classifier' THEN 1 ELSE 1e6 END AS predicts
FROM dpbayes.my_requests WHERE request_id IN ('bdn1', 'bdn2') ORDER BY request_id;
SELECT charges - :before AS new_charges, round((epsilon_spent - :spent_before)::numeric, 9) AS epsilon_added
FROM dpbayes.budget('g30');
-- a classifier needs a boolean response
CALL dpbayes.release_betad('g30', 'betad_mlp_classifier', 'yl', '{x1}',
     dpbayes.betad(1, 'mlp_classifier', lower => '{0}', upper => '{1}'), 'bdn3');
-- ... but a governed release never fails by the number of a group's rows
-- under a work_mem the analyst chose (the status would depend on the data):
-- dpbayes._compute pins dpbayes.betad_buffer_unbounded
SET work_mem = '64kB';
CALL dpbayes.release_betad('g30b', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bdw');
SELECT status, dpbayes.verify(release) AS verifies FROM dpbayes.my_requests WHERE request_id = 'bdw';
SELECT current_setting('dpbayes.betad_buffer_unbounded') AS analyst_setting_untouched;
RESET work_mem;
-- a privacy unit of 3 rows: one draw is charged for a group of 3 (3 eps, 9 rho)
CALL dpbayes.release_betad('g30u', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bdu');
SELECT status, unit_rows, epsilon, rho, dpbayes.verify(release) AS verifies
FROM dpbayes.my_requests WHERE request_id = 'bdu';
-- refused before any charge: replace-one neighbours (and so the exact tier),
-- feature names that are not the columns, a model the parameters are not
-- for, bounds of another length, a non-boolean logistic response
SELECT charges AS before FROM dpbayes.budget('g30') \gset
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}', neighbours => 'replace'), 'bdr1');
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}', features => '{age}'), 'bdr2');
CALL dpbayes.release_betad('g30', 'betad_linear', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bdr3');
CALL dpbayes.release_betad('g30', 'betad_logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0,0}', upper => '{1,1}'), 'bdr4');
CALL dpbayes.release_betad('g30', 'betad_logistic', 'yl', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bdr5');
CALL dpbayes.release_betad('g30', 'logistic', 'y', '{x1}',
     dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), 'bdr6');
SELECT charges - :before AS charged_for_refusals FROM dpbayes.budget('g30');
RESET SESSION AUTHORIZATION;
-- the ledger verifies
SELECT "check", ok FROM dpbayes.audit_verify();
