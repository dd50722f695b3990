-- Bad input to the release aggregates: each a clear error with a specific
-- SQLSTATE, and none of them reveals a data value.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE TABLE bad (x float8[], y float8, yb boolean);
INSERT INTO bad VALUES (ARRAY[0.1, 0.2], 0.5, true), (ARRAY[0.3, 0.4], 0.1, false);
CREATE FUNCTION lin(t text) RETURNS dpbayes.release LANGUAGE plpgsql AS $$
DECLARE r dpbayes.release;
BEGIN
  EXECUTE format('SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => ''none'')) FROM (%s) s', t) INTO r;
  RETURN r;
END $$;

-- NULL policy: rows are never skipped (N is released), NULLs are errors
SELECT lin('SELECT NULL::float8[] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[0.1, NULL] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[0.1, 0.2] x, NULL::float8 y');
SELECT dpbayes.logistic_release(x, NULL::boolean, dpbayes.privacy(epsilon => 1, scaling => 'none')) FROM bad;
SELECT dpbayes.logistic_release(x, yb, NULL) FROM bad;
-- NaN and infinities
\set SHOW_CONTEXT never
SELECT lin('SELECT ARRAY[0.1, ''NaN''] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[''Infinity'', 0.1] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[''-Infinity'', 0.1] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[0.1, 0.2] x, ''NaN''::float8 y');
SELECT lin('SELECT ARRAY[0.1, 0.2] x, ''Infinity''::float8 y');
-- array length changing within a group
SELECT lin('SELECT ARRAY[0.1, 0.2] x, 0.5::float8 y UNION ALL SELECT ARRAY[0.1, 0.2, 0.3], 0.5');
-- d = 0, multidimensional, above the maximum (64)
SELECT lin('SELECT ''{}''::float8[] x, 0.5::float8 y');
SELECT lin('SELECT ARRAY[[0.1, 0.2]] x, 0.5::float8 y');
SELECT lin('SELECT array_fill(0.1::float8, ARRAY[65]) x, 0.5::float8 y');
-- bounds of the wrong length for the data
SELECT dpbayes.logistic_release(x, yb, dpbayes.privacy(epsilon => 1, lower => ARRAY[0, 0, 0],
                                upper => ARRAY[1, 1, 1])) FROM bad;
-- model-specific parameter checks
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, scaling => 'none')) FROM bad;
SELECT dpbayes.poisson_release(x, y, dpbayes.privacy(epsilon => 1, scaling => 'none')) FROM bad;
SELECT dpbayes.logistic_release(x, yb, dpbayes.privacy(epsilon => 1, y_bound => 3, scaling => 'none')) FROM bad;
SELECT dpbayes.logistic_release(x, yb, dpbayes.privacy(epsilon => 1, mechanism => 'laplace', scaling => 'none')) FROM bad;
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1,
                              noise_weights => ARRAY[1, 2], scaling => 'none')) FROM bad;
-- negative and fractional Poisson counts (both forms)
SELECT dpbayes.poisson_release(x, -y, dpbayes.privacy(epsilon => 1, y_bound => 5, scaling => 'none')) FROM bad;
SELECT dpbayes.poisson_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 5, scaling => 'none')) FROM bad;
SELECT dpbayes.poisson_release(y, dpbayes.privacy(epsilon => 1, y_bound => 5, scaling => 'none'), x[1], x[2]) FROM bad;
SELECT dpbayes.poisson_release(x, round(10 * y), dpbayes.privacy(epsilon => 1, y_bound => 5, scaling => 'none')) IS NOT NULL AS whole_counts FROM bad;
-- an x_moments share too small to calibrate names x_moments (it named a
-- "weight 5" nobody gave)
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1, x_moments => 5e-324, scaling => 'none')) FROM bad;
-- parameters must not change within a group
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => y + 1, y_bound => 1, scaling => 'none')) FROM bad;
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1 + y, scaling => 'none')) FROM bad;
-- a hand-made composite gets the same checks as the constructor
SELECT dpbayes.linear_release(x, y, ROW(-1, 1e-6, 1, 1, NULL, NULL, true, 'gaussian', 'box', NULL, NULL, 0, 'add_remove', NULL)::dpbayes.privacy) FROM bad;
SELECT dpbayes.linear_release(x, y, ROW(1, 1e-6, 1, 1, NULL, NULL, true, 'gauss', 'box', NULL, NULL, 0, 'add_remove', NULL)::dpbayes.privacy) FROM bad;
-- an empty group needs constant parameters that fix d
SELECT dpbayes.linear_release(x, y, dpbayes.privacy(epsilon => 1, y_bound => 1, scaling => 'none')) FROM bad WHERE false;
SELECT dpbayes.linear_release(x, y, p) FROM bad, (SELECT dpbayes.privacy(epsilon => 1, y_bound => 1, lower => ARRAY[0,0], upper => ARRAY[1,1]) p OFFSET 0) pp WHERE false;
-- the deterministic test noise is superuser-only
CREATE ROLE dpbayes_regress_user;
SET ROLE dpbayes_regress_user;
SET dpbayes.insecure_noise_seed = 1;
RESET ROLE;
DROP ROLE dpbayes_regress_user;
DROP FUNCTION lin;
DROP TABLE bad;
