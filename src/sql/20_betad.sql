-- ---- betaD-Bayes calibration (issue 10, first part; docs/betad.md) ----

CREATE FUNCTION dpbayes.betad_beta(
    epsilon      double precision,
    model        text,
    sigma2_floor double precision DEFAULT NULL,
    y_scale      double precision DEFAULT 1,
    root         text             DEFAULT 'smaller')
RETURNS double precision
AS 'MODULE_PATHNAME', 'dpbayes_betad_beta'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_beta(double precision, text, double precision, double precision, text) IS
  'betaD-Bayes: the beta that makes one exact posterior draw epsilon-DP (logistic: 1 + 2/epsilon; linear: Gaussian regression with a public residual-variance floor in the units of y, on y / y_scale; root smaller or larger)';

CREATE FUNCTION dpbayes.betad_epsilon(
    beta         double precision,
    model        text,
    sigma2_floor double precision DEFAULT NULL,
    y_scale      double precision DEFAULT 1)
RETURNS double precision
AS 'MODULE_PATHNAME', 'dpbayes_betad_epsilon'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_epsilon(double precision, text, double precision, double precision) IS
  'betaD-Bayes: the epsilon of one exact posterior draw for a given beta (2 M^(beta-1)/(beta-1))';

CREATE FUNCTION dpbayes.betad_epsilon_min(
    sigma2_floor double precision,
    y_scale      double precision DEFAULT 1)
RETURNS double precision
AS 'MODULE_PATHNAME', 'dpbayes_betad_epsilon_min'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_epsilon_min(double precision, double precision) IS
  'betaD-Bayes: the smallest epsilon a Gaussian model with this public variance floor can reach (0: any)';

-- ---- betaD-Bayes releases (issue 10; docs/betad.md) ----

CREATE TYPE dpbayes.betad_params AS (
    epsilon      double precision,
    model        text,
    prior_sd     double precision,
    sigma2_floor double precision,
    y_scale      double precision,
    intercept    boolean,
    beta         double precision,
    lower        double precision[],
    upper        double precision[],
    features     text[],
    draws        integer,
    delta        double precision,
    tier         text,
    delta_prime  double precision,
    chains       integer,
    warmup       integer,
    iterations   integer,
    root         text,
    sigma2_prior double precision[],
    neighbours   text,
    scaling      text,
    hidden       integer,
    activation   text
);
COMMENT ON TYPE dpbayes.betad_params IS
  'parameters of a betaD-Bayes release; build it with dpbayes.betad(...), which validates them';

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

CREATE FUNCTION dpbayes._betad_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_betad_combine' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._betad_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_betad_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes._betad_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_betad_deserialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes._betad_logistic_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_betad_logistic_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpbayes._betad_linear_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_betad_linear_final' LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE FUNCTION dpbayes._betad_logistic_trans(internal, double precision[], boolean, dpbayes.betad_params)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_logistic_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_logistic(double precision[], boolean, dpbayes.betad_params) (
    SFUNC = dpbayes._betad_logistic_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_logistic_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_logistic(double precision[], boolean, dpbayes.betad_params) IS
  'betaD-Bayes: one private draw from the beta-divergence posterior of logistic regression (a release of kind betad); the rows of a group are held in memory, at most work_mem';

CREATE FUNCTION dpbayes._betad_linear_trans(internal, double precision[], double precision, dpbayes.betad_params)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_linear_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_linear(double precision[], double precision, dpbayes.betad_params) (
    SFUNC = dpbayes._betad_linear_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_linear_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_linear(double precision[], double precision, dpbayes.betad_params) IS
  'betaD-Bayes: one private draw from the beta-divergence posterior of Gaussian linear regression with a public variance floor (a release of kind betad); rows held in memory, at most work_mem';

CREATE FUNCTION dpbayes._betad_logistic_cols_trans(internal, boolean, dpbayes.betad_params, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_logistic_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_logistic(y boolean, p dpbayes.betad_params, VARIADIC x "any") (
    SFUNC = dpbayes._betad_logistic_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_logistic_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_logistic(boolean, dpbayes.betad_params, VARIADIC "any") IS
  'betad_logistic(x[], y, p) with the features as separate arguments: betad_logistic(y, p, x1, ..., xd)';

CREATE FUNCTION dpbayes._betad_linear_cols_trans(internal, double precision, dpbayes.betad_params, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_betad_linear_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.betad_linear(y double precision, p dpbayes.betad_params, VARIADIC x "any") (
    SFUNC = dpbayes._betad_linear_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._betad_linear_final,
    COMBINEFUNC = dpbayes._betad_combine,
    SERIALFUNC = dpbayes._betad_serialize,
    DESERIALFUNC = dpbayes._betad_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.betad_linear(double precision, dpbayes.betad_params, VARIADIC "any") IS
  'betad_linear(x[], y, p) with the features as separate arguments: betad_linear(y, p, x1, ..., xd)';

-- ---- betaD networks and predictions (issue 28; docs/betad.md, "Neural networks") ----

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

CREATE FUNCTION dpbayes.betad_tune_NOT_PRIVATE(
    x    double precision[],
    y    double precision[],
    p    dpbayes.betad_params,
    seed bigint DEFAULT 1)
RETURNS TABLE (chain integer, iteration integer, variable text, value double precision)
AS 'MODULE_PATHNAME', 'dpbayes_betad_tune'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_tune_NOT_PRIVATE(double precision[], double precision[], dpbayes.betad_params, bigint) IS
  'NOT PRIVATE: the whole chains of the betaD sampler on raw rows (x N x d, y: logistic 1/0) with a seeded generator, then the diagnostics a release hides (per variable, chain and iteration null: rhat, ess_bulk, ess_tail; per chain, iteration null: step_size, divergences, mean_tree_depth, mean_accept, gradient_evals); for choosing a schedule on public or synthetic data only';
REVOKE ALL ON FUNCTION dpbayes.betad_tune_NOT_PRIVATE(double precision[], double precision[], dpbayes.betad_params, bigint) FROM PUBLIC;

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
