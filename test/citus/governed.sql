-- test/citus.sh: governed releases (docs/governance.md) of distributed
-- datasets.  Run as the superuser; \c switches to the owner and the analyst.
SET client_min_messages = warning;
CREATE ROLE dpb_cit_owner NOLOGIN;
CREATE ROLE dpb_cit_analyst NOLOGIN;
CREATE ROLE cit_alice LOGIN IN ROLE dpb_cit_analyst;
CREATE ROLE cit_olga LOGIN IN ROLE dpb_cit_owner;
SELECT dpbayes.governance_setup('dpb_cit_owner', 'dpb_cit_analyst') IS NULL AS set_up;
-- The ledger role stays NOLOGIN on the coordinator.  Citus reaches the
-- shards over connections made as the role that runs the query, the ledger
-- role here: on the workers it must be able to log in (docs/scale-out.md).
SELECT CASE WHEN count(*) FILTER (WHERE success) = 2 THEN 'ok governed: the ledger role logs in on the two workers'
            ELSE 'FAILED governed: ALTER ROLE dpbayes_ledger LOGIN on the workers' END
FROM run_command_on_workers($$SET citus.enable_ddl_propagation TO off; ALTER ROLE dpbayes_ledger LOGIN$$);
GRANT USAGE, CREATE ON SCHEMA public TO dpb_cit_owner;
GRANT USAGE ON SCHEMA public TO dpb_cit_analyst;

\c - cit_olga
SET client_min_messages = warning;
SET citus.shard_count = 32;
-- 5000 visits of 700 people (pid), 7 or 8 each
CREATE TABLE visits AS
SELECT i AS id, i % 700 AS pid, (CASE WHEN i % 10 < 1 THEN 0 WHEN i % 10 < 3 THEN 1 WHEN i % 10 < 6 THEN 2 ELSE 3 END)::text AS grp,
       20 + (i * 7919) % 70 AS age,
       ((i * 104729) % 500) / 100.0 AS dose, 20 + (i % 40) + ((i * 7919) % 70) / 10.0 AS bmi
FROM generate_series(1, 5000) i;
CREATE TABLE visits_by_person AS SELECT * FROM visits;
CREATE TABLE visits_unit AS SELECT * FROM visits;
SELECT create_distributed_table('visits', 'id');
SELECT create_distributed_table('visits_by_person', 'pid');   -- unit = distribution column
SELECT create_distributed_table('visits_unit', 'id');         -- unit elsewhere
-- the row policy (docs/governance.md §5) on a distributed dataset: 1000
-- rows, of which 100 with a NULL response, 50 with a NaN response and 50
-- with an infinite feature: dropped, 800 counted, as on one server
CREATE TABLE visits_dirty AS
SELECT i AS id, (20 + i % 70)::float8 * CASE WHEN i % 20 = 3 THEN 'Infinity'::float8 ELSE 1 END AS age,
       CASE WHEN i % 10 = 1 THEN NULL WHEN i % 20 = 5 THEN 'NaN'::float8 ELSE 20 + (i % 40)::float8 END AS bmi
FROM generate_series(1, 1000) i;
CREATE TABLE visits_dirty_local AS SELECT * FROM visits_dirty;
SELECT create_distributed_table('visits_dirty', 'id');
GRANT SELECT ON visits, visits_by_person, visits_unit, visits_dirty, visits_dirty_local TO dpbayes_ledger;
SELECT dpbayes.register_dataset('visits', 10, 1e-6) IS NULL AS registered;
SELECT dpbayes.register_dataset('visits_by_person', 1e7, 1e-6, privacy_unit => 'pid', max_rows_per_unit => 3) IS NULL;
SELECT dpbayes.register_dataset('visits_unit', 1e7, 1e-6, privacy_unit => 'pid', max_rows_per_unit => 3) IS NULL;
SELECT dpbayes.register_dataset('visits_dirty', 1e7, 1e-6) IS NULL;
SELECT dpbayes.register_dataset('visits_dirty_local', 1e7, 1e-6) IS NULL;
SELECT dpbayes.grant_dataset(d, 'dpb_cit_analyst') IS NULL
FROM unnest('{visits,visits_by_person,visits_unit,visits_dirty,visits_dirty_local}'::text[]) d;

\c - cit_alice
-- the commands the coordinator sends to the workers, as NOTICEs (their text
-- only: the query, never a result)
SET client_min_messages = notice;
SET citus.log_remote_commands = on;
\echo ==commands c1
CALL dpbayes.release('visits', 'linear', 'bmi', '{age,dose}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 100,
                     lower => '{20,0}', upper => '{90,5}'), 'c1');
\echo ==commands c2
CALL dpbayes.release('visits', 'linear', 'bmi', '{age,dose}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 100,
                     lower => '{20,0}', upper => '{90,5}'), 'c2', 'grp', '{0,1,2,3,4}');
\echo ==commands end
RESET citus.log_remote_commands;
SET client_min_messages = warning;
-- privacy units, nearly without noise: the count is the number of rows
-- kept, 3 of each of the 700 people
CALL dpbayes.release('visits_by_person', 'linear', 'bmi', '{age}',
     dpbayes.privacy(epsilon => 1e5, delta => 1e-7, y_bound => 100, lower => '{20}', upper => '{90}'), 'u1');
CALL dpbayes.release('visits_unit', 'linear', 'bmi', '{age}',
     dpbayes.privacy(epsilon => 1e5, delta => 1e-7, y_bound => 100, lower => '{20}', upper => '{90}'), 'u2');
SELECT CASE WHEN count(*) = 1 AND bool_and(status = 'released' AND dpbayes.verify(release))
  THEN 'ok governed: CALL dpbayes.release on a distributed dataset: released and signed'
  ELSE 'FAILED governed: the release c1 of the distributed dataset was not released and signed' END
FROM dpbayes.my_requests WHERE request_id = 'c1';
SELECT CASE WHEN count(*) >= 3 AND bool_and(s.sd > 0)
  THEN 'ok governed: the posterior of the governed release runs (' || string_agg(s.variable, ', ' ORDER BY s.variable) || ')'
  ELSE 'FAILED governed: the posterior of the governed release' END
FROM dpbayes.my_requests r, dpbayes.posterior_summary(r.release, draws => 300, chains => 2, warmup => 300, seed => 1) s
WHERE r.request_id = 'c1';
-- groups of 500, 1000, 1500 and 2000 rows, and key 4 without rows: each
-- release's noisy count (sd about 19 here) near its group's size
SELECT CASE WHEN count(*) = 5 AND bool_and(r.status = 'released' AND dpbayes.verify(r.release))
             AND bool_and(abs(s.value - (ARRAY[500, 1000, 1500, 2000, 0])[r.group_key::int + 1]) < 150)
  THEN 'ok governed: with public group keys (5 keys, one without rows): 5 signed releases, each count near its group''s size (' ||
       string_agg(r.group_key || ': ' || round(s.value), ', ' ORDER BY r.group_key) || ')'
  ELSE 'FAILED governed: the group-key release c2: ' ||
       coalesce(string_agg(r.group_key || ' ' || r.status || ' ' || coalesce(round(s.value)::text, '-'), ', '), 'none') END
FROM dpbayes.my_requests r LEFT JOIN LATERAL dpbayes.release_stats(r.release) s ON s.block = 'count'
WHERE r.request_id = 'c2';
SELECT CASE WHEN count(*) = 2 AND bool_and(r.status = 'released' AND abs(s.value - 2100) < 1)
  THEN 'ok governed: a privacy unit, as the distribution column and not: at most 3 rows of each of the 700 units (count ' ||
       string_agg(round(s.value)::text, ', ' ORDER BY r.request_id) || ', rows gathered)'
  ELSE 'FAILED governed: the privacy-unit releases u1, u2: ' ||
       coalesce(string_agg(r.request_id || ' ' || r.status || ' ' || coalesce(round(s.value)::text, '-'), ', '), 'none') END
FROM dpbayes.my_requests r LEFT JOIN LATERAL dpbayes.release_stats(r.release) s ON s.block = 'count'
WHERE r.request_id IN ('u1', 'u2');
CALL dpbayes.release('visits_dirty', 'linear', 'bmi', '{age}',
     dpbayes.privacy(epsilon => 1e5, delta => 1e-7, y_bound => 100, lower => '{20}', upper => '{90}'), 'd1');
CALL dpbayes.release('visits_dirty_local', 'linear', 'bmi', '{age}',
     dpbayes.privacy(epsilon => 1e5, delta => 1e-7, y_bound => 100, lower => '{20}', upper => '{90}'), 'd2');
SELECT CASE WHEN count(*) = 2 AND bool_and(r.status = 'released' AND abs(s.value - 800) < 1)
  THEN 'ok governed: the row policy on a distributed dataset: NULL, NaN and infinite rows dropped as on one server (count ' ||
       string_agg(round(s.value)::text, ', ' ORDER BY r.request_id) || ')'
  ELSE 'FAILED governed: the row-policy releases d1, d2: ' ||
       coalesce(string_agg(r.request_id || ' ' || r.status || ' ' || coalesce(round(s.value)::text, '-'), ', '), 'none') END
FROM dpbayes.my_requests r LEFT JOIN LATERAL dpbayes.release_stats(r.release) s ON s.block = 'count'
WHERE r.request_id IN ('d1', 'd2');

\c - :su
SELECT 'FAILED governed: ' || request_id || ' ' || status || ': ' || coalesce(error_message, '')
FROM dpbayes.charge WHERE status <> 'released';
