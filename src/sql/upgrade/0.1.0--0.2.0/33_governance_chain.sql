
-- The audit rows of 0.1.0, hash-chained in the order of their ids (before
-- 34_governance_guards.sql forbids any update of them).
UPDATE dpbayes.audit a SET dataset_id = d.id FROM dpbayes.dataset d WHERE d.relation = a.relation;
DO $$
DECLARE
    a record;
    prev bytea := '\x'::bytea;
    h bytea;
    last_id bigint;
BEGIN
    FOR a IN SELECT * FROM dpbayes.audit ORDER BY id LOOP
        h := sha256(prev || dpbayes._audit_form(a.id, a.at, a.who, a.dataset_id, a.request_id,
                                                a.spec, a.rho, a.epsilon, a.delta, a.outcome));
        UPDATE dpbayes.audit x SET prev_hash = prev, hash = h WHERE x.id = a.id;
        prev := h;
        last_id := a.id;
    END LOOP;
    IF last_id IS NOT NULL THEN
        INSERT INTO dpbayes.audit_head (one, seq, hash) VALUES (true, last_id, prev);
    END IF;
END $$;
