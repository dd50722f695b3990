-- Signed releases (docs/governance.md §6): Ed25519 keys.  The public keys
-- are readable by everyone (dpbayes.verify) and dumped with the ledger; the
-- private keys are readable by the governance owner only and never dumped
-- (after a restore, governance_setup makes a new key: old releases still
-- verify against their public keys).  Signatures of version 1 (0.1.0:
-- release, key id, request id, dataset) are still made by the 4-argument
-- _sign and verified; version 2 also signs a 32-byte binding and is made by
-- the 5-argument _sign, for statistics and betaD releases alike.
CREATE FUNCTION dpbayes._keygen(OUT key_id bytea, OUT public_key bytea, OUT private_key bytea)
AS 'MODULE_PATHNAME', 'dpbayes_keygen' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes._keygen() IS
  'internal: a fresh Ed25519 key pair (key id: the first 8 bytes of the SHA-256 of the public key)';
CREATE FUNCTION dpbayes._sign(r dpbayes.release, request_id text, dataset text, private_key bytea)
RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_sign' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea) IS
  'internal: the statistics release with an Ed25519 signature (version 1) over its canonical form, the request id and the dataset';
CREATE FUNCTION dpbayes._sign(r dpbayes.release, request_id text, dataset text, binding bytea,
    private_key bytea)
RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_sign_v2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea, bytea) IS
  'internal: the release (statistics or betad) with an Ed25519 signature (version 2) over its canonical form, the request id, the dataset and the binding (32 bytes: the SHA-256 of the request''s canonical description)';
CREATE FUNCTION dpbayes.release_signature(r dpbayes.release, OUT alg text, OUT key_id bytea,
    OUT request_id text, OUT dataset text, OUT binding bytea, OUT version integer)
AS 'MODULE_PATHNAME', 'dpbayes_release_signature_v2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.release_signature(dpbayes.release) IS
  'the signature of a governed release of any kind: algorithm, key id, request id, dataset, binding (null for version 1) and signature version 1 or 2 (all null when unsigned); not checked: see dpbayes.verify';
CREATE FUNCTION dpbayes._verify_signature(r dpbayes.release, public_key bytea) RETURNS text
AS 'MODULE_PATHNAME', 'dpbayes_verify_signature' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._verify_signature(dpbayes.release, bytea) IS
  'internal: checks a release''s signature (any kind, version 1 or 2) against one Ed25519 public key';

CREATE TABLE dpbayes.signing_key (
    key_id      bytea PRIMARY KEY CHECK (length(key_id) = 8),
    public_key  bytea NOT NULL UNIQUE CHECK (length(public_key) = 32),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    retired_at  timestamptz,
    revoked_at  timestamptz
);
COMMENT ON TABLE dpbayes.signing_key IS
  'the public Ed25519 keys of the server''s release signatures (the active one has no retired_at; a revoked one has revoked_at, and releases it signed no longer verify); dpbayes.verify checks against them';
CREATE TABLE dpbayes.signing_secret (
    key_id      bytea PRIMARY KEY REFERENCES dpbayes.signing_key,
    private_key bytea NOT NULL CHECK (length(private_key) = 32)
);
COMMENT ON TABLE dpbayes.signing_secret IS
  'the private signing keys: readable by the governance owner only, never dumped';
SELECT pg_catalog.pg_extension_config_dump('dpbayes.signing_key', '');
REVOKE ALL ON dpbayes.signing_key, dpbayes.signing_secret FROM PUBLIC;
GRANT SELECT ON dpbayes.signing_key TO PUBLIC;

-- The active private key (a new one when there is none); for the SECURITY
-- DEFINER routines only.
CREATE FUNCTION dpbayes._signing_key(OUT key_id bytea, OUT private_key bytea)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k record;
BEGIN
    SELECT s.key_id, s.private_key INTO key_id, private_key
    FROM dpbayes.signing_secret s JOIN dpbayes.signing_key p USING (key_id)
    WHERE p.retired_at IS NULL ORDER BY p.created_at DESC LIMIT 1;
    IF NOT FOUND THEN
        -- serialise key creation: two first releases make one key
        LOCK TABLE dpbayes.signing_secret IN SHARE ROW EXCLUSIVE MODE;
        SELECT s.key_id, s.private_key INTO key_id, private_key
        FROM dpbayes.signing_secret s JOIN dpbayes.signing_key p USING (key_id)
        WHERE p.retired_at IS NULL ORDER BY p.created_at DESC LIMIT 1;
        IF NOT FOUND THEN
            k := dpbayes._keygen();
            UPDATE dpbayes.signing_key SET retired_at = clock_timestamp() WHERE retired_at IS NULL;
            INSERT INTO dpbayes.signing_key (key_id, public_key) VALUES (k.key_id, k.public_key);
            INSERT INTO dpbayes.signing_secret VALUES (k.key_id, k.private_key);
            key_id := k.key_id;
            private_key := k.private_key;
        END IF;
    END IF;
END $$;
COMMENT ON FUNCTION dpbayes._signing_key() IS
  'internal: the active private signing key, made on first use';

-- (dpbayes.verify_detail and dpbayes.verify check the ledger too: they are in
-- 32_governance_routines.sql)
REVOKE ALL ON FUNCTION dpbayes._keygen(), dpbayes._sign(dpbayes.release, text, text, bytea),
    dpbayes._signing_key() FROM PUBLIC;
REVOKE ALL ON FUNCTION dpbayes._sign(dpbayes.release, text, text, bytea, bytea) FROM PUBLIC;

