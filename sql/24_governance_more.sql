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
GRANT SELECT ON g24 TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g24', 10, 1e-6);
CREATE TABLE g24_private AS SELECT * FROM g24;
GRANT SELECT ON g24_private TO dpbayes_ledger;
SELECT dpbayes.register_dataset('g24_private', 10, 1e-6);
-- per-dataset grants: the analyst may request g24 (and g24u below), not g24_private
SELECT dpbayes.grant_dataset('g24', 'dpbayes_analyst');
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

-- ---- privacy units: at most k rows per unit, chosen at random, before the release ----
SET SESSION AUTHORIZATION dpbayes_owner;
-- 37 units of 16 or 17 rows (unit = i % 37), and unit 99 with a single row
CREATE TABLE g24u AS SELECT * FROM g24 UNION ALL SELECT 601, 0.5, 0.5, 0.1, 99, 0;
GRANT SELECT ON g24u TO dpbayes_ledger;
SELECT pg_temp.err($q$SELECT dpbayes.register_dataset('g24u', 20, 1e-6, 'unit', 0)$q$);
SELECT dpbayes.register_dataset('g24u', 20, 1e-6, 'unit', 3);
SELECT dpbayes.grant_dataset('g24u', 'dpbayes_analyst');
RESET SESSION AUTHORIZATION;
-- brute force: the source keeps min(rows of the unit, 3) rows of each unit
CREATE FUNCTION pg_temp.src_counts(k int, OUT total bigint, OUT max_per_unit bigint,
    OUT units bigint, OUT ids int[]) LANGUAGE plpgsql AS $$
BEGIN
  -- the source of a charge of response i (its column __dpb_c0) and feature x1
  EXECUTE format('SELECT sum(c), max(c), count(*), array_agg(i ORDER BY i) FROM
      (SELECT s.__dpb_unit AS u, count(*) AS c, array_agg(s.__dpb_c0::int) AS ii FROM (%s) s GROUP BY 1) g,
      LATERAL (SELECT pg_catalog.min(x) FROM unnest(g.ii) x) m(i)',
      dpbayes._source(jsonb_populate_record(NULL::dpbayes.charge,
          jsonb_build_object('relation', 'g24u', 'model', 'linear', 'response', 'i',
                             'features', '{x1}'::text[], 'unit_rows', k)), 'unit'))
  INTO total, max_per_unit, units, ids;
END $$;
SELECT (SELECT sum(least(c, 3)) FROM (SELECT count(*) c FROM g24u GROUP BY unit) x) AS brute_force,
       total, max_per_unit, units FROM pg_temp.src_counts(3);
SELECT total, max_per_unit FROM pg_temp.src_counts(1);
-- the choice is random, not by value: two draws keep different rows
SELECT a.ids IS DISTINCT FROM b.ids AS random_choice FROM pg_temp.src_counts(3) a, pg_temp.src_counts(3) b;
-- the charge is for a group of k = 3 rows: Laplace 3 eps and rho x 9;
-- Gaussian rho x 9 and its eps from 9 rho at the request's delta
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS lp \gset
CALL dpbayes.release('g24u', 'linear', 'y', '{x1,x2}', :'lp', 'u1');
CALL dpbayes.release('g24u', 'linear', 'y', '{x1,x2}', :'gp', 'u2');
SELECT r.request_id, r.status, r.unit_rows, r.epsilon AS charged_epsilon,
       r.rho = 9 * c.rho AS rho_times_9,
       CASE r.mechanism WHEN 'laplace' THEN r.epsilon = 3 * c.epsilon
            ELSE r.epsilon = (dpbayes.compose(9 * c.rho, 1e300, 0, 1, 1e300, c.delta)).epsilon_spent
            END AS epsilon_of_the_group,
       dpbayes.verify(r.release) AS signed
FROM dpbayes.my_requests r, dpbayes.charge_of('linear', 2,
     CASE r.request_id WHEN 'u1' THEN :'lp'::dpbayes.privacy ELSE :'gp'::dpbayes.privacy END) c
WHERE r.request_id IN ('u1', 'u2') ORDER BY 1;
-- the released (noisy) count is the bounded one, 112 rows, not 601: within
-- 8 noise sd (a wrong bounding is off by hundreds)
SELECT r.request_id, abs(s.value - 112) < 8 * s.noise_sd AS count_is_bounded, s.noise_sd < 20 AS sd_small
FROM dpbayes.my_requests r, dpbayes.release_stats(r.release) s
WHERE r.request_id IN ('u1', 'u2') AND s.block = 'count' ORDER BY 1;
SELECT charges, method, round(epsilon_spent::numeric, 6) AS epsilon_spent FROM dpbayes.budget('g24u');
RESET SESSION AUTHORIZATION;

-- ---- public group keys: one release per listed key, parallel composition ----
SET SESSION AUTHORIZATION dpbayes_analyst;
SELECT charges AS before_charges, rho_spent AS before_rho FROM dpbayes.budget('g24') \gset
-- region = i % 3 (200 rows each); key 7 does not occur: a release of noise alone
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp1', 'region', '{0,1,2,7}');
SELECT group_key, status, group_by, group_count, epsilon AS charged_epsilon, dpbayes.verify(release) AS signed,
       (dpbayes.release_signature(release)).dataset
FROM dpbayes.my_requests WHERE request_id = 'grp1' ORDER BY group_key;
-- the noisy counts: 200 per region, 0 for the absent key (within 8 noise sd)
SELECT r.group_key, abs(s.value - CASE r.group_key WHEN '7' THEN 0 ELSE 200 END) < 8 * s.noise_sd AS count_ok
FROM dpbayes.my_requests r, dpbayes.release_stats(r.release) s
WHERE r.request_id = 'grp1' AND s.block = 'count' ORDER BY 1;
-- four disjoint groups cost one release: one charge, rho = eps^2 / 2 = 0.5
SELECT charges - :before_charges AS new_charges, rho_spent - :before_rho AS new_rho FROM dpbayes.budget('g24');
-- group keys with a privacy unit: bounded first, the unit-level charge once
CALL dpbayes.release('g24u', 'linear', 'y', '{x1,x2}', :'lp', 'grp2', 'region', '{0,1,2}');
SELECT group_key, status, unit_rows, epsilon FROM dpbayes.my_requests WHERE request_id = 'grp2' ORDER BY 1;
-- validation
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'region', NULL);
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'nope', '{1}');
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'region; DROP TABLE g24', '{1}');
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'region', '{1,1}');
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'region', '{}');
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp3', 'region', ARRAY[repeat('x', 51)]);
-- the same request id with other keys
CALL dpbayes.release('g24', 'linear', 'y', '{x1,x2}', :'lp', 'grp1', 'region', '{0,1}');
SELECT count(*) AS charges_grp3 FROM dpbayes.my_requests WHERE request_id = 'grp3';
RESET SESSION AUTHORIZATION;

-- ---- per-dataset grants and attacks ----
SET SESSION AUTHORIZATION dpbayes_analyst;
CALL dpbayes.release('g24_private', 'linear', 'y', '{x1,x2}', :'lp', 'p1');
SELECT pg_temp.err($q$SELECT dpbayes.grant_dataset('g24_private', 'dpbayes_analyst')$q$);
SELECT pg_temp.err($q$INSERT INTO dpbayes.dataset_grant VALUES ('g24_private', 'dpbayes_analyst')$q$);
SELECT pg_temp.err($q$SELECT dpbayes._source(NULL::dpbayes.charge, NULL)$q$);
SELECT pg_temp.err($q$SELECT count(*) FROM g24$q$);
SELECT pg_temp.err($q$SELECT dpbayes.linear_release(y, dpbayes.privacy(epsilon => 100, y_bound => 1, lower => '{0}', upper => '{1}'), x2) FROM g24$q$);
SELECT pg_temp.err($q$SET dpbayes.insecure_noise_seed = 1$q$);
SELECT pg_temp.err($q$ALTER FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) SET search_path = public$q$);
-- search_path: an analyst's own functions named like the catalog's, first
-- in its search_path, are never called by the SECURITY DEFINER routines
RESET SESSION AUTHORIZATION;
CREATE SCHEMA dpb_evil AUTHORIZATION dpbayes_analyst;
SET SESSION AUTHORIZATION dpbayes_analyst;
CREATE FUNCTION dpb_evil.random() RETURNS float8 LANGUAGE sql AS $$ SELECT 0.5::float8 $$;
CREATE FUNCTION dpb_evil.quote_ident(text) RETURNS text LANGUAGE sql AS $$ SELECT 'x1' $$;
CREATE FUNCTION dpb_evil.row_number() RETURNS bigint LANGUAGE sql AS $$ SELECT 1::bigint $$;
SET search_path = dpb_evil, pg_catalog;
CALL dpbayes.release('public.g24u', 'linear', 'y', '{x1,x2}', :'lp', 'sp1');
RESET search_path;
SELECT status FROM dpbayes.my_requests WHERE request_id = 'sp1';
-- injected identifiers: a response, a feature, a group column
SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0}', upper => '{1}') AS lp1 \gset
CALL dpbayes.release('g24', 'linear', 'y) FROM pg_authid --', '{x1}', :'lp1', 'inj1');
CALL dpbayes.release('g24', 'linear', 'y', '{"x1\"; SELECT 1; --"}', :'lp1', 'inj2');
SELECT count(*) AS injected_charges FROM dpbayes.my_requests WHERE request_id LIKE 'inj%' OR request_id = 'p1';
RESET SESSION AUTHORIZATION;
SELECT who, request_id, outcome FROM dpbayes.audit WHERE request_id IN ('p1', 'sp1') ORDER BY id;
DROP SCHEMA dpb_evil CASCADE;
