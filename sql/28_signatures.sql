-- Signatures of version 2 and key revocation (issue 23; docs/governance.md
-- §6): the 5-argument dpbayes._sign binds a 32-byte digest of the request,
-- betaD releases are signed and verified like statistics releases, and a
-- revoked key no longer vouches for what it signed.  As the superuser, with
-- keys of dpbayes._keygen() inserted as retired keys (they verify, and never
-- become the governed path's active key).  No noisy value or draw is printed.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- The signature's verdict alone (key known, not revoked, signature matches):
-- dpbayes.verify_detail also asks the ledger whether a version-2 binding
-- names a released charge, which a release signed here by hand does not
-- (checked at the end).
CREATE FUNCTION pg_temp.sig_detail(r dpbayes.release) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN s.key_id IS NULL THEN 'unsigned'
                WHEN k.public_key IS NULL THEN 'unknown key'
                WHEN k.revoked_at IS NOT NULL THEN 'revoked key'
                ELSE dpbayes._verify_signature(r, k.public_key) END
    FROM dpbayes.release_signature(r) s LEFT JOIN dpbayes.signing_key k ON k.key_id = s.key_id
$$;
CREATE FUNCTION pg_temp.sig_verify(r dpbayes.release) RETURNS boolean LANGUAGE sql AS $$
    SELECT pg_temp.sig_detail(r) = 'valid'
$$;

-- two keys of this server (retired: they still verify) and one foreign key
CREATE TEMP TABLE k28 AS
SELECT n, (k).key_id, (k).public_key, (k).private_key
FROM (SELECT n, dpbayes._keygen() AS k FROM generate_series(1, 3) n OFFSET 0) s;
SELECT count(DISTINCT key_id) AS distinct_keys FROM k28;
INSERT INTO dpbayes.signing_key (key_id, public_key, retired_at)
SELECT key_id, public_key, clock_timestamp() FROM k28 WHERE n <= 2;
SELECT count(*) AS new_keys, count(*) FILTER (WHERE revoked_at IS NULL) AS not_revoked
FROM dpbayes.signing_key WHERE key_id IN (SELECT key_id FROM k28);

CREATE TEMP TABLE d28 AS
SELECT i, ((i % 10) / 10.0)::float8 AS x1, ((i % 7) / 7.0)::float8 AS x2, (i % 3 = 0) AS y,
       ((i % 13) / 13.0 - 0.5)::float8 AS yl
FROM generate_series(1, 60) i;
-- a betaD release (secure randomness: only private releases are signed)
CREATE TEMP TABLE bd28 AS
SELECT dpbayes.betad_logistic(ARRAY[x1, x2], y,
         dpbayes.betad(2, 'logistic', features => ARRAY['x1', 'x2'], lower => '{0,0}', upper => '{1,1}',
                       chains => 1, warmup => 20, iterations => 10)) AS r
FROM d28;
-- a statistics release
CREATE TEMP TABLE st28 AS
SELECT dpbayes.linear_release(yl, dpbayes.privacy(epsilon => 1, y_bound => 1,
         lower => '{0,0}', upper => '{1,1}'), x1, x2) AS r
FROM d28;

-- ---- unsigned releases of either kind: verify never raises ----
SELECT pg_temp.sig_verify(r) AS verify, pg_temp.sig_detail(r) AS detail, s.*
FROM bd28, dpbayes.release_signature(r) s;
SELECT pg_temp.sig_verify(r) AS verify, pg_temp.sig_detail(r) AS detail, s.*
FROM st28, dpbayes.release_signature(r) s;

-- ---- a signed betaD release (version 2) ----
CREATE TEMP TABLE bds AS
SELECT dpbayes._sign(r, 'bd-1', 'public.d28', sha256(convert_to('bd-1|d28|y|x1,x2', 'UTF8')),
                     k.private_key) AS r
FROM bd28, k28 k WHERE k.n = 1;
SELECT pg_temp.sig_verify(r) AS verify, pg_temp.sig_detail(r) AS detail,
       s.alg, s.key_id = (SELECT key_id FROM k28 WHERE n = 1) AS key_1, s.request_id, s.dataset,
       s.binding = sha256(convert_to('bd-1|d28|y|x1,x2', 'UTF8')) AS binding_ok, s.version
FROM bds, dpbayes.release_signature(r) s;
-- its text form: the signature object, and the same bytes back (pg_dump, COPY)
SELECT r::jsonb->>'kind' AS kind, r::jsonb->'version' AS format_version,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(r::jsonb->'signature') k) AS signature_keys,
       r::jsonb #> '{signature,version}' AS signature_version
FROM bds;
SELECT dpbayes.release_send(r::text::dpbayes.release) = dpbayes.release_send(r) AS same_bytes,
       r::text::dpbayes.release::text = r::text AS same_text,
       pg_temp.sig_verify(r::text::dpbayes.release) AS text_round_trip_verifies
FROM bds;
-- the unsigned release is unchanged by signing, apart from the signature
SELECT (b.r::jsonb - 'signature') = u.r::jsonb AS same_release FROM bds b, bd28 u;
-- edits of its text: a draw, the schedule, the binding, the request id, the
-- dataset, the signature; the signature removed; another key's signature
CREATE TEMP TABLE j28 AS SELECT r::jsonb AS j FROM bds;
CREATE FUNCTION pg_temp.edited(path text[], v jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r dpbayes.release;
BEGIN
  SELECT jsonb_set(j, path, v)::text::dpbayes.release INTO r FROM j28;
  RETURN pg_temp.sig_verify(r)::text || ' (' || pg_temp.sig_detail(r) || ')';
EXCEPTION WHEN OTHERS THEN
  RETURN 'rejected on input: ' || SQLSTATE;
END $$;
SELECT pg_temp.edited('{draws,0,1}', to_jsonb((j #>> '{draws,0,1}')::float8 + 0.001)) AS draw_edit FROM j28;
SELECT pg_temp.edited('{sampler,chains}', '2') AS schedule_edit;
SELECT pg_temp.edited('{signature,binding}', to_jsonb(encode(sha256('other'), 'hex'))) AS binding_edit;
SELECT pg_temp.edited('{signature,request_id}', '"bd-2"') AS request_edit;
SELECT pg_temp.edited('{signature,dataset}', '"public.other"') AS dataset_edit;
SELECT pg_temp.edited('{signature,value}',
    to_jsonb(overlay(j #>> '{signature,value}' placing
             CASE WHEN substr(j #>> '{signature,value}', 1, 1) = '0' THEN '1' ELSE '0' END from 1 for 1))) AS sig_edit
FROM j28;
SELECT pg_temp.edited('{signature,version}', '1') AS version_edit;
SELECT pg_temp.edited('{signature,binding}', '"00"') AS short_binding;
SELECT pg_temp.edited('{version}', '2') AS format_version_2;
SELECT pg_temp.sig_detail((j - 'signature')::text::dpbayes.release) AS signature_removed FROM j28;
SELECT pg_temp.sig_detail(dpbayes._sign(r, 'bd-1', 'public.d28', sha256('x'), k.private_key)) AS foreign_key
FROM bd28, k28 k WHERE k.n = 3;
-- a betaD release takes only a version-2 signature
SELECT pg_temp.err($q$SELECT dpbayes._sign(r, 'bd-1', 'public.d28', k.private_key) FROM bd28, k28 k WHERE k.n = 1$q$);

-- ---- statistics releases: version 2 with the 5-argument _sign, version 1 still ----
CREATE TEMP TABLE sts AS
SELECT dpbayes._sign(r, 'st-1', 'public.d28', sha256(convert_to('st-1|d28', 'UTF8')), k.private_key) AS r2,
       dpbayes._sign(r, 'st-1', 'public.d28', k.private_key) AS r1
FROM st28, k28 k WHERE k.n = 2;
SELECT pg_temp.sig_verify(r2) AS v2_verify, pg_temp.sig_detail(r2) AS v2_detail,
       (dpbayes.release_signature(r2)).version AS v2_version,
       (dpbayes.release_signature(r2)).binding = sha256(convert_to('st-1|d28', 'UTF8')) AS v2_binding_ok,
       pg_temp.sig_verify(r1) AS v1_verify, (dpbayes.release_signature(r1)).version AS v1_version,
       (dpbayes.release_signature(r1)).binding IS NULL AS v1_no_binding,
       r1::jsonb->'signature' ? 'version' AS v1_text_has_version
FROM sts;
SELECT dpbayes.release_send(r2::text::dpbayes.release) = dpbayes.release_send(r2) AS v2_same_bytes,
       pg_temp.sig_verify(r2::text::dpbayes.release) AS v2_text_round_trip,
       pg_temp.sig_verify(r1::text::dpbayes.release) AS v1_text_round_trip
FROM sts;
-- edits: a value moved by one grid step, the binding, the signature version
CREATE TEMP TABLE js28 AS SELECT r2::jsonb AS j FROM sts;
CREATE FUNCTION pg_temp.edited_st(path text[], v jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r dpbayes.release;
BEGIN
  SELECT jsonb_set(j, path, v)::text::dpbayes.release INTO r FROM js28;
  RETURN pg_temp.sig_verify(r)::text || ' (' || pg_temp.sig_detail(r) || ')';
EXCEPTION WHEN OTHERS THEN
  RETURN 'rejected on input: ' || SQLSTATE;
END $$;
SELECT pg_temp.edited_st('{blocks,0,values,0}',
    to_jsonb((j #>> '{blocks,0,values,0}')::float8 + (j #>> '{blocks,0,grid}')::float8)) AS value_edit
FROM js28;
SELECT pg_temp.edited_st('{signature,binding}', to_jsonb(encode(sha256('other'), 'hex'))) AS binding_edit;
SELECT pg_temp.sig_detail((j #- '{signature,version}' #- '{signature,binding}')::text::dpbayes.release)
       AS as_version_1 FROM js28;
SELECT pg_temp.edited_st('{signature,version}', '3') AS version_3;
-- the binding is exactly 32 bytes
SELECT pg_temp.err($q$SELECT dpbayes._sign(r, 'st-1', 'public.d28', '\x00'::bytea, k.private_key) FROM st28, k28 k WHERE k.n = 2$q$);
SELECT pg_temp.err($q$SELECT dpbayes._sign(r, 'st-1', 'public.d28', sha512('x'), k.private_key) FROM st28, k28 k WHERE k.n = 2$q$);

-- ---- revocation ----
SELECT dpbayes.revoke_signing_key(key_id) FROM k28 WHERE n = 1;
SELECT pg_temp.sig_verify(r) AS verify, pg_temp.sig_detail(r) AS detail FROM bds;
-- the other key is not revoked
SELECT pg_temp.sig_detail(r2) AS other_key FROM sts;
SELECT n, revoked_at IS NOT NULL AS revoked, retired_at IS NOT NULL AS retired
FROM dpbayes.signing_key JOIN k28 USING (key_id) ORDER BY n;
-- revoking twice keeps the first time; an unknown or null key id is an error
SELECT revoked_at AS first_revoked FROM dpbayes.signing_key WHERE key_id = (SELECT key_id FROM k28 WHERE n = 1) \gset
SELECT dpbayes.revoke_signing_key(key_id) FROM k28 WHERE n = 1;
SELECT revoked_at = :'first_revoked' AS same_time FROM dpbayes.signing_key WHERE key_id = (SELECT key_id FROM k28 WHERE n = 1);
SELECT pg_temp.err($q$SELECT dpbayes.revoke_signing_key(key_id) FROM k28 WHERE n = 3$q$);
SELECT pg_temp.err($q$SELECT dpbayes.revoke_signing_key(NULL)$q$);
-- an active key: revoking retires it too
CREATE TEMP TABLE k28b AS SELECT * FROM dpbayes._keygen();
INSERT INTO dpbayes.signing_key (key_id, public_key, created_at)
SELECT key_id, public_key, '2000-01-01' FROM k28b;
SELECT dpbayes.revoke_signing_key(key_id) FROM k28b;
SELECT revoked_at IS NOT NULL AS revoked, retired_at IS NOT NULL AS retired
FROM dpbayes.signing_key WHERE key_id = (SELECT key_id FROM k28b);
-- not for everyone: revoke_signing_key and _sign are not granted to PUBLIC
SELECT has_function_privilege('public', 'dpbayes.revoke_signing_key(bytea)', 'EXECUTE') AS public_revoke,
       has_function_privilege('public', 'dpbayes._sign(dpbayes.release, text, text, bytea, bytea)', 'EXECUTE') AS public_sign2,
       has_function_privilege('public', 'dpbayes.release_signature(dpbayes.release)', 'EXECUTE') AS public_release_signature,
       has_function_privilege('public', 'dpbayes.verify(dpbayes.release)', 'EXECUTE') AS public_verify;

-- ---- the ledger: a version-2 release signed outside the governed path ----
-- (here, by hand with a key of the server) names no released charge, so
-- dpbayes.verify says no; unsigned releases still give unsigned, and a
-- version-1 release keeps the 0.1.0 rules
SELECT dpbayes.verify(r2) AS v2_verify, dpbayes.verify_detail(r2) AS v2_detail,
       dpbayes.verify(r1) AS v1_verify FROM sts;
SELECT dpbayes.verify_detail(dpbayes.betad_logistic(y, dpbayes.betad(1, 'logistic', lower => '{0}', upper => '{1}'), x1))
       AS unsigned_betad FROM d28;

-- clean up the test keys (past the append-only guard, as the superuser)
SET session_replication_role = replica;
DELETE FROM dpbayes.signing_key WHERE key_id IN (SELECT key_id FROM k28 UNION ALL SELECT key_id FROM k28b);
RESET session_replication_role;
