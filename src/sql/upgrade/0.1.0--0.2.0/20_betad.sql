
-- betaD releases under add/remove neighbours (issue 24): dpbayes.betad takes
-- neighbours (default add_remove) and betad_params records it.  A value
-- stored by 0.1.0 has no neighbours attribute and reads as replace-one.
ALTER TYPE dpbayes.betad_params ADD ATTRIBUTE neighbours text;
DROP FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[]);
CREATE FUNCTION dpbayes.betad(
    epsilon      double precision,
    model        text,
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
    neighbours   text               DEFAULT 'add_remove')
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_betad'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text) IS
  'validated betaD-Bayes parameters: epsilon (total over the draws; or give beta), model (logistic|linear), prior_sd (N(0, prior_sd^2) coefficients of the scaled features), sigma2_floor (linear: public floor of the residual variance, units of y^2), y_scale (linear: public scale of y), intercept, beta (instead of epsilon), lower/upper (public feature scales, never clipping), features (names), draws (k draws composed as bounded-range zCDP; needs delta), tier (approximate: NUTS with the fixed schedule, delta'' not certified; exact: rejection from the prior, certified delta_prime, default 1e-9), chains/warmup/iterations (the public schedule), root (linear: smaller|larger beta), sigma2_prior ({a, b}: sigma2 / y_scale^2 ~ InverseGamma above the floor), neighbours (add_remove: N private and not released, the default; replace: N public and released, needed by the exact tier)';
