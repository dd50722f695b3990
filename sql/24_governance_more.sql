-- Governed releases, continued (docs/governance.md): signed releases and
-- dpbayes.verify.  No noisy value is printed.
CREATE EXTENSION IF NOT EXISTS dpbayes;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_owner') THEN
    CREATE ROLE dpbayes_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_analyst') THEN
    CREATE ROLE dpbayes_analyst NOLOGIN;
  END IF;
END $$;
SELECT dpbayes.governance_setup('dpbayes_owner', 'dpbayes_analyst');
GRANT USAGE, CREATE ON SCHEMA public TO dpbayes_owner;
GRANT USAGE ON SCHEMA public TO dpbayes_analyst;
-- the set-up made the signing key
SELECT count(*) AS active_keys FROM dpbayes.signing_key WHERE retired_at IS NULL;

SET SESSION AUTHORIZATION dpbayes_owner;
CREATE TABLE g24 AS
SELECT i, (i % 10) / 10.0 AS x1, ((i % 7) / 7.0)::float8 AS x2,
       ((i % 13) / 13.0 - 0.5)::float8 AS y, (i % 37) AS unit, (i % 3) AS region
FROM generate_series(1, 600) i;
SELECT dpbayes.register_dataset('g24', 10, 1e-6);
RESET SESSION AUTHORIZATION;

-- ---- signed releases ----
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.privacy(epsilon => 1, delta => 1e-7, y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS gp \gset
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'gp', 's1');
CREATE TEMP TABLE mine AS SELECT request_id, release FROM dpbayes.my_requests WHERE request_id = 's1';
SELECT s.alg, length(s.key_id) AS key_id_bytes, s.request_id, s.dataset
FROM mine, dpbayes.release_signature(release) s;
SELECT dpbayes.verify(release), dpbayes.verify_detail(release) FROM mine;
-- the key id is one of the server's public keys, which everyone can read
SELECT (dpbayes.release_signature(release)).key_id IN (SELECT key_id FROM dpbayes.signing_key) AS known_key
FROM mine;
-- text round trip (pg_dump, COPY): still valid
SELECT dpbayes.verify(release::text::dpbayes.release) AS text_round_trip,
       release::text = release::text::dpbayes.release::text AS same_text FROM mine;
-- edits: a value moved by one grid step, epsilon, the noise scale, n, the
-- request id, the dataset, the signature, the signature removed
CREATE TEMP TABLE j AS SELECT release::text::jsonb AS j FROM mine;
CREATE FUNCTION pg_temp.edited(path text[], v jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r dpbayes.release;
BEGIN
  SELECT jsonb_set(j, path, v)::text::dpbayes.release INTO r FROM j;
  RETURN dpbayes.verify(r)::text || ' (' || dpbayes.verify_detail(r) || ')';
EXCEPTION WHEN OTHERS THEN
  RETURN 'rejected on input: ' || SQLSTATE;
END $$;
SELECT pg_temp.edited('{blocks,0,values,0}',
    to_jsonb((j #>> '{blocks,0,values,0}')::float8 + (j #>> '{blocks,0,grid}')::float8)) AS value_edit FROM j;
SELECT pg_temp.edited('{epsilon}', '2') AS epsilon_edit;
SELECT pg_temp.edited('{noise_scale}', to_jsonb((j->>'noise_scale')::float8 * 2)) AS noise_edit FROM j;
SELECT pg_temp.edited('{neighbours}', '"replace"') AS neighbours_edit;
SELECT pg_temp.edited('{signature,request_id}', '"s2"') AS request_edit;
SELECT pg_temp.edited('{signature,dataset}', '"public.other"') AS dataset_edit;
SELECT pg_temp.edited('{signature,value}',
    to_jsonb(overlay(j #>> '{signature,value}' placing
             CASE WHEN substr(j #>> '{signature,value}', 1, 1) = '0' THEN '1' ELSE '0' END from 1 for 1))) AS sig_edit
FROM j;
SELECT pg_temp.edited('{signature,key_id}', '"0011223344556677"') AS key_edit;
SELECT dpbayes.verify((j - 'signature')::text::dpbayes.release),
       dpbayes.verify_detail((j - 'signature')::text::dpbayes.release) FROM j;
SELECT pg_temp.err($q$SELECT jsonb_set(j, '{signature,alg}', '"rsa"')::text::dpbayes.release FROM j$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(j, '{signature,value}', '"00"')::text::dpbayes.release FROM j$q$);
SELECT pg_temp.err($q$SELECT jsonb_set(j, '{signature,request_id}', '"a\tb"')::text::dpbayes.release FROM j$q$);
-- an aggregate's release is unsigned
SELECT dpbayes.verify_detail(dpbayes.linear_release(y, :'gp', x1::float8, x2))
FROM (SELECT 0.1 AS y, 0.5 AS x1, 0.5::float8 AS x2) t;
-- an analyst cannot read or change the key, nor sign with a key of its own
SELECT pg_temp.err($q$SELECT count(*) FROM dpbayes.signing_secret$q$);
SELECT pg_temp.err($q$UPDATE dpbayes.signing_key SET retired_at = now()$q$);
SELECT pg_temp.err($q$INSERT INTO dpbayes.signing_key VALUES ('\x0011223344556677', '\x00', now())$q$);
SELECT pg_temp.err($q$SELECT dpbayes._keygen()$q$);
SELECT pg_temp.err($q$SELECT dpbayes._signing_key()$q$);
SELECT pg_temp.err($q$SELECT dpbayes.rotate_signing_key()$q$);
SELECT pg_temp.err($q$SELECT dpbayes._sign(release, 's1', 'public.g24', '\x00') FROM mine$q$);
RESET SESSION AUTHORIZATION;
-- a key rotation: old releases still verify, new ones use the new key
SET SESSION AUTHORIZATION dpbayes_owner;
SELECT length(dpbayes.rotate_signing_key()) AS new_key_id_bytes;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS keys, count(*) FILTER (WHERE retired_at IS NULL) AS active FROM dpbayes.signing_key;
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.verify(release) AS old_release_still_valid FROM mine;
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'gp', 's2');
SELECT dpbayes.verify(r.release) AS new_valid,
       (dpbayes.release_signature(r.release)).key_id <> (dpbayes.release_signature(m.release)).key_id AS new_key
FROM dpbayes.my_requests r, mine m WHERE r.request_id = 's2';
RESET SESSION AUTHORIZATION;
-- a release signed by a key that is not the server's
SELECT dpbayes.verify_detail(dpbayes._sign(release, 's1', 'public.g24', k.private_key))
FROM mine, dpbayes._keygen() k;
