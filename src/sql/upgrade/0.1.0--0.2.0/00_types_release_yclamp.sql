-- The count of clamped responses (release format version 4,
-- docs/privacy.md §17): dpbayes.privacy gets the share y_clamped, as the
-- last attribute of the composite and the last argument of the
-- constructor (NULL: the model's default, 0.02 for linear releases).
-- Values of the composite stored before the update keep their 13
-- attributes; they read y_clamped as NULL.  The constructor's signature
-- changes: it is dropped and made again (a view that calls it stops the
-- update; docs/upgrades.md).
ALTER TYPE dpbayes.privacy ADD ATTRIBUTE y_clamped double precision;

DROP FUNCTION dpbayes.privacy(double precision, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text);
CREATE FUNCTION dpbayes.privacy(
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
    neighbours    text               DEFAULT 'add_remove',
    y_clamped     double precision   DEFAULT NULL)
RETURNS dpbayes.privacy
AS 'MODULE_PATHNAME', 'dpbayes_privacy'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.privacy(double precision, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text, double precision) IS
  'validated privacy parameters: epsilon, delta (default 1e-6 gaussian, 0 laplace), clip (L2 bound R of the scaled features), y_bound (public bound of the response), lower/upper (public feature bounds: a release needs them, or scaling none), intercept, mechanism (gaussian|laplace), scaling (box|ball: how the bounds scale the features; none: no bounds, the features are used as given, for features already scaled to the unit ball), features (names), noise_weights (relative noise scale per model statistic block, the count block last under add_remove), x_moments (share of the budget spent on releasing the third and fourth moments of the features, for the linear model''s "noisy" moments; 0: none), neighbours (add_remove: the default, the number of rows is private and released with noise, right for WHERE subsets and GROUP BY groups; replace: a fixed population whose size is public, released exactly), y_clamped (share of the budget spent on the number of rows whose response was clamped to y_bound, for the posterior''s model of the clamping; linear only; NULL: 0.02 for linear releases, 0 otherwise; 0: none)';
