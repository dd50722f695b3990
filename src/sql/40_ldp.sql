-- ---------------------------------------------------------------------------
-- LDP: protocol and summed statistics (issue 11; docs/ldp.md "The server").
-- The protocol is parsed by the client's own code (src/core/ldp): client and
-- server agree byte for byte on its canonical text, id and calibration.
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
    label_share   double precision   DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol(text, double precision, double precision, integer, integer, double precision[], double precision[], double precision, double precision, boolean, double precision[], double precision, double precision) IS
  'a local-DP protocol (rr, oue, scalar_laplace, scalar_gaussian, ss_linear, ss_logistic, ss_poisson, linear_input, logistic_input) with its id; NULL arguments are absent keys; scalar_* take lower and upper as one-element arrays';

CREATE FUNCTION dpbayes.ldp_protocol_text(protocol jsonb) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol_text'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol_text(jsonb) IS
  'the canonical protocol text with its id: byte for byte what dpbayes-ldp protocol prints (the text to publish)';

CREATE FUNCTION dpbayes.ldp_protocol_id(protocol jsonb) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_protocol_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_protocol_id(jsonb) IS
  'the protocol id: the hex SHA-256 of the canonical text (a given "id" key must match it)';

CREATE FUNCTION dpbayes.ldp_calibration(protocol jsonb) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_ldp_calibration'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_calibration(jsonb) IS
  'the public calibration of a protocol (noise scales, grids, keep probabilities)';

CREATE FUNCTION dpbayes.ldp_calibration_text(protocol jsonb) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_ldp_calibration_text'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_calibration_text(jsonb) IS
  'the calibration as text: byte for byte what dpbayes-ldp calibration prints';

CREATE FUNCTION dpbayes.ldp_report_columns(protocol jsonb) RETURNS text[]
AS 'MODULE_PATHNAME', 'dpbayes_ldp_report_columns'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_report_columns(jsonb) IS
  'the labels of a report''s values, in order (the CLI''s CSV header after protocol_id)';

CREATE FUNCTION dpbayes.ldp_check(report double precision[], protocol jsonb) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpbayes_ldp_check'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_check(double precision[], jsonb) IS
  'ingest check for a CHECK constraint: width, no NULL, finite, on the public grid, within the plausible range; false for a NULL report';

-- Summing ss_* reports into an ordinary release (mechanism ldp_gaussian, n =
-- the number of reports; no noise added: the reports are already private).
-- The state is a dpbayes.release_state (00_types_release.sql), so that
-- Citus sums each shard's reports on its worker (docs/scale-out.md).
CREATE FUNCTION dpbayes._ldp_release_state_trans(dpbayes.release_state, double precision[], jsonb)
RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_ldp_release_trans_s' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_release_state_trans(dpbayes.release_state, text, double precision[], jsonb)
RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_ldp_release_trans_id_s' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_release_state_final(dpbayes.release_state) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_ldp_release_final_s' LANGUAGE C PARALLEL SAFE;

CREATE AGGREGATE dpbayes.ldp_release(report double precision[], protocol jsonb) (
    SFUNC = dpbayes._ldp_release_state_trans, STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._ldp_release_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE dpbayes.ldp_release(double precision[], jsonb) IS
  'sums the reports of an ss_linear / ss_logistic / ss_poisson protocol into a release (mechanism ldp_gaussian) for dpbayes.posterior; no noise is added';

CREATE AGGREGATE dpbayes.ldp_release(protocol_id text, report double precision[], protocol jsonb) (
    SFUNC = dpbayes._ldp_release_state_trans, STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._ldp_release_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE dpbayes.ldp_release(text, double precision[], jsonb) IS
  'as ldp_release(report, protocol), checking each report''s protocol id; reports stamped insecure_test: make the release insecure';

-- Simulation: NOT LOCAL DP (the database sees the raw records).  Only with
-- the superuser-only setting dpbayes.allow_simulation = on.
CREATE SCHEMA dpbayes_sim;
COMMENT ON SCHEMA dpbayes_sim IS
  'NOT LOCAL DP: randomizes raw records inside the database, for simulations and tests only; needs dpbayes.allow_simulation = on (superuser)';

CREATE FUNCTION dpbayes_sim.randomize_raw_record_not_ldp(protocol jsonb, record double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpbayes_sim_randomize'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes_sim.randomize_raw_record_not_ldp(jsonb, double precision[]) IS
  'NOT LOCAL DP: one report of a raw record, randomized in the database (simulation only)';

CREATE FUNCTION dpbayes_sim.report_protocol_id(protocol jsonb) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_sim_report_id'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes_sim.report_protocol_id(jsonb) IS
  'the protocol id simulated reports carry: insecure_test:<id> while dpbayes.insecure_noise_seed is set';

-- LDP: collected reports and posteriors
-- (docs/ldp.md, "Collected reports and posteriors").  The reports are
-- already private (each was randomized by its data subject), so the
-- collection and everything computed from it may be stored and shared.
CREATE FUNCTION dpbayes._ldp_collect_trans(internal, double precision[], jsonb)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_trans' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_final(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_final' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_combine' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes._ldp_collect_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_deserialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE AGGREGATE dpbayes.ldp_collect(report double precision[], protocol jsonb) (
    SFUNC = dpbayes._ldp_collect_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._ldp_collect_final,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dpbayes._ldp_collect_combine,
    SERIALFUNC = dpbayes._ldp_collect_serialize,
    DESERIALFUNC = dpbayes._ldp_collect_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.ldp_collect(double precision[], jsonb) IS
  'collects local-DP reports (scalar_laplace, oue, linear_input, logistic_input) of one protocol into a compact, already-private bytea for dpbayes.ldp_posterior; each report is checked against the protocol';

CREATE FUNCTION dpbayes.ldp_posterior(collected bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (chain integer, iteration integer, draw integer, variable text, value double precision)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior(bytea, jsonb) IS
  'noise-aware posterior draws on collected local-DP reports: model gaussian or exponential (scalar_laplace), histogram (oue), linear (linear_input), logistic (logistic_input); NUTS; options: model, draws, chains, warmup, seed, target_accept, max_depth, prior keys';

CREATE FUNCTION dpbayes.ldp_posterior_summary(collected bytea, options jsonb DEFAULT '{}')
RETURNS TABLE (variable text, mean double precision, median double precision, sd double precision,
               mad double precision, q5 double precision, q95 double precision, rhat double precision,
               ess_bulk double precision, ess_tail double precision, prob_positive double precision,
               divergences bigint)
AS 'MODULE_PATHNAME', 'dpbayes_ldp_posterior_summary' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_posterior_summary(bytea, jsonb) IS
  'summary of dpbayes.ldp_posterior per variable (the columns of dpbayes.posterior_summary)';

CREATE FUNCTION dpbayes.ldp_oue_estimate(collected bytea, simplex boolean DEFAULT true)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpbayes_ldp_oue_estimate' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_oue_estimate(bytea, boolean) IS
  'the OUE frequency estimate (column means debiased), optionally projected onto the probability simplex (L2)';

CREATE FUNCTION dpbayes.ldp_collection_info(collected bytea) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_ldp_collection_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.ldp_collection_info(bytea) IS
  'the protocol and the report counts of a collection (all already private)';
