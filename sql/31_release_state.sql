-- dpbayes.release_state (issue 27, docs/scale-out.md): the partial state of
-- the array-form release aggregates and ldp_release, which Citus ships from
-- the shards to the coordinator.  It holds EXACT statistics
-- (docs/privacy.md §16); every input path validates it, and no message
-- quotes it.
CREATE EXTENSION IF NOT EXISTS dpbayes;
CREATE TABLE st AS
SELECT i, ARRAY[sin(i * 0.7), cos(i * 1.3)]::float8[] AS x, sin(i * 2.1) > 0 AS y,
       sin(i * 0.7) - cos(i * 1.3) AS yl
FROM generate_series(1, 3000) i;

-- the aggregates' state type
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state,
       a.aggcombinefn AS combine
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.pronamespace = 'dpbayes'::regnamespace AND p.proname IN ('linear_release', 'logistic_release', 'poisson_release', 'ldp_release')
ORDER BY 1::text;

-- A state can be seen by a role that reads the rows and makes an aggregate
-- of its own on the transition function (here, as a superuser): a state
-- is as sensitive as the rows.
CREATE SCHEMA st_test;
CREATE AGGREGATE st_test.logistic_state(float8[], boolean, dpbayes.privacy) (
    SFUNC = dpbayes._logistic_state_trans, STYPE = dpbayes.release_state);
CREATE AGGREGATE st_test.combine(dpbayes.release_state) (
    SFUNC = dpbayes._release_state_combine, STYPE = dpbayes.release_state);
SELECT dpbayes.privacy(epsilon => 1, lower => '{-1,-1}', upper => '{1,1}') AS p \gset
CREATE TABLE states AS
SELECT i % 3 AS part, st_test.logistic_state(x, y, :'p') AS s FROM st GROUP BY i % 3;
-- text form: \x and the hex of the binary form (magic DPBP, version 2,
-- kind 1); it round-trips, and send gives the same bytes
SELECT part, left(s::text, 14) AS head, length(s::text) AS text_length,
       s::text::dpbayes.release_state::text = s::text AS text_round_trip,
       dpbayes.release_state_send(s) = decode(substr(s::text, 3), 'hex') AS send_same
FROM states ORDER BY part;
-- the states of three parts, combined, are the state of all the rows
SELECT (SELECT st_test.combine(s ORDER BY part) FROM states)::text
     = (SELECT st_test.logistic_state(x, y, :'p') FROM st)::text AS combined_equals_whole;
-- the final function adds the noise once: the release of the combined state
-- is the aggregate's release (the same test seed)
SET dpbayes.insecure_noise_seed = 5;
CREATE TABLE r1 AS SELECT dpbayes.logistic_release(x, y, :'p') AS r FROM st;
SET dpbayes.insecure_noise_seed = 6;
SET dpbayes.insecure_noise_seed = 5;
CREATE TABLE r2 AS SELECT dpbayes._logistic_state_final(st_test.combine(s)) AS r FROM states;
SELECT r1.r::text = r2.r::text AS final_of_combined_is_the_release FROM r1, r2;
-- a state of dpbayes 0.1.0 (format version 1: without the y_clamped share,
-- bytes 60..67 of version 2) still reads, and gives the same release
SET dpbayes.insecure_noise_seed = 5;
CREATE TABLE r3 AS
SELECT dpbayes._logistic_state_final(st_test.combine(
         ('\x4450425001' || substr(s::text, 13, 110) || substr(s::text, 139))::dpbayes.release_state
         ORDER BY part)) AS r FROM states;
SELECT r1.r::text = r3.r::text AS version_1_state_same_release FROM r1, r3;
RESET dpbayes.insecure_noise_seed;
-- linear: the state carries the count of the rows whose response was
-- clamped (the y_clamped block, 0.02 of the budget by default) as its last
-- total; the combined state of two parts releases it (epsilon 1e9: the
-- noise is far below 0.5)
CREATE AGGREGATE st_test.linear_state(float8[], float8, dpbayes.privacy) (
    SFUNC = dpbayes._linear_state_trans, STYPE = dpbayes.release_state);
SELECT dpbayes.privacy(epsilon => 1e9, delta => 1e-5, y_bound => 1, lower => '{-1,-1}', upper => '{1,1}') AS pl \gset
CREATE TABLE linstates AS SELECT i % 2 AS part, st_test.linear_state(x, yl, :'pl') AS s FROM st GROUP BY 1;
SELECT (SELECT count(*) FROM st WHERE abs(yl) > 1) AS clamped_rows,
       round(v.value) AS released_rounded
FROM (SELECT dpbayes._linear_state_final(st_test.combine(s ORDER BY part)) AS r FROM linstates) f,
     dpbayes.release_stats(f.r) v WHERE v.block = 'y_clamped';
-- a version-1 linear state (no share, no count) releases no such block
SELECT jsonb_path_query_array(dpbayes.release_json(dpbayes._linear_state_final(
         ('\x4450425001' || substr(s::text, 13, 110) || substr(s::text, 139, length(s::text) - 138 - 32))::dpbayes.release_state)),
         '$.blocks[*].kind') AS version_1_kinds
FROM linstates WHERE part = 0;
-- and its count beyond the rows of the state is refused (the last total
-- set to n + 1 = 1501)
SELECT (left(s::text, length(s::text) - 32) || 'dd050000000000000000000000000000')::dpbayes.release_state
FROM linstates WHERE part = 0;
DROP TABLE linstates;
RESET dpbayes.insecure_noise_seed;
-- states of other parameters or another model are not combined
INSERT INTO states
SELECT 9, st_test.logistic_state(x, y, dpbayes.privacy(epsilon => 2, lower => '{-1,-1}', upper => '{1,1}')) FROM st;
SELECT st_test.combine(s) FROM states;
DELETE FROM states WHERE part = 9;
SELECT dpbayes._linear_state_final(s) FROM states WHERE part = 0;
-- the state in other executor nodes: a window aggregate (the final function
-- reads the state after every row and the transitions go on), hashed
-- groups, and hashed groups spilled to disk under a small work_mem
SELECT count(*) AS window_releases
FROM (SELECT dpbayes.logistic_release(x, y, :'p') OVER (ORDER BY i) AS r FROM st WHERE i <= 40) w
WHERE r IS NOT NULL;
SET enable_sort = off;
SELECT count(*) AS hashed_groups FROM (SELECT i % 500 AS g, dpbayes.logistic_release(x, y, :'p') AS r
                                      FROM st GROUP BY 1) h WHERE r IS NOT NULL;
SET work_mem = '64kB';
EXPLAIN (COSTS OFF) SELECT i % 500 AS g, dpbayes.logistic_release(x, y, :'p') AS r FROM st GROUP BY 1;
SELECT count(*) AS spilled_groups FROM (SELECT i % 500 AS g, dpbayes.logistic_release(x, y, :'p') AS r
                                       FROM st GROUP BY 1) h WHERE r IS NOT NULL;
CREATE FUNCTION st_test.hash_batches(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
    RETURN (j -> 0 -> 'Plan' ->> 'HashAgg Batches')::int;
END $$;
SELECT st_test.hash_batches(format($q$SELECT i %% 500, dpbayes.logistic_release(x, y, %L) FROM st GROUP BY 1$q$, :'p')) > 1
  AS spilled_to_disk;
RESET work_mem;
RESET enable_sort;
-- the support functions run only inside an aggregate
SELECT dpbayes._release_state_combine(s, s) FROM states WHERE part = 0;
SELECT dpbayes._logistic_state_trans(NULL, '{0,0}', true, :'p');

-- The input functions validate the whole value and never quote it
SELECT 'garbage'::dpbayes.release_state;
SELECT '\x00'::dpbayes.release_state;
SELECT '\x4450425'::dpbayes.release_state;
SELECT '\x445042500101zz'::dpbayes.release_state;
-- version 3 (unknown), kind 9
SELECT ('\x4450425003' || substr(s::text, 13))::dpbayes.release_state FROM states WHERE part = 0;
SELECT ('\x445042500109' || substr(s::text, 15))::dpbayes.release_state FROM states WHERE part = 0;
-- truncated; one byte too many
SELECT left(s::text, length(s::text) - 2)::dpbayes.release_state FROM states WHERE part = 0;
SELECT (s::text || '00')::dpbayes.release_state FROM states WHERE part = 0;
-- n (bytes 12..19) one more than the rows the totals count
SELECT (left(s::text, 26) || lpad(to_hex((('x' || substr(s::text, 27, 2))::bit(8)::int + 1) % 256), 2, '0')
        || substr(s::text, 29))::dpbayes.release_state FROM states WHERE part = 0;
-- epsilon (bytes 20..27) zero
SELECT (left(s::text, 42) || repeat('0', 16) || substr(s::text, 59))::dpbayes.release_state
FROM states WHERE part = 0;
-- mechanism none (byte 7 = 3): a state is never made without noise
SELECT (left(s::text, 16) || '03' || substr(s::text, 19))::dpbayes.release_state FROM states WHERE part = 0;
-- the last total (y*y of the logistic model) set beyond what n records can sum
SELECT (left(s::text, length(s::text) - 32) || repeat('0', 24) || '0000ff7f')::dpbayes.release_state
FROM states WHERE part = 0;

-- ldp_release has the same state type (kind 2: sums of local-DP reports,
-- already private)
SET dpbayes.allow_simulation = on;
CREATE TABLE lp AS SELECT dpbayes.ldp_protocol('ss_logistic', 2, delta => 1e-6, d => 2,
    lower => '{-1,-1}', upper => '{1,1}') AS p;
CREATE TABLE lrep AS
SELECT i, dpbayes_sim.randomize_raw_record_not_ldp(p, x || (CASE WHEN y THEN 1 ELSE -1 END)::float8) AS report
FROM st, lp;
RESET dpbayes.allow_simulation;
CREATE AGGREGATE st_test.ldp_state(text, float8[], text) (
    SFUNC = dpbayes._ldp_release_state_trans, STYPE = dpbayes.release_state);
CREATE TABLE lstates AS SELECT i % 2 AS part, st_test.ldp_state(dpbayes.ldp_protocol_id(p), report, p) AS s FROM lrep, lp GROUP BY i % 2;
SELECT left(s::text, 14) AS head, s::text::dpbayes.release_state::text = s::text AS text_round_trip
FROM lstates ORDER BY part;
SELECT dpbayes._ldp_release_state_final(st_test.combine(s))::text
     = (SELECT dpbayes.ldp_release(dpbayes.ldp_protocol_id(p), report, p) FROM lrep, lp)::text AS ldp_combined_is_the_release
FROM lstates;
-- a statistics state is not an LDP one
SELECT dpbayes._ldp_release_state_final(s) FROM states WHERE part = 0;

DROP SCHEMA st_test CASCADE;
DROP TABLE st, states, r1, r2, lp, lrep, lstates;
