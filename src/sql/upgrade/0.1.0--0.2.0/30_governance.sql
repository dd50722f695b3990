
-- Governed releases that hold against a hostile analyst (issue 23).  This
-- part: remember who the 0.1.0 set-up made owner and analysts, drop the 0.1.0
-- routines that 32_governance_routines.sql (run next, the same file as a
-- fresh install's) makes anew, and change the ledger's tables, keeping every
-- row.  33_governance_chain.sql then hash-chains the audit rows kept,
-- 34_governance_guards.sql makes the ledger append-only, and
-- 36_governance_setup.sql hands a set-up database to the ledger role.

-- the 0.1.0 set-up: the owner role owned the ledger; the analyst roles could
-- run dpbayes.release (besides the owner)
SELECT set_config('dpbayes_upgrade.owner',
    coalesce((SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
              WHERE c.oid = 'dpbayes.charge'::regclass AND NOT r.rolsuper), ''), true);
SELECT set_config('dpbayes_upgrade.analysts',
    coalesce((SELECT string_agg(quote_ident(r.rolname), ',' ORDER BY r.rolname)
              FROM pg_proc p, aclexplode(p.proacl) a JOIN pg_roles r ON r.oid = a.grantee
              WHERE p.oid = 'dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[])'::regprocedure
                AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
                AND r.rolname <> current_setting('dpbayes_upgrade.owner')), ''), true);

DROP PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]);
DROP VIEW dpbayes.my_requests;
DROP FUNCTION dpbayes._compute(text);
DROP FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]);
DROP FUNCTION dpbayes._source(regclass, integer);
DROP FUNCTION dpbayes.budget(regclass);
DROP FUNCTION dpbayes.register_dataset(regclass, double precision, double precision, text, integer);
DROP FUNCTION dpbayes.grant_dataset(regclass, regrole);
DROP FUNCTION dpbayes.revoke_dataset(regclass, regrole);
DROP FUNCTION dpbayes.governance_setup(regrole, regrole);
DROP FUNCTION dpbayes.rotate_signing_key();

-- datasets: a stable id and the running totals of their charges
ALTER TABLE dpbayes.dataset
    ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    ADD COLUMN spent_charges integer NOT NULL DEFAULT 0 CHECK (spent_charges >= 0),
    ADD COLUMN spent_rho double precision NOT NULL DEFAULT 0 CHECK (spent_rho >= 0),
    ADD COLUMN spent_epsilon double precision NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    ADD COLUMN spent_delta double precision NOT NULL DEFAULT 0 CHECK (spent_delta >= 0);
UPDATE dpbayes.dataset d SET spent_charges = s.n, spent_rho = s.rho, spent_epsilon = s.eps,
    spent_delta = s.delta
FROM (SELECT c.relation, count(*)::int AS n, sum(c.rho) AS rho, sum(c.epsilon) AS eps,
             sum(c.delta) AS delta
      FROM (SELECT * FROM dpbayes.charge ORDER BY charged_at, request_id) c
      GROUP BY c.relation) s
WHERE s.relation = d.relation;

-- charges: an id (in the order they were made), request ids per requester,
-- the charging transaction, the relation's name; releases keyed by charge id
ALTER TABLE dpbayes.released DROP CONSTRAINT released_request_id_fkey;
ALTER TABLE dpbayes.released DROP CONSTRAINT released_pkey;
ALTER TABLE dpbayes.charge DROP CONSTRAINT charge_pkey;
ALTER TABLE dpbayes.charge
    ADD COLUMN id bigserial,
    ADD COLUMN charged_in_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    ADD COLUMN relation_name text;
UPDATE dpbayes.charge c SET id = o.n, relation_name = c.relation::text
FROM (SELECT request_id, row_number() OVER (ORDER BY charged_at, request_id) AS n
      FROM dpbayes.charge) o
WHERE o.request_id = c.request_id;
SELECT setval('dpbayes.charge_id_seq', coalesce((SELECT max(id) FROM dpbayes.charge), 1),
              (SELECT count(*) > 0 FROM dpbayes.charge));
ALTER TABLE dpbayes.charge ALTER COLUMN relation_name SET NOT NULL;
-- governed betaD releases: their parameters instead of a privacy value
ALTER TABLE dpbayes.charge ALTER COLUMN privacy DROP NOT NULL;
ALTER TABLE dpbayes.charge ADD COLUMN betad dpbayes.betad_params;
ALTER TABLE dpbayes.charge ADD CONSTRAINT charge_one_params CHECK ((privacy IS NULL) <> (betad IS NULL));
-- (added empty, then filled: a constant default would be stored as the
-- column's "missing value", which a fresh table does not have)
ALTER TABLE dpbayes.charge ADD COLUMN compute_attempts integer;
UPDATE dpbayes.charge SET compute_attempts = 0;
ALTER TABLE dpbayes.charge ALTER COLUMN compute_attempts SET DEFAULT 0,
    ALTER COLUMN compute_attempts SET NOT NULL;
ALTER TABLE dpbayes.charge ADD PRIMARY KEY (id);
ALTER TABLE dpbayes.charge ADD UNIQUE (requested_by, request_id);
SELECT pg_catalog.pg_extension_config_dump('dpbayes.charge_id_seq', '');
ALTER TABLE dpbayes.released ADD COLUMN charge_id bigint;
UPDATE dpbayes.released r SET charge_id = c.id FROM dpbayes.charge c WHERE c.request_id = r.request_id;
ALTER TABLE dpbayes.released ALTER COLUMN charge_id SET NOT NULL;
ALTER TABLE dpbayes.released ADD FOREIGN KEY (charge_id) REFERENCES dpbayes.charge (id);
ALTER TABLE dpbayes.released ADD PRIMARY KEY (charge_id, group_key);
COMMENT ON TABLE dpbayes.released IS
  'the releases made by dpbayes.release, keyed by charge id and group key';
COMMENT ON TABLE dpbayes.dataset IS
  'registered datasets: a relation with its total privacy budget (epsilon, delta), optional privacy unit, stable id and the running totals of its charges';

-- the audit log: the dataset's id and the hash chain (33_governance_chain.sql)
ALTER TABLE dpbayes.audit
    ADD COLUMN dataset_id uuid,
    ADD COLUMN prev_hash bytea,
    ADD COLUMN hash bytea;
COMMENT ON TABLE dpbayes.audit IS
  'every governed request and every change of a budget, grant or key: who, when, dataset, spec, charge and outcome; hash-chained (dpbayes.audit_verify); readable by the governance owner';
CREATE TABLE dpbayes.audit_head (
    one  boolean PRIMARY KEY DEFAULT true CHECK (one),
    seq  bigint NOT NULL,
    hash bytea NOT NULL
);
COMMENT ON TABLE dpbayes.audit_head IS
  'the head of the audit log''s hash chain: the id and hash of its last row';
SELECT pg_catalog.pg_extension_config_dump('dpbayes.audit_head', '');
REVOKE ALL ON dpbayes.audit_head FROM PUBLIC;
