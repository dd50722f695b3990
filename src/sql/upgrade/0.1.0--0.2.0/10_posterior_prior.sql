-- The prior's share of a posterior (issue 26, item 1): posterior_summary and
-- nonprivate_posterior_summary gain the columns prior_sd and sd_ratio (a new
-- result type: DROP and CREATE), and dpbayes.prior_sensitivity re-runs a
-- posterior under two alternative priors.
DROP FUNCTION dpbayes.posterior_summary(dpbayes.release, integer, integer, integer, bigint, text, jsonb);
CREATE FUNCTION dpbayes.posterior_summary(
    r       dpbayes.release,
    draws   integer DEFAULT 1000,
    chains  integer DEFAULT 4,
    warmup  integer DEFAULT 1000,
    seed    bigint  DEFAULT NULL,
    method  text    DEFAULT 'noise_aware',
    options jsonb   DEFAULT '{}')
RETURNS TABLE (variable text, mean double precision, median double precision,
               sd double precision, mad double precision, q5 double precision,
               q95 double precision, rhat double precision, ess_bulk double precision,
               ess_tail double precision, prob_positive double precision, divergences bigint,
               prior_sd double precision, sd_ratio double precision)
AS 'MODULE_PATHNAME', 'dpbayes_posterior_summary'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.posterior_summary(dpbayes.release, integer, integer, integer, bigint, text, jsonb) IS
  'posterior summary per variable: mean, median, sd, mad, 5% and 95% quantiles, rank-normalised split R-hat, bulk and tail ESS, P(> 0), divergences, the prior sd and sd_ratio = sd / prior_sd (near 1: the data barely moved the prior)';

CREATE FUNCTION dpbayes.prior_sensitivity(
    r       dpbayes.release,
    draws   integer DEFAULT 1000,
    chains  integer DEFAULT 4,
    warmup  integer DEFAULT 1000,
    seed    bigint  DEFAULT NULL,
    options jsonb   DEFAULT '{}',
    alternatives jsonb DEFAULT NULL)
RETURNS TABLE (prior text, variable text, mean double precision, sd double precision,
               prior_sd double precision, sd_ratio double precision,
               shift double precision, sd_change double precision)
AS 'MODULE_PATHNAME', 'dpbayes_prior_sensitivity'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.prior_sensitivity(dpbayes.release, integer, integer, integer, bigint, jsonb, jsonb) IS
  'the noise-aware posterior under the prior of options and under two alternatives (default: the coefficients'' prior 10 times wider and 10 times narrower; or a jsonb array of two option objects applied over options): mean, sd, prior sd, and the shift of the mean in base posterior sds';

DROP FUNCTION dpbayes.nonprivate_posterior_summary(text, double precision[], double precision[], dpbayes.privacy, integer, integer, integer, bigint, jsonb);
CREATE FUNCTION dpbayes.nonprivate_posterior_summary(
    model   text,
    x       double precision[],
    y       double precision[],
    p       dpbayes.privacy,
    draws   integer DEFAULT 1000,
    chains  integer DEFAULT 4,
    warmup  integer DEFAULT 1000,
    seed    bigint  DEFAULT NULL,
    options jsonb   DEFAULT '{}')
RETURNS TABLE (variable text, mean double precision, median double precision,
               sd double precision, mad double precision, q5 double precision,
               q95 double precision, rhat double precision, ess_bulk double precision,
               ess_tail double precision, prob_positive double precision, divergences bigint,
               prior_sd double precision, sd_ratio double precision)
AS 'MODULE_PATHNAME', 'dpbayes_nonprivate_posterior_summary'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.nonprivate_posterior_summary(text, double precision[], double precision[], dpbayes.privacy, integer, integer, integer, bigint, jsonb) IS
  'NOT PRIVATE: summary of dpbayes.nonprivate_posterior(); for comparisons only';

COMMENT ON FUNCTION dpbayes.ldp_posterior_summary(bytea, jsonb) IS
  'summary of dpbayes.ldp_posterior per variable (the columns of dpbayes.posterior_summary up to divergences; no prior_sd, sd_ratio)';
