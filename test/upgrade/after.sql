-- test/upgrade/after.sql — the upgraded database still works (test/upgrade.sh;
-- after ALTER EXTENSION dpbayes UPDATE, as the superuser).  Each check prints
-- "ok <what>" or stops the script with "FAILED <what>".
CREATE FUNCTION pg_temp.expect(ok boolean, what text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'FAILED %', what;
  END IF;
  RETURN 'ok ' || what;
END $$;

SELECT pg_temp.expect(count(*) >= 5 AND bool_and(dpbayes.verify(release)),
    'the ' || count(*) || ' governed releases made before the upgrade verify')
FROM dpbayes.released;
SELECT pg_temp.expect(count(*) = (SELECT count(*) FROM dpbayes.released) AND bool_and(dpbayes.verify(r)),
    'the ' || count(*) || ' stored copies of governed releases verify')
FROM public.stored_release WHERE name LIKE 'governed %';
SELECT pg_temp.expect(count(*) >= 5 AND bool_and(s.version = 1 AND s.binding IS NULL),
    'they carry signatures of version 1 (no binding)')
FROM dpbayes.released r, dpbayes.release_signature(r.release) s;
-- a stored betaD release signed (version 2) by hand with the active key after
-- the upgrade: the signature is good, but its binding names no charge of the
-- ledger, so dpbayes.verify says no
SELECT pg_temp.expect(count(*) = 1
    AND bool_and(dpbayes._verify_signature(s.r2, k.public_key) = 'valid')
    AND bool_and(dpbayes.verify_detail(s.r2) = 'no released charge in the ledger'),
    'a stored betaD release signed by hand with a binding (version 2): good signature, not in the ledger')
FROM (SELECT dpbayes._sign(r, 'after-upgrade-betad', 'public.patients', sha256('after-upgrade'),
                           (dpbayes._signing_key()).private_key) AS r2
      FROM public.stored_release WHERE name = 'betad logistic') s
JOIN dpbayes.signing_key k ON k.key_id = (dpbayes.release_signature(s.r2)).key_id;
SELECT pg_temp.expect(count(*) = 5 AND bool_and(r::text::dpbayes.release::text = r::text)
    AND bool_and(dpbayes.release_json(r)->>'format' = 'dpbayes.release'),
    'the ' || count(*) || ' stored ordinary releases read (text round trip, json)')
FROM public.stored_release WHERE name NOT LIKE 'governed %';
SELECT pg_temp.expect(count(*) > 0, 'release_summary reads every stored release')
FROM public.stored_release s, dpbayes.release_summary(s.r);
SELECT pg_temp.expect((dpbayes.ldp_collection_info(c)->>'reports')::int = 600,
    'the stored LDP collection reads (600 reports)')
FROM public.stored_collection;

-- a posterior on a release stored before the upgrade
SELECT pg_temp.expect(count(*) = 5 AND count(*) FILTER (WHERE variable = 'theta[x1]') = 1
                      AND bool_and(mean = mean AND sd > 0),
    'a posterior on the stored linear release (' || string_agg(variable, ', ' ORDER BY variable) || ')')
FROM dpbayes.posterior_summary((SELECT r FROM public.stored_release WHERE name = 'linear'),
                               draws => 200, chains => 2, warmup => 200, seed => 7);

-- a new governed release after the upgrade, and the budget still refuses
SELECT epsilon_spent AS spent_before, charges AS charges_before
FROM dpbayes.budget('public.patients_unit') \gset
SET SESSION AUTHORIZATION dpb_upg_alice;
CALL dpbayes.release('public.patients_unit', 'linear', 'y', '{x1,x2}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                     lower => '{0,0}', upper => '{1,1}'), 'after-upgrade-1');
\set ON_ERROR_STOP 0
CALL dpbayes.release('public.patients', 'linear', 'y', '{x1,x2}',
     dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                     lower => '{0,0}', upper => '{1,1}'), 'after-upgrade-2');
\set ON_ERROR_STOP 1
CREATE TEMP TABLE mine AS SELECT * FROM dpbayes.my_requests WHERE request_id LIKE 'after-upgrade-%';
RESET SESSION AUTHORIZATION;
SELECT pg_temp.expect(count(*) = 1 AND bool_and(status = 'released' AND dpbayes.verify(release)),
    'a new governed release after the upgrade: released and signed')
FROM mine;
SELECT pg_temp.expect(b.epsilon_spent > :spent_before AND b.charges = :charges_before + 1,
    'its charge is on the ledger (spent ' || :spent_before || ' -> ' || b.epsilon_spent || ')')
FROM dpbayes.budget('public.patients_unit') b;
SELECT pg_temp.expect(count(*) = 2, 'the budget still refuses (DP001; 2 refusals audited)')
FROM dpbayes.audit WHERE outcome = 'refused: over budget' AND relation = 'public.patients'::regclass;
SELECT pg_temp.expect(count(*) = 1 AND bool_and(k.retired_at IS NULL),
    'the release after the upgrade is signed with the active key')
FROM mine m, dpbayes.release_signature(m.release) s JOIN dpbayes.signing_key k ON k.key_id = s.key_id;
-- a governed betaD draw after the upgrade: charged, signed (version 2), in
-- the ledger
SET SESSION AUTHORIZATION dpb_upg_alice;
CALL dpbayes.release_betad('public.patients_unit', 'betad_logistic', 'hiv', '{x1}',
     dpbayes.betad(0.5, 'logistic', lower => '{0}', upper => '{1}'), 'after-upgrade-betad');
CREATE TEMP TABLE mine_bd AS SELECT * FROM dpbayes.my_requests WHERE request_id = 'after-upgrade-betad';
RESET SESSION AUTHORIZATION;
SELECT pg_temp.expect(count(*) = 1 AND bool_and(m.status = 'released' AND m.mechanism = 'betad'
                      AND dpbayes.verify(m.release) AND s.version = 2),
    'a governed betaD draw after the upgrade: released, charged as betad, signed (version 2)')
FROM mine_bd m, dpbayes.release_signature(m.release) s;
-- the ledger kept from 0.1.0 and grown since verifies: the audit chain
-- (0.1.0's rows chained by the upgrade), its head, the running totals
SELECT pg_temp.expect(bool_and(ok), 'audit_verify: ' || string_agg("check" || ' ' || ok, ', '))
FROM dpbayes.audit_verify();
