-- test/upgrade/populate.sql — the rows of a deployment at the old version
-- (test/upgrade.sh; after schema.sql, as the superuser): three datasets,
-- grants, governed releases (released, refused for budget, failed, with
-- group keys and a privacy unit, before and after a key rotation), the
-- audit rows they leave, and ordinary releases (linear, logistic, Poisson,
-- betaD, LDP) kept in a user table.  Only the objects of 0.1.0 are used.
INSERT INTO public.patients
SELECT i, i % 150, i % 4, (i % 10) / 10.0, (i % 7) / 7.0, (i % 13) / 13.0 - 0.5,
       (i * 7919) % 1000 < 300
FROM generate_series(1, 600) i;

-- ---- the governance owner registers the datasets and grants the analysts ----
SET SESSION AUTHORIZATION dpb_upg_owner;
-- Laplace epsilon 1 against 2.5: two releases, the third is refused
SELECT dpbayes.register_dataset('public.patients', 2.5, 0);
SELECT dpbayes.register_dataset('public.patients_bad', 10, 1e-5);
SELECT dpbayes.register_dataset('public.patients_unit', 20, 1e-6, 'unit', 3);
SELECT dpbayes.grant_dataset('public.patients', 'dpb_upg_analyst');
SELECT dpbayes.grant_dataset('public.patients_bad', 'dpb_upg_analyst');
SELECT dpbayes.grant_dataset('public.patients_unit', 'dpb_upg_analyst');
RESET SESSION AUTHORIZATION;

SELECT dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS lap \gset
SELECT dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 1,
    lower => '{0,0}', upper => '{1,1}') AS gau \gset

-- ---- an analyst's governed releases ----
SET SESSION AUTHORIZATION dpb_upg_alice;
CALL dpbayes.release('public.patients', 'linear', 'y', '{x1,x2}', :'lap', 'r1');
CALL dpbayes.release('public.patients', 'linear', 'y', '{x1,x2}', :'lap', 'r1');  -- duplicate
CALL dpbayes.release('public.patients_unit', 'linear', 'y', '{x1,x2}', :'gau', 'u1');
CALL dpbayes.release('public.patients_unit', 'linear', 'y', '{x1,x2}', :'lap', 'grp1', 'region', '{0,1,2,7}');
-- fails after its charge (the view divides by zero): charged, status
-- failed, SQLSTATE DP002
\set ON_ERROR_STOP 0
CALL dpbayes.release('public.patients_bad', 'linear', 'y', '{x1,x2}', :'gau', 'b1');
\set ON_ERROR_STOP 1
INSERT INTO public.stored_release (name, r)
SELECT 'governed ' || request_id || coalesce(' ' || nullif(group_key, ''), ''), release
FROM dpbayes.my_requests WHERE release IS NOT NULL;
RESET SESSION AUTHORIZATION;

-- ---- the owner rotates the signing key: older releases keep verifying ----
SET SESSION AUTHORIZATION dpb_upg_owner;
SELECT length(dpbayes.rotate_signing_key()) AS new_key_id_bytes;
RESET SESSION AUTHORIZATION;

SET SESSION AUTHORIZATION dpb_upg_alice;
CALL dpbayes.release('public.patients', 'linear', 'y', '{x1,x2}', :'lap', 'r2');
CALL dpbayes.release('public.patients_bad', 'linear', 'x2', '{x1}',
     dpbayes.privacy(epsilon => 0.5, delta => 1e-7, y_bound => 1, lower => '{0}', upper => '{1}'), 'g1');
INSERT INTO public.stored_release (name, r)
SELECT 'governed ' || request_id, release FROM dpbayes.my_requests WHERE request_id IN ('r2', 'g1');
-- over budget: refused (SQLSTATE DP001), nothing charged, an audit row
\set ON_ERROR_STOP 0
CALL dpbayes.release('public.patients', 'linear', 'y', '{x1,x2}', :'lap', 'r3');
\set ON_ERROR_STOP 1
RESET SESSION AUTHORIZATION;

-- ---- ordinary releases kept in a user table ----
INSERT INTO public.stored_release (name, r)
SELECT 'linear', dpbayes.linear_release(ARRAY[x1, x2], y, :'gau') FROM public.patients;
INSERT INTO public.stored_release (name, r)
SELECT 'logistic columns', dpbayes.logistic_release(hiv,
         dpbayes.privacy(epsilon => 1, lower => '{0,0}', upper => '{1,1}'), x1, x2)
FROM public.patients;
INSERT INTO public.stored_release (name, r)
SELECT 'poisson', dpbayes.poisson_release(ARRAY[x1], (i % 5)::float8,
         dpbayes.privacy(epsilon => 1, y_bound => 5, lower => '{0}', upper => '{1}'))
FROM public.patients;
INSERT INTO public.stored_release (name, r)
SELECT 'betad logistic', dpbayes.betad_logistic(ARRAY[x1, x2], hiv,
         dpbayes.betad(2, 'logistic', features => ARRAY['x1', 'x2'], lower => '{0,0}', upper => '{1,1}',
                       chains => 2, warmup => 100, iterations => 100))
FROM public.patients;
-- LDP: simulated reports (superuser only), summed into a release, collected
SET dpbayes.allow_simulation = on;
INSERT INTO public.stored_release (name, r)
SELECT 'ldp ss_linear', dpbayes.ldp_release(dpbayes_sim.randomize_raw_record_not_ldp(p, ARRAY[x1, x2, y]), p)
FROM public.patients,
     (SELECT dpbayes.ldp_protocol('ss_linear', 4, delta => 1e-6, d => 2,
                                  lower => '{0,0}', upper => '{1,1}', y_bound => 1) AS p) q
GROUP BY p;
INSERT INTO public.stored_collection (name, c)
SELECT 'ldp scalar_laplace', dpbayes.ldp_collect(dpbayes_sim.randomize_raw_record_not_ldp(p, ARRAY[y]), p)
FROM public.patients,
     (SELECT dpbayes.ldp_protocol('scalar_laplace', 2, lower => '{-1}', upper => '{1}') AS p) q
GROUP BY p;
RESET dpbayes.allow_simulation;

-- the deployment is what test/upgrade.sh says it is
DO $$ BEGIN
  ASSERT (SELECT string_agg(request_id || ' ' || status, ', ' ORDER BY request_id) FROM dpbayes.charge)
         = 'b1 failed, g1 released, grp1 released, r1 released, r2 released, u1 released',
         'the charges and their statuses';
  ASSERT (SELECT count(*) FROM dpbayes.audit WHERE outcome = 'refused: over budget') = 1, 'one refusal';
  ASSERT (SELECT count(*) FROM dpbayes.audit WHERE outcome = 'duplicate') = 1, 'one duplicate';
  ASSERT (SELECT count(*) FROM dpbayes.released WHERE NOT dpbayes.verify(release)) = 0, 'signed releases';
  ASSERT (SELECT count(*) FROM dpbayes.signing_key WHERE retired_at IS NOT NULL) = 1, 'one retired key';
  ASSERT (SELECT count(*) FROM public.stored_release) = 13, 'the stored releases';
END $$;
