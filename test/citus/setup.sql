-- test/citus.sh: the test tables.  The same rows twice: t, distributed by
-- Citus on id in 32 shards over the two workers, and t_local, an ordinary
-- table of the coordinator (the single server the releases are compared
-- with).  The values are a deterministic function of the row number.
SET client_min_messages = warning;
-- made at the released version 0.1.0 and updated: Citus runs both on the
-- workers too (checks.sql looks)
CREATE EXTENSION dpbayes VERSION '0.1.0';
ALTER EXTENSION dpbayes UPDATE;
SET citus.shard_count = 32;
CREATE TABLE t_local AS
SELECT i AS id, i % 4 AS g, x1, x2, x3,
       (x1 + 0.5 * x2 + 0.4 * sin(i * 2.1)) > 0 AS y,
       1.5 * x1 - x2 + 0.5 * sin(i * 3.7) AS yl,
       greatest(0, floor(3 + 2 * x1 + 1.5 * sin(i * 1.9)))::float8 AS yc
FROM (SELECT i, sin(i * 0.7) AS x1, cos(i * 1.3) AS x2,
             ((i * 7919) % 1000 / 500.0 - 1)::float8 AS x3
      FROM generate_series(1, :rows) i) s;
CREATE TABLE t AS SELECT * FROM t_local;
SELECT create_distributed_table('t', 'id');

-- local-DP reports of an ss_linear protocol (simulated once, then copied)
SET dpbayes.allow_simulation = on;
CREATE TABLE proto AS
SELECT dpbayes.ldp_protocol('ss_linear', 5, delta => 1e-6, d => 2, intercept => false,
                            lower => '{-1,-1}', upper => '{1,1}', y_bound => 3) AS p;
CREATE TABLE rep_local AS
SELECT id, dpbayes_sim.report_protocol_id(p) AS protocol_id,
       dpbayes_sim.randomize_raw_record_not_ldp(p, ARRAY[x1, x2, yl]) AS report
FROM t_local, proto;
RESET dpbayes.allow_simulation;
CREATE TABLE rep AS SELECT * FROM rep_local;
SELECT create_distributed_table('rep', 'id');
-- a table without rows
CREATE TABLE t_empty AS SELECT * FROM t_local WHERE false;
SELECT create_distributed_table('t_empty', 'id');
ANALYZE;
