-- betaD releases need public feature scales, or scaling => 'none' chosen
-- explicitly (issue 25): dpbayes.betad takes scaling and betad_params
-- records it (NULL: scaled by lower/upper).  A value stored before has no
-- scaling attribute.  epsilon and model get defaults (NULL) so that a call
-- without them reaches the function, which explains it; common mistakes
-- reach overloads that explain them.
ALTER TYPE dpbayes.betad_params ADD ATTRIBUTE scaling text;
DROP FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text);
CREATE FUNCTION dpbayes.betad(
    epsilon      double precision   DEFAULT NULL,  -- epsilon (or beta) and model are
    model        text               DEFAULT NULL,  -- required: defaults only so that a
                                                   -- call without them is explained
    prior_sd     double precision   DEFAULT 3,
    sigma2_floor double precision   DEFAULT NULL,
    y_scale      double precision   DEFAULT NULL,
    intercept    boolean            DEFAULT true,
    beta         double precision   DEFAULT NULL,
    lower        double precision[] DEFAULT NULL,
    upper        double precision[] DEFAULT NULL,
    features     text[]             DEFAULT NULL,
    draws        integer            DEFAULT 1,
    delta        double precision   DEFAULT NULL,
    tier         text               DEFAULT 'approximate',
    delta_prime  double precision   DEFAULT NULL,
    chains       integer            DEFAULT 4,
    warmup       integer            DEFAULT 200,
    iterations   integer            DEFAULT 50,
    root         text               DEFAULT 'smaller',
    sigma2_prior double precision[] DEFAULT NULL,
    neighbours   text               DEFAULT 'add_remove',
    scaling      text               DEFAULT NULL)
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_betad'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text) IS
  'validated betaD-Bayes parameters: epsilon (total over the draws; or give beta), model (logistic|linear), prior_sd (N(0, prior_sd^2) coefficients of the scaled features), sigma2_floor (linear: public floor of the residual variance, units of y^2), y_scale (linear: public scale of y), intercept, beta (instead of epsilon), lower/upper (public feature scales, never clipping; a release needs them, or scaling none), features (names), draws (k draws composed as bounded-range zCDP; needs delta), tier (approximate: NUTS with the fixed schedule, delta'' not certified; exact: rejection from the prior, certified delta_prime, default 1e-9), chains/warmup/iterations (the public schedule), root (linear: smaller|larger beta), sigma2_prior ({a, b}: sigma2 / y_scale^2 ~ InverseGamma above the floor), neighbours (add_remove: N private and not released, the default; replace: N public and released, needed by the exact tier), scaling (none: no lower/upper, the features are used as given, for features already on a unit scale)';

-- ---- common mistakes explained (issue 25; docs/errors.md) ----

-- a numeric y for betaD logistic regression (both forms): "y must be boolean"
CREATE FUNCTION dpbayes._betad_numeric_y_trans(internal, double precision[], double precision, dpbayes.betad_params)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._betad_numeric_y_cols_trans(internal, double precision, dpbayes.betad_params, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_logistic(double precision[], double precision, dpbayes.betad_params) (
    SFUNC = dpbayes._betad_numeric_y_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_logistic(double precision[], double precision, dpbayes.betad_params) IS
  'not a release: betaD logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';
CREATE AGGREGATE dpbayes.betad_logistic(y double precision, p dpbayes.betad_params, VARIADIC x "any") (
    SFUNC = dpbayes._betad_numeric_y_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_logistic(double precision, dpbayes.betad_params, VARIADIC "any") IS
  'not a release: betaD logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';

-- the American spelling neighbors => ... (required here: only a call that
-- uses the name resolves to this overload; epsilon and model first, for a
-- call in mixed notation)
CREATE FUNCTION dpbayes.betad(
    epsilon      double precision,
    model        text,
    neighbors    text,
    prior_sd     double precision   DEFAULT NULL,
    sigma2_floor double precision   DEFAULT NULL,
    y_scale      double precision   DEFAULT NULL,
    intercept    boolean            DEFAULT NULL,
    beta         double precision   DEFAULT NULL,
    lower        double precision[] DEFAULT NULL,
    upper        double precision[] DEFAULT NULL,
    features     text[]             DEFAULT NULL,
    draws        integer            DEFAULT NULL,
    delta        double precision   DEFAULT NULL,
    tier         text               DEFAULT NULL,
    delta_prime  double precision   DEFAULT NULL,
    chains       integer            DEFAULT NULL,
    warmup       integer            DEFAULT NULL,
    iterations   integer            DEFAULT NULL,
    root         text               DEFAULT NULL,
    sigma2_prior double precision[] DEFAULT NULL,
    neighbours   text               DEFAULT NULL,
    scaling      text               DEFAULT NULL)
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_mistake_argument'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text) IS
  'not betaD parameters: the argument is spelled neighbours, and this overload says so';
