
-- Signatures of version 2 and key revocation (issue 23; src/sql/25_signing.sql,
-- docs/governance.md §6).  Releases signed by 0.1.0 (version 1) still read
-- and verify: the 4-argument _sign and the C entry points of 0.1.0 stay.
ALTER TABLE dpbayes.signing_key ADD COLUMN revoked_at timestamptz;
COMMENT ON TABLE dpbayes.signing_key IS
  'the public Ed25519 keys of the server''s release signatures (the active one has no retired_at; a revoked one has revoked_at, and releases it signed no longer verify); dpbayes.verify checks against them';
COMMENT ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea) IS
  'internal: the statistics release with an Ed25519 signature (version 1) over its canonical form, the request id and the dataset';
CREATE FUNCTION dpbayes._sign(r dpbayes.release, request_id text, dataset text, binding bytea,
    private_key bytea)
RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_sign_v2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea, bytea) IS
  'internal: the release (statistics or betad) with an Ed25519 signature (version 2) over its canonical form, the request id, the dataset and the binding (32 bytes: the SHA-256 of the request''s canonical description)';
-- two more columns: DROP and CREATE (it had the default privileges)
DROP FUNCTION dpbayes.release_signature(dpbayes.release);
CREATE FUNCTION dpbayes.release_signature(r dpbayes.release, OUT alg text, OUT key_id bytea,
    OUT request_id text, OUT dataset text, OUT binding bytea, OUT version integer)
AS 'MODULE_PATHNAME', 'dpbayes_release_signature_v2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.release_signature(dpbayes.release) IS
  'the signature of a governed release of any kind: algorithm, key id, request id, dataset, binding (null for version 1) and signature version 1 or 2 (all null when unsigned); not checked: see dpbayes.verify';
COMMENT ON FUNCTION dpbayes._verify_signature(dpbayes.release, bytea) IS
  'internal: checks a release''s signature (any kind, version 1 or 2) against one Ed25519 public key';
-- (verify_detail, verify and revoke_signing_key: in 32_governance_routines.sql,
-- which this upgrade runs too)
REVOKE ALL ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea, bytea) FROM PUBLIC;
