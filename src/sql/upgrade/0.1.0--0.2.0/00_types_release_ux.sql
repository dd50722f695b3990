-- A release needs public feature bounds, or scaling => 'none' chosen
-- explicitly (issue 25): the comment of dpbayes.privacy says so.
COMMENT ON FUNCTION dpbayes.privacy(double precision, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text) IS
  'validated privacy parameters: epsilon, delta (default 1e-6 gaussian, 0 laplace), clip (L2 bound R of the scaled features), y_bound (public bound of the response), lower/upper (public feature bounds: a release needs them, or scaling none), intercept, mechanism (gaussian|laplace), scaling (box|ball: how the bounds scale the features; none: no bounds, the features are used as given, for features already scaled to the unit ball), features (names), noise_weights (relative noise scale per model statistic block, the count block last under add_remove), x_moments (share of the budget spent on releasing the third and fourth moments of the features, for the linear model''s "noisy" moments; 0: none), neighbours (add_remove: the default, the number of rows is private and released with noise, right for WHERE subsets and GROUP BY groups; replace: a fixed population whose size is public, released exactly)';

-- epsilon gets a default (NULL) so that a call without it reaches the
-- function, which explains it (issue 25, item 6)
CREATE OR REPLACE FUNCTION dpbayes.privacy(
    epsilon       double precision   DEFAULT NULL,  -- required: a default only so that
                                                    -- a call without it is explained
    delta         double precision   DEFAULT NULL,
    clip          double precision   DEFAULT 1,
    y_bound       double precision   DEFAULT NULL,
    lower         double precision[] DEFAULT NULL,
    upper         double precision[] DEFAULT NULL,
    intercept     boolean            DEFAULT true,
    mechanism     text               DEFAULT 'gaussian',
    scaling       text               DEFAULT 'box',
    features      text[]             DEFAULT NULL,
    noise_weights double precision[] DEFAULT NULL,
    x_moments     double precision   DEFAULT 0,
    neighbours    text               DEFAULT 'add_remove')
RETURNS dpbayes.privacy
AS 'MODULE_PATHNAME', 'dpbayes_privacy'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- ---------------------------------------------------------------------------
-- Common mistakes that PostgreSQL would report only as "function ... does
-- not exist" reach a function that explains them (issue 25; docs/errors.md,
-- "Common mistakes and misspellings").  None of these releases anything.
-- ---------------------------------------------------------------------------

-- a numeric y for logistic regression (both forms): "y must be boolean"
CREATE FUNCTION dpbayes._numeric_y_trans(internal, double precision[], double precision, dpbayes.privacy)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._numeric_y_cols_trans(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._numeric_y_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.logistic_release(double precision[], double precision, dpbayes.privacy) (
    SFUNC = dpbayes._numeric_y_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(double precision[], double precision, dpbayes.privacy) IS
  'not a release: logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';
CREATE AGGREGATE dpbayes.logistic_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._numeric_y_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'not a release: logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';

-- the American spelling neighbors => ...: it is required here, so only a
-- call that uses the name resolves to this overload (epsilon first, for a
-- call in mixed notation)
CREATE FUNCTION dpbayes.privacy(
    epsilon       double precision,
    neighbors     text,
    delta         double precision   DEFAULT NULL,
    clip          double precision   DEFAULT NULL,
    y_bound       double precision   DEFAULT NULL,
    lower         double precision[] DEFAULT NULL,
    upper         double precision[] DEFAULT NULL,
    intercept     boolean            DEFAULT NULL,
    mechanism     text               DEFAULT NULL,
    scaling       text               DEFAULT NULL,
    features      text[]             DEFAULT NULL,
    noise_weights double precision[] DEFAULT NULL,
    x_moments     double precision   DEFAULT NULL,
    neighbours    text               DEFAULT NULL,
    y_clamped     double precision   DEFAULT NULL)
RETURNS dpbayes.privacy
AS 'MODULE_PATHNAME', 'dpbayes_mistake_argument'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.privacy(double precision, text, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text, double precision) IS
  'not privacy parameters: the argument is spelled neighbours, and this overload says so';
