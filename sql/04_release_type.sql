-- The release type: JSON round trip, storage, and forged releases.
CREATE EXTENSION IF NOT EXISTS dpbayes;
SET dpbayes.insecure_noise_seed = 11;
CREATE TABLE rel AS
SELECT dpbayes.logistic_release(ARRAY[i % 7, i % 3]::float8[], i % 2 = 0,
         dpbayes.privacy(epsilon => 1, delta => 1e-5, lower => ARRAY[0, 0], upper => ARRAY[6, 2],
                         features => ARRAY['u', 'v'])) AS r
FROM generate_series(1, 100) i;
-- the JSON form carries the metadata
SELECT key, value FROM rel, dpbayes.release_summary(r) WHERE key NOT LIKE 'noise%';
SELECT j -> 'model', j -> 'n', j -> 'features', j -> 'mechanism', j -> 'insecure_test_noise',
       jsonb_array_length(j -> 'blocks'), j #> '{blocks,0,entries}', j #> '{blocks,1,entries}'
FROM (SELECT r::jsonb j FROM rel) s;
-- text round trip is exact; binary round trip through COPY
SELECT r::text::dpbayes.release::text = r::text AS same FROM rel;
CREATE TEMP TABLE rel2 (r dpbayes.release);
-- (the file goes into the server's own data directory: no fixed /tmp path)
DO $$
DECLARE f text := current_setting('data_directory') || '/dpbayes_regress_rel.bin';
BEGIN
  EXECUTE format('COPY rel TO %L WITH (FORMAT binary)', f);
  EXECUTE format('COPY rel2 FROM %L WITH (FORMAT binary)', f);
END $$;
SELECT rel.r::text = rel2.r::text AS same_binary FROM rel, rel2;

-- forged or broken releases are rejected
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT pg_temp.err($q$SELECT 'not json'::dpbayes.release$q$);
SELECT pg_temp.err($q$SELECT '[]'::dpbayes.release$q$);
SELECT pg_temp.err($q$SELECT '{"format": "dpbayes.release"}'::dpbayes.release$q$);
-- claim less noise than the parameters imply
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{noise_scale}', '0.001')::text::dpbayes.release FROM rel$q$);
-- claim a larger epsilon budget was not spent (smaller epsilon, same noise)
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{epsilon}', '0.1')::text::dpbayes.release FROM rel$q$);
-- a tampered block sensitivity, a wrong block weight
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{blocks,0,sensitivity}', '0.5')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{blocks,1,noise_weight}', '2')::text::dpbayes.release FROM rel$q$);
-- truncated statistics, a wrong d, an unknown model, a negative n, NaN
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{blocks,0,values}', '[1, 2]')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{d}', '3')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{model}', '"probit"')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{n}', '-5')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{n}', '2.5')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{version}', '1')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{blocks,0,kind}', '"t2"')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{lower}', '[0, 3]')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{clip}', '-1')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(r::jsonb, '{insecure_test_noise}', '"no"')::text::dpbayes.release FROM rel$q$);
SELECT pg_temp.err($q$SELECT replace(r::text, '"d": 2', '"d": 1e400')::dpbayes.release FROM rel$q$);
-- (truncated and corrupted binary input is covered by test/test_release.c)
SELECT dpbayes.release_json(r) IS NOT NULL FROM rel;
-- the insecure flag is informative only: a release is not signed, so its
-- integrity rests on where it is stored (see docs/release-format.md)
\set VERBOSITY default
SELECT jsonb_set(r::jsonb, '{noise_scale}', '0.001')::text::dpbayes.release FROM rel;
DROP TABLE rel;
