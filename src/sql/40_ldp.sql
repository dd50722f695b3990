-- ---------------------------------------------------------------------------
-- LDP: protocol and summed statistics (issue 11; docs/ldp.md "The server").
-- The protocol is parsed by the client's own code (src/core/ldp): client and
-- server agree byte for byte on its canonical text, id and calibration.  It
-- is taken as text, the published text as given (0.1.0 took jsonb, which
-- merges duplicated keys and respells numbers before the parser sees them,
-- so the server accepted protocols the client refuses and the reverse).
-- ---------------------------------------------------------------------------

CREATE FUNCTION dpbayes.ldp_protocol(
    mechanism     text,
    epsilon       double precision,
    delta         double precision   DEFAULT NULL,
    d             integer            DEFAULT NULL,
    categories    integer            DEFAULT NULL,
    lower         double precision[] DEFAULT NULL,
    upper         double precision[] DEFAULT NULL,
    clip          double precision   DEFAULT NULL,
    y_bound       double precision   DEFAULT NULL,
    intercept     boolean            DEFAULT NULL,
    noise_weights double precision[] DEFAULT NULL,
    y_noise_ratio double precision   DEFAULT NULL,
    label_share   double precision   DEFAULT NULL,
    scaling       text               DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol_t'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol(text, double precision, double precision, integer, integer, double precision[], double precision[], double precision, double precision, boolean, double precision[], double precision, double precision, text) IS
  'a local-DP protocol (rr, oue, scalar_laplace, scalar_gaussian, ss_linear, ss_logistic, ss_poisson, linear_input, logistic_input): its canonical text with its id, byte for byte what dpbayes-ldp protocol prints; NULL arguments are absent keys; scalar_* take lower and upper as one-element arrays; ss_* need lower and upper (public feature bounds) or scaling => ''none'', *_input need clip (the public L2 bound of the features)';

CREATE FUNCTION dpbayes.ldp_protocol_text(protocol text) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol_text_t'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol_text(text) IS
  'the canonical protocol text with its id: byte for byte what dpbayes-ldp protocol prints (the text to publish)';

CREATE FUNCTION dpbayes.ldp_protocol_id(protocol text) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol_id_t'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol_id(text) IS
  'the protocol id: the hex SHA-256 of the canonical text (a given "id" key must match it)';

CREATE FUNCTION dpbayes.ldp_calibration(protocol text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_ldp_calibration_t'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_calibration(text) IS
  'the public calibration of a protocol (noise scales, grids, keep probabilities)';

CREATE FUNCTION dpbayes.ldp_calibration_text(protocol text) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_calibration_text_t'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_calibration_text(text) IS
  'the calibration as text: byte for byte what dpbayes-ldp calibration prints';

CREATE FUNCTION dpbayes.ldp_report_columns(protocol text) RETURNS text[]
AS 'MODULE_PATHNAME', 'dpbayes_ldp_report_columns_t'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_report_columns(text) IS
  'the labels of a report''s values, in order (the CLI''s CSV header after protocol_id)';

CREATE FUNCTION dpbayes.ldp_check(report double precision[], protocol text) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpbayes_ldp_check_t'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_check(double precision[], text) IS
  'ingest check for a CHECK constraint: width, no NULL, finite, on the public grid, within the plausible range; false for a NULL report';

-- Summing ss_* reports into an ordinary release (mechanism ldp_gaussian, n =
-- the number of reports; no noise added: the reports are already private).
-- Every report comes with the protocol id it was randomized under, checked
-- against the protocol's (0.1.0's id-less form is gone: reports of another
-- epsilon can lie on the same grid and would pass).  The state is a
-- dpbayes.release_state (00_types_release.sql), so that Citus sums each
-- shard's reports on its worker (docs/scale-out.md).
CREATE FUNCTION dpbayes._ldp_release_state_trans(dpbayes.release_state, text, double precision[], text)
RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_ldp_release_trans_id_ts' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_release_state_final(dpbayes.release_state) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_ldp_release_final_s' LANGUAGE C PARALLEL SAFE;

CREATE AGGREGATE dpbayes.ldp_release(protocol_id text, report double precision[], protocol text) (
    SFUNC = dpbayes._ldp_release_state_trans, STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._ldp_release_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE dpbayes.ldp_release(text, double precision[], text) IS
  'sums the reports of an ss_linear / ss_logistic / ss_poisson protocol into a release (mechanism ldp_gaussian) for dpbayes.posterior; no noise is added; each report''s protocol id must be the protocol''s; reports stamped insecure_test: make the release insecure';

-- Simulation: NOT LOCAL DP (the database sees the raw records).  Only with
-- the superuser-only setting dpbayes.allow_simulation = on.
CREATE SCHEMA dpbayes_sim;
COMMENT ON SCHEMA dpbayes_sim IS
  'NOT LOCAL DP: randomizes raw records inside the database, for simulations and tests only; needs dpbayes.allow_simulation = on (superuser)';

CREATE FUNCTION dpbayes_sim.randomize_raw_record_not_ldp(protocol text, record double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpbayes_sim_randomize_t'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes_sim.randomize_raw_record_not_ldp(text, double precision[]) IS
  'NOT LOCAL DP: one report of a raw record, randomized in the database (simulation only)';

CREATE FUNCTION dpbayes_sim.report_protocol_id(protocol text) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_sim_report_id_t'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes_sim.report_protocol_id(text) IS
  'the protocol id simulated reports carry: insecure_test:<id> while dpbayes.insecure_noise_seed is set';

-- LDP: collected reports and posteriors
-- (docs/ldp.md, "Collected reports and posteriors").  The reports are
-- already private (each was randomized by its data subject), so the
-- collection and everything computed from it may be stored and shared.
CREATE FUNCTION dpbayes._ldp_collect_trans(internal, text, double precision[], text)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_trans_id_t' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_final(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_final' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_combine' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_deserialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE AGGREGATE dpbayes.ldp_collect(protocol_id text, report double precision[], protocol text) (
    SFUNC = dpbayes._ldp_collect_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._ldp_collect_final,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dpbayes._ldp_collect_combine,
    SERIALFUNC = dpbayes._ldp_collect_serialize,
    DESERIALFUNC = dpbayes._ldp_collect_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.ldp_collect(text, double precision[], text) IS
  'collects local-DP reports (rr, oue, scalar_laplace, scalar_gaussian, linear_input, logistic_input) of one protocol into a compact, already-private bytea for dpbayes.ldp_posterior; each report''s protocol id must be the protocol''s, and each report is checked against the protocol; reports stamped insecure_test: mark the collection, and every inference on it warns';

CREATE FUNCTION dpbayes.ldp_posterior(collected bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (chain integer, iteration integer, draw integer, variable text, value double precision)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior(bytea, jsonb) IS
  'noise-aware posterior draws on collected local-DP reports: model proportion (rr), histogram (oue), gaussian or exponential (scalar_laplace), gaussian (scalar_gaussian), linear (linear_input), logistic (logistic_input); NUTS; options: model, draws, chains, warmup, seed, target_accept, max_depth, bin_tol (the binned scalar models), prior keys';

CREATE FUNCTION dpbayes.ldp_posterior_summary(collected bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (variable text, mean double precision, median double precision, sd double precision,
               mad double precision, q5 double precision, q95 double precision, rhat double precision,
               ess_bulk double precision, ess_tail double precision, prob_positive double precision,
               divergences bigint)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior_summary' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior_summary(bytea, jsonb) IS
  'summary of dpbayes.ldp_posterior per variable (the columns of dpbayes.posterior_summary up to divergences; no prior_sd, sd_ratio)';

CREATE FUNCTION dpbayes.ldp_posterior_compare(a bytea, b bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (chain integer, iteration integer, draw integer, variable text, value double precision)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior_compare' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior_compare(bytea, bytea, jsonb) IS
  'posterior draws of the proportions of two groups from their collections of rr reports (exact randomized-response likelihood, independent Beta priors): theta[a], theta[b], diff = theta[a] - theta[b], log_odds_ratio; the options of dpbayes.ldp_posterior';

CREATE FUNCTION dpbayes.ldp_posterior_compare_summary(a bytea, b bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (variable text, mean double precision, median double precision, sd double precision,
               mad double precision, q5 double precision, q95 double precision, rhat double precision,
               ess_bulk double precision, ess_tail double precision, prob_positive double precision,
               divergences bigint)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior_compare_summary' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior_compare_summary(bytea, bytea, jsonb) IS
  'summary of dpbayes.ldp_posterior_compare per variable; prob_positive of diff is the posterior probability that theta[a] > theta[b]';

CREATE FUNCTION dpbayes.ldp_oue_estimate(collected bytea, simplex boolean DEFAULT true)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpbayes_ldp_oue_estimate' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_oue_estimate(bytea, boolean) IS
  'the OUE frequency estimate (column means debiased), optionally projected onto the probability simplex (L2)';

CREATE FUNCTION dpbayes.ldp_collection_info(collected bytea) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collection_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_collection_info(bytea) IS
  'the protocol and the report counts of a collection (all already private)';
