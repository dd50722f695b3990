-- With a huge epsilon the noise is negligible: each released statistic must
-- equal the plain-SQL sum of the same clipped products (to 1e-6 relative);
-- under the default add_remove neighbours that includes the count n.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 7;

-- features mostly inside [-1, 1] x [0, 4], away from the centre so that no
-- sum is close to 0 (the check is relative); some rows out of bounds
CREATE TABLE ex AS
SELECT i,
       ARRAY[0.2 + 0.9 * (i % 17) / 17.0 + CASE WHEN i % 50 = 0 THEN 3 ELSE 0 END,
             2.2 + 1.7 * ((i * 7) % 23) / 23.0 + CASE WHEN i % 70 = 0 THEN 3 ELSE 0 END] AS x,
       0.5 + ((i * 13) % 29) / 29.0 AS y,
       (i % 5) <> 0 AS yb,
       ((i * 11) % 9)::float8 AS cnt
FROM generate_series(1, 5000) i;

-- the clipped features in SQL: box scaling, s = R / sqrt(d) = 2 / sqrt(2)
CREATE VIEW exz AS
SELECT i, y, yb, cnt,
       (least(greatest(x[1], -1), 1) - 0) / 1 * (2 / sqrt(2)) AS a,
       (least(greatest(x[2], 0), 4) - 2) / 2 * (2 / sqrt(2)) AS b
FROM ex;

CREATE FUNCTION check_exact(r dpbayes.release, exact jsonb) RETURNS TABLE(entry text, ok boolean)
LANGUAGE sql AS $$
  SELECT s.entry, abs(s.value - (exact ->> s.entry)::float8) <= 1e-6 * abs((exact ->> s.entry)::float8)
  FROM dpbayes.release_stats(r) s
$$;

-- linear: y clamped to [-1.2, 1.2]; n_y_clamped (the y_clamped block, on by
-- default for linear releases) counts the rows whose y was clamped
WITH e AS (SELECT sum(a) a, sum(b) b, sum(a*a) aa, sum(a*b) ab, sum(b*b) bb,
                  sum(least(y, 1.2)) y, sum(least(y, 1.2)*a) ya, sum(least(y, 1.2)*b) yb,
                  sum(least(y, 1.2)^2) yy, count(*) n,
                  count(*) FILTER (WHERE abs(y) > 1.2) nyc FROM exz)
SELECT c.* FROM e, (SELECT dpbayes.linear_release(x, y,
        dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2, y_bound => 1.2,
                        lower => ARRAY[-1, 0], upper => ARRAY[1, 4],
                        features => ARRAY['a', 'b'])) r FROM ex) rr,
     LATERAL check_exact(rr.r, jsonb_build_object('n', e.n, 'a', e.a, 'b', e.b, 'a^2', e.aa, 'a*b', e.ab,
        'b^2', e.bb, 'y', e.y, 'y*a', e.ya, 'y*b', e.yb, 'y^2', e.yy, 'n_y_clamped', e.nyc)) c;

-- logistic: y in {-1, +1}
WITH e AS (SELECT sum(a) a, sum(b) b, sum(a*a) aa, sum(a*b) ab, sum(b*b) bb,
                  sum(CASE WHEN yb THEN 1 ELSE -1 END) y,
                  sum(CASE WHEN yb THEN a ELSE -a END) ya,
                  sum(CASE WHEN yb THEN b ELSE -b END) yb, count(*) n FROM exz)
SELECT c.* FROM e, (SELECT dpbayes.logistic_release(x, yb,
        dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2,
                        lower => ARRAY[-1, 0], upper => ARRAY[1, 4],
                        features => ARRAY['a', 'b'])) r FROM ex) rr,
     LATERAL check_exact(rr.r, jsonb_build_object('n', e.n, 'a', e.a, 'b', e.b, 'a^2', e.aa, 'a*b', e.ab,
        'b^2', e.bb, 'y', e.y, 'y*a', e.ya, 'y*b', e.yb)) c;

-- poisson with intercept: counts clamped to [0, 6]
WITH e AS (SELECT sum(a) a, sum(b) b, sum(a*a) aa, sum(a*b) ab, sum(b*b) bb,
                  sum(least(cnt, 6)) y, sum(least(cnt, 6)*a) ya, sum(least(cnt, 6)*b) yb,
                  sum(least(cnt, 6)*a*a) yaa, sum(least(cnt, 6)*a*b) yab,
                  sum(least(cnt, 6)*b*b) ybb, count(*) n FROM exz)
SELECT c.* FROM e, (SELECT dpbayes.poisson_release(x, cnt,
        dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2, y_bound => 6,
                        lower => ARRAY[-1, 0], upper => ARRAY[1, 4],
                        features => ARRAY['a', 'b'])) r FROM ex) rr,
     LATERAL check_exact(rr.r, jsonb_build_object('n', e.n, 'a', e.a, 'b', e.b, 'a^2', e.aa, 'a*b', e.ab,
        'b^2', e.bb, 'y', e.y, 'y*a', e.ya, 'y*b', e.yb, 'y*a^2', e.yaa, 'y*a*b', e.yab,
        'y*b^2', e.ybb)) c;

-- poisson without intercept (the paper's four blocks)
WITH e AS (SELECT sum(a) a, sum(b) b, sum(a*a) aa, sum(a*b) ab, sum(b*b) bb,
                  sum(least(cnt, 6)*a) ya, sum(least(cnt, 6)*b) yb,
                  sum(least(cnt, 6)*a*a) yaa, sum(least(cnt, 6)*a*b) yab,
                  sum(least(cnt, 6)*b*b) ybb, count(*) n FROM exz)
SELECT c.* FROM e, (SELECT dpbayes.poisson_release(x, cnt,
        dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2, y_bound => 6,
                        lower => ARRAY[-1, 0], upper => ARRAY[1, 4], intercept => false,
                        features => ARRAY['a', 'b'])) r FROM ex) rr,
     LATERAL check_exact(rr.r, jsonb_build_object('n', e.n, 'a', e.a, 'b', e.b, 'a^2', e.aa, 'a*b', e.ab,
        'b^2', e.bb, 'y*a', e.ya, 'y*b', e.yb, 'y*a^2', e.yaa, 'y*a*b', e.yab,
        'y*b^2', e.ybb)) c;

-- ball scaling: features mapped onto [-R, R], then projected onto the ball
CREATE VIEW exball AS
SELECT y, a0 * f AS a, b0 * f AS b FROM (
  SELECT y, a0, b0, CASE WHEN a0*a0 + b0*b0 > 4 THEN 2 / sqrt(a0*a0 + b0*b0) ELSE 1 END f
  FROM (SELECT y, least(greatest(x[1], -1), 1) * 2 AS a0,
               (least(greatest(x[2], 0), 4) - 2) / 2 * 2 AS b0 FROM ex) s) t;
WITH e AS (SELECT sum(a) a, sum(b) b, sum(a*a) aa, sum(a*b) ab, sum(b*b) bb,
                  sum(least(y, 1.2)) y, sum(least(y, 1.2)*a) ya, sum(least(y, 1.2)*b) yb,
                  sum(least(y, 1.2)^2) yy, count(*) n,
                  count(*) FILTER (WHERE abs(y) > 1.2) nyc FROM exball)
SELECT c.entry, c.ok FROM e, (SELECT dpbayes.linear_release(x, y,
        dpbayes.privacy(epsilon => 1e9, delta => 1e-5, clip => 2, y_bound => 1.2,
                        lower => ARRAY[-1, 0], upper => ARRAY[1, 4], scaling => 'ball',
                        features => ARRAY['a', 'b'])) r FROM ex) rr,
     LATERAL check_exact(rr.r, jsonb_build_object('n', e.n, 'a', e.a, 'b', e.b, 'a^2', e.aa, 'a*b', e.ab,
        'b^2', e.bb, 'y', e.y, 'y*a', e.ya, 'y*b', e.yb, 'y^2', e.yy, 'n_y_clamped', e.nyc)) c;

-- under replace neighbours N is released exactly; GROUP BY makes one
-- release per group (sql/12_neighbours.sql: the default add_remove)
SELECT g, (dpbayes.release_json(r) ->> 'n')::int AS n
FROM (SELECT i % 3 AS g, dpbayes.logistic_release(x, yb, dpbayes.privacy(epsilon => 1,
        lower => ARRAY[-1, 0], upper => ARRAY[1, 4], neighbours => 'replace')) r
      FROM ex GROUP BY 1) s ORDER BY g;

-- an empty group still gets noise (the parameters are a constant), its
-- count and its count of clamped responses too
SELECT (j ->> 'n')::int AS n,
       (SELECT count(*) FROM jsonb_array_elements(j -> 'blocks') b,
               jsonb_array_elements(b -> 'values') v WHERE (v #>> '{}')::float8 <> 0) AS nonzero
FROM (SELECT dpbayes.release_json(dpbayes.linear_release(x, y,
        dpbayes.privacy(epsilon => 1, y_bound => 1, lower => ARRAY[-1, 0], upper => ARRAY[1, 4])))
      AS j FROM ex WHERE false) s;

DROP VIEW exball;
DROP VIEW exz;
DROP FUNCTION check_exact;
