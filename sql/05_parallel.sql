-- Parallel aggregation: a forced parallel plan has a Partial Aggregate and
-- gives the same N and (at epsilon = 1e9) the same statistics as the serial
-- plan.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 3;
CREATE TABLE par AS
SELECT ARRAY[(i % 101) / 100.0, ((i * 7) % 31) / 31.0, ((i * 3) % 17) / 17.0]::float8[] AS x,
       (i % 3) = 0 AS y, ((i * 5) % 11) / 11.0 AS yl
FROM generate_series(1, 200000) i;
ANALYZE par;
CREATE TEMP TABLE results (mode text, r dpbayes.release);

SET max_parallel_workers_per_gather = 0;
INSERT INTO results
SELECT 'serial', dpbayes.logistic_release(x, y, dpbayes.privacy(epsilon => 1e9, delta => 1e-5,
         lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) FROM par;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT dpbayes.logistic_release(x, y, dpbayes.privacy(epsilon => 1e9, delta => 1e-5,
         lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) FROM par;
-- INSERT ... SELECT never runs in parallel; CREATE TABLE AS does
CREATE TEMP TABLE par_result AS
SELECT 'parallel' AS mode, dpbayes.logistic_release(x, y, dpbayes.privacy(epsilon => 1e9, delta => 1e-5,
         lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) AS r FROM par;
EXPLAIN (COSTS OFF)
CREATE TEMP TABLE par_result2 AS
SELECT 'parallel' AS mode, dpbayes.logistic_release(x, y, dpbayes.privacy(epsilon => 1e9, delta => 1e-5,
         lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) AS r FROM par;
INSERT INTO results SELECT * FROM par_result;
EXPLAIN (COSTS OFF)
SELECT dpbayes.linear_release(x, yl, dpbayes.privacy(epsilon => 1e9, delta => 1e-5, y_bound => 1,
         lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) FROM par;

SELECT round((SELECT value FROM dpbayes.release_stats(a.r) WHERE block = 'count')) AS n_serial,
       round((SELECT value FROM dpbayes.release_stats(b.r) WHERE block = 'count')) AS n_parallel,
       (SELECT bool_and(abs(sa.value - sb.value) <= 1e-6 * abs(sa.value))
        FROM dpbayes.release_stats(a.r) WITH ORDINALITY sa(block, entry, value, sd, k)
        JOIN dpbayes.release_stats(b.r) WITH ORDINALITY sb(block, entry, value, sd, k)
        USING (k)) AS same_statistics
FROM results a, results b WHERE a.mode = 'serial' AND b.mode = 'parallel';

-- the sums are exact integers, independent of the plan: with the same
-- (insecure, test) noise stream a parallel release equals the serial one to
-- the last bit
SET max_parallel_workers_per_gather = 0;
SET dpbayes.insecure_noise_seed = 11;
CREATE TEMP TABLE rel_serial AS SELECT dpbayes.linear_release(x, yl, dpbayes.privacy(epsilon => 1,
         y_bound => 1, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) AS r FROM par;
SET max_parallel_workers_per_gather = 2;
SET dpbayes.insecure_noise_seed = 12;
SET dpbayes.insecure_noise_seed = 11;
CREATE TEMP TABLE rel_parallel AS SELECT dpbayes.linear_release(x, yl, dpbayes.privacy(epsilon => 1,
         y_bound => 1, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) AS r FROM par;
SELECT s.r::text = p.r::text AS identical_releases FROM rel_serial s, rel_parallel p;
RESET ALL;
DROP TABLE par;
