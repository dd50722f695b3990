-- test/upgrade/post_update.sql — what docs/upgrades.md tells an administrator
-- to run after ALTER EXTENSION dpbayes UPDATE (test/upgrade.sh): the
-- governance set-up again, for each analyst role.  From 0.1.0 to 0.2.0 it
-- hands the ledger to the ledger role dpbayes_ledger and lets that role read
-- the datasets registered before.
SET client_min_messages = warning;
SELECT dpbayes.governance_setup('dpb_upg_owner', 'dpb_upg_analyst');
