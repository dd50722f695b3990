-- Privacy parameters: the constructor, its defaults and its checks.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default

-- defaults: delta 1e-6 (gaussian) or 0 (laplace), clip 1, intercept, box
SELECT dpbayes.privacy(epsilon => 1);
SELECT dpbayes.privacy(epsilon => 0.5, mechanism => 'laplace', y_bound => 2);
SELECT (p).epsilon, (p).delta, (p).lower, (p).features
FROM (SELECT dpbayes.privacy(epsilon => 2, delta => 1e-5, lower => ARRAY[0, 10],
                             upper => ARRAY[1, 20], features => ARRAY['a', 'b']) AS p) s;

-- each bad parameter: a specific SQLSTATE and a clear message
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => -1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 'NaN')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 'Infinity')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => NULL)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, delta => 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, delta => 1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, delta => -0.1)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', delta => 1e-5)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, mechanism => 'exponential')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, scaling => 'cube')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, clip => 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, clip => -2)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, clip => 'Infinity')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, y_bound => 0)$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, y_bound => 'NaN')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, 0], upper => ARRAY[1, 0])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[2], upper => ARRAY[1])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, 0], upper => ARRAY[1])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, 0])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, NULL], upper => ARRAY[1, 1])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, '-Infinity'::float8], upper => ARRAY[1, 1])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => '{}', upper => '{}')$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[[0, 0]], upper => ARRAY[[1, 1]])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => ARRAY[0, 0], upper => ARRAY[1, 1], features => ARRAY['a'])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, features => ARRAY['a', 'a'])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, features => ARRAY['a', ''])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, features => ARRAY['a', NULL])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, features => ARRAY[repeat('x', 64)])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, noise_weights => ARRAY[1, 0])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, noise_weights => ARRAY[1, 1, 1, 1, 1, 1])$q$);
SELECT pg_temp.err($q$SELECT dpbayes.privacy(epsilon => 1, lower => array_fill(0::float8, ARRAY[65]),
                       upper => array_fill(1::float8, ARRAY[65]))$q$);
