
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
CREATE FUNCTION dpbayes.revoke_signing_key(key_id bytea) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF revoke_signing_key.key_id IS NULL THEN
        RAISE EXCEPTION 'key_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    UPDATE dpbayes.signing_key k
    SET revoked_at = coalesce(k.revoked_at, clock_timestamp()),
        retired_at = coalesce(k.retired_at, clock_timestamp())
    WHERE k.key_id = revoke_signing_key.key_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown signing key'
            USING ERRCODE = 'undefined_object',
                  DETAIL = 'No key in dpbayes.signing_key has this key id.',
                  HINT = 'The key id of a release is in dpbayes.release_signature(r).';
    END IF;
END $$;
COMMENT ON FUNCTION dpbayes.revoke_signing_key(bytea) IS
  'revokes a signing key: releases it signed no longer verify (verify_detail says revoked key); retires it too when it is the active key (the next governed release makes a new one); for the governance owner';
CREATE OR REPLACE FUNCTION dpbayes.verify_detail(r dpbayes.release) RETURNS text
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN s.key_id IS NULL THEN 'unsigned'
                WHEN k.public_key IS NULL THEN 'unknown key'
                WHEN k.revoked_at IS NOT NULL THEN 'revoked key'
                ELSE dpbayes._verify_signature(r, k.public_key) END
    FROM dpbayes.release_signature(r) s
    LEFT JOIN dpbayes.signing_key k ON k.key_id = s.key_id
$$;
COMMENT ON FUNCTION dpbayes.verify_detail(dpbayes.release) IS
  'why a release (of any kind) does or does not verify: valid, unsigned, unknown key (not a key of this server), revoked key, or signature does not match the release (edited)';
COMMENT ON FUNCTION dpbayes.verify(dpbayes.release) IS
  'true when the release (of any kind) carries a valid signature by one of this server''s keys that is not revoked: it was made by the governed path under exactly the parameters and values it records (verify_detail says why not)';
REVOKE ALL ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea, bytea),
    dpbayes.revoke_signing_key(bytea) FROM PUBLIC;
