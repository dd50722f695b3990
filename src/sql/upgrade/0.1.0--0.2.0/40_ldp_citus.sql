-- Scale-out on Citus (issue 27): ldp_release gets the state
-- dpbayes.release_state (00_types_release_citus.sql), so that Citus sums
-- each shard's reports on its worker.  40_ldp.sql (run before this file)
-- made 0.2.0's ldp_release(protocol_id, report, protocol text) with an
-- internal state; it is dropped and made again with the release_state, and
-- the internal-state support functions, which no aggregate uses any more,
-- are dropped (their C entry points stay in the library).
DROP AGGREGATE dpbayes.ldp_release(text, double precision[], text);
DROP FUNCTION dpbayes._ldp_release_trans(internal, text, double precision[], text);
DROP FUNCTION dpbayes._ldp_release_combine(internal, internal);
DROP FUNCTION dpbayes._ldp_release_serialize(internal);
DROP FUNCTION dpbayes._ldp_release_deserialize(bytea, internal);
DROP FUNCTION dpbayes._ldp_release_final(internal);

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
