-- test/upgrade/compare.sql — did the upgrade keep what the deployment had?
-- (test/upgrade.sh; after snapshot.sql with which=before, ALTER EXTENSION
-- dpbayes UPDATE, snapshot.sql with which=after.)  One line per finding:
--   FAILED row ...        a row before the upgrade is gone, or a value it had
--                         changed (a column the upgrade added is not compared:
--                         only the keys the row had before, also inside a
--                         composite value such as a charge's privacy
--                         parameters), or a table the
--                         deployment had gained a row
--   FAILED privileges ... an object that exists before and after changed its
--                         owner or privileges
--   note ...              objects the upgrade added or dropped (their
--                         definitions and privileges are checked by the
--                         schema comparison against a fresh install)
-- No output: everything kept.
--
-- upg_check.intended lists the changes an upgrade is meant to make to what a
-- deployment had, each with its reason: for rows or privileges of that kind
-- whose key is LIKE key_like, the fields named are not compared (their new
-- values are checked by the schema comparison against a fresh install and by
-- after.sql).
CREATE TABLE IF NOT EXISTS upg_check.intended (what text, kind text, key_like text, fields text[], why text);
TRUNCATE upg_check.intended;
INSERT INTO upg_check.intended VALUES
  ('privileges', 'relation', 'dpbayes.%', '{owner,acl}',
   '0.2.0: the NOLOGIN ledger role owns the ledger; the owner role reads it (issue 23, P7)'),
  ('privileges', 'routine', 'dpbayes.%', '{owner,acl}',
   '0.2.0: the ledger role owns the SECURITY DEFINER routines; _charge and _compute are granted to nobody (issue 23, P2, P7)'),
  ('privileges', 'routine', 'dpbayes.%', '{config,security_definer}',
   '0.2.0: the governed routines pin the settings that change text conversion and plans, and run as the ledger role (issue 23, P7, P8)'),
  ('privileges', 'schema', 'dpbayes', '{acl}',
   '0.2.0: the ledger role uses the schema (issue 23, P7)'),
  ('privileges', 'relation', 'patients%', '{acl}',
   '0.2.0: governance_setup lets the ledger role read the datasets registered before (issue 23, P7)'),
  ('privileges', 'type', 'dpbayes.%', '{owner}',
   '0.2.0: the ledger role owns the ledger tables and so their row types (issue 23, P7)'),
  ('rows', 'my_requests', '%', '{error_message}',
   '0.2.0: an analyst sees a fixed message; the owner reads the error in dpbayes.charge (issue 23, finding 5)');
CREATE OR REPLACE FUNCTION upg_check.strip(what text, kind text, key text, j jsonb) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT j - array_agg(f) FROM upg_check.intended i, unnest(i.fields) f
                     WHERE i.what = $1 AND i.kind = $2 AND $3 LIKE i.key_like), j)
$$;
-- a's keys that b has; in an object that both have under a key (a value of
-- a composite type, such as the privacy parameters of a charge), likewise:
-- an attribute the upgrade added to a composite type is not compared, as a
-- column it added is not (0.2.0 added y_clamped to dpbayes.privacy)
CREATE OR REPLACE FUNCTION upg_check.only_keys_of(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(e.k,
                     CASE WHEN jsonb_typeof(e.v) = 'object' AND jsonb_typeof(b -> e.k) = 'object'
                          THEN upg_check.only_keys_of(e.v, b -> e.k) ELSE e.v END), '{}')
            FROM jsonb_each(a) e(k, v) WHERE b ? e.k);
END $$;

SELECT 'FAILED row ' || b.kind || ' ' || b.key || E':\n    before: ' || b.j::text
       || E'\n    after:  ' || CASE WHEN a.j IS NULL THEN '(gone)' ELSE upg_check.only_keys_of(a.j, b.j)::text END
FROM upg_check.rows_before b LEFT JOIN upg_check.rows_after a USING (kind, key)
WHERE a.j IS NULL OR upg_check.strip('rows', kind, key, upg_check.only_keys_of(a.j, b.j))
                     <> upg_check.strip('rows', kind, key, b.j)
UNION ALL
SELECT 'FAILED row ' || a.kind || ' ' || a.key || ' added by the upgrade: ' || a.j::text
FROM upg_check.rows_after a LEFT JOIN upg_check.rows_before b USING (kind, key)
WHERE b.kind IS NULL
ORDER BY 1;

SELECT 'FAILED privileges of ' || b.kind || ' ' || b.key || E':\n    before: ' || b.j::text
       || E'\n    after:  ' || upg_check.only_keys_of(a.j, b.j)::text
FROM upg_check.privileges_before b JOIN upg_check.privileges_after a USING (kind, key)
WHERE upg_check.strip('privileges', kind, key, upg_check.only_keys_of(a.j, b.j))
      <> upg_check.strip('privileges', kind, key, b.j)
ORDER BY 1;

SELECT 'note: ' || count(*) FILTER (WHERE b.kind IS NULL) || ' objects added and '
       || count(*) FILTER (WHERE a.kind IS NULL) || ' dropped by the upgrade: '
       || string_agg(CASE WHEN b.kind IS NULL THEN '+' ELSE '-' END || coalesce(a.kind, b.kind)
                     || ' ' || coalesce(a.key, b.key), ', ' ORDER BY coalesce(a.key, b.key))
FROM upg_check.privileges_before b FULL JOIN upg_check.privileges_after a USING (kind, key)
WHERE a.kind IS NULL OR b.kind IS NULL
HAVING count(*) > 0;
