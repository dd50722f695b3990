-- test/upgrade/schema.sql — the DDL of a governed deployment (test/upgrade.sh):
-- roles, dpbayes.governance_setup, the sensitive tables and the analysts'
-- tables of stored releases.  Run in the database made at an old version
-- (before ALTER EXTENSION dpbayes UPDATE) AND in the fresh one, so that their
-- schemas compare equal whatever a deployment adds around the extension.
-- Data only in populate.sql: the schema comparison sees no row.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb_upg_owner') THEN
    CREATE ROLE dpb_upg_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb_upg_analyst') THEN
    CREATE ROLE dpb_upg_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb_upg_alice') THEN
    CREATE ROLE dpb_upg_alice LOGIN IN ROLE dpb_upg_analyst;
  END IF;
END $$;
SELECT dpbayes.governance_setup('dpb_upg_owner', 'dpb_upg_analyst');
GRANT USAGE ON SCHEMA public TO dpb_upg_analyst;

-- the sensitive rows: governed releases only (the analysts cannot read them)
CREATE TABLE public.patients (
    i      integer PRIMARY KEY,
    unit   integer NOT NULL,      -- the privacy unit of patients_unit
    region integer NOT NULL,      -- the public group keys
    x1     double precision,
    x2     double precision,
    y      double precision,
    hiv    boolean
);
ALTER TABLE public.patients OWNER TO dpb_upg_owner;
-- a view that fails when read (division by zero): a charged, failed release
CREATE VIEW public.patients_bad AS SELECT x1, x2, y / (i - 200) AS y FROM public.patients;
ALTER VIEW public.patients_bad OWNER TO dpb_upg_owner;
-- the same rows as another dataset, with a privacy unit and group keys
CREATE VIEW public.patients_unit AS SELECT * FROM public.patients;
ALTER VIEW public.patients_unit OWNER TO dpb_upg_owner;
-- from 0.2.0 on the ledger role reads the datasets (after an upgrade,
-- governance_setup grants it on the datasets registered before)
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_ledger')
     AND (SELECT extversion FROM pg_extension WHERE extname = 'dpbayes') <> '0.1.0' THEN
    GRANT SELECT ON public.patients, public.patients_bad, public.patients_unit TO dpbayes_ledger;
  END IF;
END $$;

-- what analysts keep: ordinary releases, copies of governed ones, LDP
-- collections
CREATE TABLE public.stored_release (
    name    text PRIMARY KEY,
    r       dpbayes.release NOT NULL,
    kept_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
GRANT SELECT, INSERT ON public.stored_release TO dpb_upg_analyst;
CREATE TABLE public.stored_collection (
    name text PRIMARY KEY,
    c    bytea NOT NULL
);
