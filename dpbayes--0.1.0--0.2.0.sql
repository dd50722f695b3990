-- dpbayes 0.1.0 -> 0.2.0: run by ALTER EXTENSION dpbayes UPDATE (TO '0.2.0').
--
-- HOW TO CHANGE THE SCHEMA (docs/upgrades.md).  A database on 0.1.0 runs
-- this file; a new database runs dpbayes--0.2.0.sql, which make generates
-- from src/sql/*.sql.  Both must end in the same schema, so every schema
-- change goes into BOTH:
--   1. src/sql/<concern>.sql: the object as a fresh CREATE EXTENSION makes it;
--   2. the end of this file: the statements that turn a 0.1.0 (or an
--      already partly upgraded) schema into that: CREATE for a new object,
--      CREATE OR REPLACE for a new body under the same signature, DROP and
--      CREATE (with its COMMENT, REVOKE and GRANT again) for a new signature
--      or result type, ALTER TABLE ... ADD COLUMN for a new column (added at
--      the end of the table in src/sql too: the column order is compared),
--      pg_extension_config_dump for a new ledger table.  Objects that
--      dpbayes.governance_setup hands to the owner role: also give them to
--      that role here when the database is already set up.
-- Only append; never edit dpbayes--0.1.0.sql (the released 0.1.0 script).
-- The upgrade test (test/upgrade.sh, part of make check) upgrades a populated
-- 0.1.0 database and fails on any difference from a fresh 0.2.0 schema.
\echo Use "ALTER EXTENSION dpbayes UPDATE TO '0.2.0'" to load this file. \quit

-- 0.2.0's install script was split into src/sql/*.sql, with no change of
-- content; the changes since follow, oldest first.

-- betaD releases under add/remove neighbours (issue 24): dpbayes.betad takes
-- neighbours (default add_remove) and betad_params records it.  A value
-- stored by 0.1.0 has no neighbours attribute and reads as replace-one.
ALTER TYPE dpbayes.betad_params ADD ATTRIBUTE neighbours text;
DROP FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[]);
CREATE FUNCTION dpbayes.betad(
    epsilon      double precision,
    model        text,
    prior_sd     double precision   DEFAULT 3,
    sigma2_floor double precision   DEFAULT NULL,
    y_scale      double precision   DEFAULT NULL,
    intercept    boolean            DEFAULT true,
    beta         double precision   DEFAULT NULL,
    lower        double precision[] DEFAULT NULL,
    upper        double precision[] DEFAULT NULL,
    features     text[]             DEFAULT NULL,
    draws        integer            DEFAULT 1,
    delta        double precision   DEFAULT NULL,
    tier         text               DEFAULT 'approximate',
    delta_prime  double precision   DEFAULT NULL,
    chains       integer            DEFAULT 4,
    warmup       integer            DEFAULT 200,
    iterations   integer            DEFAULT 50,
    root         text               DEFAULT 'smaller',
    sigma2_prior double precision[] DEFAULT NULL,
    neighbours   text               DEFAULT 'add_remove')
RETURNS dpbayes.betad_params
AS 'MODULE_PATHNAME', 'dpbayes_betad'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad(double precision, text, double precision, double precision,
    double precision, boolean, double precision, double precision[], double precision[], text[],
    integer, double precision, text, double precision, integer, integer, integer, text,
    double precision[], text) IS
  'validated betaD-Bayes parameters: epsilon (total over the draws; or give beta), model (logistic|linear), prior_sd (N(0, prior_sd^2) coefficients of the scaled features), sigma2_floor (linear: public floor of the residual variance, units of y^2), y_scale (linear: public scale of y), intercept, beta (instead of epsilon), lower/upper (public feature scales, never clipping), features (names), draws (k draws composed as bounded-range zCDP; needs delta), tier (approximate: NUTS with the fixed schedule, delta'' not certified; exact: rejection from the prior, certified delta_prime, default 1e-9), chains/warmup/iterations (the public schedule), root (linear: smaller|larger beta), sigma2_prior ({a, b}: sigma2 / y_scale^2 ~ InverseGamma above the floor), neighbours (add_remove: N private and not released, the default; replace: N public and released, needed by the exact tier)';
