-- ---------------------------------------------------------------------------
-- Governed releases (docs/governance.md): the accountant and the ledger's
-- tables.  The routines are in 32_governance_routines.sql, the guards that
-- keep the ledger append-only in 34_governance_guards.sql.  Custom SQLSTATEs:
-- DP001 = the privacy budget would be exceeded, DP002 = a release failed
-- after its charge was committed, DP003 = the ledger is append-only.
-- ---------------------------------------------------------------------------

CREATE FUNCTION dpbayes.charge_of(model text, d integer, p dpbayes.privacy,
    OUT mechanism text, OUT sensitivity double precision,
    OUT noise_scale double precision, OUT rho double precision,
    OUT epsilon double precision, OUT delta double precision, OUT neighbours text)
AS 'MODULE_PATHNAME', 'dpbayes_charge_of' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.charge_of(text, integer, dpbayes.privacy) IS
  'the exact mechanism of a release of d features under p, from the public parameters alone (no row is read): what the ledger charges and the release records';

CREATE FUNCTION dpbayes.compose(rho double precision, epsilon double precision,
    delta double precision, n integer, epsilon_budget double precision,
    delta_budget double precision,
    OUT epsilon_spent double precision, OUT delta_spent double precision,
    OUT method text, OUT fits boolean)
AS 'MODULE_PATHNAME', 'dpbayes_compose' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.compose(double precision, double precision, double precision,
    integer, double precision, double precision) IS
  'the accountant: (epsilon, delta) spent by n charges with these sums of rho, epsilon and delta, by the tighter of zCDP (rho adds up, converted at delta_budget) and basic composition, the method used, and whether it fits the budget';

CREATE FUNCTION dpbayes._in_transaction_block() RETURNS boolean
AS 'MODULE_PATHNAME', 'dpbayes_in_transaction_block' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpbayes._in_transaction_block() IS
  'internal: true inside an explicit transaction block, where dpbayes.release cannot commit its charge';

CREATE TABLE dpbayes.dataset (
    relation          regclass PRIMARY KEY,
    epsilon           double precision NOT NULL CHECK (epsilon > 0 AND epsilon < 'Infinity'),
    delta             double precision NOT NULL CHECK (delta >= 0 AND delta < 1),
    privacy_unit      name,
    max_rows_per_unit integer CHECK (max_rows_per_unit > 0),
    registered_by     name NOT NULL DEFAULT session_user,
    registered_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((privacy_unit IS NULL) = (max_rows_per_unit IS NULL)),
    -- 0.2.0: a stable identity (signatures and the audit chain name it) and
    -- the running totals of the charges, updated under the row's lock by
    -- every charge (so a stale snapshot cannot see a smaller ledger: the
    -- update fails with 40001 instead)
    id                uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    spent_charges     integer NOT NULL DEFAULT 0 CHECK (spent_charges >= 0),
    spent_rho         double precision NOT NULL DEFAULT 0 CHECK (spent_rho >= 0),
    spent_epsilon     double precision NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta       double precision NOT NULL DEFAULT 0 CHECK (spent_delta >= 0)
);
COMMENT ON TABLE dpbayes.dataset IS
  'registered datasets: a relation with its total privacy budget (epsilon, delta), optional privacy unit, stable id and the running totals of its charges';

CREATE TABLE dpbayes.charge (
    request_id    text NOT NULL CHECK (length(request_id) BETWEEN 1 AND 200),
    relation      regclass NOT NULL REFERENCES dpbayes.dataset ON UPDATE CASCADE,
    model         text NOT NULL,
    response      text NOT NULL,
    features      text[] NOT NULL,
    privacy       dpbayes.privacy,            -- linear, logistic, poisson
    mechanism     text NOT NULL,
    sensitivity   double precision NOT NULL,
    noise_scale   double precision NOT NULL,
    rho           double precision NOT NULL,
    epsilon       double precision NOT NULL,
    delta         double precision NOT NULL,
    neighbours    text NOT NULL,
    group_count   integer NOT NULL DEFAULT 1,
    unit_rows     integer NOT NULL DEFAULT 1 CHECK (unit_rows >= 1),
    group_by      name,
    group_keys    text[],
    status        text NOT NULL DEFAULT 'charged' CHECK (status IN ('charged', 'released', 'failed')),
    requested_by  name NOT NULL DEFAULT session_user,
    charged_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at   timestamptz,
    error_sqlstate text,
    error_message text,
    -- 0.2.0: a charge id; request ids are per requester; the transaction
    -- that made the charge (a release is computed only in a later one); the
    -- relation's name when charged (signatures bind it)
    id            bigserial PRIMARY KEY,
    charged_in_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    relation_name text NOT NULL,
    betad         dpbayes.betad_params,       -- betad_logistic, betad_linear
    -- computations started (committed before each starts): an interrupted
    -- one is not rerun, so its duration cannot be measured again for free
    compute_attempts integer NOT NULL DEFAULT 0,
    UNIQUE (requested_by, request_id),
    CONSTRAINT charge_one_params CHECK ((privacy IS NULL) <> (betad IS NULL))
);
CREATE INDEX ON dpbayes.charge (relation);
COMMENT ON TABLE dpbayes.charge IS
  'the privacy ledger: one row per charged request, the mechanism recorded exactly (kind, sensitivity, noise scale, zCDP rho, epsilon, delta, neighbours, group count); a charge is never removed, failed releases included';

CREATE TABLE dpbayes.released (
    request_id   text NOT NULL,
    group_key    text NOT NULL DEFAULT '',   -- '': no group keys
    release      dpbayes.release NOT NULL,
    made_in_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    made_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    charge_id    bigint NOT NULL REFERENCES dpbayes.charge (id),   -- 0.2.0
    PRIMARY KEY (charge_id, group_key)
);
COMMENT ON TABLE dpbayes.released IS
  'the releases made by dpbayes.release, keyed by charge id and group key';

CREATE TABLE dpbayes.audit (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    who         name NOT NULL DEFAULT session_user,
    relation    regclass,
    request_id  text,
    spec        jsonb,
    rho         double precision,
    epsilon     double precision,
    delta       double precision,
    outcome     text NOT NULL,
    -- 0.2.0: the dataset's stable id, and the hash chain: hash =
    -- SHA-256(prev_hash || the row's canonical form), prev_hash = the hash of
    -- the row before (dpbayes.audit_verify checks it)
    dataset_id  uuid,
    prev_hash   bytea,
    hash        bytea
);
COMMENT ON TABLE dpbayes.audit IS
  'every governed request and every change of a budget, grant or key: who, when, dataset, spec, charge and outcome; hash-chained (dpbayes.audit_verify); readable by the governance owner';

-- the head of the audit chain: the number and hash of the last row (one row,
-- made by the first audit row; dumped with the ledger)
CREATE TABLE dpbayes.audit_head (
    one  boolean PRIMARY KEY DEFAULT true CHECK (one),
    seq  bigint NOT NULL,
    hash bytea NOT NULL
);
COMMENT ON TABLE dpbayes.audit_head IS
  'the head of the audit log''s hash chain: the id and hash of its last row';
SELECT pg_catalog.pg_extension_config_dump('dpbayes.audit_head', '');
SELECT pg_catalog.pg_extension_config_dump('dpbayes.charge_id_seq', '');
REVOKE ALL ON dpbayes.audit_head FROM PUBLIC;

-- which roles may request releases of which dataset (besides superusers
-- and members of the role that registered it)
CREATE TABLE dpbayes.dataset_grant (
    relation   regclass NOT NULL REFERENCES dpbayes.dataset ON UPDATE CASCADE,
    grantee    name NOT NULL,
    granted_by name NOT NULL DEFAULT session_user,
    granted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (relation, grantee)
);
COMMENT ON TABLE dpbayes.dataset_grant IS
  'per-dataset grants: members of grantee may request governed releases of the dataset';
SELECT pg_catalog.pg_extension_config_dump('dpbayes.dataset_grant', '');
REVOKE ALL ON dpbayes.dataset_grant FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dpbayes.dataset', '');
SELECT pg_catalog.pg_extension_config_dump('dpbayes.charge', '');
SELECT pg_catalog.pg_extension_config_dump('dpbayes.released', '');
SELECT pg_catalog.pg_extension_config_dump('dpbayes.audit', '');
SELECT pg_catalog.pg_extension_config_dump('dpbayes.audit_id_seq', '');
REVOKE ALL ON dpbayes.dataset, dpbayes.charge, dpbayes.released, dpbayes.audit FROM PUBLIC;

