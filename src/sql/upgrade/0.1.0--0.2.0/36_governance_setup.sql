
-- A database that 0.1.0's dpbayes.governance_setup had set up must run
-- 0.2.0's once more, for each analyst role (docs/upgrades.md): it hands the
-- ledger, the keys and the SECURITY DEFINER routines to the ledger role
-- dpbayes_ledger and lets that role read the datasets registered before.
-- Not here: privileges granted inside an extension script are recorded as
-- the extension's initial privileges, and pg_dump would then leave them out.
-- Until then analysts cannot CALL dpbayes.release.
DO $$
BEGIN
    IF current_setting('dpbayes_upgrade.owner') <> '' THEN
        RAISE WARNING 'dpbayes 0.2.0: run dpbayes.governance_setup(%, <analyst role>) again, for each analyst role, to finish the upgrade',
            quote_literal(current_setting('dpbayes_upgrade.owner'))
            USING DETAIL = 'It hands the ledger to the new NOLOGIN ledger role dpbayes_ledger; until then analysts cannot request governed releases.',
                  HINT = format('Analyst roles of 0.1.0: %s.', coalesce(nullif(current_setting('dpbayes_upgrade.analysts'), ''), 'none'));
    END IF;
END $$;
