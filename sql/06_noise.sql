-- The noise: over 2000 releases of a fixed table (deterministic test seed)
-- the empirical noise sd of each block is within 5% of the reported one, and
-- the noise has the right distribution (Kolmogorov-Smirnov, alpha = 0.01).
-- All features and responses are 0 (logistic: y = -1), and each group has
-- one row (the count n = 1), so every exact statistic is known and each
-- released value minus it is pure noise.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 2024;
CREATE TABLE zero AS SELECT g, ARRAY[0, 0, 0]::float8[] AS x, 0::float8 AS y, false AS yb
FROM generate_series(1, 2000) g;

CREATE FUNCTION laplace_cdf(v float8) RETURNS float8 IMMUTABLE LANGUAGE sql AS
$$ SELECT CASE WHEN v < 0 THEN 0.5 * exp(v) ELSE 1 - 0.5 * exp(-v) END $$;
CREATE FUNCTION normal_cdf(v float8) RETURNS float8 IMMUTABLE LANGUAGE sql AS
$$ SELECT 0.5 * (1 + CASE WHEN v < 0 THEN -1 ELSE 1 END *
     sqrt(1 - exp(-2 * v * v / pi()))) $$;  -- Polya's approximation (error < 0.003)

-- standardized noise z = value / scale, per release, block, entry
CREATE TABLE noise AS
SELECT 'gaussian' AS mech, 'linear' AS model, s.block, s.entry,
       (s.value - CASE WHEN s.entry = 'n' THEN 1 ELSE 0 END) / s.noise_sd AS z,
       s.noise_sd
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 0.7, delta => 1e-6,
        y_bound => 2, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) r
      FROM zero GROUP BY g) rr, dpbayes.release_stats(rr.r) s
UNION ALL
SELECT 'laplace', 'linear', s.block, s.entry,
       (s.value - CASE WHEN s.entry = 'n' THEN 1 ELSE 0 END) / (s.noise_sd / sqrt(2)), s.noise_sd
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 2, mechanism => 'laplace',
        y_bound => 2, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1],
        noise_weights => ARRAY[1, 2, 0.5, 1.5])) r
      FROM zero GROUP BY g) rr, dpbayes.release_stats(rr.r) s
UNION ALL
SELECT 'gaussian', 'logistic', s.block, s.entry,
       -- every row has y = -1, so the exact sum of y is -N = -1
       (s.value - CASE s.entry WHEN 'y' THEN -1 WHEN 'n' THEN 1 ELSE 0 END) / s.noise_sd, s.noise_sd
FROM (SELECT dpbayes.logistic_release(x, yb, dpbayes.privacy(epsilon => 1, delta => 1e-5,
        lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1], noise_weights => ARRAY[1, 3, 1])) r
      FROM zero GROUP BY g) rr, dpbayes.release_stats(rr.r) s
UNION ALL
SELECT 'gaussian', 'poisson', s.block, s.entry,
       (s.value - CASE WHEN s.entry = 'n' THEN 1 ELSE 0 END) / s.noise_sd, s.noise_sd
FROM (SELECT dpbayes.poisson_release(x, y, dpbayes.privacy(epsilon => 1, delta => 1e-5,
        y_bound => 4, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) r
      FROM zero GROUP BY g) rr, dpbayes.release_stats(rr.r) s;

-- the empirical sd of the standardized noise of each block is 1 within 5%
-- (for Laplace, the sd of Laplace(b) is sqrt(2) b)
SELECT mech, model, block, count(*) AS draws,
       abs(stddev_pop(z) / CASE WHEN mech = 'laplace' THEN sqrt(2) ELSE 1 END - 1) < 0.05
         AS sd_within_5pct,
       abs(avg(z)) < 4 * CASE WHEN mech = 'laplace' THEN sqrt(2) ELSE 1 END / sqrt(count(*))
         AS mean_near_0
FROM noise GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- Kolmogorov-Smirnov on one entry per block (2000 independent draws each)
WITH first_entry AS (
  SELECT mech, model, block, min(entry) AS entry FROM noise GROUP BY 1, 2, 3),
one AS (
  SELECT mech, model, block, z,
         row_number() OVER (PARTITION BY mech, model, block ORDER BY z) AS k,
         count(*) OVER (PARTITION BY mech, model, block) AS n
  FROM noise JOIN first_entry USING (mech, model, block, entry)),
ks AS (
  SELECT mech, model, block, max(n) AS n,
         max(greatest(k::float8 / n - cdf, cdf - (k - 1)::float8 / n)) AS d
  FROM (SELECT *, CASE WHEN mech = 'laplace' THEN laplace_cdf(z) ELSE normal_cdf(z) END cdf
        FROM one) s GROUP BY 1, 2, 3)
SELECT mech, model, block, n, d < 1.628 / sqrt(n) + 0.003 AS ks_passes
FROM ks ORDER BY 1, 2, 3;

-- the reported noise scales follow the noise weights
SELECT model, block, round((max(noise_sd) / min(noise_sd))::numeric, 6) AS sd_ratio_in_block
FROM noise WHERE mech = 'laplace' GROUP BY 1, 2 ORDER BY 1, 2;
-- every released value is an integer multiple of its block's noise grid
-- (the discrete mechanism: docs/privacy.md §15), and the grid is a power of 2
SELECT mech, bool_and(v / g = round(v / g)) AS on_grid,
       bool_and(log(2, g::numeric) = round(log(2, g::numeric))) AS power_of_two, count(*) AS n_values
FROM (SELECT 'gaussian' AS mech, dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 0.7,
        y_bound => 2, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) r
      FROM zero WHERE g <= 200 GROUP BY g
      UNION ALL
      SELECT 'laplace', dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 2, mechanism => 'laplace',
        y_bound => 2, lower => ARRAY[-1, -1, -1], upper => ARRAY[1, 1, 1])) r
      FROM zero WHERE g <= 200 GROUP BY g) rr,
     jsonb_array_elements(rr.r::jsonb -> 'blocks') b,
     LATERAL (SELECT (b ->> 'grid')::float8 AS g) gg,
     LATERAL (SELECT value::float8 AS v FROM jsonb_array_elements_text(b -> 'values')) vv
GROUP BY mech ORDER BY mech;
DROP TABLE noise;
DROP TABLE zero;
DROP FUNCTION laplace_cdf;
DROP FUNCTION normal_cdf;
