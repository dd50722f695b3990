-- test/upgrade/compare.sql — did the upgrade keep what the deployment had?
-- (test/upgrade.sh; after snapshot.sql with which=before, ALTER EXTENSION
-- dpbayes UPDATE, snapshot.sql with which=after.)  One line per finding:
--   FAILED row ...        a row before the upgrade is gone, or a value it had
--                         changed (a column the upgrade added is not compared:
--                         only the keys the row had before), or a table the
--                         deployment had gained a row
--   FAILED privileges ... an object that exists before and after changed its
--                         owner or privileges
--   note ...              objects the upgrade added or dropped (their
--                         definitions and privileges are checked by the
--                         schema comparison against a fresh install)
-- No output: everything kept.
CREATE OR REPLACE FUNCTION upg_check.only_keys_of(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(e.k, e.v), '{}') FROM jsonb_each(a) e(k, v) WHERE b ? e.k
$$;

SELECT 'FAILED row ' || b.kind || ' ' || b.key || E':\n    before: ' || b.j::text
       || E'\n    after:  ' || CASE WHEN a.j IS NULL THEN '(gone)' ELSE upg_check.only_keys_of(a.j, b.j)::text END
FROM upg_check.rows_before b LEFT JOIN upg_check.rows_after a USING (kind, key)
WHERE a.j IS NULL OR upg_check.only_keys_of(a.j, b.j) <> b.j
UNION ALL
SELECT 'FAILED row ' || a.kind || ' ' || a.key || ' added by the upgrade: ' || a.j::text
FROM upg_check.rows_after a LEFT JOIN upg_check.rows_before b USING (kind, key)
WHERE b.kind IS NULL
ORDER BY 1;

SELECT 'FAILED privileges of ' || b.kind || ' ' || b.key || E':\n    before: ' || b.j::text
       || E'\n    after:  ' || upg_check.only_keys_of(a.j, b.j)::text
FROM upg_check.privileges_before b JOIN upg_check.privileges_after a USING (kind, key)
WHERE upg_check.only_keys_of(a.j, b.j) <> b.j
ORDER BY 1;

SELECT 'note: ' || count(*) FILTER (WHERE b.kind IS NULL) || ' objects added and '
       || count(*) FILTER (WHERE a.kind IS NULL) || ' dropped by the upgrade: '
       || string_agg(CASE WHEN b.kind IS NULL THEN '+' ELSE '-' END || coalesce(a.kind, b.kind)
                     || ' ' || coalesce(a.key, b.key), ', ' ORDER BY coalesce(a.key, b.key))
FROM upg_check.privileges_before b FULL JOIN upg_check.privileges_after a USING (kind, key)
WHERE a.kind IS NULL OR b.kind IS NULL
HAVING count(*) > 0;
