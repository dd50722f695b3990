-- ---------------------------------------------------------------------------
-- The ledger is append-only (docs/governance.md §7): the only changes a
-- charge ever sees are its count of started computations growing and its
-- status moving once, charged -> released | failed, with its finish time and
-- error; audit rows and releases never change; no
-- ledger row is deleted and no ledger table truncated; a dataset's running
-- totals only grow; a signing key is never deleted and only gets its retired
-- and revoked times once.  The ledger role owns these tables and could drop
-- the triggers only through code it does not have; a superuser can do
-- everything (and dpbayes.audit_verify shows what changed).  Run by a fresh
-- CREATE EXTENSION and, unchanged, by the upgrade from 0.1.0.
-- ---------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION dpbayes._ledger_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    same boolean;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF TG_TABLE_NAME = 'charge' THEN
            same := (to_jsonb(OLD) - ARRAY['status', 'finished_at', 'error_sqlstate', 'error_message',
                                            'compute_attempts'])
                    = (to_jsonb(NEW) - ARRAY['status', 'finished_at', 'error_sqlstate', 'error_message',
                                             'compute_attempts']);
            IF same AND OLD.status = 'charged' AND NEW.compute_attempts >= OLD.compute_attempts
               AND (NEW.status IN ('released', 'failed')
                    OR (NEW.status = 'charged' AND NEW.finished_at IS NULL
                        AND NEW.error_sqlstate IS NULL AND NEW.error_message IS NULL)) THEN
                RETURN NEW;
            END IF;
        ELSIF TG_TABLE_NAME = 'dataset' THEN
            same := (to_jsonb(OLD) - ARRAY['epsilon', 'delta', 'spent_charges', 'spent_rho',
                                            'spent_epsilon', 'spent_delta'])
                    = (to_jsonb(NEW) - ARRAY['epsilon', 'delta', 'spent_charges', 'spent_rho',
                                             'spent_epsilon', 'spent_delta']);
            IF same AND NEW.spent_charges >= OLD.spent_charges AND NEW.spent_rho >= OLD.spent_rho
               AND NEW.spent_epsilon >= OLD.spent_epsilon AND NEW.spent_delta >= OLD.spent_delta THEN
                RETURN NEW;
            END IF;
        ELSIF TG_TABLE_NAME = 'signing_key' THEN
            same := (to_jsonb(OLD) - ARRAY['retired_at', 'revoked_at'])
                    = (to_jsonb(NEW) - ARRAY['retired_at', 'revoked_at']);
            IF same AND (OLD.retired_at IS NULL OR NEW.retired_at IS NOT DISTINCT FROM OLD.retired_at)
               AND (to_jsonb(OLD) ->> 'revoked_at' IS NULL
                    OR to_jsonb(NEW) ->> 'revoked_at' IS NOT DISTINCT FROM to_jsonb(OLD) ->> 'revoked_at') THEN
                RETURN NEW;
            END IF;
        ELSIF TG_TABLE_NAME = 'audit_head' THEN
            IF NEW.seq >= OLD.seq THEN
                RETURN NEW;
            END IF;
        END IF;
    END IF;
    RAISE EXCEPTION 'the ledger is append-only (SQLSTATE DP003)' USING ERRCODE = 'DP003',
        DETAIL = format('%s on dpbayes.%s is not allowed.', TG_OP, TG_TABLE_NAME),
        HINT = 'Charges, releases and audit rows are kept for good; a budget changes with dpbayes.set_budget().';
END $$;
COMMENT ON FUNCTION dpbayes._ledger_guard() IS
  'internal: the trigger that keeps the ledger append-only';
REVOKE ALL ON FUNCTION dpbayes._ledger_guard() FROM PUBLIC;

CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.charge
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.charge
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.released
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.released
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.audit
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.audit
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.audit_head
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.audit_head
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.dataset
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.dataset
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard BEFORE UPDATE OR DELETE ON dpbayes.signing_key
    FOR EACH ROW EXECUTE FUNCTION dpbayes._ledger_guard();
CREATE TRIGGER ledger_guard_truncate BEFORE TRUNCATE ON dpbayes.signing_key
    FOR EACH STATEMENT EXECUTE FUNCTION dpbayes._ledger_guard();
