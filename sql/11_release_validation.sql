-- Issue 8 findings 4, 5 and 6: every release that can be stored can be read,
-- dumped and restored; every input path applies the same rules; errors never
-- echo data or long input.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default
SET dpbayes.insecure_noise_seed = 811;
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- with the detail and the hint
CREATE FUNCTION pg_temp.errd(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text; h text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
  RETURN SQLSTATE || ': ' || SQLERRM || ' | ' || coalesce(d, '') || ' | ' || coalesce(h, '');
END $$;

-- ---- parameters whose release could not be stored (finding 6) ----
-- epsilon 1e-300 with laplace and y_bound 1e5: the noise scale is infinite;
-- refused before any row is read (22023), not stored to fail later (XX001)
SELECT pg_temp.errd($q$SELECT dpbayes.linear_release(ARRAY[i, 1]::float8[], i,
  dpbayes.privacy(epsilon => 1e-300, mechanism => 'laplace', y_bound => 1e5, scaling => 'none'))
  FROM generate_series(1, 3) i$q$);
-- a finite scale beyond 1e290 (a draw could overflow) is refused too (here
-- already because rounding to the noise grid would exceed the budget)
SELECT pg_temp.errd($q$SELECT dpbayes.linear_release(ARRAY[i, 1]::float8[], i,
  dpbayes.privacy(epsilon => 1e-285, mechanism => 'laplace', y_bound => 1e5, scaling => 'none'))
  FROM generate_series(1, 3) i$q$);
-- and for an empty group
SELECT pg_temp.errd($q$SELECT dpbayes.linear_release(ARRAY[i, 1]::float8[], i,
  dpbayes.privacy(epsilon => 1e-300, mechanism => 'laplace', y_bound => 1e5, lower => ARRAY[0, 0], upper => ARRAY[1, 1]))
  FROM generate_series(1, 0) i$q$);
-- gaussian with a tiny epsilon: rounding to the noise grid alone would
-- exceed the budget, refused before any row is read
SELECT pg_temp.errd($q$SELECT dpbayes.logistic_release(
  ARRAY[i]::float8[], i % 2 = 0, dpbayes.privacy(epsilon => 1e-300, scaling => 'none')) FROM generate_series(1, 3) i$q$);
-- a huge noise scale still gives a readable release
SELECT (SELECT count(*) FROM dpbayes.release_stats(r)) AS stats, r::text::dpbayes.release::text = r::text AS same
FROM (SELECT dpbayes.linear_release(ARRAY[i, 1]::float8[], i,
  dpbayes.privacy(epsilon => 1e-3, mechanism => 'laplace', y_bound => 1e5, scaling => 'none')) r
  FROM generate_series(1, 3) i) s;
-- a clip whose sensitivity (R^4) overflows: refused at once (the exact sums
-- are then bounded; the final function's validation stays the last line
-- of defence)
SELECT pg_temp.errd($q$SELECT dpbayes.linear_release(ARRAY[1e300, 1e300]::float8[], 1,
  dpbayes.privacy(epsilon => 1, y_bound => 1, clip => 1e150, scaling => 'none')) FROM generate_series(1, 3)$q$);
SELECT pg_temp.errd($q$SELECT dpbayes.poisson_release(ARRAY[1]::float8[], 1,
  dpbayes.privacy(epsilon => 1, y_bound => 1e200, scaling => 'none')) FROM generate_series(1, 3)$q$);

-- ---- feature names: one rule for privacy(), JSON and binary input ----
SELECT pg_temp.err(format($q$SELECT dpbayes.privacy(epsilon => 1, features => ARRAY['a', %L], scaling => 'none')$q$, n))
FROM unnest(ARRAY['intercept', 'sigma', 'y', '1', 'a*b', 'a^2', 'theta[a]', 'a,b', 'a', '',
                  repeat('é', 32), 'tab' || chr(9), 'del' || chr(127), 'nel' || chr(133)]) n;
-- valid: non-ASCII, 63 bytes, case differs from a reserved name
SELECT (dpbayes.privacy(epsilon => 1, features => ARRAY['âge', '身長', 'Intercept', repeat('x', 63)], scaling => 'none')).features;

-- the JSON form of a valid release, to forge from
CREATE TEMP TABLE good AS
SELECT dpbayes.linear_release(ARRAY[i % 5, i % 3]::float8[], (i % 4)::float8 - 1.5,
         dpbayes.privacy(epsilon => 1, y_bound => 2, lower => ARRAY[0, 0], upper => ARRAY[4, 2],
                         features => ARRAY['âge', 'vwxy'])) AS r
FROM generate_series(1, 50) i;
-- (SQLSTATE, message | detail | hint: the detail says what is wrong)
CREATE FUNCTION pg_temp.forge(path text[], v jsonb) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.errd(format('SELECT %L::dpbayes.release', jsonb_set(r::jsonb, path, v)::text)) FROM good
$$;
-- a release under replace neighbours records n (under add_remove it must be null)
CREATE TEMP TABLE good_replace AS
SELECT dpbayes.linear_release(ARRAY[i % 5, i % 3]::float8[], (i % 4)::float8 - 1.5,
         dpbayes.privacy(epsilon => 1, y_bound => 2, lower => ARRAY[0, 0], upper => ARRAY[4, 2],
                         neighbours => 'replace')) AS r
FROM generate_series(1, 50) i;
CREATE FUNCTION pg_temp.forge_n(v jsonb) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.errd(format('SELECT %L::dpbayes.release', jsonb_set(r::jsonb, '{n}', v)::text)) FROM good_replace
$$;
SELECT pg_temp.forge('{features}', '["a", "a"]');
SELECT pg_temp.forge('{features}', '["intercept", "b"]');
SELECT pg_temp.forge('{features}', '["sigma", "b"]');
SELECT pg_temp.forge('{features}', '["y", "b"]');
SELECT pg_temp.forge('{features}', '["a*b", "b"]');
SELECT pg_temp.forge('{features}', '["a\u0001", "b"]');
SELECT pg_temp.forge('{features}', '["a\u0085", "b"]');
SELECT pg_temp.forge('{features}', '["", "b"]');
SELECT pg_temp.forge('{features}', '[1, "b"]');
SELECT pg_temp.forge('{features}', to_jsonb(ARRAY[repeat('x', 64), 'b']));
-- a 1 MB feature name, model, mechanism or scaling: never echoed whole
SELECT length(pg_temp.forge('{features}', to_jsonb(ARRAY[repeat('x', 1000000), 'b']))) < 200 AS short;
SELECT pg_temp.forge('{model}', to_jsonb(repeat('m', 1000000)));
SELECT pg_temp.forge('{mechanism}', to_jsonb('lap' || chr(10) || 'lace' || repeat('€', 100)));
SELECT pg_temp.forge('{scaling}', to_jsonb(repeat('ü', 40)));

-- ---- integers are parsed as integers ----
SELECT pg_temp.forge('{version}', '1e300');
SELECT pg_temp.forge('{version}', '1.5');
SELECT pg_temp.forge('{version}', '-1');
SELECT pg_temp.forge('{version}', '1');
SELECT pg_temp.forge('{d}', '2.5');
SELECT pg_temp.forge('{d}', '1e300');
SELECT pg_temp.forge('{d}', '65');
SELECT pg_temp.forge('{d}', '2.0');	-- an integer written with a fraction
SELECT pg_temp.forge('{n}', '50');	-- add_remove: n must be null
SELECT pg_temp.forge_n('-1');
SELECT pg_temp.forge_n('1e30');
SELECT pg_temp.forge_n('50.5');
SELECT pg_temp.forge_n('9223372036854775807');
SELECT pg_temp.forge_n('9223372036854775808');
-- the noise grid: every value is a multiple of its block's grid, and a
-- recorded grid must be the one the parameters give
SELECT pg_temp.forge('{blocks,0,values,0}', '0.123456789');
SELECT pg_temp.forge('{blocks,0,grid}', '1');
SELECT pg_temp.forge('{blocks,0,grid}', '"x"');
-- doubles beyond the range: 22003 without the value
SELECT pg_temp.forge('{epsilon}', '1e400');
SELECT pg_temp.forge('{blocks,0,values,0}', ('-' || repeat('9', 400))::jsonb);

-- ---- binary receive: the same rules (COPY FORMAT binary of forged bytes) ----
CREATE TEMP TABLE forged (what text, b bytea);
-- the names are stored as a length byte and the bytes: 04 "âge" 04 "vwxy";
-- each forgery rewrites these 10 bytes, keeping the total length
INSERT INTO forged
SELECT w, overlay(s PLACING v FROM position('\x04c3a267650476777879'::bytea IN s))
FROM (SELECT dpbayes.release_send(r) s FROM good) g,
     (VALUES ('valid', '\x04c3a267650476777879'::bytea),
             ('invalid utf-8', '\x04ffa267650476777879'::bytea),
             ('overlong utf-8', '\x04c0af67670476777879'::bytea),
             ('duplicate', '\x04c3a2676504c3a26765'::bytea),
             ('empty', '\x00086162636465666768'::bytea),
             ('reserved y', '\x01790761626364656667'::bytea),
             ('reserved sigma', '\x057369676d6103616263'::bytea),
             ('label a*b', '\x03612a62056162636465'::bytea),
             ('control', '\x0476770a790461626364'::bytea),
             ('C1 control', '\x047677c2850461626364'::bytea),
             ('NUL', '\x04767700790461626364'::bytea)) f(w, v);
-- each forged value through the binary input function
CREATE TEMP TABLE received (r dpbayes.release);
CREATE FUNCTION pg_temp.recv(w text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE f text := current_setting('data_directory') || '/dpbayes_11_forged.bin'; d text;
BEGIN
  EXECUTE format('COPY (SELECT b FROM forged WHERE what = %L) TO %L WITH (FORMAT binary)', w, f);
  EXECUTE format('COPY received FROM %L WITH (FORMAT binary)', f);
  RETURN 'received';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || ' | ' || coalesce(d, '');
END $$;
SELECT what, pg_temp.recv(what) FROM forged ORDER BY what;
SELECT r::text = (SELECT r::text FROM good) AS valid_received FROM received;

-- ---- numeric features beyond the double range (finding 4) ----
-- the message names the feature, never the value
SELECT pg_temp.errd($q$SELECT dpbayes.linear_release(1.0, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'),
  0.5::numeric, ('1' || repeat('0', 400) || '.98765432101234')::numeric)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(1.0, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'),
  VARIADIC ARRAY[0.5, ('-9' || repeat('9', 400))::numeric])$q$);
-- tiny numerics round to 0 like double arithmetic, with no error
SELECT (SELECT count(*) FROM dpbayes.release_stats(r)) FROM (SELECT dpbayes.linear_release(1.0,
  dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'), ('0.' || repeat('0', 400) || '98765432101234')::numeric,
  1::numeric) r) s;
-- numeric infinity stays a non-finite feature
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(1.0, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none'),
  'Infinity'::numeric)$q$);

-- ---- echoed input in the posterior's arguments ----
SELECT pg_temp.err(format($q$SELECT * FROM dpbayes.posterior_summary((SELECT r FROM good), options => %L)$q$,
  jsonb_build_object(repeat('k', 1000000), 1)));
SELECT pg_temp.err(format($q$SELECT * FROM dpbayes.posterior_summary((SELECT r FROM good), options => %L)$q$,
  jsonb_build_object('bad' || chr(10) || 'key', 1)));
SELECT pg_temp.err($q$SELECT * FROM dpbayes.posterior_summary((SELECT r FROM good), options => '{"sigma2_shape": 1e400}')$q$);
SELECT pg_temp.err(format($q$SELECT * FROM dpbayes.posterior_summary((SELECT r FROM good), method => %L)$q$,
  repeat('n', 100000)));
SELECT pg_temp.err(format($q$SELECT dpbayes.privacy(epsilon => 1, mechanism => %L, scaling => 'none')$q$, repeat('g', 100000)));

-- ---- inference over an insecure release warns (finding 5) ----
-- (one iid draw of the naive posterior: no divergence, no R-hat or ESS, so
-- no convergence warning whose numbers would depend on the chain)
SELECT count(*) FROM dpbayes.posterior((SELECT r FROM good), draws => 1, chains => 1, seed => 1, method => 'naive');
SELECT count(*) FROM dpbayes.posterior_summary((SELECT r FROM good), draws => 1, chains => 1, seed => 1, method => 'naive');

-- ---- a table of releases survives pg_dump and restore ----
RESET dpbayes.insecure_noise_seed;
CREATE SCHEMA dpb11;
CREATE TABLE dpb11.rels (id int PRIMARY KEY, r dpbayes.release);
INSERT INTO dpb11.rels
SELECT 1, dpbayes.linear_release(ARRAY[i % 5, i % 3]::float8[], (i % 4)::float8,
  dpbayes.privacy(epsilon => 1, y_bound => 4, lower => ARRAY[0, 0], upper => ARRAY[4, 2],
                  features => ARRAY['âge', '身長'], x_moments => 0.2))
FROM generate_series(1, 40) i
UNION ALL
SELECT 2, dpbayes.linear_release(ARRAY[i % 5]::float8[], (i % 4)::float8,
  dpbayes.privacy(epsilon => 0.5, mechanism => 'laplace', y_bound => 4, intercept => false,
                  features => ARRAY['naïve résumé'], scaling => 'none'))
FROM generate_series(1, 40) i
UNION ALL
SELECT 3, dpbayes.logistic_release(ARRAY[i % 5, i % 2]::float8[], i % 3 = 0,
  dpbayes.privacy(epsilon => 2, delta => 1e-5, clip => 1e-8, features => ARRAY['Ω', 'b'], scaling => 'none'))
FROM generate_series(1, 40) i
UNION ALL
SELECT 4, dpbayes.poisson_release(ARRAY[i % 5]::float8[], (i % 3)::float8,
  dpbayes.privacy(epsilon => 1, y_bound => 3, lower => ARRAY[0], upper => ARRAY[4], scaling => 'ball'))
FROM generate_series(1, 40) i
UNION ALL
SELECT 5, dpbayes.poisson_release((i % 3)::float8, dpbayes.privacy(epsilon => 1, y_bound => 3,
  intercept => false, noise_weights => ARRAY[1, 2, 3, 4, 1], scaling => 'none'), (i % 5)::numeric, (i % 7)::int)
FROM generate_series(1, 40) i
UNION ALL
SELECT 6, dpbayes.nonprivate_linear_stats(ARRAY[i % 5]::float8[], (i % 4)::float8,
  dpbayes.privacy(epsilon => 1, y_bound => 4, features => ARRAY['x₁'], scaling => 'none'))
FROM generate_series(1, 40) i
UNION ALL
SELECT 7, dpbayes.linear_release(ARRAY[i]::float8[], i,
  dpbayes.privacy(epsilon => 1e-3, mechanism => 'laplace', y_bound => 1e5, scaling => 'none'))
FROM generate_series(1, 3) i
UNION ALL
SELECT 8, NULL;
CREATE TABLE dpb11.back (id int, txt text, stats text);
CREATE FUNCTION dpb11.stats_text(r dpbayes.release) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(block || '|' || entry || '|' || value::text || '|' || noise_sd::text, ';')
  FROM dpbayes.release_stats(r)
$$;
-- dump the schema's table into a fresh database (the extension created
-- there first), read every release back there, and copy what it reads here
\! dropdb --if-exists dpb_restore_11 2>/dev/null; createdb dpb_restore_11 && psql -X -q -v ON_ERROR_STOP=1 -d dpb_restore_11 -c 'CREATE EXTENSION dpbayes' -c 'CREATE SCHEMA dpb11' && pg_dump -d contrib_regression -t dpb11.rels | psql -X -q -v ON_ERROR_STOP=1 -d dpb_restore_11 >/dev/null && psql -X -q -v ON_ERROR_STOP=1 -d dpb_restore_11 -c "COPY (SELECT id, r::text, (SELECT string_agg(block || '|' || entry || '|' || value::text || '|' || noise_sd::text, ';') FROM dpbayes.release_stats(r)) FROM dpb11.rels) TO STDOUT" | psql -X -q -v ON_ERROR_STOP=1 -d contrib_regression -c 'COPY dpb11.back FROM STDIN' && dropdb dpb_restore_11
SELECT count(*) AS releases, count(b.id) AS restored,
       count(*) FILTER (WHERE b.txt IS NOT DISTINCT FROM a.r::text) AS same_text,
       count(*) FILTER (WHERE b.stats IS NOT DISTINCT FROM dpb11.stats_text(a.r)) AS same_stats
FROM dpb11.rels a LEFT JOIN dpb11.back b USING (id);
-- every release is readable
SELECT id, (SELECT count(*) FROM dpbayes.release_stats(r)) AS nstats, r::jsonb -> 'features' AS features
FROM dpb11.rels ORDER BY id;
DROP SCHEMA dpb11 CASCADE;
