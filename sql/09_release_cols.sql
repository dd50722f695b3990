-- The column form of the release aggregates: the features as separate
-- arguments, release(y, p, x1, ..., xd), of any of double precision, real,
-- smallint, integer, bigint and numeric.  Same statistics as the array form
-- and as plain SQL, the same NULL policy and errors, parallel-safe.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default
\set SHOW_CONTEXT never

CREATE TABLE cols AS
SELECT i,
       (0.2 + 0.9 * (i % 17) / 17.0 + CASE WHEN i % 50 = 0 THEN 3 ELSE 0 END)::float8 AS f8,
       (-0.5 + ((i * 7) % 23) / 10.0)::real AS f4,
       ((i * 3) % 7 - 2)::smallint AS i2,
       ((i * 5) % 9)::integer AS i4,
       ((i * 11) % 13 - 6)::bigint AS i8,
       round(((i * 13) % 29) / 7.0, 3)::numeric AS num,
       0.5 + ((i * 13) % 29) / 29.0 AS y,
       (i % 5) <> 0 AS yb,
       ((i * 11) % 9)::float8 AS cnt
FROM generate_series(1, 3000) i;

-- the same privacy parameters everywhere (d = 6)
CREATE FUNCTION pp(y_bound float8 DEFAULT NULL, intercept boolean DEFAULT true)
RETURNS dpbayes.privacy LANGUAGE sql IMMUTABLE AS $$
  SELECT dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2, y_bound => y_bound,
                         intercept => intercept,
                         lower => ARRAY[0, 0, -2, 0, -6, 0], upper => ARRAY[1, 2, 3, 8, 4, 3])
$$;

-- the statistics of a release as an array, in their order
CREATE FUNCTION vals(r dpbayes.release) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(value ORDER BY k) FROM dpbayes.release_stats(r) WITH ORDINALITY s(b, e, value, sd, k)
$$;

-- 1. bit-identical to the array form: the same seeded noise stream for both
-- (the seed is set again before each release)
CREATE TEMP TABLE rel (form text, model text, r dpbayes.release);
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'array', 'linear', dpbayes.linear_release(
  ARRAY[f8, f4::float8, i2::float8, i4::float8, i8::float8, num::float8], y, pp(1.2)) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'cols', 'linear', dpbayes.linear_release(y, pp(1.2), f8, f4, i2, i4, i8, num) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'array', 'logistic', dpbayes.logistic_release(
  ARRAY[f8, f4::float8, i2::float8, i4::float8, i8::float8, num::float8], yb, pp()) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'cols', 'logistic', dpbayes.logistic_release(yb, pp(), f8, f4, i2, i4, i8, num) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'array', 'poisson', dpbayes.poisson_release(
  ARRAY[f8, f4::float8, i2::float8, i4::float8, i8::float8, num::float8], cnt, pp(6, false)) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'cols', 'poisson', dpbayes.poisson_release(cnt, pp(6, false), f8, f4, i2, i4, i8, num) FROM cols;
-- explicit VARIADIC: one array (double precision[], numeric[]) instead of the
-- arguments
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'variadic', 'logistic', dpbayes.logistic_release(yb, pp(),
  VARIADIC ARRAY[f8, f4, i2, i4, i8, num]) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'array', 'logistic-int', dpbayes.logistic_release(
  ARRAY[i2, i4, i8, i4, i2, num]::float8[], yb, pp()) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'variadic', 'logistic-int', dpbayes.logistic_release(yb, pp(),
  VARIADIC ARRAY[i2, i4, i8, i4, i2, num]) FROM cols;
SET dpbayes.insecure_noise_seed = 11;
INSERT INTO rel SELECT 'cols', 'logistic-int', dpbayes.logistic_release(yb, pp(), i2, i4, i8, i4, i2, num) FROM cols;
RESET dpbayes.insecure_noise_seed;

SELECT c.form, c.model, round((SELECT value FROM dpbayes.release_stats(c.r) WHERE block = 'count'))::int AS n, vals(c.r) = vals(a.r) AS same_as_array,
       (c.r::jsonb - 'blocks') = (a.r::jsonb - 'blocks') AS same_metadata
FROM rel c JOIN rel a ON a.model = c.model AND a.form = 'array'
WHERE c.form <> 'array' ORDER BY c.model, c.form;

-- 2. equal to the same sums in plain SQL up to the noise (epsilon = 1e9):
-- box scaling, s = R / sqrt(6)
CREATE VIEW colz AS
SELECT y, yb, cnt,
       (least(greatest(f8, 0), 1) - 0.5) / 0.5 * (2 / sqrt(6)) AS z1,
       (least(greatest(f4::float8, 0), 2) - 1) / 1 * (2 / sqrt(6)) AS z2,
       (least(greatest(i2::float8, -2), 3) - 0.5) / 2.5 * (2 / sqrt(6)) AS z3,
       (least(greatest(i4::float8, 0), 8) - 4) / 4 * (2 / sqrt(6)) AS z4,
       (least(greatest(i8::float8, -6), 4) + 1) / 5 * (2 / sqrt(6)) AS z5,
       (least(greatest(num::float8, 0), 3) - 1.5) / 1.5 * (2 / sqrt(6)) AS z6
FROM cols;
WITH e AS (SELECT sum(CASE WHEN yb THEN 1 ELSE -1 END) AS y,
                  sum(CASE WHEN yb THEN z3 ELSE -z3 END) AS y3,
                  sum(z1) AS s1, sum(z6) AS s6,
                  sum(z1 * z1) AS s11, sum(z2 * z5) AS s25, sum(z4 * z6) AS s46, sum(z6 * z6) AS s66
           FROM colz),
     s AS (SELECT st.entry, st.value, st.noise_sd FROM rel, dpbayes.release_stats(rel.r) st
           WHERE rel.form = 'cols' AND rel.model = 'logistic')
SELECT s.entry, abs(s.value - x.v) <= 6 * s.noise_sd + 1e-9 * abs(x.v) AS ok
FROM s JOIN (SELECT * FROM e, LATERAL (VALUES ('y', e.y), ('y*x3', e.y3), ('x1', e.s1), ('x6', e.s6),
             ('x1^2', e.s11), ('x2*x5', e.s25), ('x4*x6', e.s46), ('x6^2', e.s66)) v(entry, v)) x
     USING (entry)
ORDER BY 1;

-- 3. the calls resolve unambiguously: an array first is the array form
SELECT (dpbayes.logistic_release('{0.5}', true, dpbayes.privacy(epsilon => 1, neighbours => 'replace', scaling => 'none'))::jsonb -> 'n') AS array_form,
       (dpbayes.logistic_release(true, dpbayes.privacy(epsilon => 1, neighbours => 'replace', scaling => 'none'), 0.5)::jsonb -> 'n') AS cols_form,
       (dpbayes.linear_release(1, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'), 2, 0.5::real)::jsonb -> 'd') AS linear_d;

-- 4. an empty group: d is the number of feature arguments
SELECT (dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), f8, i4)::jsonb -> 'd') AS d
FROM cols WHERE false;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), VARIADIC ARRAY[f8, i4]) FROM cols WHERE false;

-- 5. bad input
-- a type that is not a number
SELECT dpbayes.logistic_release(yb, pp(), f8, f4, i2, i4, i8, num::text) FROM cols;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), yb) FROM cols;
-- the feature array as the last argument, without VARIADIC
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), ARRAY[f8, i4]) FROM cols;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), VARIADIC ARRAY['a', 'b']) FROM cols;
-- NULLs: a feature, the explicit VARIADIC array or one of its elements, the
-- response, the privacy parameters
SELECT dpbayes.logistic_release(yb, pp(), f8, f4, i2, i4, CASE WHEN i = 7 THEN NULL ELSE i8 END, num) FROM cols;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), VARIADIC NULL::float8[]) FROM cols;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), VARIADIC ARRAY[f8, NULL]) FROM cols;
SELECT dpbayes.linear_release(NULL, pp(1), f8, f4, i2, i4, i8, num) FROM cols;
SELECT dpbayes.logistic_release(yb, NULL, f8) FROM cols;
-- NaN and infinity (numeric and real)
SELECT dpbayes.logistic_release(yb, pp(), f8, f4, i2, i4, i8, CASE WHEN i = 9 THEN 'NaN' ELSE num END) FROM cols;
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'), 'Infinity'::real) FROM cols;
SELECT dpbayes.linear_release('NaN', pp(1), f8, f4, i2, i4, i8, num) FROM cols;
-- the feature count must match the privacy parameters ...
SELECT dpbayes.logistic_release(yb, pp(), f8, f4, i2, i4, i8) FROM cols;
-- ... and must not change within a group (possible with explicit VARIADIC)
SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => 'none'),
         VARIADIC CASE WHEN i < 10 THEN ARRAY[f8, i4] ELSE ARRAY[f8] END) FROM cols;
-- at most 64 features, as arguments or as a VARIADIC array
DO $$
BEGIN
  EXECUTE format('SELECT dpbayes.logistic_release(true, dpbayes.privacy(epsilon => 1, scaling => ''none''), %s)',
                 (SELECT string_agg('0.5', ', ') FROM generate_series(1, 65)));
END $$;
SELECT dpbayes.logistic_release(true, dpbayes.privacy(epsilon => 1, scaling => 'none'), VARIADIC array_fill(0.5, ARRAY[65]));
-- the SQLSTATEs
CREATE FUNCTION sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END $$;
SELECT sqlstate_of('SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => ''none''), num::text) FROM cols') AS wrong_type,
       sqlstate_of('SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => ''none''), NULL::int) FROM cols') AS null_feature,
       sqlstate_of('SELECT dpbayes.logistic_release(yb, dpbayes.privacy(epsilon => 1, scaling => ''none''), ''NaN''::float8) FROM cols') AS nan;

-- 6. a forced parallel plan: Partial Aggregates in the workers, the same N
-- and statistics as serially (the same seeded noise; the sums differ only by
-- their order).  CREATE TABLE AS runs in parallel, INSERT ... SELECT never.
CREATE TABLE colpar AS
SELECT (i % 101) / 100.0 AS a, ((i * 7) % 31)::int AS b, ((i * 3) % 17)::bigint AS c,
       (i % 3) = 0 AS y, ((i * 5) % 11) / 11.0 AS yl
FROM generate_series(1, 200000) i;
ANALYZE colpar;
CREATE VIEW colpar_releases AS
SELECT dpbayes.logistic_release(y,
         dpbayes.privacy(epsilon => 1e9, delta => 1e-5, lower => ARRAY[0, 0, 0], upper => ARRAY[1, 30, 16]),
         a, b, c) AS lo,
       dpbayes.linear_release(yl,
         dpbayes.privacy(epsilon => 1e9, delta => 1e-5, y_bound => 1, lower => ARRAY[0, 0, 0], upper => ARRAY[1, 30, 16]),
         a, b, c) AS li
FROM colpar;
-- EXPLAIN ANALYZE through RETURN QUERY, which may run in parallel
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;
SET max_parallel_workers_per_gather = 0;
SET dpbayes.insecure_noise_seed = 5;
CREATE TEMP TABLE colpar_serial AS SELECT * FROM colpar_releases;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET dpbayes.insecure_noise_seed = 5;
SELECT l AS plan FROM explain_lines('CREATE TEMP TABLE colpar_parallel AS SELECT * FROM colpar_releases') l
WHERE l !~ 'Seq Scan';
RESET ALL;
SELECT m.model, round((SELECT value FROM dpbayes.release_stats(m.a) WHERE block = 'count')) AS n_serial,
       round((SELECT value FROM dpbayes.release_stats(m.b) WHERE block = 'count')) AS n_parallel,
       (SELECT bool_and(abs(sa - sb) <= 1e-9 * greatest(abs(sa), 1))
        FROM unnest(vals(m.a), vals(m.b)) u(sa, sb)) AS same_statistics
FROM colpar_serial s, colpar_parallel p,
     LATERAL (VALUES ('logistic', s.lo, p.lo), ('linear', s.li, p.li)) m(model, a, b)
ORDER BY 1;

DROP FUNCTION explain_lines;
DROP VIEW colpar_releases;
DROP TABLE colpar;
DROP FUNCTION sqlstate_of;
DROP VIEW colz;
DROP FUNCTION vals;
DROP FUNCTION pp;
DROP TABLE cols;
