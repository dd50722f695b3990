-- The neighbouring relation (docs/privacy.md §13): add_remove (the default)
-- releases the number of rows only as a noisy count, so that WHERE subsets
-- and GROUP BY groups do not leak their exact sizes; replace (a fixed
-- population whose size is public) records N exactly.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 12;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- 1000 rows; hiv marks 137 of them
CREATE TABLE pat AS
SELECT i, ARRAY[(i % 10) / 10.0, (i % 7) / 7.0]::float8[] AS x,
       ((i % 13) / 13.0 - 0.5)::float8 AS y, (i * 7919) % 1000 < 137 AS hiv,
       i % 3 AS g
FROM generate_series(1, 1000) i;
SELECT count(*) FILTER (WHERE hiv) AS hiv_rows FROM pat;

-- ---- the parameter ----
SELECT (dpbayes.privacy(epsilon => 1, scaling => 'none')).neighbours AS default_neighbours,
       (dpbayes.privacy(epsilon => 1, neighbours => 'replace', scaling => 'none')).neighbours AS replace;
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, neighbours => 'swap', scaling => 'none')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, neighbours => NULL, scaling => 'none')$q$);
-- under add_remove the noise weights list the count block last
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1,
         y_bound => 1, noise_weights => ARRAY[1, 1, 1], scaling => 'none')) FROM pat$q$);
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1,
         y_bound => 1, noise_weights => ARRAY[1, 1, 1, 1], scaling => 'none')) FROM pat$q$);
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1,
         y_bound => 1, noise_weights => ARRAY[1, 1, 1], neighbours => 'replace', scaling => 'none')) FROM pat$q$);

-- ---- a WHERE subset: no exact n anywhere in the release ----
CREATE TABLE sub AS
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
         lower => ARRAY[0, 0], upper => ARRAY[1, 1])) AS r
FROM pat WHERE hiv;
SELECT r::jsonb ->> 'neighbours' AS neighbours, r::jsonb -> 'n' AS n,
       r::text !~ '[^0-9.e-]137[^0-9.e]' AS no_exact_n_in_text,
       jsonb_array_length(r::jsonb -> 'blocks') AS blocks,
       r::jsonb #> '{blocks,3,kind}' AS last_model_block,
       r::jsonb #> '{blocks,3,entries}' AS entries,
       r::jsonb #>> '{blocks,3,sensitivity}' AS count_sensitivity
FROM sub;
-- the summary reports the noisy count and its noise, never the exact one
SELECT key, CASE WHEN key = 'n' THEN value ~ '^-?[0-9.e+-]+ \(noisy count, noise sd [0-9.e+-]+\)$'
                 ELSE value = 'add_remove' END AS as_expected,
       value !~ '^137$' AS not_exact
FROM sub, dpbayes.release_summary(r) WHERE key IN ('neighbours', 'n');
-- text and binary round trips keep it
SELECT (r::text::dpbayes.release)::text = r::text AS text_round_trip FROM sub;
CREATE TEMP TABLE sub2 (r dpbayes.release);
-- (through a file in the server's own data directory: no fixed /tmp path)
DO $$
DECLARE f text := current_setting('data_directory') || '/dpbayes_12_neighbours.bin';
BEGIN
  EXECUTE format('COPY sub TO %L WITH (FORMAT binary)', f);
  EXECUTE format('COPY sub2 FROM %L WITH (FORMAT binary)', f);
END $$;
SELECT a.r::text = b.r::text AS binary_round_trip FROM sub a, sub2 b;
-- given noise weights (the count's last) round-trip through the text form
SELECT (r::text::dpbayes.release)::text = r::text AS given_weights_round_trip,
       r::jsonb ->> 'noise_weights' AS noise_weights,
       (r::jsonb #>> '{blocks,3,noise_weight}')::float8 AS count_weight
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
        noise_weights => ARRAY[1, 2, 3, 4], scaling => 'none')) r FROM pat WHERE hiv) s;
-- a forged exact n, or a missing one under replace, is rejected
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{n}', '137')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{neighbours}', '"replace"')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{neighbours}', '"both"')::text::dpbayes.release FROM sub$q$);

-- ---- the count is the number of rows up to its noise ----
-- at epsilon = 1e6 the noise sd is below 0.01: the count is 137 within 5 sd
SELECT abs(s.value - 137) <= 5 * s.noise_sd AS within_noise, s.noise_sd < 0.01 AS small_noise,
       round(s.value) AS rounded_count
FROM (SELECT dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1e6, delta => 1e-6, scaling => 'none')) r
      FROM pat WHERE hiv) rr, dpbayes.release_stats(rr.r) s WHERE s.block = 'count';
-- at epsilon = 1 the noise is visible: over 200 releases of the subset the
-- count's mean is 137 and its sd the reported one (within 4 SE / 15%)
WITH c AS (
  SELECT s.value, s.noise_sd
  FROM generate_series(1, 200) k,
       LATERAL (SELECT dpbayes.poisson_release(x, round(abs(y) * 4), dpbayes.privacy(epsilon => 1,
                  y_bound => 2, lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r
                FROM pat WHERE hiv AND k > 0) rr,
       dpbayes.release_stats(rr.r) s WHERE s.block = 'count')
SELECT abs(avg(value) - 137) < 4 * max(noise_sd) / sqrt(count(*)) AS mean_is_n,
       abs(stddev(value) / max(noise_sd) - 1) < 0.15 AS sd_as_reported,
       count(DISTINCT noise_sd) AS one_sd
FROM c;

-- ---- groups: keys from a public list; an empty group is released too ----
CREATE TABLE public_keys AS SELECT k FROM generate_series(0, 3) k;  -- 3 has no rows
SELECT k.k AS g, r::jsonb -> 'n' AS n, s.value <> 0 AS count_has_noise,
       abs(s.value - coalesce((SELECT count(*) FROM pat WHERE pat.g = k.k), 0)) < 6 * s.noise_sd
         AS count_within_noise
FROM public_keys k,
     LATERAL (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
                lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r FROM pat WHERE pat.g = k.k) rr,
     dpbayes.release_stats(rr.r) s
WHERE s.block = 'count' ORDER BY 1;
-- an empty table gets noise on every statistic, the count included
SELECT r::jsonb -> 'n' AS n, bool_and(s.value <> 0) AS all_noisy, count(*) AS entries
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r FROM pat WHERE false) rr,
     dpbayes.release_stats(rr.r) s GROUP BY 1;

-- ---- replace: N exact, no count block ----
SELECT r::jsonb ->> 'neighbours' AS neighbours, r::jsonb -> 'n' AS n,
       jsonb_array_length(r::jsonb -> 'blocks') AS blocks,
       (SELECT count(*) FROM dpbayes.release_stats(r) WHERE block = 'count') AS count_entries
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1], neighbours => 'replace')) r
      FROM pat WHERE hiv) s;
SELECT g, r::jsonb -> 'n' AS n
FROM (SELECT g, dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1,
        neighbours => 'replace', scaling => 'none')) r FROM pat GROUP BY g) s ORDER BY g;

-- ---- the same data, both relations: add_remove changes one record's
-- whole contribution; its sensitivity and noise are those of one record ----
SELECT n.nb, (r::jsonb ->> 'sensitivity')::numeric(10, 6) AS sensitivity,
       jsonb_path_query_array(r::jsonb, '$.blocks[*].kind') AS kinds
FROM (VALUES ('add_remove'), ('replace')) n(nb),
     LATERAL (SELECT dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1,
                neighbours => n.nb, intercept => false, scaling => 'none')) r FROM pat) rr ORDER BY 1;

-- ---- inference reads the count ----
-- (runs this short always or nearly always warn, and whether a chain of 10
-- draws moves at all depends on its floating-point path: their warnings are
-- not shown)
SET client_min_messages = error;
SELECT count(*) AS draws FROM sub, dpbayes.posterior(r, draws => 20, chains => 1, warmup => 20, seed => 1);
SELECT count(DISTINCT variable) AS variables
FROM (SELECT dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r FROM pat) rr,
     dpbayes.posterior(rr.r, draws => 50, chains => 1, warmup => 200, seed => 1);
-- a tiny subset under heavy noise: the noisy count may fall below 1; the
-- samplers still run (N is a parameter with a flat prior on N > 0).  (Test
-- noise seed 3: the linear count falls below 1, the logistic one, drawn
-- next, does not; the seed was chosen for that when the y_clamped block
-- changed the number of draws of a linear release.)
SET dpbayes.insecure_noise_seed = 3;
SELECT s.value < 1 AS count_below_1, (SELECT count(*) FROM dpbayes.posterior(rr.r, draws => 10,
         chains => 1, warmup => 10, seed => 1)) AS linear_draws
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 0.05, y_bound => 1,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r FROM pat WHERE i <= 3) rr,
     dpbayes.release_stats(rr.r) s WHERE s.block = 'count';
SELECT s.value < 1 AS count_below_1, (SELECT count(*) FROM dpbayes.posterior(rr.r, draws => 10,
         chains => 1, warmup => 10, seed => 1)) AS logistic_draws
FROM (SELECT dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 0.05,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r FROM pat WHERE i <= 3) rr,
     dpbayes.release_stats(rr.r) s WHERE s.block = 'count';
RESET client_min_messages;
-- the non-private reference holds the exact count
SELECT s.value AS exact_count, s.noise_sd
FROM (SELECT dpbayes.nonprivate_linear_stats(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none')) r
      FROM pat WHERE hiv) rr, dpbayes.release_stats(rr.r) s WHERE s.block = 'count';

-- ---- the count of clamped responses (docs/privacy.md §17) ----
-- Linear releases end with the y_clamped block: the noisy number of rows
-- whose y was outside [-y_bound, y_bound] (0.02 of the budget by default).
-- pat has none (|y| <= 0.5 < y_bound = 1); its neighbour pat1 has one more
-- row, clamped (y = 5).  Each release's entry is its table's count up to
-- its noise, and the two differ by the one record up to their noises: the
-- entry's sensitivity is 1, under both relations.
CREATE TABLE pat1 AS SELECT * FROM pat UNION ALL SELECT 1001, ARRAY[0.5, 0.5]::float8[], 5.0::float8, false, 0;
SELECT t.tab, t.nb, (SELECT count(*) FROM pat1 WHERE abs(y) > 1 AND (t.tab = 'pat1' OR i <= 1000)) AS clamped_rows,
       abs(s.value - (SELECT count(*) FROM pat1 WHERE abs(y) > 1 AND (t.tab = 'pat1' OR i <= 1000)))
         <= 5 * s.noise_sd AS within_noise,
       s.entry, s.sensitivity
FROM (VALUES ('pat', 'add_remove'), ('pat1', 'add_remove'), ('pat', 'replace'), ('pat1', 'replace')) t(tab, nb),
     LATERAL (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
                lower => ARRAY[0, 0], upper => ARRAY[1, 1], neighbours => t.nb)) r
              FROM pat1 WHERE t.tab = 'pat1' OR i <= 1000) rr,
     LATERAL (SELECT st.value, st.noise_sd, st.entry, (j.b ->> 'sensitivity')::numeric(12, 10) AS sensitivity
              FROM dpbayes.release_stats(rr.r) st,
                   jsonb_array_elements(rr.r::jsonb -> 'blocks') j(b)
              WHERE st.block = 'y_clamped' AND j.b ->> 'kind' = 'y_clamped') s
ORDER BY 2, 1;
-- at epsilon = 1e6 the noise is far below 1/2: the two releases' entries
-- round to 0 and 1, the only difference the record makes
SELECT string_agg(round(s.value)::text, ', ' ORDER BY t.tab) AS rounded_pat_pat1,
       bool_and(s.noise_sd < 0.05) AS small_noise
FROM (VALUES ('pat'), ('pat1')) t(tab),
     LATERAL (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1e6, y_bound => 1,
                lower => ARRAY[0, 0], upper => ARRAY[1, 1])) r
              FROM pat1 WHERE t.tab = 'pat1' OR i <= 1000) rr,
     dpbayes.release_stats(rr.r) s WHERE s.block = 'y_clamped';
-- the default share: linear releases only (not logistic, not poisson)
SELECT m.model, (r::jsonb ->> 'y_clamped')::float8 AS y_clamped,
       jsonb_path_query_array(r::jsonb, '$.blocks[*].kind') AS kinds
FROM (VALUES ('linear'), ('logistic'), ('poisson')) m(model),
     LATERAL (SELECT CASE m.model
                WHEN 'linear' THEN dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'))
                WHEN 'logistic' THEN dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1, scaling => 'none'))
                ELSE dpbayes.poisson_release(x, round(abs(y) * 4), dpbayes.privacy(epsilon => 1, y_bound => 3, scaling => 'none'))
              END AS r FROM pat) rr ORDER BY 1;
-- the parameter: dpbayes.privacy(..., y_clamped => s); NULL (the default)
-- is 0.02 for linear releases and 0 otherwise, 0 releases no block
SELECT (dpbayes.privacy(epsilon => 1, scaling => 'none')).y_clamped AS not_given,
       (dpbayes.privacy(epsilon => 1, scaling => 'none', y_clamped => 0.1)).y_clamped AS given;
SELECT s.share, (r::jsonb ->> 'y_clamped')::float8 AS y_clamped,
       jsonb_array_length(r::jsonb -> 'blocks') AS blocks,
       r::jsonb #> '{blocks,-1,kind}' AS last_block
FROM (VALUES (0.0), (0.1)) s(share),
     LATERAL (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
                scaling => 'none', y_clamped => s.share)) r FROM pat) rr ORDER BY 1;
-- the count takes its share of the budget, the model's blocks the rest: the
-- count's noise sd is 1/sqrt(2 rho s), to the grid's rounding
SELECT s.share, round((st.noise_sd * sqrt(2 * (r::jsonb ->> 'zcdp_rho')::float8 * s.share))::numeric, 3)
         AS sd_times_sqrt_2_rho_s
FROM (VALUES (0.02), (0.1), (0.5)) s(share),
     LATERAL (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
                scaling => 'none', y_clamped => s.share)) r FROM pat) rr,
     dpbayes.release_stats(rr.r) st WHERE st.block = 'y_clamped' ORDER BY 1;
-- bad shares: negative, 1 or more, NaN, with x_moments adding up to 1 or
-- more (22023 from the constructor); on a logistic or Poisson release
-- (22023 from the aggregate)
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, scaling => 'none', y_clamped => -0.1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, scaling => 'none', y_clamped => 1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, scaling => 'none', y_clamped => 'NaN')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, scaling => 'none', y_clamped => 0.5, x_moments => 0.5)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1,
         scaling => 'none', y_clamped => 0.02)) FROM pat$q$);
SELECT pg_temp.err($q$SELECT dpbayes.poisson_release(x, 1, dpbayes.privacy(epsilon => 1, y_bound => 3,
         scaling => 'none', y_clamped => 0.02)) FROM pat$q$);
-- the default gives way to x_moments of 0.98 or more
SELECT (r::jsonb ->> 'y_clamped')::float8 AS y_clamped_beside_x_moments_099
FROM (SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
        lower => ARRAY[0, 0], upper => ARRAY[1, 1], x_moments => 0.99)) r FROM pat) rr;
-- a forged share in the text form (negative, 1 or more, on a logistic
-- release, on a release of format version 3) is refused with 22P02
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{y_clamped}', '-0.1')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{y_clamped}', '1')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{y_clamped}', '0.5')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(jsonb_set(r::jsonb, '{version}', '3'), '{y_clamped}', '0.02')::text::dpbayes.release FROM sub$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1, scaling => 'none'))::jsonb,
         '{y_clamped}', '0.02')::text::dpbayes.release FROM pat$q$);
-- a release of format version 3 (without the block: logistic) still reads
SELECT pg_temp.err($q$SELECT jsonb_set(dpbayes.logistic_release(x, y > 0, dpbayes.privacy(epsilon => 1, scaling => 'none'))::jsonb,
         '{version}', '3')::text::dpbayes.release FROM pat$q$) AS version_3;
DROP TABLE pat1;

DROP TABLE public_keys;
DROP TABLE sub;
DROP TABLE pat;
