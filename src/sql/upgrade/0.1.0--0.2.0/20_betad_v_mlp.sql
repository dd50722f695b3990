-- betaD networks (issue 28; docs/betad.md, "Neural networks"):
-- betad_params records the architecture (hidden, activation; NULL for the
-- logistic and linear models), dpbayes.betad takes it, and prior_sd and
-- the schedule default by model (NULL: the C defaults); the network
-- aggregates and dpbayes.betad_predict are new.  (This file's name sorts
-- after 20_betad_ux.sql, whose betad() it replaces and whose scaling
-- attribute comes before hidden and activation.)
ALTER TYPE dpbayes.betad_params ADD ATTRIBUTE hidden integer;
ALTER TYPE dpbayes.betad_params ADD ATTRIBUTE activation text;
DROP FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text);
CREATE FUNCTION dpbayes.betad(
    epsilon      double precision   DEFAULT NULL,  -- epsilon (or beta) and model are
    model        text               DEFAULT NULL,  -- required: defaults only so that a
                                                   -- call without them is explained
    prior_sd     double precision   DEFAULT NULL,  -- 3; a network: 1
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
    chains       integer            DEFAULT NULL,  -- 4 x (200 + 50); a network:
    warmup       integer            DEFAULT NULL,  -- docs/betad.md, "Neural
    iterations   integer            DEFAULT NULL,  -- networks"
    root         text               DEFAULT 'smaller',
    sigma2_prior double precision[] DEFAULT NULL,
    neighbours   text               DEFAULT 'add_remove',
    scaling      text               DEFAULT NULL,
    hidden       integer            DEFAULT NULL,  -- networks: 10
    activation   text               DEFAULT NULL)  -- networks: relu
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_betad'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text, integer, text) IS
  'validated betaD-Bayes parameters: epsilon (total over the draws; or give beta), model (logistic|linear|mlp_classifier|mlp_regression), prior_sd (N(0, prior_sd^2) coefficients of the scaled features, or every weight and bias of a network; default 3, networks 1), sigma2_floor (linear: public floor of the residual variance, units of y^2), y_scale (linear: public scale of y), intercept, beta (instead of epsilon), lower/upper (public feature scales, never clipping; a release needs them, or scaling none), features (names), draws (k draws composed as bounded-range zCDP; needs delta), tier (approximate: NUTS with the fixed schedule, delta'' not certified; exact: rejection from the prior, certified delta_prime, default 1e-9), chains/warmup/iterations (the public schedule), root (linear: smaller|larger beta), sigma2_prior ({a, b}: sigma2 / y_scale^2 ~ InverseGamma above the floor), neighbours (add_remove: N private and not released, the default; replace: N public and released, needed by the exact tier), scaling (none: no lower/upper, the features are used as given, for features already on a unit scale), hidden (networks: hidden units, default 10), activation (networks: relu, the default, or tanh)';

DROP FUNCTION dpbayes.betad(double precision, text, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text);
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
    scaling      text               DEFAULT NULL,
    hidden       integer            DEFAULT NULL,
    activation   text               DEFAULT NULL)
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_mistake_argument'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text, text, integer, text) IS
  'not betaD parameters: the argument is spelled neighbours, and this overload says so';

CREATE FUNCTION dpbayes._betad_mlp_classifier_trans(internal, double precision[], boolean, dpbayes.betad_params)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_mlp_classifier_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_mlp_classifier(double precision[], boolean, dpbayes.betad_params) (
    SFUNC = dpbayes._betad_mlp_classifier_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_logistic_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_mlp_classifier(double precision[], boolean, dpbayes.betad_params) IS
  'betaD-Bayes: one private draw of every weight of a one-hidden-layer network classifier (the logistic betaD loss on its output; parameters dpbayes.betad(..., model => ''mlp_classifier'', hidden, activation)); a release of kind betad; rows held in memory, at most work_mem';

CREATE FUNCTION dpbayes._betad_mlp_regression_trans(internal, double precision[], double precision, dpbayes.betad_params)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_mlp_regression_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_mlp_regression(double precision[], double precision, dpbayes.betad_params) (
    SFUNC = dpbayes._betad_mlp_regression_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_linear_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_mlp_regression(double precision[], double precision, dpbayes.betad_params) IS
  'betaD-Bayes: one private draw of every weight of a one-hidden-layer network regression (the Gaussian betaD loss with a public variance floor; parameters dpbayes.betad(..., model => ''mlp_regression'', sigma2_floor, y_scale, hidden, activation)); a release of kind betad; rows held in memory, at most work_mem';

CREATE FUNCTION dpbayes._betad_mlp_classifier_cols_trans(internal, boolean, dpbayes.betad_params, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_mlp_classifier_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_mlp_classifier(y boolean, p dpbayes.betad_params, VARIADIC x "any") (
    SFUNC = dpbayes._betad_mlp_classifier_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_logistic_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_mlp_classifier(boolean, dpbayes.betad_params, VARIADIC "any") IS
  'betad_mlp_classifier(x[], y, p) with the features as separate arguments: betad_mlp_classifier(y, p, x1, ..., xd)';

CREATE FUNCTION dpbayes._betad_mlp_regression_cols_trans(internal, double precision, dpbayes.betad_params, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_mlp_regression_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_mlp_regression(y double precision, p dpbayes.betad_params, VARIADIC x "any") (
    SFUNC = dpbayes._betad_mlp_regression_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_linear_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_mlp_regression(double precision, dpbayes.betad_params, VARIADIC "any") IS
  'betad_mlp_regression(x[], y, p) with the features as separate arguments: betad_mlp_regression(y, p, x1, ..., xd)';

CREATE FUNCTION dpbayes.betad_predict(release dpbayes.release, x double precision[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'dpbayes_betad_predict'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_predict(dpbayes.release, double precision[]) IS
  'the output of a betaD release (logistic, linear, mlp_classifier, mlp_regression) for one row x of its features in their original units: the class probability, or the mean of y in its units; a release of k draws: the mean over the draws (post-processing, no privacy cost)';

