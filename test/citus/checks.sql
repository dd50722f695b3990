-- test/citus.sh: releases over the distributed table t against the same
-- rows in the ordinary table t_local (the single server), under the same
-- INSECURE test seed.  One line per check: "ok ..." or "FAILED ...".
SET client_min_messages = error;

-- CREATE EXTENSION dpbayes VERSION '0.1.0' and ALTER EXTENSION dpbayes UPDATE
-- on the coordinator (setup.sql) reached the workers
SELECT CASE WHEN count(*) FILTER (WHERE success AND result = '0.2.0 1') = 2
  THEN 'ok extension: made at 0.1.0 and updated on the coordinator, dpbayes is 0.2.0 with release_state on both workers'
  ELSE 'FAILED extension: the workers have ' || string_agg(result, ', ') END
FROM run_command_on_workers($$SELECT extversion || ' ' || (SELECT count(*) FROM pg_type WHERE typname = 'release_state')
                              FROM pg_extension WHERE extname = 'dpbayes'$$);

-- the release of query q (%1$s: the table) with the test stream restarted
CREATE FUNCTION pg_temp.rel(q text, tbl text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    PERFORM set_config('dpbayes.insecure_noise_seed', '1000', false);
    PERFORM set_config('dpbayes.insecure_noise_seed', '27', false);
    EXECUTE format(q, tbl) INTO r;
    RETURN r;
END $$;

-- whether the plan of q over tbl has worker_partial_agg
CREATE FUNCTION pg_temp.pushed(q text, tbl text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    l text;
BEGIN
    FOR l IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || format(q, tbl) LOOP
        IF l LIKE '%worker_partial_agg%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;

CREATE FUNCTION pg_temp.same(what text, q text, dist text DEFAULT 't', loc text DEFAULT 't_local',
                             want_pushed boolean DEFAULT true) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    a text := pg_temp.rel(q, dist);
    b text := pg_temp.rel(q, loc);
    p boolean := pg_temp.pushed(q, dist);
BEGIN
    IF a IS NULL OR a IS DISTINCT FROM b THEN
        RETURN 'FAILED identical: ' || what || ': the distributed release differs from the single server''s';
    ELSIF p <> want_pushed THEN
        RETURN 'FAILED identical: ' || what || CASE WHEN want_pushed THEN ': not pushed down'
                                                   ELSE ': unexpectedly pushed down' END;
    END IF;
    RETURN 'ok identical: ' || what || CASE WHEN p THEN ' (pushed down)' ELSE ' (rows gathered on the coordinator)' END;
END $$;

SELECT pg_temp.same('logistic, array form',
  $$SELECT dpbayes.logistic_release(ARRAY[x1, x2, x3], y, dpbayes.privacy(epsilon => 1,
      lower => '{-1,-1,-1}', upper => '{1,1,1}'))::text FROM %s$$);
SELECT pg_temp.same('linear, replace neighbours',
  $$SELECT dpbayes.linear_release(ARRAY[x1, x2], yl, dpbayes.privacy(epsilon => 0.8, y_bound => 3,
      lower => '{-1,-1}', upper => '{1,1}', neighbours => 'replace'))::text FROM %s$$);
SELECT pg_temp.same('linear, laplace',
  $$SELECT dpbayes.linear_release(ARRAY[x1, x2], yl, dpbayes.privacy(epsilon => 1, y_bound => 3,
      mechanism => 'laplace', lower => '{-1,-1}', upper => '{1,1}'))::text FROM %s$$);
SELECT pg_temp.same('linear, x_moments',
  $$SELECT dpbayes.linear_release(ARRAY[x1, x2, x3], yl, dpbayes.privacy(epsilon => 1, y_bound => 3,
      x_moments => 0.3, lower => '{-1,-1,-1}', upper => '{1,1,1}'))::text FROM %s$$);
SELECT pg_temp.same('poisson, feature names',
  $$SELECT dpbayes.poisson_release(ARRAY[x1, x3], yc, dpbayes.privacy(epsilon => 1, y_bound => 10,
      lower => '{-1,-1}', upper => '{1,1}', features => '{a,b}'))::text FROM %s$$);
SELECT pg_temp.same('a WHERE clause',
  $$SELECT dpbayes.logistic_release(ARRAY[x1, x2], y, dpbayes.privacy(epsilon => 1,
      lower => '{-1,-1}', upper => '{1,1}'))::text FROM %s WHERE g = 2 AND x3 > 0$$);
-- groups finalized in the order of g on both sides (sorted aggregation), so
-- that both draw the noise of the groups in the same order
SET enable_hashagg = off;
SELECT pg_temp.same('GROUP BY a column that is not the distribution column (4 groups)',
  $$SELECT string_agg(r::text, '|' ORDER BY g) FROM (SELECT g, dpbayes.linear_release(ARRAY[x1, x2], yl,
      dpbayes.privacy(epsilon => 1, y_bound => 3, lower => '{-1,-1}', upper => '{1,1}')) AS r
      FROM %s GROUP BY g) s$$);
RESET enable_hashagg;
SELECT pg_temp.same('column form (VARIADIC "any": not pushed down)',
  $$SELECT dpbayes.logistic_release(y, dpbayes.privacy(epsilon => 1,
      lower => '{-1,-1,-1}', upper => '{1,1,1}'), x1, x2, x3)::text FROM %s$$, want_pushed => false);
SELECT p AS proto FROM proto \gset
SELECT pg_temp.same('ldp_release of local-DP reports',
  format($$SELECT dpbayes.ldp_release(protocol_id, report, %L)::text FROM %%s$$, :'proto'),
  'rep', 'rep_local');
SELECT CASE WHEN pg_temp.rel($$SELECT dpbayes.logistic_release(ARRAY[x1, x2, x3], y, dpbayes.privacy(epsilon => 1,
      lower => '{-1,-1,-1}', upper => '{1,1,1}'))::text FROM %s$$, 't')
  = pg_temp.rel($$SELECT dpbayes.logistic_release(y, dpbayes.privacy(epsilon => 1,
      lower => '{-1,-1,-1}', upper => '{1,1,1}'), x1, x2, x3)::text FROM %s$$, 't_local')
  THEN 'ok identical: the pushed-down array form equals the single server''s column form'
  ELSE 'FAILED identical: the pushed-down array form differs from the single server''s column form' END;

-- a distributed table without rows: the coordinator never sees the
-- parameters of the empty group
CREATE FUNCTION pg_temp.empty_check() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    m text;
BEGIN
    PERFORM dpbayes.linear_release(ARRAY[x1], yl, dpbayes.privacy(epsilon => 1, y_bound => 3,
        lower => '{-1}', upper => '{1}')) FROM t_empty;
    RETURN 'FAILED empty: a release of an empty distributed table did not fail';
EXCEPTION WHEN feature_not_supported THEN
    GET STACKED DIAGNOSTICS m = MESSAGE_TEXT;
    RETURN 'ok empty: a distributed table without rows is refused (0A000 "' || m || '")';
END $$;
SELECT pg_temp.empty_check();

-- the posterior of the distributed release runs, and equals the single
-- server's (the same release, the same seed)
CREATE TEMP TABLE post AS
SELECT k, s.* FROM (VALUES ('t'), ('t_local')) v(k),
  dpbayes.posterior_summary(pg_temp.rel($$SELECT dpbayes.logistic_release(ARRAY[x1, x2, x3], y,
      dpbayes.privacy(epsilon => 1, lower => '{-1,-1,-1}', upper => '{1,1,1}'))::text FROM %s$$, v.k)::dpbayes.release,
    draws => 300, chains => 2, warmup => 300, seed => 1) s;
SELECT CASE WHEN (SELECT count(*) FROM post WHERE k = 't') = 5   -- the intercept, 3 features, N (add_remove)
             AND (SELECT bool_and(mean = mean AND sd > 0) FROM post)
             AND (SELECT array_agg(ROW(variable, mean, sd) ORDER BY variable) FROM post WHERE k = 't')::text
               = (SELECT array_agg(ROW(variable, mean, sd) ORDER BY variable) FROM post WHERE k = 't_local')::text
  THEN 'ok posterior: posterior_summary of the distributed release runs (' ||
       (SELECT string_agg(variable || ' ' || round(mean::numeric, 2), ', ' ORDER BY variable) FROM post WHERE k = 't') ||
       ') and equals the single server''s'
  ELSE 'FAILED posterior: ' || (SELECT count(*) FROM post WHERE k = 't') || ' variables' END;

-- betaD needs all the rows in one place: gathered, refused past work_mem
CREATE FUNCTION pg_temp.betad_check() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    m text;
    r dpbayes.release;
BEGIN
    PERFORM set_config('work_mem', '64kB', true);
    BEGIN
        PERFORM dpbayes.betad_logistic(ARRAY[x1, x2], y, dpbayes.betad(1, 'logistic',
            lower => '{-1,-1}', upper => '{1,1}')) FROM t;
        RETURN 'FAILED betad: 64 kB of work_mem held the rows of the distributed table';
    EXCEPTION WHEN program_limit_exceeded THEN
        GET STACKED DIAGNOSTICS m = MESSAGE_TEXT;
    END;
    IF m <> 'too many rows for a betaD release of a distributed table' THEN
        RETURN 'FAILED betad: past work_mem: ' || m;
    END IF;
    PERFORM set_config('work_mem', '4MB', true);
    SELECT dpbayes.betad_logistic(ARRAY[x1, x2], y, dpbayes.betad(1, 'logistic',
        lower => '{-1,-1}', upper => '{1,1}')) INTO r FROM t WHERE id <= 2000;
    IF dpbayes.release_json(r) ->> 'kind' IS DISTINCT FROM 'betad' THEN
        RETURN 'FAILED betad: no betaD release within work_mem';
    END IF;
    RETURN 'ok betad: the rows are gathered on the coordinator: refused past work_mem ("' || m ||
           '"), a draw within it';
END $$;
SELECT pg_temp.betad_check();

-- who can produce a partial state: only a role that reads the rows
CREATE ROLE dpb_cit_nobody LOGIN;
GRANT USAGE ON SCHEMA public TO dpb_cit_nobody;
CREATE FUNCTION pg_temp.denied(q text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN false;
EXCEPTION WHEN insufficient_privilege THEN
    RETURN true;
END $$;
SET ROLE dpb_cit_nobody;
SELECT CASE WHEN pg_temp.denied($$SELECT dpbayes.logistic_release(ARRAY[x1], y, dpbayes.privacy(epsilon => 1,
        lower => '{-1}', upper => '{1}')) FROM t$$)
         AND pg_temp.denied($$SELECT pg_catalog.worker_partial_agg('dpbayes.logistic_release(double precision[],boolean,dpbayes.privacy)'::regprocedure,
        ROW(ARRAY[x1], y, dpbayes.privacy(epsilon => 1, lower => '{-1}', upper => '{1}'))) FROM t$$)
  THEN 'ok privacy: a role without SELECT on the table gets neither a release nor a partial state (42501)'
  ELSE 'FAILED privacy: a role without SELECT on the table got a release or a partial state' END;
RESET ROLE;
