
-- Local DP (issue 24, item 4): every path that accepts reports takes and
-- checks their protocol id.  0.1.0's id-less ldp_release(report, protocol)
-- and ldp_collect(report, protocol) are gone (reports made under another
-- epsilon can lie on the same grid and would pass); ldp_collect takes the
-- id like ldp_release(protocol_id, report, protocol).
DROP AGGREGATE dpbayes.ldp_release(double precision[], jsonb);
DROP FUNCTION dpbayes._ldp_release_trans(internal, double precision[], jsonb);
COMMENT ON AGGREGATE dpbayes.ldp_release(text, double precision[], jsonb) IS
  'sums the reports of an ss_linear / ss_logistic / ss_poisson protocol into a release (mechanism ldp_gaussian) for dpbayes.posterior; no noise is added; each report''s protocol id must be the protocol''s; reports stamped insecure_test: make the release insecure';
DROP AGGREGATE dpbayes.ldp_collect(double precision[], jsonb);
DROP FUNCTION dpbayes._ldp_collect_trans(internal, double precision[], jsonb);
CREATE FUNCTION dpbayes._ldp_collect_trans(internal, text, double precision[], jsonb)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_ldp_collect_trans_id' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.ldp_collect(protocol_id text, report double precision[], protocol jsonb) (
    SFUNC = dpbayes._ldp_collect_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._ldp_collect_final,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dpbayes._ldp_collect_combine,
    SERIALFUNC = dpbayes._ldp_collect_serialize,
    DESERIALFUNC = dpbayes._ldp_collect_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.ldp_collect(text, double precision[], jsonb) IS
  'collects local-DP reports (scalar_laplace, oue, linear_input, logistic_input) of one protocol into a compact, already-private bytea for dpbayes.ldp_posterior; each report''s protocol id must be the protocol''s, and each report is checked against the protocol; reports stamped insecure_test: mark the collection, and every inference on it warns';
