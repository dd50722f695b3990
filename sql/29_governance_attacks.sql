-- Attacks on the governed path (issue 23): one section per finding of the
-- adversarial review at 7165d86, each made as an analyst (or an owner) with
-- exactly the documented grants, each of which succeeded at 7165d86.  The
-- concurrent ones (findings 1 and 6) are isolation specs
-- (isolation/specs/governance_*.spec).  No noisy value is printed: only
-- statuses, SQLSTATEs, booleans and counts (a noisy value is compared with
-- what it must be within many noise sd, or with a tiny noise).
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- the documented roles, two analysts and two owners as their members
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_owner') THEN
    CREATE ROLE dpbayes_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_analyst') THEN
    CREATE ROLE dpbayes_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb29_ana1') THEN
    CREATE ROLE dpb29_ana1 LOGIN IN ROLE dpbayes_analyst;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb29_ana2') THEN
    CREATE ROLE dpb29_ana2 LOGIN IN ROLE dpbayes_analyst;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb29_own1') THEN
    CREATE ROLE dpb29_own1 LOGIN IN ROLE dpbayes_owner;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb29_own2') THEN
    CREATE ROLE dpb29_own2 LOGIN IN ROLE dpbayes_owner;
  END IF;
END $$;
SELECT dpbayes.governance_setup('dpbayes_owner', 'dpbayes_analyst');
GRANT USAGE, CREATE ON SCHEMA public TO dpbayes_owner;
GRANT USAGE ON SCHEMA public TO dpbayes_analyst;

-- the owner's tables.  g29p: one row per person (id), the rows of persons
-- 16.. carry a value the governed row policy drops; person 15 is clean.
SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE g29p AS
SELECT i AS id, ((i % 13) / 13.0 - 0.5)::numeric AS y, ((i % 10) / 10.0)::numeric AS x1,
       ((i % 7) / 7.0)::float8 AS x2, ((i % 4) / 4.0)::real AS x3, (i % 5)::numeric AS cnt,
       (i % 3 = 0) AS flag, (i % 9) AS age, (i % 11) / 11.0 AS dose
FROM generate_series(1, 40) i;
UPDATE g29p SET y = NULL WHERE id = 16;
UPDATE g29p SET x1 = NULL WHERE id = 17;
UPDATE g29p SET y = 'NaN' WHERE id = 18;
UPDATE g29p SET x2 = 'Infinity' WHERE id = 19;
UPDATE g29p SET x2 = 'NaN' WHERE id = 20;
-- beyond the range of a double: 400 digits (finding 5 looks for them)
UPDATE g29p SET x1 = repeat('31415926535897932384', 20)::numeric WHERE id = 21;
UPDATE g29p SET x1 = '-Infinity' WHERE id = 22;
UPDATE g29p SET cnt = -3 WHERE id = 23;
UPDATE g29p SET cnt = 2.5 WHERE id = 24;
UPDATE g29p SET flag = NULL WHERE id = 25;
UPDATE g29p SET x3 = '-Infinity' WHERE id = 26;
UPDATE g29p SET y = -repeat('27182818284590452353', 20)::numeric WHERE id = 27;
GRANT SELECT ON g29p TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29p', 1000, 1e-5);
SELECT dpbayes.grant_dataset('g29p', 'dpbayes_analyst');
-- g29c: the clean rows of g29p (findings 7, 8, 10 use it: at 7165d86 a
-- release of g29p as a whole failed on its unclean rows)
CREATE TABLE g29c AS SELECT * FROM g29p WHERE id NOT BETWEEN 16 AND 27;
GRANT SELECT ON g29c TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29c', 1000, 1e-5);
SELECT dpbayes.grant_dataset('g29c', 'dpbayes_analyst');
-- a dataset granted to nobody
CREATE TABLE g29_private AS SELECT * FROM g29p;
GRANT SELECT ON g29_private TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29_private', 10, 1e-6);
-- g29u: 20000 privacy units of two rows each, one in group a and one in b
-- (unit is indexed), at most one row per unit in a release
CREATE TABLE g29u AS
SELECT u AS unit, CASE g WHEN 0 THEN 'a' ELSE 'b' END AS grp, (u % 2)::float8 AS x1,
       (((u * 7919 + g * 104729) % 1000) / 1000.0)::float8 AS y
FROM generate_series(1, 20000) u, generate_series(0, 1) g;
CREATE INDEX ON g29u (unit);
GRANT SELECT ON g29u TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29u', 1e6, 0, 'unit', 1);
SELECT dpbayes.grant_dataset('g29u', 'dpbayes_analyst');
-- g29slow: 200 rows read at 5 ms each
CREATE VIEW g29slow AS
SELECT ((i % 10) / 10.0)::float8 AS x1, ((i % 13) / 13.0 - 0.5)::float8 AS y
FROM generate_series(1, 200) i WHERE pg_sleep(0.005) IS NOT NULL;
GRANT SELECT ON g29slow TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29slow', 1e6, 0);
SELECT dpbayes.grant_dataset('g29slow', 'dpbayes_analyst');
RESET SESSION AUTHORIZATION;
ANALYZE g29u;

-- ---- finding 2: no free oracle on named people ----
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0,0,0}', upper => '{1,1,1}') AS lp3 \gset
SELECT dpbayes.privacy(epsilon => 1, delta => 1e-7, y_bound => 5,
    lower => '{0,0}', upper => '{1,1}') AS gp2 \gset
SELECT dpbayes.privacy(epsilon => 1, delta => 1e-7, lower => '{0,0}', upper => '{1,1}') AS gl2 \gset
-- the two steps are nobody's to call: no BEGIN ... ROLLBACK around them
SELECT pg_temp.err(format($q$SELECT dpbayes._charge('g29p', 'linear', 'y', '{x1,x2,x3}', %L::dpbayes.privacy, 'o1')$q$, :'lp3'));
SELECT pg_temp.err($q$SELECT dpbayes._compute('o1')$q$);
-- the probe of 7165d86: charge and compute in a subtransaction, read the
-- status, roll back
DO $$
DECLARE st text;
BEGIN
  BEGIN
    PERFORM dpbayes._charge('g29p', 'linear', 'y', '{x1,x2,x3}',
        dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                        lower => '{0,0,0}', upper => '{1,1,1}'), 'o1', 'id', '{16}');
    st := dpbayes._compute('o1');
    RAISE EXCEPTION 'roll back';
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'probe: % (status %)', SQLSTATE, coalesce(st, 'none');
  END;
END $$;
-- nor CALL in an atomic context: a function, or a DO block with an
-- exception handler (a subtransaction that could roll the charge back)
DO $$
BEGIN
  CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}',
       dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                       lower => '{0,0,0}', upper => '{1,1,1}'), 'o2', 'id', '{16}');
  RAISE NOTICE 'not refused';
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'refused: %', SQLSTATE;
END $$;
CREATE FUNCTION pg_temp.probe() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}',
       dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                       lower => '{0,0,0}', upper => '{1,1,1}'), 'o3', 'id', '{16}');
  RETURN 'not refused';
END $$;
SELECT pg_temp.err('SELECT pg_temp.probe()');
-- a procedure that rolls back after the CALL: the charge was committed
-- by the CALL, it stays (nothing is free)
CREATE PROCEDURE pg_temp.undo() LANGUAGE plpgsql AS $$
BEGIN
  CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}',
       dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                       lower => '{0,0,0}', upper => '{1,1,1}'), 'o4', 'id', '{16}');
  ROLLBACK;
END $$;
CALL pg_temp.undo();
SELECT request_id, status FROM dpbayes.my_requests WHERE request_id LIKE 'o%' ORDER BY 1;
SELECT charges AS charges_before FROM dpbayes.budget('g29p') \gset
-- one person selected by group_by => 'id': person 15 has a clean row, each
-- of the others a value that failed the aggregate at 7165d86 (NULL, NaN,
-- +-Infinity, a numeric beyond double range, in the response or a
-- feature).  The outcome is the same for all: the row policy drops the row.
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p15', 'id', '{15}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p16', 'id', '{16}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p17', 'id', '{17}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p18', 'id', '{18}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p19', 'id', '{19}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p20', 'id', '{20}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p21', 'id', '{21}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p22', 'id', '{22}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p26', 'id', '{26}');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2,x3}', :'lp3', 'p27', 'id', '{27}');
-- poisson: a negative and a fractional count, against person 15's
CALL dpbayes.release('g29p', 'poisson', 'cnt', '{x1,x2}', :'gp2', 'q15', 'id', '{15}');
CALL dpbayes.release('g29p', 'poisson', 'cnt', '{x1,x2}', :'gp2', 'q23', 'id', '{23}');
CALL dpbayes.release('g29p', 'poisson', 'cnt', '{x1,x2}', :'gp2', 'q24', 'id', '{24}');
-- logistic: a NULL boolean response
CALL dpbayes.release('g29p', 'logistic', 'flag', '{x1,x2}', :'gl2', 'l15', 'id', '{15}');
CALL dpbayes.release('g29p', 'logistic', 'flag', '{x1,x2}', :'gl2', 'l25', 'id', '{25}');
SELECT request_id, group_key, status, error_sqlstate, error_message, release IS NOT NULL AS released
FROM dpbayes.my_requests WHERE request_id ~ '^[pql][0-9]+$' ORDER BY 1;
-- each one charged once, the same for all (one charge per request)
SELECT charges - :charges_before AS new_charges FROM dpbayes.budget('g29p');
-- the noisy count covers a person whose row was dropped: one row or none,
-- both well within the noise (the count of the clean person is 1)
SELECT r.request_id, abs(s.value - 1) < 8 * s.noise_sd AND abs(s.value) < 8 * s.noise_sd AS count_covers
FROM dpbayes.my_requests r, dpbayes.release_stats(r.release) s
WHERE r.request_id IN ('p15', 'p16', 'p21', 'q23', 'l25') AND s.block = 'count' ORDER BY 1;
-- the computation of a committed charge can be cancelled by the analyst
-- (statement_timeout, or pg_cancel_backend from another session); its start
-- was committed first, so the same CALL again does not rerun it over the
-- rows (which would let its duration be measured again and again for one
-- charge): the request fails (57014).  g29slow sleeps 5 ms a row (200 rows:
-- 1 s), far beyond the 300 ms timeout; the charge takes a few ms.
CALL dpbayes.release('g29slow', 'linear', 'y', '{x1}', dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}'), 'to1');
SET statement_timeout = '300ms';
CALL dpbayes.release('g29slow', 'linear', 'y', '{x1}', dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}'), 'to2');
RESET statement_timeout;
SELECT status FROM dpbayes.my_requests WHERE request_id = 'to2';
CALL dpbayes.release('g29slow', 'linear', 'y', '{x1}', dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}'), 'to2');
SELECT request_id, status, error_sqlstate FROM dpbayes.my_requests WHERE request_id IN ('to1', 'to2') ORDER BY 1;
SELECT charges FROM dpbayes.budget('g29slow');
RESET SESSION AUTHORIZATION;

-- ---- finding 5: errors never print data ----
-- persons 21 and 27 hold 400-digit numerics (beyond double range): their
-- releases were made, and no text the analyst can read quotes a digit of them
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT request_id, status, error_message IS NULL AS no_message
FROM dpbayes.my_requests WHERE request_id IN ('p21', 'p27') ORDER BY 1;
SELECT count(*) FILTER (WHERE m::text LIKE '%1415926535897932%' OR m::text LIKE '%7182818284590452%'
                        OR dpbayes.release_json(m.release)::text LIKE '%1415926535897932%'
                        OR dpbayes.release_json(m.release)::text LIKE '%7182818284590452%') AS rows_quoting_data,
       count(*) AS rows_read
FROM dpbayes.my_requests m WHERE m.relation::text LIKE 'g29%';
SELECT b::text LIKE '%1415926535897932%' AS budget_quotes_data FROM dpbayes.budget('g29p') b;
RESET SESSION AUTHORIZATION;
-- (nor does the owner's ledger: nothing failed)
SELECT count(*) AS ledger_rows_quoting_data FROM dpbayes.charge c
WHERE c::text LIKE '%1415926535897932%' OR c::text LIKE '%7182818284590452%';

-- ---- finding 3: the analyst cannot seed the unit sample ----
-- the rows kept of g29u (at most one per unit), as a checksum of which row
-- each unit kept, read from the source of a release (as the superuser)
CREATE FUNCTION pg_temp.kept() RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT md5(string_agg(s.__dpb_unit::text || s.__dpb_group, '','' ORDER BY s.__dpb_unit)) FROM (%s) s',
      dpbayes._source(jsonb_populate_record(NULL::dpbayes.charge,
          jsonb_build_object('relation', 'g29u', 'model', 'linear', 'response', 'y',
                             'features', '{x1}'::text[], 'unit_rows', 1, 'group_by', 'grp')), 'unit'))
  INTO r;
  RETURN r;
END $$;
SELECT 1 AS seeded FROM setseed(0.25);
SELECT pg_temp.kept() AS a \gset
SELECT 1 AS seeded FROM setseed(0.25);
SELECT pg_temp.kept() AS b \gset
SELECT :'a' <> :'b' AS same_seed_other_rows;
-- and through releases: the same seed before two releases, tiny noise
-- (epsilon 10^4: noise sd ~ 0.0006): the sums of y and y^2 over the kept
-- rows differ (by ~40 for independent draws; at 7165d86 they were equal)
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.privacy(epsilon => 10000, mechanism => 'laplace', y_bound => 1,
    lower => '{0}', upper => '{1}') AS tiny \gset
SELECT 1 AS seeded FROM setseed(0.5);
CALL dpbayes.release('g29u', 'linear', 'y', '{x1}', :'tiny', 'seed1');
SELECT 1 AS seeded FROM setseed(0.5);
CALL dpbayes.release('g29u', 'linear', 'y', '{x1}', :'tiny', 'seed2');
SELECT bool_or(abs(a.value - b.value) > 20 * greatest(a.noise_sd, b.noise_sd)) AS other_rows,
       bool_and(a.noise_sd < 0.01) AS tiny_noise
FROM dpbayes.my_requests ra, dpbayes.release_stats(ra.release) a,
     dpbayes.my_requests rb, dpbayes.release_stats(rb.release) b
WHERE ra.request_id = 'seed1' AND rb.request_id = 'seed2'
  AND a.block = b.block AND a.entry = b.entry AND a.entry IN ('y', 'y^2');
-- the count is the number of units either way
SELECT r.request_id, abs(s.value - 20000) < 0.5 AS one_row_per_unit
FROM dpbayes.my_requests r, dpbayes.release_stats(r.release) s
WHERE r.request_id IN ('seed1', 'seed2') AND s.block = 'count' ORDER BY 1;
RESET SESSION AUTHORIZATION;

-- ---- finding 4: group_by with a privacy unit under hostile planner settings ----
-- The analyst's settings that made the bounded source rescanned once per
-- key, with a new random choice each time, at 7165d86.  Each unit has one
-- row in group a and one in b: bounded to one row per unit, the counts of
-- a and b add up to the 20000 units exactly (tiny noise); re-drawn per key,
-- they add up to 20000 +- 100 (sd).
SET SESSION AUTHORIZATION dpbayes_analyst;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_sort = off;
CALL dpbayes.release('g29u', 'linear', 'y', '{x1}', :'tiny', 'plan1', 'grp', '{a,b}');
SELECT abs(sum(s.value) - 20000) < 0.5 AS one_row_per_unit_in_total, count(*) AS groups
FROM dpbayes.my_requests r, dpbayes.release_stats(r.release) s
WHERE r.request_id = 'plan1' AND s.block = 'count';
RESET ALL;
RESET SESSION AUTHORIZATION;
-- the same, looked at directly (superuser): under those settings the
-- source as a release reads it (a materialized CTE) keeps one row per unit
-- over all keys; the source as a plain subquery (as at 7165d86) is
-- rescanned per key and keeps two rows of many units
CREATE FUNCTION pg_temp.rows_per_unit(materialized boolean, OUT max_rows bigint, OUT units_over_k bigint)
LANGUAGE plpgsql AS $$
DECLARE src text := dpbayes._source(jsonb_populate_record(NULL::dpbayes.charge,
          jsonb_build_object('relation', 'g29u', 'model', 'linear', 'response', 'y',
                             'features', '{x1}'::text[], 'unit_rows', 1, 'group_by', 'grp')), 'unit');
BEGIN
  -- the join of _compute: the public keys, each joined with the source
  EXECUTE format('%s SELECT max(c) FILTER (WHERE u IS NOT NULL), count(*) FILTER (WHERE u IS NOT NULL AND c > 1) '
                 'FROM (SELECT s.__dpb_unit AS u, count(*) c FROM pg_catalog.unnest(''{a,b}''::text[]) AS k(key) '
                 'LEFT JOIN %s ON s.__dpb_group = k.key GROUP BY 1) x',
                 CASE WHEN materialized THEN format('WITH s AS MATERIALIZED (%s)', src) ELSE '' END,
                 CASE WHEN materialized THEN 's' ELSE format('(%s) s', src) END)
  INTO max_rows, units_over_k;
END $$;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_sort = off;
SELECT max_rows, units_over_k FROM pg_temp.rows_per_unit(true);
SELECT max_rows > 1 AS control_rescan_exceeds_k, units_over_k > 1000 AS many_units FROM pg_temp.rows_per_unit(false);
RESET ALL;

-- ---- finding 7: request ids are per requester ----
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS lp2 \gset
SET SESSION AUTHORIZATION dpb29_ana1;
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'nightly-1');
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpb29_ana2;
-- the same id for another request: no 23505, a request of ana2's own
CALL dpbayes.release('g29c', 'linear', 'y', '{x2}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}'), 'nightly-1');
-- ana2 pre-charges tomorrow's id of ana1's job
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'nightly-2');
-- probing ana1's ids with ana1's exact request: a fresh charge of ana2's,
-- exactly as for an id nobody used
SELECT charges AS ana2_before FROM dpbayes.budget('g29c') \gset
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'ana1-only');
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'nobody-used-this');
SELECT charges - :ana2_before AS ana2_new_charges FROM dpbayes.budget('g29c');
SELECT request_id, features, status FROM dpbayes.my_requests ORDER BY 1;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpb29_ana1;
-- ana1's job runs tomorrow as planned; ana1 sees only its own requests
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'nightly-2');
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}', :'lp2', 'ana1-only');
SELECT request_id, features, status FROM dpbayes.my_requests ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT requested_by, request_id, status FROM dpbayes.charge
WHERE requested_by IN ('dpb29_ana1', 'dpb29_ana2') ORDER BY 1, 2;

-- ---- finding 8 (in part): the release's feature names are its columns ----
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT charges AS before_names FROM dpbayes.budget('g29c') \gset
CALL dpbayes.release('g29c', 'linear', 'y', '{age,dose}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0,0}', upper => '{10,1}',
                     features => '{income,debt}'), 'names1');
SELECT charges - :before_names AS charged_for_names1 FROM dpbayes.budget('g29c');
CALL dpbayes.release('g29c', 'linear', 'y', '{age,dose}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0,0}', upper => '{10,1}'), 'names2');
SELECT request_id, features, dpbayes.release_json(release) -> 'features' AS release_features,
       (SELECT array_agg(DISTINCT entry ORDER BY entry) FROM dpbayes.release_stats(release) WHERE block = 't2'
          AND entry NOT LIKE '%^%' AND entry NOT LIKE '%*%') AS entries
FROM dpbayes.my_requests WHERE request_id LIKE 'names%';
RESET SESSION AUTHORIZATION;

-- ---- finding 9: owners cannot rewrite history ----
SET SESSION AUTHORIZATION dpb29_own1;
CREATE TABLE g29a AS SELECT * FROM g29p;
GRANT SELECT ON g29a TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29a', 2, 0);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpbayes_owner;
SELECT pg_temp.err($q$UPDATE dpbayes.dataset SET epsilon = 1000 WHERE relation = 'g29p'::regclass$q$);
SELECT pg_temp.err($q$UPDATE dpbayes.dataset SET spent_charges = 0$q$);
SELECT pg_temp.err($q$DELETE FROM dpbayes.charge WHERE relation = 'g29p'::regclass$q$);
SELECT pg_temp.err($q$UPDATE dpbayes.charge SET status = 'failed'$q$);
SELECT pg_temp.err($q$DELETE FROM dpbayes.released$q$);
SELECT pg_temp.err($q$TRUNCATE dpbayes.audit$q$);
SELECT pg_temp.err($q$DELETE FROM dpbayes.audit$q$);
SELECT pg_temp.err($q$UPDATE dpbayes.audit_head SET seq = 1$q$);
SELECT pg_temp.err($q$ALTER TABLE dpbayes.audit DISABLE TRIGGER ledger_guard$q$);
SELECT pg_temp.err($q$SELECT count(*) FROM dpbayes.signing_secret$q$);
SELECT pg_temp.err($q$SELECT dpbayes._signing_key()$q$);
SELECT pg_temp.err($q$SELECT dpbayes._charge('g29p', 'linear', 'y', '{x1}', dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}'), 'own1')$q$);
-- another owner's dataset (registered by dpb29_own1): no grants, no budget
SELECT pg_temp.err($q$SELECT dpbayes.set_budget('g29a', 1000, 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.grant_dataset('g29a', 'dpbayes_analyst')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.revoke_dataset('g29a', 'dpbayes_analyst')$q$);
-- a budget of its own changes through the audited routine only
SELECT dpbayes.set_budget('g29p', 1200, 1e-5);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpb29_own2;
SELECT pg_temp.err($q$SELECT dpbayes.set_budget('g29a', 1000, 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.grant_dataset('g29a', 'dpb29_own2')$q$);
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM dpbayes.dataset WHERE relation = 'g29a'::regclass;
SELECT count(*) AS grants_g29a FROM dpbayes.dataset_grant WHERE relation = 'g29a'::regclass;
SELECT who, outcome, spec FROM dpbayes.audit WHERE relation = 'g29p'::regclass AND outcome = 'budget set';
-- the audit log's chain holds after all of the above
SELECT "check", ok FROM dpbayes.audit_verify();
-- a superuser's edit of an audit row breaks the chain; undone, it holds again
ALTER TABLE dpbayes.audit DISABLE TRIGGER ledger_guard;
SELECT max(id) AS edited FROM dpbayes.audit WHERE outcome = 'budget set' \gset
UPDATE dpbayes.audit SET spec = jsonb_set(spec, '{to,epsilon}', '5000') WHERE id = :edited;
SELECT "check", ok FROM dpbayes.audit_verify() WHERE "check" LIKE 'audit%';
UPDATE dpbayes.audit SET spec = jsonb_set(spec, '{to,epsilon}', '1200') WHERE id = :edited;
-- the last row removed (a truncated end): the head no longer matches
CREATE TEMP TABLE saved_audit AS SELECT * FROM dpbayes.audit WHERE id = (SELECT max(id) FROM dpbayes.audit);
DELETE FROM dpbayes.audit WHERE id = (SELECT id FROM saved_audit);
SELECT "check", ok FROM dpbayes.audit_verify() WHERE "check" LIKE 'audit%';
INSERT INTO dpbayes.audit SELECT * FROM saved_audit;
ALTER TABLE dpbayes.audit ENABLE TRIGGER ledger_guard;
SELECT bool_and(ok) AS all_ok_again FROM dpbayes.audit_verify();
-- a deleted charge (a restore without it): the ledger is incomplete and
-- the running totals differ from the charges
SET session_replication_role = replica;
CREATE TEMP TABLE saved_charge AS SELECT * FROM dpbayes.charge WHERE requested_by = 'dpb29_ana2' AND request_id = 'nightly-2';
DELETE FROM dpbayes.charge WHERE id = (SELECT id FROM saved_charge);
SELECT "check", ok FROM dpbayes.audit_verify();
INSERT INTO dpbayes.charge SELECT * FROM saved_charge;
RESET session_replication_role;
SELECT bool_and(ok) AS all_ok_again FROM dpbayes.audit_verify();

-- ---- finding 10: broken promises ----
-- (a) hostile text settings change nothing that is charged or released:
-- the privacy value goes into the ledger, the audit log and the signed
-- release as the same bits
SET SESSION AUTHORIZATION dpbayes_analyst;
SET extra_float_digits = -15;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Pacific/Chatham';
SET IntervalStyle = 'sql_standard';
CALL dpbayes.release('g29c', 'linear', 'y', '{x1,x2}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 62.8318530717958648,
                     lower => '{18.2734519283746, 0.712345678901234}',
                     upper => '{93.1415926535897, 4.60517018598809}'), 'efd1');
RESET extra_float_digits;
RESET DateStyle;
RESET TimeZone;
RESET IntervalStyle;
RESET SESSION AUTHORIZATION;
SELECT (c.privacy).y_bound = 62.8318530717958648::float8 AS charged_y_bound,
       (c.privacy).lower = '{18.2734519283746, 0.712345678901234}'::float8[] AS charged_lower,
       (c.privacy).upper = '{93.1415926535897, 4.60517018598809}'::float8[] AS charged_upper,
       (j ->> 'y_bound')::float8 = (c.privacy).y_bound AS released_y_bound,
       ARRAY(SELECT x::float8 FROM jsonb_array_elements_text(j -> 'lower') WITH ORDINALITY e(x, i) ORDER BY i) = (c.privacy).lower AS released_lower,
       ARRAY(SELECT x::float8 FROM jsonb_array_elements_text(j -> 'upper') WITH ORDINALITY e(x, i) ORDER BY i) = (c.privacy).upper AS released_upper,
       (a.spec #>> '{privacy,y_bound}')::float8 = (c.privacy).y_bound AS audited_y_bound,
       ARRAY(SELECT x::float8 FROM jsonb_array_elements_text(a.spec #> '{privacy,upper}') WITH ORDINALITY e(x, i) ORDER BY i) = (c.privacy).upper AS audited_upper,
       dpbayes.verify(r.release) AS signed
FROM dpbayes.charge c JOIN dpbayes.released r ON r.charge_id = c.id
     JOIN dpbayes.audit a ON a.request_id = c.request_id AND a.who = c.requested_by AND a.outcome = 'charged',
     dpbayes.release_json(r.release) j
WHERE c.request_id = 'efd1';
-- (b) refused before any charge: a control character in the request id, a
-- reserved column name, a table the ledger role cannot read
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE g29r AS
SELECT i AS "__dpb_x", i % 5 AS "__dpb_row_number", i % 3 AS "__dpb_rn", i % 2 AS "__dpb_unit",
       i AS "__dpb_c0", 'g' AS "__dpb_group", i % 50 AS unit, (i % 10) / 10.0 AS x1,
       ((i % 13) / 13.0 - 0.5)::float8 AS y
FROM generate_series(1, 300) i;
GRANT SELECT ON g29r TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29r', 100, 0, 'unit', 2);
SELECT dpbayes.grant_dataset('g29r', 'dpbayes_analyst');
CREATE TABLE g29n AS SELECT * FROM g29p;
GRANT SELECT ON g29n TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g29n', 100, 0);
SELECT dpbayes.grant_dataset('g29n', 'dpbayes_analyst');
-- the owner takes the ledger role's read right away again (a column, then all)
REVOKE SELECT ON g29n FROM dpbayes_ledger;
GRANT SELECT (y, x1) ON g29n TO dpbayes_ledger;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0}', upper => '{1}') AS lp1 \gset
SELECT charges AS before_p FROM dpbayes.budget('g29p') \gset
SELECT charges AS before_r FROM dpbayes.budget('g29r') \gset
SELECT charges AS before_n FROM dpbayes.budget('g29n') \gset
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', E'ctl\x01id');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', E'line\nbreak');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', E'c1\u0085control');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', repeat('r', 201));
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', '');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x1}', :'lp2', 'dup1');
CALL dpbayes.release('g29p', 'linear', 'x1', '{x1}', :'lp1', 'dup2');
CALL dpbayes.release('g29r', 'linear', 'y', '{__dpb_x}', :'lp1', 'res1');
CALL dpbayes.release('g29r', 'linear', 'y', '{__dpb_row_number}', :'lp1', 'res2');
CALL dpbayes.release('g29r', 'linear', '__dpb_c0', '{x1}', :'lp1', 'res3');
CALL dpbayes.release('g29r', 'linear', 'y', '{x1}', :'lp1', 'res4', '__dpb_group', '{g}');
CALL dpbayes.release('g29n', 'linear', 'y', '{x2}', :'lp1', 'unread1');
CALL dpbayes.release('g29n', 'linear', 'y', '{x1}', :'lp1', 'unread2', 'id', '{1}');
SELECT (SELECT charges FROM dpbayes.budget('g29p')) - :before_p AS charged_p,
       (SELECT charges FROM dpbayes.budget('g29r')) - :before_r AS charged_r,
       (SELECT charges FROM dpbayes.budget('g29n')) - :before_n AS charged_n,
       (SELECT count(*) FROM dpbayes.my_requests WHERE relation IN ('g29r'::regclass, 'g29n'::regclass)
           OR request_id IN ('dup1', 'dup2') OR request_id ~ '[[:cntrl:]]' OR length(request_id) > 200) AS requests;
RESET SESSION AUTHORIZATION;
-- a privacy unit column of a type without an ordering (json, point) is
-- refused by register_dataset, not charged and failed later
SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE gj AS SELECT ('{"u":' || (i % 10) || '}')::json AS uj, point(i, i) AS up,
       (i % 10) / 10.0 AS x1, ((i % 13) / 13.0 - 0.5)::float8 AS y FROM generate_series(1, 100) i;
GRANT SELECT ON gj TO dpbayes_ledger;
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gj', 100, 0, 'uj', 2)$q$) AS json_unit;
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('gj', 100, 0, 'up', 2)$q$) AS point_unit;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dpbayes_analyst;
-- the reserved names of columns not used are harmless: a unit dataset with
-- columns __dpb_row_number, __dpb_rn, __dpb_unit, __dpb_c0, __dpb_group
CALL dpbayes.release('g29r', 'linear', 'y', '{x1}', :'lp1', 'res5');
SELECT request_id, status, unit_rows FROM dpbayes.my_requests WHERE request_id = 'res5';
RESET SESSION AUTHORIZATION;
-- (c) refused calls write little to the audit log: oversized inputs are
-- refused before anything is written, and what is audited is small.  20
-- refused calls, their inputs up to a megabyte of incompressible text
-- (pg_temp.junk); the bytes written are counted as text
CREATE FUNCTION pg_temp.junk(n integer) RETURNS text LANGUAGE sql AS
$$ SELECT left(string_agg(md5(i::text), '' ORDER BY i), n) FROM generate_series(1, n / 32 + 1) i $$;
CREATE FUNCTION pg_temp.junk_keys(n integer, len integer) RETURNS text[] LANGUAGE sql AS
$$ SELECT array_agg(left(repeat(md5(i::text), len / 32 + 1), len) ORDER BY i) FROM generate_series(1, n) i $$;
SELECT count(*) AS audit_rows_before, max(id) AS audit_max_before,
       coalesce(sum(octet_length(a::text)), 0) AS audit_bytes_before
FROM dpbayes.audit a \gset
SET SESSION AUTHORIZATION dpbayes_analyst;
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', pg_temp.junk(1000000));
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', 'big1', 'id', pg_temp.junk_keys(100000, 20));
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', 'big2', 'id', ARRAY[pg_temp.junk(1000000)]);
CALL dpbayes.release('g29p', 'linear', 'y', pg_temp.junk_keys(100000, 20), :'lp1', 'big3');
CALL dpbayes.release('g29p', 'linear', pg_temp.junk(1000000), '{x1}', :'lp1', 'big4');
CALL dpbayes.release('g29p', 'linear', 'y', ARRAY[pg_temp.junk(1000000)], :'lp1', 'big5');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}', :'lp1', 'big6', pg_temp.junk(1000), '{1}');
CALL dpbayes.release('g29p', pg_temp.junk(1000000), 'y', '{x1}', :'lp1', 'big7');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                     lower => array_fill(0::float8, ARRAY[100000]),
                     upper => array_fill(1::float8, ARRAY[100000])), 'big8');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}',
                     noise_weights => array_fill(1::float8, ARRAY[100000])), 'big9');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1, lower => '{0}', upper => '{1}',
                     features => pg_temp.junk_keys(100000, 20)), 'big10');
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2}', :'lp2', 'big11', 'id', pg_temp.junk_keys(1001, 50));
CALL dpbayes.release('g29p', 'linear', 'y', '{x1,x2}', :'lp2', 'big12', 'id', pg_temp.junk_keys(2, 51));
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', pg_temp.junk(201));
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', 'big13', 'id', pg_temp.junk_keys(100000, 20));
CALL dpbayes.release('g29_private', 'linear', pg_temp.junk(100000), '{x1}', :'lp1', 'big14');
-- refusals that are audited (not granted, not registered): small rows
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', pg_temp.junk(200));
CALL dpbayes.release('pg_class', 'linear', 'y', '{x1}', :'lp1', pg_temp.junk(200));
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1,x2}', :'lp2', 'big15', 'id', '{1,2,3}');
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', 'big16');
RESET SESSION AUTHORIZATION;
SELECT count(*) - :audit_rows_before AS new_audit_rows,
       coalesce(sum(octet_length(a::text)), 0) - :audit_bytes_before < 10000 AS under_10_kB,
       max(octet_length(a::text)) FILTER (WHERE a.id > :audit_max_before) < 2000 AS each_under_2_kB
FROM dpbayes.audit a;
-- an analyst without a grant asking for 1000 group keys of 50 bytes (a
-- valid request of ~57 kB): the refusal's audit row keeps the columns and a
-- digest, under 2 kB
SELECT max(id) AS audit_max_before FROM dpbayes.audit \gset
SET SESSION AUTHORIZATION dpbayes_analyst;
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', 'big17', 'id',
     pg_temp.junk_keys(1000, 50));
RESET SESSION AUTHORIZATION;
SELECT outcome, octet_length(a::text) < 2048 AS under_2_kB, spec ? 'sha256' AS digest,
       (spec ->> 'group_key_count')::int AS keys
FROM dpbayes.audit a WHERE id > :audit_max_before;
-- (d) not granted and not registered look the same: budget() and CALL
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT pg_temp.err($q$SELECT * FROM dpbayes.budget('g29_private')$q$) AS not_granted;
SELECT pg_temp.err($q$SELECT * FROM dpbayes.budget('g29_private')$q$)
     = pg_temp.err($q$SELECT * FROM dpbayes.budget('pg_class')$q$) AS same_as_unregistered,
       pg_temp.err($q$SELECT * FROM dpbayes.budget('g29_private')$q$)
     = pg_temp.err($q$SELECT * FROM dpbayes.budget('g29a')$q$) AS same_as_other_owners;
CALL dpbayes.release('g29_private', 'linear', 'y', '{x1}', :'lp1', 'ng1');
CALL dpbayes.release('pg_class', 'linear', 'y', '{x1}', :'lp1', 'ng2');
SELECT count(*) AS requests_ng FROM dpbayes.my_requests WHERE request_id LIKE 'ng%';
RESET SESSION AUTHORIZATION;
SELECT request_id, outcome FROM dpbayes.audit WHERE request_id IN ('ng1', 'ng2') ORDER BY id;

-- the ledger is consistent after every attack above
SELECT "check", ok FROM dpbayes.audit_verify();
