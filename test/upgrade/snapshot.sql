-- test/upgrade/snapshot.sql — what a deployment keeps, as rows (kind, key,
-- j jsonb) of the tables upg_check.rows_<which> and upg_check.privileges_<which>
-- (test/upgrade.sh; psql -v which=before|after|dump, as the superuser):
--   rows:       the ledger (datasets, charges, releases with the verdict of
--               dpbayes.verify, audit, its sequence, grants, public keys), the
--               budgets, the user tables of stored releases and collections,
--               and what the analyst sees in dpbayes.my_requests;
--   privileges: the owner and privileges of every schema, relation, routine
--               and type of the schemas dpbayes, dpbayes_sim and public, the
--               analysts' role memberships, the private signing keys (as
--               digests).
-- Keyed by primary key or name, so that compare.sql can tell a changed row
-- from a new column or a new object.  The schema upg_check is dropped before
-- the schemas are compared and before pg_dump.
SET client_min_messages = warning;
CREATE SCHEMA IF NOT EXISTS upg_check;

CREATE OR REPLACE FUNCTION upg_check.rows() RETURNS TABLE (kind text, key text, j jsonb)
LANGUAGE sql STABLE AS $$
SELECT 'dataset', d.relation::text, to_jsonb(d) FROM dpbayes.dataset d
UNION ALL
SELECT 'charge', c.request_id, to_jsonb(c) FROM dpbayes.charge c
UNION ALL
SELECT 'released', r.request_id || ' ' || r.group_key,
       to_jsonb(r) || jsonb_build_object('verify', dpbayes.verify_detail(r.release))
FROM dpbayes.released r
UNION ALL
SELECT 'audit', a.id::text, to_jsonb(a) FROM dpbayes.audit a
UNION ALL
SELECT 'audit_id_seq', '', jsonb_build_object('last_value', s.last_value, 'is_called', s.is_called)
FROM dpbayes.audit_id_seq s
UNION ALL
SELECT 'dataset_grant', g.relation::text || ' ' || g.grantee, to_jsonb(g) FROM dpbayes.dataset_grant g
UNION ALL
SELECT 'signing_key', encode(k.key_id, 'hex'), to_jsonb(k) FROM dpbayes.signing_key k
UNION ALL
SELECT 'budget', d.relation::text, to_jsonb(b) FROM dpbayes.dataset d, dpbayes.budget(d.relation) b
UNION ALL
SELECT 'stored_release', s.name,
       to_jsonb(s) || jsonb_build_object('verify',
           CASE WHEN s.name LIKE 'governed %' THEN dpbayes.verify_detail(s.r) END)
FROM public.stored_release s
UNION ALL
SELECT 'stored_collection', s.name,
       jsonb_build_object('md5', md5(s.c), 'info', dpbayes.ldp_collection_info(s.c))
FROM public.stored_collection s
$$;

CREATE OR REPLACE FUNCTION upg_check.privileges() RETURNS TABLE (kind text, key text, j jsonb)
LANGUAGE sql STABLE AS $$
SELECT 'schema', n.nspname, jsonb_build_object('owner', pg_get_userbyid(n.nspowner), 'acl', n.nspacl::text)
FROM pg_namespace n WHERE n.nspname IN ('dpbayes', 'dpbayes_sim', 'public')
UNION ALL
SELECT 'relation', c.oid::regclass::text,
       jsonb_build_object('relkind', c.relkind, 'owner', pg_get_userbyid(c.relowner), 'acl', c.relacl::text,
                          'row_security', c.relrowsecurity)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('dpbayes', 'dpbayes_sim', 'public')
UNION ALL
SELECT 'routine', p.oid::regprocedure::text,
       jsonb_build_object('owner', pg_get_userbyid(p.proowner), 'acl', p.proacl::text,
                          'security_definer', p.prosecdef, 'config', p.proconfig)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('dpbayes', 'dpbayes_sim', 'public')
UNION ALL
SELECT 'type', t.oid::regtype::text, jsonb_build_object('owner', pg_get_userbyid(t.typowner), 'acl', t.typacl::text)
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname IN ('dpbayes', 'dpbayes_sim', 'public')
UNION ALL
SELECT 'role', r.rolname,
       jsonb_build_object('member_of', ARRAY(SELECT m.roleid::regrole::text FROM pg_auth_members m
                                             WHERE m.member = r.oid ORDER BY 1))
FROM pg_roles r WHERE r.rolname LIKE 'dpb\_upg\_%'
UNION ALL
SELECT 'signing_secret', encode(s.key_id, 'hex'), jsonb_build_object('md5', md5(s.private_key))
FROM dpbayes.signing_secret s
$$;

-- the analyst's view of the ledger (as that session user)
SET SESSION AUTHORIZATION dpb_upg_alice;
CREATE TEMP TABLE upg_mine AS
SELECT m.request_id || ' ' || coalesce(m.group_key, '') AS key, to_jsonb(m) AS j FROM dpbayes.my_requests m;
RESET SESSION AUTHORIZATION;

DROP TABLE IF EXISTS upg_check.rows_:which, upg_check.privileges_:which;
CREATE TABLE upg_check.rows_:which AS
SELECT * FROM upg_check.rows()
UNION ALL
SELECT 'my_requests', m.key, m.j FROM upg_mine m;
CREATE TABLE upg_check.privileges_:which AS SELECT * FROM upg_check.privileges();
DROP TABLE upg_mine;
