-- ---------------------------------------------------------------------------
-- Governed releases: the routines (docs/governance.md).  This file is run by
-- a fresh CREATE EXTENSION and, unchanged, by the upgrade from 0.1.0 (after
-- src/sql/upgrade/0.1.0--0.2.0/30_governance.sql has dropped the 0.1.0
-- routines it replaces): every statement here must be repeatable (CREATE OR
-- REPLACE, COMMENT, GRANT, REVOKE).
--
-- Who runs what (docs/governance.md §9):
--   * the ledger role (NOLOGIN, made by dpbayes.governance_setup) owns the
--     ledger's tables, the signing keys and every SECURITY DEFINER routine;
--     no login role is a member of it;
--   * owners (the owner role) register their own tables, grant them, change
--     their budgets and rotate or revoke keys through audited routines, and
--     read the ledger; they cannot change or delete it;
--   * analysts CALL dpbayes.release, read dpbayes.my_requests and
--     dpbayes.budget for the datasets granted to them, and nothing else: the
--     two steps of a release (_charge, _compute) are not granted to anyone,
--     the C procedure calls them (src/pg/governed_release.c).
--
-- Every SECURITY DEFINER routine pins the settings that change text
-- conversion (a float printed with extra_float_digits = -15 reads back as
-- another number), the search path and, in _compute, the planner: the
-- session's settings cannot change what is charged, computed or recorded.
-- ---------------------------------------------------------------------------

-- numeric -> float8 without a cast that can fail and print the value: NULL
-- for NaN, +-Infinity and values beyond the range of a double (the row
-- policy of governed releases drops such a row)
CREATE OR REPLACE FUNCTION dpbayes._numeric_f8(x numeric) RETURNS double precision
AS 'MODULE_PATHNAME', 'dpbayes_numeric_f8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._numeric_f8(numeric) IS
  'internal: the double nearest a numeric, or null when it is NaN, infinite or beyond the range of a double (never an error: the governed row policy)';

-- The release aggregates under the governed row policy (§5): a row with a
-- NULL, NaN, infinite or out-of-range value, or (poisson) a negative or
-- fractional count, is dropped as if absent, never an error.  For
-- dpbayes._compute only (not granted to PUBLIC).
CREATE OR REPLACE FUNCTION dpbayes._linear_cols_trans_governed(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_linear_cols_trans_governed' LANGUAGE C PARALLEL SAFE;
CREATE OR REPLACE FUNCTION dpbayes._logistic_cols_trans_governed(internal, boolean, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_logistic_cols_trans_governed' LANGUAGE C PARALLEL SAFE;
CREATE OR REPLACE FUNCTION dpbayes._poisson_cols_trans_governed(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_poisson_cols_trans_governed' LANGUAGE C PARALLEL SAFE;
CREATE OR REPLACE AGGREGATE dpbayes._governed_linear_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._linear_cols_trans_governed, STYPE = internal, FINALFUNC = dpbayes._linear_final,
    COMBINEFUNC = dpbayes._release_combine, SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize, PARALLEL = SAFE);
CREATE OR REPLACE AGGREGATE dpbayes._governed_logistic_release(y boolean, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._logistic_cols_trans_governed, STYPE = internal, FINALFUNC = dpbayes._logistic_final,
    COMBINEFUNC = dpbayes._release_combine, SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize, PARALLEL = SAFE);
CREATE OR REPLACE AGGREGATE dpbayes._governed_poisson_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._poisson_cols_trans_governed, STYPE = internal, FINALFUNC = dpbayes._poisson_final,
    COMBINEFUNC = dpbayes._release_combine, SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize, PARALLEL = SAFE);
COMMENT ON AGGREGATE dpbayes._governed_linear_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'internal: linear_release under the governed row policy (unusable rows dropped, never an error)';
COMMENT ON AGGREGATE dpbayes._governed_logistic_release(boolean, dpbayes.privacy, VARIADIC "any") IS
  'internal: logistic_release under the governed row policy (unusable rows dropped, never an error)';
COMMENT ON AGGREGATE dpbayes._governed_poisson_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'internal: poisson_release under the governed row policy (unusable rows, negative or fractional counts dropped, never an error)';
REVOKE ALL ON FUNCTION dpbayes._governed_linear_release(double precision, dpbayes.privacy, VARIADIC "any"),
    dpbayes._governed_logistic_release(boolean, dpbayes.privacy, VARIADIC "any"),
    dpbayes._governed_poisson_release(double precision, dpbayes.privacy, VARIADIC "any") FROM PUBLIC;

-- 63 random bits from pg_strong_random (a per-backend buffer): the sort key
-- of the privacy-unit sample, out of reach of setseed()
CREATE OR REPLACE FUNCTION dpbayes._strong_random_key() RETURNS bigint
AS 'MODULE_PATHNAME', 'dpbayes_strong_random_key' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes._strong_random_key() IS
  'internal: 63 random bits from pg_strong_random, the sort key of the privacy-unit sample of governed releases';

-- what the ledger charges for a betaD release (docs/governance.md §2)
CREATE OR REPLACE FUNCTION dpbayes.betad_charge_of(p dpbayes.betad_params,
    OUT mechanism text, OUT sensitivity double precision,
    OUT noise_scale double precision, OUT rho double precision,
    OUT epsilon double precision, OUT delta double precision, OUT neighbours text)
AS 'MODULE_PATHNAME', 'dpbayes_betad_charge_of' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.betad_charge_of(dpbayes.betad_params) IS
  'the charge of a betaD release under p, from the parameters alone: mechanism betad, sensitivity = the epsilon of one exact draw, noise_scale = beta, rho = k eps1^2 / 8 (bounded range), the total epsilon and delta, neighbours';

-- true for the superuser, the registering role's members and the members of
-- a granted role: who may see and use a dataset (anyone else is told the
-- same as for a relation that is not registered)
CREATE OR REPLACE FUNCTION dpbayes._may_use(relation regclass) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (
        SELECT 1 FROM dpbayes.dataset d
        WHERE d.relation = $1
          AND ((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = session_user)
               OR pg_catalog.pg_has_role(session_user, d.registered_by, 'MEMBER')
               OR EXISTS (SELECT 1 FROM dpbayes.dataset_grant gr
                          WHERE gr.relation = d.relation
                            AND pg_catalog.pg_has_role(session_user, gr.grantee, 'MEMBER'))))
$$;
COMMENT ON FUNCTION dpbayes._may_use(regclass) IS
  'internal: whether the session user may request releases of the dataset (superuser, member of the registering role or of a granted role)';

-- true for the superuser and the registering role's members: who may manage
-- a dataset (grants, budget)
CREATE OR REPLACE FUNCTION dpbayes._may_manage(relation regclass) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (
        SELECT 1 FROM dpbayes.dataset d
        WHERE d.relation = $1
          AND ((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = session_user)
               OR pg_catalog.pg_has_role(session_user, d.registered_by, 'MEMBER')))
$$;
COMMENT ON FUNCTION dpbayes._may_manage(regclass) IS
  'internal: whether the session user may manage the dataset (superuser or member of the registering role)';

-- The canonical form of an audit row, the input of its hash (with the hash
-- of the row before): every column but relation (the dataset's stable id
-- stands for it, so that a rename or a dump and restore keeps the chain).
CREATE OR REPLACE FUNCTION dpbayes._audit_form(id bigint, at timestamptz, who name,
    dataset_id uuid, request_id text, spec jsonb, rho double precision,
    epsilon double precision, delta double precision, outcome text) RETURNS bytea
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
    SELECT pg_catalog.convert_to(pg_catalog.jsonb_build_array('dpbayes.audit.v1', $1,
               pg_catalog.to_char($2 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
               $3::text, $4::text, $5, $6, pg_catalog.float8send($7), pg_catalog.float8send($8),
               pg_catalog.float8send($9), $10)::text, 'UTF8')
$$;
COMMENT ON FUNCTION dpbayes._audit_form(bigint, timestamptz, name, uuid, text, jsonb,
    double precision, double precision, double precision, text) IS
  'internal: the canonical bytes of an audit row that its hash covers (floats by their bits, the time in UTC)';

-- Appends one row to the audit log, chained to the row before.  The head row
-- is locked until commit: audit rows are written last in each step.
CREATE OR REPLACE FUNCTION dpbayes._audit(relation regclass, dataset_id uuid, request_id text,
    spec jsonb, rho double precision, epsilon double precision, delta double precision,
    outcome text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
DECLARE
    h record;
    at timestamptz := clock_timestamp();
    nh bytea;
BEGIN
    -- a refusal or a duplicate costs nothing: its row keeps at most 2 kB of
    -- the request (the columns and parameters, and a digest of the rest)
    IF outcome <> 'charged' AND octet_length(spec::text) > 2048 THEN
        spec := jsonb_build_object('model', spec -> 'model', 'response', spec -> 'response',
                    'features', CASE WHEN octet_length((spec -> 'features')::text) <= 1024
                                     THEN spec -> 'features' END,
                    'group_by', spec -> 'group_by',
                    'group_key_count', CASE jsonb_typeof(spec -> 'group_keys')
                                       WHEN 'array' THEN jsonb_array_length(spec -> 'group_keys') ELSE 0 END,
                    'bytes', octet_length(spec::text),
                    'sha256', encode(sha256(convert_to(spec::text, 'UTF8')), 'hex'));
    END IF;
    INSERT INTO dpbayes.audit_head AS x (one, seq, hash) VALUES (true, 1, '\x'::bytea)
    ON CONFLICT (one) DO UPDATE SET seq = x.seq + 1
    RETURNING x.seq, x.hash INTO h;
    nh := sha256(h.hash || dpbayes._audit_form(h.seq, at, session_user, dataset_id, request_id,
                                                spec, rho, epsilon, delta, outcome));
    INSERT INTO dpbayes.audit (id, at, who, relation, request_id, spec, rho, epsilon, delta,
                               outcome, dataset_id, prev_hash, hash)
    VALUES (h.seq, at, session_user, relation, request_id, spec, rho, epsilon, delta,
            outcome, dataset_id, h.hash, nh);
    UPDATE dpbayes.audit_head SET hash = nh WHERE one;
END $$;
COMMENT ON FUNCTION dpbayes._audit(regclass, uuid, text, jsonb, double precision,
    double precision, double precision, text) IS
  'internal: appends a row to the hash-chained audit log';

CREATE OR REPLACE FUNCTION dpbayes.audit_verify(OUT "check" text, OUT ok boolean, OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
DECLARE
    r record;
    prev bytea := '\x'::bytea;
    n bigint := 0;
    bad bigint;
    hd record;
    last_id bigint;
    x record;
BEGIN
    -- 1. the chain: every row's prev_hash is the hash of the row before, and
    --    its hash covers its canonical form
    FOR r IN SELECT * FROM dpbayes.audit ORDER BY id LOOP
        n := n + 1;
        IF r.prev_hash IS DISTINCT FROM prev
           OR r.hash IS DISTINCT FROM sha256(prev || dpbayes._audit_form(r.id, r.at, r.who,
                  r.dataset_id, r.request_id, r.spec, r.rho, r.epsilon, r.delta, r.outcome)) THEN
            bad := r.id;
            EXIT;
        END IF;
        prev := r.hash;
        last_id := r.id;
    END LOOP;
    "check" := 'audit chain';
    ok := bad IS NULL;
    detail := CASE WHEN bad IS NULL THEN format('%s rows chained', n)
                   ELSE format('row %s does not follow from the rows before it (edited, deleted or reordered)', bad) END;
    RETURN NEXT;
    -- 2. the head: the last row is the one the head names (rows removed from
    --    the end, or the whole log truncated, break this)
    SELECT * INTO hd FROM dpbayes.audit_head;
    "check" := 'audit head';
    ok := (hd.seq IS NULL AND n = 0) OR (hd.seq = last_id AND hd.hash = prev AND bad IS NULL);
    detail := CASE WHEN ok THEN 'the last row is the head'
                   WHEN bad IS NOT NULL THEN 'not checked: the chain is broken'
                   ELSE 'the log does not end at its head: rows are missing at its end, or the head was changed' END;
    RETURN NEXT;
    -- 3. the running totals of each dataset are the sums of its charges
    "check" := 'budget totals';
    SELECT string_agg(d.relation::text, ', ') AS bad INTO x
    FROM dpbayes.dataset d
    LEFT JOIN LATERAL (SELECT count(*)::int AS n, coalesce(sum(c.rho), 0) AS rho,
                              coalesce(sum(c.epsilon), 0) AS eps, coalesce(sum(c.delta), 0) AS delta
                       FROM dpbayes.charge c WHERE c.relation = d.relation) s ON true
    WHERE d.spent_charges <> s.n
       OR abs(d.spent_rho - s.rho) > 1e-9 * greatest(1, s.rho)
       OR abs(d.spent_epsilon - s.eps) > 1e-9 * greatest(1, s.eps)
       OR abs(d.spent_delta - s.delta) > 1e-9 * greatest(1e-12, s.delta);
    ok := x.bad IS NULL;
    detail := coalesce('totals differ from the charges of: ' || x.bad, 'every dataset''s totals are the sums of its charges');
    RETURN NEXT;
    -- 4. every charge was audited when it was made
    "check" := 'charges audited';
    SELECT count(*) AS n INTO x FROM dpbayes.charge c
    WHERE NOT EXISTS (SELECT 1 FROM dpbayes.audit au WHERE au.request_id = c.request_id
                        AND au.who = c.requested_by AND au.outcome = 'charged');
    ok := x.n = 0;
    detail := CASE WHEN ok THEN 'every charge has its audit row'
                   ELSE format('%s charges have no audit row', x.n) END;
    RETURN NEXT;
    -- 5. every audited charge is in the ledger (a restore without the
    --    charges, or a deleted charge, breaks this)
    "check" := 'ledger complete';
    SELECT count(*) AS n INTO x FROM dpbayes.audit au
    WHERE au.outcome = 'charged' AND NOT EXISTS (SELECT 1 FROM dpbayes.charge c
                        WHERE c.request_id = au.request_id AND c.requested_by = au.who);
    ok := x.n = 0;
    detail := CASE WHEN ok THEN 'every audited charge is in the ledger'
                   ELSE format('%s audited charges are missing from the ledger', x.n) END;
    RETURN NEXT;
END $$;
COMMENT ON FUNCTION dpbayes.audit_verify() IS
  'checks the ledger: the audit log''s hash chain and head (any edit, deletion or reordering), the datasets'' running totals against their charges, and that charges and their audit rows match; one row per check';

-- Whether the rows of a relation can be partitioned by this column (the
-- privacy unit): the window of _source planned and run on no row.
CREATE OR REPLACE FUNCTION dpbayes._unit_partitionable(relation regclass, unit name)
RETURNS boolean LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    EXECUTE format('SELECT pg_catalog.row_number() OVER (PARTITION BY t.%I) FROM %s t WHERE false',
                   unit, relation);
    RETURN true;
EXCEPTION WHEN undefined_function THEN
    RETURN false;
END $$;
COMMENT ON FUNCTION dpbayes._unit_partitionable(regclass, name) IS
  'internal: whether rows can be partitioned by the column (its type has an ordering), tried on no row';
REVOKE ALL ON FUNCTION dpbayes._unit_partitionable(regclass, name) FROM PUBLIC;

-- (src/sql/25_signing.sql has the keys; rotation is audited, so it is here)
CREATE OR REPLACE FUNCTION dpbayes.rotate_signing_key() RETURNS bytea
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k bytea;
BEGIN
    UPDATE dpbayes.signing_key SET retired_at = clock_timestamp() WHERE retired_at IS NULL;
    k := (dpbayes._signing_key()).key_id;
    PERFORM dpbayes._audit(NULL, NULL, NULL, jsonb_build_object('key_id', encode(k, 'hex')),
                           NULL, NULL, NULL, 'key rotated');
    RETURN k;
END $$;
COMMENT ON FUNCTION dpbayes.rotate_signing_key() IS
  'retires the active signing key and makes a new one (old releases still verify); returns the new key id; for the governance owner';

REVOKE ALL ON FUNCTION dpbayes.rotate_signing_key() FROM PUBLIC;

-- Revocation: a key that leaked (or is distrusted) no longer vouches for
-- anything, so every release it signed stops verifying; it is also retired.
-- Audited.
CREATE OR REPLACE FUNCTION dpbayes.revoke_signing_key(key_id bytea) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF revoke_signing_key.key_id IS NULL THEN
        RAISE EXCEPTION 'key_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    UPDATE dpbayes.signing_key k
    SET revoked_at = coalesce(k.revoked_at, clock_timestamp()),
        retired_at = coalesce(k.retired_at, clock_timestamp())
    WHERE k.key_id = revoke_signing_key.key_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown signing key'
            USING ERRCODE = 'undefined_object',
                  DETAIL = 'No key in dpbayes.signing_key has this key id.',
                  HINT = 'The key id of a release is in dpbayes.release_signature(r).';
    END IF;
    PERFORM dpbayes._audit(NULL, NULL, NULL, jsonb_build_object('key_id', encode(key_id, 'hex')),
                           NULL, NULL, NULL, 'key revoked');
END $$;
COMMENT ON FUNCTION dpbayes.revoke_signing_key(bytea) IS
  'revokes a signing key: releases it signed no longer verify (verify_detail says revoked key); retires it too when it is the active key (the next governed release makes a new one); for the governance owner; audited';
REVOKE ALL ON FUNCTION dpbayes.revoke_signing_key(bytea) FROM PUBLIC;

-- The verdict on a release, one check after the other: signed, by a key of
-- this server, not revoked, the signature matches, and (version 2) its
-- binding names a released charge of the ledger (a deleted charge, or a
-- release that claims another dataset, column or requester, fails).
-- Version 1 (0.1.0) releases verify under the 0.1.0 rules.
CREATE OR REPLACE FUNCTION dpbayes.verify_detail(r dpbayes.release) RETURNS text
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN s.key_id IS NULL THEN 'unsigned'
                WHEN k.public_key IS NULL THEN 'unknown key'
                WHEN k.revoked_at IS NOT NULL THEN 'revoked key'
                WHEN dpbayes._verify_signature(r, k.public_key) <> 'valid'
                    THEN dpbayes._verify_signature(r, k.public_key)
                WHEN s.version >= 2 AND NOT dpbayes._ledger_binding_ok(s.request_id, s.binding)
                    THEN 'no released charge in the ledger'
                ELSE 'valid' END
    FROM dpbayes.release_signature(r) s
    LEFT JOIN dpbayes.signing_key k ON k.key_id = s.key_id
$$;
COMMENT ON FUNCTION dpbayes.verify_detail(dpbayes.release) IS
  'why a release (of any kind) does or does not verify: valid, unsigned, unknown key (not a key of this server), revoked key, signature does not match the release (edited), or no released charge in the ledger (version 2: its binding names no released charge)';
CREATE OR REPLACE FUNCTION dpbayes.verify(r dpbayes.release) RETURNS boolean
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
    SELECT dpbayes.verify_detail(r) = 'valid'
$$;
COMMENT ON FUNCTION dpbayes.verify(dpbayes.release) IS
  'true when the release (of any kind) carries a valid signature by one of this server''s keys that is not revoked and (version 2) names a released charge of the ledger: it was made by the governed path under exactly the parameters and values it records (verify_detail says why not)';

CREATE OR REPLACE FUNCTION dpbayes.register_dataset(relation regclass, epsilon double precision,
    delta double precision, privacy_unit text DEFAULT NULL,
    max_rows_per_unit integer DEFAULT NULL)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
DECLARE
    c record;
    d record;
BEGIN
    IF relation IS NULL OR epsilon IS NULL OR delta IS NULL THEN
        RAISE EXCEPTION 'relation, epsilon and delta must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT k.relkind, k.relowner, k.relnamespace INTO c FROM pg_class k WHERE k.oid = relation;
    IF c.relkind IS NULL OR c.relkind NOT IN ('r', 'v', 'm', 'p', 'f') THEN
        RAISE EXCEPTION 'a dataset must be a table, view or materialized view' USING ERRCODE = '42809';
    END IF;
    IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = session_user)
       AND NOT pg_has_role(session_user, c.relowner, 'MEMBER') THEN
        RAISE EXCEPTION 'only the owner of a relation can register it' USING ERRCODE = '42501';
    END IF;
    IF NOT (epsilon > 0 AND epsilon < 'Infinity') THEN
        RAISE EXCEPTION 'the dataset''s epsilon must be positive and finite' USING ERRCODE = '22023';
    END IF;
    IF NOT (delta >= 0 AND delta < 1) THEN
        RAISE EXCEPTION 'the dataset''s delta must lie in [0, 1)' USING ERRCODE = '22023';
    END IF;
    IF (privacy_unit IS NULL) <> (max_rows_per_unit IS NULL) THEN
        RAISE EXCEPTION 'privacy_unit and max_rows_per_unit go together'
            USING ERRCODE = '22023',
                  HINT = 'Give both (a unit column and the public cap on its rows) or neither.';
    END IF;
    IF max_rows_per_unit IS NOT NULL AND max_rows_per_unit < 1 THEN
        RAISE EXCEPTION 'max_rows_per_unit must be at least 1' USING ERRCODE = '22023';
    END IF;
    IF privacy_unit IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_attribute a WHERE a.attrelid = relation AND a.attname = privacy_unit
          AND a.attnum > 0 AND NOT a.attisdropped) THEN
        RAISE EXCEPTION 'the privacy unit is not a column of the dataset' USING ERRCODE = '42703';
    END IF;
    -- the ledger role (this function's owner) reads the rows of a release
    IF NOT has_schema_privilege(current_user, c.relnamespace, 'USAGE')
       OR NOT has_any_column_privilege(current_user, relation, 'SELECT') THEN
        RAISE EXCEPTION 'the ledger role cannot read the relation' USING ERRCODE = '42501',
            DETAIL = 'Governed releases read the rows as the ledger role, which owns the ledger.',
            HINT = 'Grant it USAGE on the schema and SELECT on the relation (GRANT SELECT ON <relation> TO dpbayes_ledger).';
    END IF;
    -- the unit column must be partitionable (an ordering operator): tried on
    -- no row at all
    IF privacy_unit IS NOT NULL AND NOT dpbayes._unit_partitionable(relation, privacy_unit) THEN
        RAISE EXCEPTION 'the privacy unit column has no ordering' USING ERRCODE = '42883',
            DETAIL = 'Rows are grouped by unit with an ordering operator of the column''s type.',
            HINT = 'Use a column of a type with a default btree ordering (integer, text, uuid, ...).';
    END IF;
    IF EXISTS (SELECT 1 FROM dpbayes.dataset x WHERE x.relation = register_dataset.relation) THEN
        RAISE EXCEPTION 'the relation is already a registered dataset' USING ERRCODE = '42710',
            HINT = 'Change its budget with dpbayes.set_budget().';
    END IF;
    INSERT INTO dpbayes.dataset (relation, epsilon, delta, privacy_unit, max_rows_per_unit)
    VALUES (relation, epsilon, delta, privacy_unit, max_rows_per_unit)
    RETURNING * INTO d;
    PERFORM dpbayes._audit(relation, d.id, NULL,
        jsonb_build_object('epsilon', epsilon, 'delta', delta, 'privacy_unit', privacy_unit,
                           'max_rows_per_unit', max_rows_per_unit),
        NULL, NULL, NULL, 'registered');
END $$;
COMMENT ON FUNCTION dpbayes.register_dataset(regclass, double precision, double precision, text, integer) IS
  'registers a table or view (of the caller''s) as a dataset with a total budget (epsilon, delta); privacy_unit and max_rows_per_unit bound each unit to at most that many rows (chosen at random) before every release, and the charge is for a group of that many rows; audited';

CREATE OR REPLACE FUNCTION dpbayes.set_budget(relation regclass, epsilon double precision,
    delta double precision)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
DECLARE
    d record;
BEGIN
    IF relation IS NULL OR epsilon IS NULL OR delta IS NULL THEN
        RAISE EXCEPTION 'relation, epsilon and delta must not be null' USING ERRCODE = '22004';
    END IF;
    IF NOT dpbayes._may_manage(relation) THEN
        RAISE EXCEPTION 'the relation is not a dataset you manage' USING ERRCODE = '42501',
            HINT = 'Only the role that registered a dataset (or a superuser) changes its budget.';
    END IF;
    IF NOT (epsilon > 0 AND epsilon < 'Infinity') THEN
        RAISE EXCEPTION 'the dataset''s epsilon must be positive and finite' USING ERRCODE = '22023';
    END IF;
    IF NOT (delta >= 0 AND delta < 1) THEN
        RAISE EXCEPTION 'the dataset''s delta must lie in [0, 1)' USING ERRCODE = '22023';
    END IF;
    SELECT * INTO d FROM dpbayes.dataset x WHERE x.relation = set_budget.relation FOR UPDATE;
    UPDATE dpbayes.dataset x SET epsilon = set_budget.epsilon, delta = set_budget.delta
    WHERE x.relation = set_budget.relation;
    PERFORM dpbayes._audit(relation, d.id, NULL,
        jsonb_build_object('from', jsonb_build_object('epsilon', d.epsilon, 'delta', d.delta),
                           'to', jsonb_build_object('epsilon', epsilon, 'delta', delta)),
        NULL, NULL, NULL, 'budget set');
END $$;
COMMENT ON FUNCTION dpbayes.set_budget(regclass, double precision, double precision) IS
  'changes a dataset''s total budget (for the role that registered it); the old and new budgets, who and when are in the audit log';

CREATE OR REPLACE FUNCTION dpbayes.grant_dataset(relation regclass, grantee regrole)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
BEGIN
    IF relation IS NULL OR grantee IS NULL THEN
        RAISE EXCEPTION 'relation and grantee must not be null' USING ERRCODE = '22004';
    END IF;
    IF NOT dpbayes._may_manage(relation) THEN
        RAISE EXCEPTION 'the relation is not a dataset you manage' USING ERRCODE = '42501',
            HINT = 'Only the role that registered a dataset (or a superuser) grants it.';
    END IF;
    INSERT INTO dpbayes.dataset_grant (relation, grantee) VALUES (relation, grantee::name)
    ON CONFLICT DO NOTHING;
    PERFORM dpbayes._audit(relation, (SELECT d.id FROM dpbayes.dataset d WHERE d.relation = grant_dataset.relation),
        NULL, jsonb_build_object('grantee', grantee::text), NULL, NULL, NULL, 'granted');
END $$;
COMMENT ON FUNCTION dpbayes.grant_dataset(regclass, regrole) IS
  'lets the members of a role request governed releases of a dataset (for the role that registered it); audited';
CREATE OR REPLACE FUNCTION dpbayes.revoke_dataset(relation regclass, grantee regrole)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
BEGIN
    IF relation IS NULL OR grantee IS NULL THEN
        RAISE EXCEPTION 'relation and grantee must not be null' USING ERRCODE = '22004';
    END IF;
    IF NOT dpbayes._may_manage(relation) THEN
        RAISE EXCEPTION 'the relation is not a dataset you manage' USING ERRCODE = '42501',
            HINT = 'Only the role that registered a dataset (or a superuser) revokes its grants.';
    END IF;
    DELETE FROM dpbayes.dataset_grant g WHERE g.relation = revoke_dataset.relation
        AND g.grantee = revoke_dataset.grantee::name;
    PERFORM dpbayes._audit(relation, (SELECT d.id FROM dpbayes.dataset d WHERE d.relation = revoke_dataset.relation),
        NULL, jsonb_build_object('grantee', grantee::text), NULL, NULL, NULL, 'revoked');
END $$;
COMMENT ON FUNCTION dpbayes.revoke_dataset(regclass, regrole) IS
  'removes a per-dataset grant (for the role that registered the dataset); audited';

CREATE OR REPLACE FUNCTION dpbayes.budget(dataset regclass,
    OUT epsilon_budget double precision, OUT delta_budget double precision,
    OUT charges integer, OUT rho_spent double precision,
    OUT epsilon_spent double precision, OUT delta_spent double precision,
    OUT method text, OUT epsilon_remaining double precision)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
DECLARE
    d record;
    c record;
BEGIN
    IF dataset IS NULL OR NOT dpbayes._may_use(dataset) THEN
        RAISE EXCEPTION 'the relation is not a dataset you may use' USING ERRCODE = '42704',
            DETAIL = 'It is not a registered dataset, or you are not granted it.';
    END IF;
    SELECT * INTO d FROM dpbayes.dataset x WHERE x.relation = dataset;
    c := dpbayes.compose(d.spent_rho, d.spent_epsilon, d.spent_delta, d.spent_charges,
                         d.epsilon, d.delta);
    epsilon_budget := d.epsilon;
    delta_budget := d.delta;
    charges := d.spent_charges;
    rho_spent := d.spent_rho;
    epsilon_spent := c.epsilon_spent;
    delta_spent := c.delta_spent;
    method := c.method;
    epsilon_remaining := greatest(epsilon_budget - c.epsilon_spent, 0);
END $$;
COMMENT ON FUNCTION dpbayes.budget(regclass) IS
  'the budget of a dataset you may use: total, charges, spent (epsilon, delta) by the tighter valid composition (method zcdp or basic), remaining epsilon';

-- Step (a) of dpbayes.release: validate every public input, check the grant,
-- lock the dataset, check the budget with the exact charge, record it (the
-- caller commits).  Returns the request's status: charged, released, failed
-- (the request id was used before), over_budget, unavailable (not registered
-- or not granted: the same for both).  Errors here depend only on public
-- inputs (names, types, parameters, grants), never on a row.
CREATE OR REPLACE FUNCTION dpbayes._charge_any(dataset regclass, model text, response text,
    features text[], privacy dpbayes.privacy, betad dpbayes.betad_params, request_id text,
    group_by name, group_keys text[])
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex
SET lock_timeout = '10s' AS $$
DECLARE
    ds record;
    old record;
    ch record;
    c record;
    f text;
    t regtype;
    spec jsonb;
    k integer;
    nsp oid;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'a governed charge runs at read committed only' USING ERRCODE = '25000',
            HINT = 'Use CALL dpbayes.release(...), which runs each step at read committed.';
    END IF;
    -- 1. the public inputs, before anything is read or written
    IF dataset IS NULL OR model IS NULL OR response IS NULL OR features IS NULL
       OR (privacy IS NULL AND betad IS NULL) OR request_id IS NULL THEN
        RAISE EXCEPTION 'the arguments of dpbayes.release must not be null' USING ERRCODE = '22004';
    END IF;
    IF length(request_id) NOT BETWEEN 1 AND 200 OR request_id ~ '[[:cntrl:]]'
       OR request_id ~ '[\u0080-\u009f]' THEN
        RAISE EXCEPTION 'invalid request id' USING ERRCODE = '22023',
            DETAIL = 'A request id is 1 to 200 characters without control characters.';
    END IF;
    IF model NOT IN ('linear', 'logistic', 'poisson', 'betad_logistic', 'betad_linear',
                     'betad_mlp_classifier', 'betad_mlp_regression') THEN
        RAISE EXCEPTION 'unknown model' USING ERRCODE = '22023',
            HINT = 'Use "linear", "logistic" or "poisson" with dpbayes.privacy(...), or "betad_logistic", "betad_linear", "betad_mlp_classifier" or "betad_mlp_regression" with dpbayes.betad(...).';
    END IF;
    IF (model LIKE 'betad\_%') <> (betad IS DISTINCT FROM NULL) THEN
        RAISE EXCEPTION 'the model and the kind of parameters do not match' USING ERRCODE = '22023',
            HINT = 'betad_* models take dpbayes.betad(...); linear, logistic and poisson take dpbayes.privacy(...).';
    END IF;
    IF cardinality(features) NOT BETWEEN 1 AND 64 OR array_position(features, NULL) IS NOT NULL
       OR array_ndims(features) <> 1 THEN
        RAISE EXCEPTION 'features must be a list of 1 to 64 column names' USING ERRCODE = '22023';
    END IF;
    IF (SELECT count(DISTINCT x) FROM unnest(features) x) <> cardinality(features) THEN
        RAISE EXCEPTION 'a feature column is listed twice' USING ERRCODE = '42701';
    END IF;
    IF response = ANY (features) THEN
        RAISE EXCEPTION 'the response is also listed as a feature' USING ERRCODE = '42701';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(features || response || group_by::text) x
               WHERE octet_length(x) NOT BETWEEN 1 AND 63 OR x LIKE '\_\_dpb%') THEN
        RAISE EXCEPTION 'invalid column name' USING ERRCODE = '42602',
            DETAIL = 'Column names are 1 to 63 bytes, and names beginning with __dpb are reserved.';
    END IF;
    IF (group_by IS NULL) <> (group_keys IS NULL) THEN
        RAISE EXCEPTION 'group_by and group_keys go together' USING ERRCODE = '22023',
            HINT = 'Give the group column and the public list of its values, or neither.';
    END IF;
    IF group_by IS NOT NULL AND (
           cardinality(group_keys) NOT BETWEEN 1 AND 1000 OR array_ndims(group_keys) <> 1
           OR array_position(group_keys, NULL) IS NOT NULL
           OR EXISTS (SELECT 1 FROM unnest(group_keys) x WHERE octet_length(x) NOT BETWEEN 1 AND 50
                      OR x ~ '[[:cntrl:]]')
           OR (SELECT count(DISTINCT x) FROM unnest(group_keys) x) <> cardinality(group_keys)) THEN
        RAISE EXCEPTION 'invalid group keys' USING ERRCODE = '22023',
            DETAIL = 'group_keys is a list of 1 to 1000 distinct public values, each 1 to 50 bytes of text without control characters.';
    END IF;
    IF coalesce((privacy).neighbours, (betad).neighbours) IS DISTINCT FROM 'add_remove' THEN
        RAISE EXCEPTION 'governed releases use add/remove neighbours'
            USING ERRCODE = '0A000',
                  DETAIL = 'A dataset''s budget is accounted under add/remove-one neighbours, where the number of rows is private.';
    END IF;
    IF current_setting('dpbayes.insecure_noise_seed') <> '-1' THEN
        RAISE EXCEPTION 'governed releases refuse deterministic test noise'
            USING ERRCODE = '55000',
                  HINT = 'Reset dpbayes.insecure_noise_seed.';
    END IF;
    -- the release's feature names are the column names
    IF coalesce((privacy).features, (betad).features) IS NULL THEN
        IF privacy IS DISTINCT FROM NULL THEN
            privacy.features := features;
        ELSE
            betad.features := features;
        END IF;
    ELSIF coalesce((privacy).features, (betad).features) IS DISTINCT FROM features THEN
        RAISE EXCEPTION 'the feature names of the parameters differ from the feature columns'
            USING ERRCODE = '22023',
                  DETAIL = 'A governed release names its features by their columns.',
                  HINT = 'Leave out features => in dpbayes.privacy() or dpbayes.betad().';
    END IF;
    -- the mechanism from the public parameters (errors here are about them)
    IF privacy IS DISTINCT FROM NULL THEN
        ch := dpbayes.charge_of(model, cardinality(features), privacy);
    ELSE
        IF (betad).model IS DISTINCT FROM substr(model, 7) THEN
            RAISE EXCEPTION 'the betaD parameters are for another model' USING ERRCODE = '22023';
        END IF;
        IF cardinality((betad).lower) IS DISTINCT FROM cardinality(features)
           AND (betad).lower IS NOT NULL THEN
            RAISE EXCEPTION 'features and the bounds must have the same length' USING ERRCODE = '22023';
        END IF;
        ch := dpbayes.betad_charge_of(betad);
    END IF;
    spec := jsonb_build_object('model', model, 'response', response, 'features', to_jsonb(features),
                               'privacy', coalesce(to_jsonb(privacy), to_jsonb(betad)), 'group_by', group_by,
                               'group_keys', to_jsonb(group_keys));
    -- what the audit log keeps of a request is bounded (64 kB)
    IF octet_length(spec::text) > 65536 THEN
        RAISE EXCEPTION 'the request is too large' USING ERRCODE = '54000',
            DETAIL = 'Its specification (columns, parameters, group keys) takes more than 64 kB.';
    END IF;

    -- 2. the grant (no lock): not registered and not granted look the same
    SELECT * INTO ds FROM dpbayes.dataset d WHERE d.relation = dataset;
    IF NOT FOUND OR NOT dpbayes._may_use(dataset) THEN
        PERFORM dpbayes._audit(dataset, ds.id, request_id, spec, NULL, NULL, NULL,
            CASE WHEN ds.id IS NULL THEN 'refused: not registered' ELSE 'refused: not granted' END);
        RETURN 'unavailable';
    END IF;

    -- 3. the columns, by name and type, and that the ledger role (this
    --    function's owner) can read them
    SELECT k.relnamespace INTO nsp FROM pg_class k WHERE k.oid = dataset;
    FOREACH f IN ARRAY features || response || coalesce(group_by::text, response)
                       || coalesce(ds.privacy_unit::text, response) LOOP
        SELECT a.atttypid::regtype INTO t FROM pg_attribute a
        WHERE a.attrelid = dataset AND a.attname = f AND a.attnum > 0 AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'a requested column is not a column of the dataset' USING ERRCODE = '42703',
                DETAIL = 'Features, the response and the group column are column names of the registered relation.';
        END IF;
        IF NOT has_schema_privilege(current_user, nsp, 'USAGE')
           OR NOT has_column_privilege(current_user, dataset, f, 'SELECT') THEN
            RAISE EXCEPTION 'the ledger role cannot read the dataset' USING ERRCODE = '42501',
                DETAIL = 'Nothing was charged.',
                HINT = 'The dataset''s owner grants SELECT on it to dpbayes_ledger.';
        END IF;
        IF f = response AND model IN ('logistic', 'betad_logistic', 'betad_mlp_classifier') THEN
            IF t <> 'boolean'::regtype THEN
                RAISE EXCEPTION 'the response of a logistic or classifier release must be a boolean column'
                    USING ERRCODE = '42804';
            END IF;
        ELSIF f = ANY (features) OR f = response THEN
            IF t NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'real'::regtype,
                         'double precision'::regtype, 'numeric'::regtype) THEN
                RAISE EXCEPTION 'features and a linear or poisson response must be numeric columns'
                    USING ERRCODE = '42804';
            END IF;
        END IF;
    END LOOP;

    IF ds.privacy_unit IS NOT NULL AND NOT dpbayes._unit_partitionable(dataset, ds.privacy_unit) THEN
        RAISE EXCEPTION 'the privacy unit column has no ordering' USING ERRCODE = '42883',
            DETAIL = 'Nothing was charged.',
            HINT = 'The dataset''s owner registers it with a unit column of a type with a default btree ordering.';
    END IF;

    -- 4. the same request again: its status (per requester)
    SELECT * INTO old FROM dpbayes.charge g
    WHERE g.requested_by = session_user AND g.request_id = _charge_any.request_id;
    IF FOUND THEN
        IF old.relation <> dataset OR old.model <> _charge_any.model OR old.response <> _charge_any.response
           OR old.features <> _charge_any.features OR old.privacy IS DISTINCT FROM _charge_any.privacy
           OR old.betad IS DISTINCT FROM _charge_any.betad
           OR old.group_by IS DISTINCT FROM _charge_any.group_by
           OR old.group_keys IS DISTINCT FROM _charge_any.group_keys THEN
            RAISE EXCEPTION 'the request id was already used for a different request'
                USING ERRCODE = '23505', HINT = 'Use a new request id for a new request.';
        END IF;
        PERFORM dpbayes._audit(dataset, ds.id, request_id, spec, NULL, NULL, NULL, 'duplicate');
        RETURN old.status;
    END IF;

    -- 5. the exact charge: a privacy unit with at most k rows (kept before
    --    the release) is charged for a group of k rows (docs/governance.md
    --    §9): k^2 rho (zCDP group privacy), k eps (pure DP: Laplace, one
    --    betaD draw), otherwise the eps of k^2 rho at the request's delta (CKS)
    k := coalesce(ds.max_rows_per_unit, 1);
    IF k > 1 THEN
        ch.rho := (k * k) * ch.rho;
        IF ch.delta = 0 THEN            -- pure DP (Laplace, one betaD draw)
            ch.epsilon := k * ch.epsilon;
        ELSE
            ch.epsilon := (dpbayes.compose(ch.rho, 1e300, 0, 1, 1e300, ch.delta)).epsilon_spent;
        END IF;
    END IF;

    -- 6. the budget, under the dataset row's lock, from the running totals in
    --    that row (a snapshot older than the last charge cannot lock it: 40001)
    BEGIN
        SELECT * INTO ds FROM dpbayes.dataset d WHERE d.relation = dataset FOR UPDATE;
    EXCEPTION WHEN lock_not_available THEN
        RAISE EXCEPTION 'the dataset is busy with another request' USING ERRCODE = '55P03',
            DETAIL = 'Nothing was charged.', HINT = 'Try again.';
    END;
    -- the same request may have been charged while this one waited
    PERFORM 1 FROM dpbayes.charge g
    WHERE g.requested_by = session_user AND g.request_id = _charge_any.request_id;
    IF FOUND THEN
        RETURN dpbayes._charge_any(dataset, model, response, features, privacy, betad,
                                   request_id, group_by, group_keys);
    END IF;
    c := dpbayes.compose(ds.spent_rho + ch.rho, ds.spent_epsilon + ch.epsilon,
                         ds.spent_delta + ch.delta, ds.spent_charges + 1, ds.epsilon, ds.delta);
    IF NOT c.fits THEN
        PERFORM dpbayes._audit(dataset, ds.id, request_id, spec, ch.rho, ch.epsilon, ch.delta,
                               'refused: over budget');
        RETURN 'over_budget';
    END IF;
    UPDATE dpbayes.dataset d SET spent_charges = d.spent_charges + 1, spent_rho = d.spent_rho + ch.rho,
        spent_epsilon = d.spent_epsilon + ch.epsilon, spent_delta = d.spent_delta + ch.delta
    WHERE d.relation = dataset;
    BEGIN
        INSERT INTO dpbayes.charge (request_id, relation, model, response, features, privacy,
            mechanism, sensitivity, noise_scale, rho, epsilon, delta, neighbours, unit_rows,
            group_by, group_keys, group_count, relation_name, betad)
        VALUES (request_id, dataset, model, response, features, privacy,
            ch.mechanism, ch.sensitivity, ch.noise_scale, ch.rho, ch.epsilon, ch.delta, ch.neighbours, k,
            group_by, group_keys, coalesce(cardinality(group_keys), 1), dataset::text, betad);
    EXCEPTION WHEN unique_violation THEN
        -- charged meanwhile on another dataset under the same id
        RAISE EXCEPTION 'the request id was already used for a different request'
            USING ERRCODE = '23505', HINT = 'Use a new request id for a new request.';
    END;
    PERFORM dpbayes._audit(dataset, ds.id, request_id, spec, ch.rho, ch.epsilon, ch.delta, 'charged');
    RETURN 'charged';
END $$;
COMMENT ON FUNCTION dpbayes._charge_any(regclass, text, text, text[], dpbayes.privacy, dpbayes.betad_params, text, name, text[]) IS
  'internal, step (a) of dpbayes.release for either kind of parameters (through dpbayes._charge): validates the request, checks the grant, locks the dataset, checks the budget with the exact charge and records it';

CREATE OR REPLACE FUNCTION dpbayes._charge(dataset regclass, model text, response text,
    features text[], privacy dpbayes.privacy, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
RETURNS text LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex
SET lock_timeout = '10s' AS $$
    SELECT dpbayes._charge_any($1, $2, $3, $4, $5, NULL, $6, $7, $8)
$$;
COMMENT ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) IS
  'internal, step (a) of dpbayes.release (granted to nobody: the procedure calls it): validates the request, checks the grant, locks the dataset, checks the budget with the exact charge and records it';
CREATE OR REPLACE FUNCTION dpbayes._charge(dataset regclass, model text, response text,
    features text[], betad dpbayes.betad_params, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
RETURNS text LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex
SET lock_timeout = '10s' AS $$
    SELECT dpbayes._charge_any($1, $2, $3, $4, NULL, $5, $6, $7, $8)
$$;
COMMENT ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.betad_params, text, name, text[]) IS
  'internal, step (a) of a governed betaD release (granted to nobody: the procedure calls it): as for dpbayes.privacy, with the betaD parameters';

-- The rows a release reads (docs/governance.md §5, the row policy): each
-- used column converted without an error that could print a value, a row
-- dropped when any used value is NULL, NaN, infinite, beyond the range of a
-- double, or (poisson) a negative or fractional count; for a dataset with a
-- privacy unit, at most k of each unit's remaining rows, chosen with bits of
-- pg_strong_random (dpbayes._strong_random_key).  With group keys materialized: computed once, whatever
-- plan reads it.  Columns __dpb_c0 (the response), __dpb_c1.. (features),
-- __dpb_group (the group column as text).
CREATE OR REPLACE FUNCTION dpbayes._source(g dpbayes.charge, unit name,
                                           policy_in_sql boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cols text[] := ARRAY[]::text[];
    conds text[] := ARRAY[]::text[];
    f text;
    i integer := 0;
    t regtype;
    e text;
    inner_q text;
    -- without a unit, linear, logistic and poisson rows go to the governed
    -- aggregates as they are (numeric responses converted): the aggregate
    -- drops the unusable ones itself, at no cost (release_cols.c)
    -- (policy_in_sql: the row policy in SQL all the same, for the array form
    -- of a distributed table, _compute)
    in_agg boolean := unit IS NULL AND g.betad IS NULL AND NOT coalesce(policy_in_sql, false);
BEGIN
    FOREACH f IN ARRAY g.response || g.features LOOP
        SELECT a.atttypid::regtype INTO t FROM pg_attribute a
        WHERE a.attrelid = g.relation AND a.attname = f AND a.attnum > 0 AND NOT a.attisdropped;
        e := CASE
            WHEN t = 'boolean'::regtype THEN format('t.%I', f)
            WHEN t = 'numeric'::regtype AND (i = 0 OR NOT in_agg) THEN format('dpbayes._numeric_f8(t.%I)', f)
            WHEN in_agg AND i > 0 THEN format('t.%I', f)
            WHEN in_agg THEN format('t.%I::float8', f)
            WHEN t IN ('real'::regtype, 'double precision'::regtype) THEN
                format('CASE WHEN t.%1$I::float8 OPERATOR(pg_catalog.>) ''-Infinity''::float8 '
                       'AND t.%1$I::float8 OPERATOR(pg_catalog.<) ''Infinity''::float8 '
                       'THEN t.%1$I::float8 END', f)
            ELSE format('t.%I::float8', f) END;
        cols := cols || format('%s AS __dpb_c%s', e, i);
        conds := conds || format('c.__dpb_c%s IS NOT NULL', i);
        i := i + 1;
    END LOOP;
    IF g.model IN ('poisson') THEN
        conds := conds || 'c.__dpb_c0 OPERATOR(pg_catalog.>=) 0::float8'::text
                       || 'c.__dpb_c0 OPERATOR(pg_catalog.=) pg_catalog.trunc(c.__dpb_c0)'::text;
    END IF;
    IF g.group_by IS NOT NULL THEN
        cols := cols || format('t.%I::text AS __dpb_group', g.group_by);
    END IF;
    IF unit IS NOT NULL THEN
        cols := cols || format('t.%I AS __dpb_unit', unit);
    END IF;
    IF in_agg THEN
        RETURN format('SELECT %s FROM %s t', array_to_string(cols, ', '), g.relation);
    END IF;
    inner_q := format('SELECT c.* FROM (SELECT %s FROM %s t) c WHERE %s',
                      array_to_string(cols, ', '), g.relation, array_to_string(conds, ' AND '));
    IF unit IS NULL THEN
        RETURN inner_q;
    END IF;
    RETURN format('SELECT b.* FROM (SELECT c.*, pg_catalog.row_number() OVER '
                  '(PARTITION BY c.__dpb_unit ORDER BY dpbayes._strong_random_key()) AS __dpb_rn '
                  'FROM (%s) c) b WHERE b.__dpb_rn OPERATOR(pg_catalog.<=) %s', inner_q, g.unit_rows);
END $$;
COMMENT ON FUNCTION dpbayes._source(dpbayes.charge, name, boolean) IS
  'internal: the query of the rows a governed release reads: the row policy, then at most k rows of each privacy unit chosen with strong random bits';

-- The binding of a governed release's signature: the canonical text of what
-- the release is about, beyond its own contents (which the signature covers
-- too): the dataset (name when charged and stable id), the charge (id,
-- request id, requester, model), the response and feature columns, the group.
CREATE OR REPLACE FUNCTION dpbayes._binding(g dpbayes.charge, dataset_id uuid, group_key text)
RETURNS bytea LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
    SELECT pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.jsonb_build_array('dpbayes.binding.v1',
        g.relation_name, dataset_id::text, g.id, g.request_id, g.requested_by::text, g.model,
        g.response, pg_catalog.to_jsonb(g.features), g.group_by::text, group_key)::text, 'UTF8'))
$$;
COMMENT ON FUNCTION dpbayes._binding(dpbayes.charge, uuid, text) IS
  'internal: the SHA-256 of what a governed release''s signature binds besides the release: dataset name and id, charge id, request id, requester, model, response and feature columns, group column and key';

-- Whether a governed release's binding names a released charge of the
-- ledger: some charge with this request id whose binding, for one of its
-- stored group keys, is this one (dpbayes.verify_detail; a deleted charge or
-- a release moved to another dataset, column or requester fails it).
CREATE OR REPLACE FUNCTION dpbayes._ledger_binding_ok(request_id text, binding bytea)
RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex AS $$
    SELECT EXISTS (
        SELECT 1 FROM dpbayes.charge c
        JOIN dpbayes.dataset d ON d.relation = c.relation
        JOIN dpbayes.released r ON r.charge_id = c.id
        WHERE c.request_id = $1 AND c.status = 'released'
          AND dpbayes._binding(c, d.id, r.group_key) = $2)
$$;
COMMENT ON FUNCTION dpbayes._ledger_binding_ok(text, bytea) IS
  'internal (for dpbayes.verify_detail, so executable by all): whether a released charge of the ledger has this request id and signature binding (only a signed release can ask: the binding covers the dataset''s stable id, which analysts cannot read)';

-- The key of a charge's computation lock (dpbayes._compute_begin) and its
-- release (every hold this session has of it).
CREATE OR REPLACE FUNCTION dpbayes._compute_lock_key(g dpbayes.charge) RETURNS integer
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.hashtext(d.id::text || ':' || g.id::text)
    FROM dpbayes.dataset d WHERE d.relation = g.relation
$$;
CREATE OR REPLACE FUNCTION dpbayes._compute_unlock(g dpbayes.charge) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k integer := dpbayes._compute_lock_key(g);
BEGIN
    WHILE EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted
                    AND l.classid = 1684172144::oid AND l.objid = (k::bigint & 4294967295)::oid
                    AND l.objsubid = 2) LOOP
        PERFORM pg_advisory_unlock(1684172144, k);
    END LOOP;
END $$;
COMMENT ON FUNCTION dpbayes._compute_lock_key(dpbayes.charge) IS
  'internal: the key of the session-level lock held while a charge''s release is computed';
COMMENT ON FUNCTION dpbayes._compute_unlock(dpbayes.charge) IS
  'internal: releases this session''s holds of a charge''s computation lock';
REVOKE ALL ON FUNCTION dpbayes._compute_lock_key(dpbayes.charge), dpbayes._compute_unlock(dpbayes.charge) FROM PUBLIC;

-- Before step (b), in a transaction of its own (committed before the
-- computation starts): counts the attempt.  A charge whose computation was
-- started before and never finished (cancelled, timed out, a crash) is not
-- computed again: it fails, so the duration of a computation over the rows
-- cannot be measured again and again for one charge.
CREATE OR REPLACE FUNCTION dpbayes._compute_begin(request_id text)
RETURNS text LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex
SET lock_timeout = '10s' AS $$
DECLARE
    g dpbayes.charge;
    k integer;
BEGIN
    SELECT * INTO g FROM dpbayes.charge c
    WHERE c.requested_by = session_user AND c.request_id = _compute_begin.request_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no charge of yours has this request id' USING ERRCODE = '42704';
    END IF;
    IF g.status <> 'charged' THEN
        RETURN g.status;
    END IF;
    -- a session-level lock held from here to the end of the computation
    -- (dpbayes._compute releases it): a second session computing the same
    -- charge waits for the first, and a lock this session still holds means
    -- its own computation was interrupted.  Its key involves the dataset's
    -- id, which analysts cannot read, so they cannot take it themselves.
    k := dpbayes._compute_lock_key(g);
    BEGIN
        PERFORM pg_advisory_lock(1684172144, k);
    EXCEPTION WHEN lock_not_available THEN
        RAISE EXCEPTION 'the release of this request is being computed by another session'
            USING ERRCODE = '55006', HINT = 'Call again when it has finished.';
    END;
    SELECT * INTO g FROM dpbayes.charge c WHERE c.id = g.id FOR UPDATE;
    IF g.status <> 'charged' THEN
        PERFORM dpbayes._compute_unlock(g);
        RETURN g.status;
    END IF;
    IF g.compute_attempts > 0 THEN
        -- started before, not running now: interrupted (cancelled, timed
        -- out, a crash); not computed again
        UPDATE dpbayes.charge c SET status = 'failed', finished_at = clock_timestamp(),
            error_sqlstate = '57014',
            error_message = 'the computation of the release was interrupted before it finished'
        WHERE c.id = g.id;
        PERFORM dpbayes._audit(g.relation, (SELECT d.id FROM dpbayes.dataset d WHERE d.relation = g.relation),
                               g.request_id, NULL, g.rho, g.epsilon, g.delta, 'failed: 57014');
        PERFORM dpbayes._compute_unlock(g);
        RETURN 'failed';
    END IF;
    UPDATE dpbayes.charge c SET compute_attempts = 1 WHERE c.id = g.id;
    RETURN 'charged';
END $$;
COMMENT ON FUNCTION dpbayes._compute_begin(text) IS
  'internal, before step (b) of dpbayes.release (granted to nobody): counts the computation''s start in a committed transaction; a charge whose computation was interrupted fails instead of running again';

-- Step (b): computes the release of a charge committed by an earlier
-- transaction (status charged), signs and stores it, or records the failure;
-- the charge stays either way.  Pins the planner (the bounded source is a
-- materialized CTE besides) and the text settings.
CREATE OR REPLACE FUNCTION dpbayes._compute(request_id text)
RETURNS text LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 SET "DateStyle" = 'ISO, MDY'
SET "IntervalStyle" = postgres SET "TimeZone" = 'UTC' SET lc_numeric = 'C' SET bytea_output = hex
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = on SET enable_tidscan = on SET enable_sort = on
SET enable_incremental_sort = on SET enable_hashagg = on SET enable_material = on
SET enable_nestloop = on SET enable_mergejoin = on SET enable_hashjoin = on
SET enable_gathermerge = on SET enable_parallel_append = on SET enable_parallel_hash = on
SET enable_partition_pruning = on SET enable_partitionwise_join = off
SET enable_partitionwise_aggregate = off
-- a betaD group's rows are never refused for their number under the
-- analyst's work_mem: the status would depend on the data
SET dpbayes.betad_buffer_unbounded = on AS $$
DECLARE
    g dpbayes.charge;
    ds record;
    q text;
    rel dpbayes.release;
    st text;
    msg text;
    agg text;
    mat text;
    k_key text;
    keys text[];
    rels dpbayes.release[];
    dist boolean := false;
    pushed dpbayes.release;
    emsg text;
    empty_q text;
    gkey text;
BEGIN
    SELECT * INTO g FROM dpbayes.charge c
    WHERE c.requested_by = session_user AND c.request_id = _compute.request_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no charge of yours has this request id' USING ERRCODE = '42704';
    END IF;
    IF g.status <> 'charged' THEN
        RETURN g.status;                -- made (or failed) once: never again
    END IF;
    IF g.charged_in_xact = pg_current_xact_id() THEN
        RAISE EXCEPTION 'a release is computed only after its charge is committed'
            USING ERRCODE = '55000';
    END IF;
    IF current_setting('dpbayes.insecure_noise_seed') <> '-1' THEN
        RAISE EXCEPTION 'governed releases refuse deterministic test noise'
            USING ERRCODE = '55000', HINT = 'Reset dpbayes.insecure_noise_seed.';
    END IF;
    SELECT * INTO ds FROM dpbayes.dataset d WHERE d.relation = g.relation;
    -- the rows of a privacy unit are drawn at random: with group keys (a
    -- join that a plan could rescan) they are computed once (MATERIALIZED);
    -- otherwise one aggregate reads the source once, and it streams
    mat := CASE WHEN ds.privacy_unit IS NOT NULL AND g.group_by IS NOT NULL
                THEN 'MATERIALIZED' ELSE 'NOT MATERIALIZED' END;
    BEGIN
        -- the column form of the aggregate, the charged parameters as a
        -- parameter ($1 a privacy value, $3 betaD parameters), never as text
        agg := format(CASE WHEN g.betad IS NULL THEN 'dpbayes._governed_%s_release(s.__dpb_c0, $1, %s)'
                           ELSE 'dpbayes.%s(s.__dpb_c0, $3, %s)' END, g.model,
                      (SELECT string_agg(format('s.__dpb_c%s', i), ', ' ORDER BY i)
                       FROM generate_series(1, cardinality(g.features)) i));
        -- a table distributed by Citus (docs/scale-out.md), without a privacy
        -- unit: the array form, which Citus pushes down (each shard's exact
        -- sums, combined and made noisy once on the coordinator), over the
        -- source with the row policy applied in SQL (_source's third
        -- argument: the governed column form, which drops unusable rows
        -- itself, is not pushed down); the same rows as the column form.  With public
        -- group keys, one release per key: the keys that have rows grouped on
        -- the shards (GROUP BY, pushed down), each other key the release of an
        -- empty group (noise alone), made here, as for a table without rows:
        -- the coordinator that combines the shards never sees the parameters
        -- of a group without rows.
        IF g.betad IS NULL AND ds.privacy_unit IS NULL
           AND pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
            EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition p '
                    'WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1)' INTO dist USING g.relation;
        END IF;
        IF dist THEN
            agg := format('dpbayes.%s_release(ARRAY[%s]::pg_catalog.float8[], s.__dpb_c0, $1)', g.model,
                          (SELECT string_agg(format('s.__dpb_c%s', i), ', ' ORDER BY i)
                           FROM generate_series(1, cardinality(g.features)) i));
            empty_q := format('SELECT %s FROM (SELECT NULL::%s AS __dpb_c0, %s) s WHERE false', agg,
                              CASE WHEN g.model = 'logistic' THEN 'pg_catalog.bool' ELSE 'pg_catalog.float8' END,
                              (SELECT string_agg(format('NULL::pg_catalog.float8 AS __dpb_c%s', i), ', ' ORDER BY i)
                               FROM generate_series(1, cardinality(g.features)) i));
            IF g.group_by IS NULL THEN
                BEGIN
                    EXECUTE format('SELECT %s FROM (%s) s', agg, dpbayes._source(g, NULL, true))
                        INTO pushed USING g.privacy;
                EXCEPTION WHEN feature_not_supported THEN
                    GET STACKED DIAGNOSTICS emsg = MESSAGE_TEXT;
                    IF emsg <> 'cannot release an empty group of a distributed table' THEN
                        RAISE;
                    END IF;
                    EXECUTE empty_q INTO pushed USING g.privacy;
                END;
                keys := ARRAY['']::text[];
                rels := ARRAY[pushed]::dpbayes.release[];
            ELSE
                EXECUTE format('SELECT pg_catalog.array_agg(x.key), pg_catalog.array_agg(x.release) '
                               'FROM (SELECT s.__dpb_group AS key, %s AS release FROM (%s) s '
                               'WHERE s.__dpb_group OPERATOR(pg_catalog.=) ANY ($2) '
                               'GROUP BY s.__dpb_group) x', agg, dpbayes._source(g, NULL, true))
                    INTO keys, rels USING g.privacy, g.group_keys;
                keys := coalesce(keys, ARRAY[]::text[]);
                rels := coalesce(rels, ARRAY[]::dpbayes.release[]);
                FOREACH gkey IN ARRAY g.group_keys LOOP
                    IF pg_catalog.array_position(keys, gkey) IS NULL THEN
                        EXECUTE empty_q INTO pushed USING g.privacy;
                        keys := keys || gkey;
                        rels := rels || pushed;
                    END IF;
                END LOOP;
                -- in key order, as on one server
                SELECT pg_catalog.array_agg(u.key ORDER BY u.key), pg_catalog.array_agg(u.release ORDER BY u.key)
                INTO keys, rels
                FROM ROWS FROM (pg_catalog.unnest(keys), pg_catalog.unnest(rels)) AS u(key, release);
            END IF;
        ELSIF g.group_by IS NULL THEN
            q := format('WITH s AS %s (%s) SELECT ''''::text AS key, %s AS release FROM s',
                        mat, dpbayes._source(g, ds.privacy_unit), agg);
        ELSE
            -- one release per public key, empty groups included (a release
            -- of noise alone): which keys occur is never revealed
            q := format('WITH s AS %s (%s) '
                        'SELECT k.key, %s FILTER (WHERE s.__dpb_group IS NOT NULL) AS release '
                        'FROM pg_catalog.unnest($2) AS k(key) '
                        'LEFT JOIN s ON s.__dpb_group OPERATOR(pg_catalog.=) k.key GROUP BY k.key',
                        mat, dpbayes._source(g, ds.privacy_unit), agg);
        END IF;
        IF NOT dist THEN
            -- one row (EXECUTE ... INTO, not a cursor: the planner may use
            -- parallel workers, as for the bare aggregate)
            EXECUTE format('SELECT pg_catalog.array_agg(x.key ORDER BY x.key), '
                           'pg_catalog.array_agg(x.release ORDER BY x.key) FROM (%s) x', q)
                INTO keys, rels USING g.privacy, g.group_keys, g.betad;
        END IF;
        FOR i IN 1 .. coalesce(cardinality(keys), 0) LOOP
            k_key := keys[i];
            rel := rels[i];
            -- the release must record exactly the mechanism charged (for a
            -- privacy unit of k rows, the charge is k^2 times its rho)
            IF g.betad IS NULL THEN
                IF (g.unit_rows * g.unit_rows) * (dpbayes.release_json(rel) ->> 'zcdp_rho')::float8
                   IS DISTINCT FROM g.rho THEN
                    RAISE EXCEPTION 'the release does not match its charge' USING ERRCODE = 'P0003';
                END IF;
            ELSIF abs((g.unit_rows * g.unit_rows) * (dpbayes.release_json(rel) ->> 'ndraws')::int
                      * ((dpbayes.release_json(rel) ->> 'epsilon_per_draw')::float8) ^ 2 / 8 - g.rho)
                  > 1e-12 * g.rho THEN
                RAISE EXCEPTION 'the release does not match its charge' USING ERRCODE = 'P0003';
            END IF;
            -- signed over its canonical form, the request id, the dataset
            -- (with the group: "public.t [region = 2]") and the binding
            rel := dpbayes._sign(rel, g.request_id,
                                 CASE WHEN g.group_by IS NULL THEN g.relation_name
                                      ELSE format('%s [%s = %s]', g.relation_name, g.group_by, k_key) END,
                                 dpbayes._binding(g, ds.id, k_key),
                                 (dpbayes._signing_key()).private_key);
            INSERT INTO dpbayes.released (request_id, group_key, release, charge_id)
            VALUES (g.request_id, k_key, rel, g.id);
        END LOOP;
        UPDATE dpbayes.charge c SET status = 'released', finished_at = clock_timestamp()
        WHERE c.id = g.id;
        PERFORM dpbayes._compute_unlock(g);
        PERFORM dpbayes._audit(g.relation, ds.id, g.request_id, NULL, g.rho, g.epsilon, g.delta, 'released');
        RETURN 'released';
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
        UPDATE dpbayes.charge c SET status = 'failed', finished_at = clock_timestamp(),
            error_sqlstate = st, error_message = left(msg, 1000)
        WHERE c.id = g.id;
        PERFORM dpbayes._audit(g.relation, ds.id, g.request_id, NULL, g.rho, g.epsilon, g.delta,
                               'failed: ' || st);
        PERFORM dpbayes._compute_unlock(g);
        RETURN 'failed';
    END;
END $$;
COMMENT ON FUNCTION dpbayes._compute(text) IS
  'internal, step (b) of dpbayes.release (granted to nobody: the procedure calls it): computes, signs and stores the release of a charge committed earlier, once; a failure is recorded and the charge kept';

CREATE OR REPLACE PROCEDURE dpbayes.release(dataset regclass, model text, response text,
    features text[], privacy dpbayes.privacy, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
AS 'MODULE_PATHNAME', 'dpbayes_governed_release' LANGUAGE C;
COMMENT ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) IS
  'governed release: commits the exact charge against the dataset''s budget (SQLSTATE DP001 when it would be exceeded), then computes, signs and stores the release under request_id (idempotent per requester; DP002 when it failed after the charge); read it from dpbayes.my_requests.  Not inside a transaction block.';

-- (another name, not an overload of dpbayes.release: a privacy value
-- written as a quoted literal would then be ambiguous)
CREATE OR REPLACE PROCEDURE dpbayes.release_betad(dataset regclass, model text, response text,
    features text[], betad dpbayes.betad_params, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
AS 'MODULE_PATHNAME', 'dpbayes_governed_release' LANGUAGE C;
COMMENT ON PROCEDURE dpbayes.release_betad(regclass, text, text, text[], dpbayes.betad_params, text, name, text[]) IS
  'governed betaD release (model betad_logistic, betad_linear, betad_mlp_classifier or betad_mlp_regression, parameters from dpbayes.betad(...)): charges the draws'' epsilon (rho = k eps1^2 / 8) to the dataset''s budget, then makes, signs and stores one private posterior draw per group (docs/governance.md §3, docs/betad.md)';

CREATE OR REPLACE VIEW dpbayes.my_requests WITH (security_barrier) AS
SELECT g.request_id, g.relation, g.model, g.response, g.features, g.mechanism, g.sensitivity,
       g.noise_scale, g.rho, g.epsilon, g.delta, g.neighbours, g.group_count, g.unit_rows, g.group_by, r.group_key, g.status,
       g.charged_at, g.finished_at, g.error_sqlstate,
       -- the owner reads the message in dpbayes.charge: an error raised
       -- while reading the rows (a view's own error) could quote data
       CASE WHEN g.status = 'failed'
            THEN 'the release could not be computed; the dataset''s owner can read the error in dpbayes.charge' END
           AS error_message,
       -- a release is shown only once committed: never inside the
       -- transaction that made it, which could still roll back
       CASE WHEN r.made_in_xact IS DISTINCT FROM pg_current_xact_id_if_assigned()
            THEN r.release END AS release,
       g.id AS charge_id
FROM dpbayes.charge g LEFT JOIN dpbayes.released r ON r.charge_id = g.id
WHERE g.requested_by = session_user;
COMMENT ON VIEW dpbayes.my_requests IS
  'the requests of the session user with their charges, status and (once committed) releases';
REVOKE ALL ON dpbayes.my_requests FROM PUBLIC;

REVOKE ALL ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]),
    dpbayes._charge(regclass, text, text, text[], dpbayes.betad_params, text, name, text[]),
    dpbayes._charge_any(regclass, text, text, text[], dpbayes.privacy, dpbayes.betad_params, text, name, text[]),
    dpbayes._compute(text), dpbayes._compute_begin(text), dpbayes.budget(regclass), dpbayes._may_use(regclass),
    dpbayes._may_manage(regclass), dpbayes._audit(regclass, uuid, text, jsonb, double precision,
        double precision, double precision, text),
    dpbayes.audit_verify(), dpbayes._source(dpbayes.charge, name, boolean),
    dpbayes._binding(dpbayes.charge, uuid, text),
    dpbayes.register_dataset(regclass, double precision, double precision, text, integer),
    dpbayes.set_budget(regclass, double precision, double precision),
    dpbayes.grant_dataset(regclass, regrole), dpbayes.revoke_dataset(regclass, regrole) FROM PUBLIC;
REVOKE ALL ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]),
    dpbayes.release_betad(regclass, text, text, text[], dpbayes.betad_params, text, name, text[]) FROM PUBLIC;

-- The ledger role: a NOLOGIN role with no members that owns the ledger, the
-- signing keys and the SECURITY DEFINER routines.  Made here when missing;
-- an existing one must be NOLOGIN, not a superuser, without members.
CREATE OR REPLACE FUNCTION dpbayes._ledger_role() RETURNS name
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    r record;
BEGIN
    SELECT * INTO r FROM pg_roles WHERE rolname = 'dpbayes_ledger';
    IF NOT FOUND THEN
        CREATE ROLE dpbayes_ledger NOLOGIN;
        RETURN 'dpbayes_ledger';
    END IF;
    IF r.rolcanlogin OR r.rolsuper OR r.rolcreaterole OR r.rolbypassrls
       OR EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.roleid = r.oid) THEN
        RAISE EXCEPTION 'the role dpbayes_ledger exists and is not a plain NOLOGIN role without members'
            USING ERRCODE = '42501',
                  DETAIL = 'The ledger role holds the signing keys: no login role may act as it.',
                  HINT = 'ALTER ROLE dpbayes_ledger NOLOGIN NOSUPERUSER NOCREATEROLE NOBYPASSRLS, and revoke it from every role.';
    END IF;
    RETURN 'dpbayes_ledger';
END $$;
COMMENT ON FUNCTION dpbayes._ledger_role() IS
  'internal: the ledger role dpbayes_ledger, made NOLOGIN when missing, checked otherwise';
REVOKE ALL ON FUNCTION dpbayes._ledger_role() FROM PUBLIC;

CREATE OR REPLACE FUNCTION dpbayes.governance_setup(owner_role regrole, analyst_role regrole)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    l name;
    o text;
BEGIN
    IF owner_role IS NULL OR analyst_role IS NULL THEN
        RAISE EXCEPTION 'both roles must be given' USING ERRCODE = '22004';
    END IF;
    l := dpbayes._ledger_role();
    IF pg_has_role(owner_role, l, 'MEMBER') OR pg_has_role(analyst_role, l, 'MEMBER') THEN
        RAISE EXCEPTION 'the owner and analyst roles must not be members of the ledger role'
            USING ERRCODE = '42501';
    END IF;
    -- the ledger role owns the ledger, the keys and the SECURITY DEFINER
    -- routines; owners read the ledger and manage through audited routines
    FOREACH o IN ARRAY ARRAY['dpbayes.dataset', 'dpbayes.charge', 'dpbayes.released', 'dpbayes.audit',
                             'dpbayes.audit_head', 'dpbayes.dataset_grant', 'dpbayes.signing_key',
                             'dpbayes.signing_secret', 'dpbayes.my_requests'] LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO %I', o, l);
    END LOOP;
    FOREACH o IN ARRAY ARRAY[
        'dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[])',
        'dpbayes._charge(regclass, text, text, text[], dpbayes.betad_params, text, name, text[])',
        'dpbayes._charge_any(regclass, text, text, text[], dpbayes.privacy, dpbayes.betad_params, text, name, text[])',
        'dpbayes._compute(text)', 'dpbayes._compute_begin(text)', 'dpbayes.budget(regclass)',
        'dpbayes._compute_lock_key(dpbayes.charge)', 'dpbayes._compute_unlock(dpbayes.charge)',
        'dpbayes._may_use(regclass)', 'dpbayes._unit_partitionable(regclass, name)',
        'dpbayes._may_manage(regclass)',
        'dpbayes._audit(regclass, uuid, text, jsonb, double precision, double precision, double precision, text)',
        'dpbayes.audit_verify()', 'dpbayes._source(dpbayes.charge, name, boolean)',
        'dpbayes._binding(dpbayes.charge, uuid, text)', 'dpbayes._ledger_binding_ok(text, bytea)',
        'dpbayes.register_dataset(regclass, double precision, double precision, text, integer)',
        'dpbayes.set_budget(regclass, double precision, double precision)',
        'dpbayes.grant_dataset(regclass, regrole)', 'dpbayes.revoke_dataset(regclass, regrole)',
        'dpbayes._signing_key()', 'dpbayes.rotate_signing_key()', 'dpbayes.revoke_signing_key(bytea)'] LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO %I', o, l);
    END LOOP;
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes._governed_linear_release(double precision, dpbayes.privacy, VARIADIC "any"), '
                   'dpbayes._governed_logistic_release(boolean, dpbayes.privacy, VARIADIC "any"), '
                   'dpbayes._governed_poisson_release(double precision, dpbayes.privacy, VARIADIC "any") TO %I', l);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes._keygen(), dpbayes._sign(dpbayes.release, text, text, bytea), '
                   'dpbayes._sign(dpbayes.release, text, text, bytea, bytea) TO %I', l);
    -- the private keys are the ledger role's alone (0.1.0 gave the owner
    -- role the key routines)
    EXECUTE format('REVOKE ALL ON FUNCTION dpbayes._keygen(), dpbayes._sign(dpbayes.release, text, text, bytea), '
                   'dpbayes._sign(dpbayes.release, text, text, bytea, bytea), '
                   'dpbayes._signing_key() FROM %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT USAGE ON SCHEMA dpbayes TO %I, %I, %I', owner_role, analyst_role, l);
    EXECUTE format('GRANT SELECT ON dpbayes.dataset, dpbayes.charge, dpbayes.released, dpbayes.audit, '
                   'dpbayes.audit_head, dpbayes.dataset_grant TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION '
                   'dpbayes.register_dataset(regclass, double precision, double precision, text, integer), '
                   'dpbayes.set_budget(regclass, double precision, double precision), '
                   'dpbayes.grant_dataset(regclass, regrole), dpbayes.revoke_dataset(regclass, regrole), '
                   'dpbayes.audit_verify(), dpbayes.rotate_signing_key(), dpbayes.revoke_signing_key(bytea) TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes.budget(regclass) TO %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT EXECUTE ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]), '
                   'dpbayes.release_betad(regclass, text, text, text[], dpbayes.betad_params, text, name, text[]) TO %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT SELECT ON dpbayes.my_requests TO %I, %I', owner_role, analyst_role);
    -- datasets registered before the ledger role read them (0.1.0 read them
    -- as the owner role): the ledger role may read them now
    FOR o IN SELECT d.relation::text FROM dpbayes.dataset d
             WHERE NOT has_table_privilege(l, d.relation, 'SELECT') LOOP
        EXECUTE format('GRANT SELECT ON %s TO %I', o, l);
        RAISE NOTICE 'granted SELECT on the registered dataset % to %', o, l;
    END LOOP;
    -- the signing key exists from the set-up on (a restore makes a new one)
    PERFORM dpbayes._signing_key();
END $$;
COMMENT ON FUNCTION dpbayes.governance_setup(regrole, regrole) IS
  'run by a superuser once (and again after a restore, and for each further analyst role): makes the NOLOGIN ledger role dpbayes_ledger, hands it the ledger, the keys and the SECURITY DEFINER routines, lets the owner role read the ledger and manage datasets through audited routines, and grants the analyst role the governed path only';
REVOKE ALL ON FUNCTION dpbayes.governance_setup(regrole, regrole) FROM PUBLIC;
