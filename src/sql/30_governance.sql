-- ---------------------------------------------------------------------------
-- Governed releases (docs/governance.md): datasets, the ledger, the release
-- procedure, roles.  Custom SQLSTATE: DP001 = the privacy budget would be
-- exceeded.
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
    CHECK ((privacy_unit IS NULL) = (max_rows_per_unit IS NULL))
);
COMMENT ON TABLE dpbayes.dataset IS
  'registered datasets: a relation with its total privacy budget (epsilon, delta) and optional privacy unit';

CREATE TABLE dpbayes.charge (
    request_id    text PRIMARY KEY CHECK (length(request_id) BETWEEN 1 AND 200),
    relation      regclass NOT NULL REFERENCES dpbayes.dataset ON UPDATE CASCADE,
    model         text NOT NULL,
    response      text NOT NULL,
    features      text[] NOT NULL,
    privacy       dpbayes.privacy NOT NULL,
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
    error_message text
);
CREATE INDEX ON dpbayes.charge (relation);
COMMENT ON TABLE dpbayes.charge IS
  'the privacy ledger: one row per charged request, the mechanism recorded exactly (kind, sensitivity, noise scale, zCDP rho, epsilon, delta, neighbours, group count); a charge is never removed, failed releases included';

CREATE TABLE dpbayes.released (
    request_id   text NOT NULL REFERENCES dpbayes.charge,
    group_key    text NOT NULL DEFAULT '',   -- '': no group keys
    release      dpbayes.release NOT NULL,
    made_in_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    made_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (request_id, group_key)
);
COMMENT ON TABLE dpbayes.released IS
  'the releases made by dpbayes.release, keyed by request id';

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
    outcome     text NOT NULL
);
COMMENT ON TABLE dpbayes.audit IS
  'every request to dpbayes.release: who, when, dataset, spec, charge and outcome (charged, duplicate, refused: over budget, released, failed); readable by the governance owner';

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

CREATE FUNCTION dpbayes.register_dataset(relation regclass, epsilon double precision,
    delta double precision, privacy_unit text DEFAULT NULL,
    max_rows_per_unit integer DEFAULT NULL)
RETURNS void LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k char;
BEGIN
    IF relation IS NULL OR epsilon IS NULL OR delta IS NULL THEN
        RAISE EXCEPTION 'relation, epsilon and delta must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind INTO k FROM pg_class c WHERE c.oid = relation;
    IF k IS NULL OR k NOT IN ('r', 'v', 'm', 'p', 'f') THEN
        RAISE EXCEPTION 'a dataset must be a table, view or materialized view' USING ERRCODE = '42809';
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
    IF EXISTS (SELECT 1 FROM dpbayes.dataset d WHERE d.relation = register_dataset.relation) THEN
        RAISE EXCEPTION 'the relation is already a registered dataset' USING ERRCODE = '42710',
            DETAIL = 'Its budget is fixed once charges exist against it.';
    END IF;
    INSERT INTO dpbayes.dataset (relation, epsilon, delta, privacy_unit, max_rows_per_unit)
    VALUES (relation, epsilon, delta, privacy_unit, max_rows_per_unit);
END $$;
COMMENT ON FUNCTION dpbayes.register_dataset(regclass, double precision, double precision, text, integer) IS
  'registers a table or view as a dataset with a total budget (epsilon, delta); privacy_unit and max_rows_per_unit bound each unit to at most that many rows (chosen at random) before every release, and the charge is for a group of that many rows';

CREATE FUNCTION dpbayes.grant_dataset(relation regclass, grantee regrole)
RETURNS void LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF relation IS NULL OR grantee IS NULL THEN
        RAISE EXCEPTION 'relation and grantee must not be null' USING ERRCODE = '22004';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dpbayes.dataset d WHERE d.relation = grant_dataset.relation) THEN
        RAISE EXCEPTION 'the relation is not a registered dataset' USING ERRCODE = '42704';
    END IF;
    INSERT INTO dpbayes.dataset_grant (relation, grantee) VALUES (relation, grantee::name)
    ON CONFLICT DO NOTHING;
END $$;
COMMENT ON FUNCTION dpbayes.grant_dataset(regclass, regrole) IS
  'lets the members of a role request governed releases of a dataset (for the governance owner)';
CREATE FUNCTION dpbayes.revoke_dataset(relation regclass, grantee regrole)
RETURNS void LANGUAGE sql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM dpbayes.dataset_grant g WHERE g.relation = $1 AND g.grantee = $2::name
$$;
COMMENT ON FUNCTION dpbayes.revoke_dataset(regclass, regrole) IS
  'removes a per-dataset grant (for the governance owner)';
REVOKE ALL ON FUNCTION dpbayes.grant_dataset(regclass, regrole), dpbayes.revoke_dataset(regclass, regrole) FROM PUBLIC;

CREATE FUNCTION dpbayes.budget(dataset regclass,
    OUT epsilon_budget double precision, OUT delta_budget double precision,
    OUT charges integer, OUT rho_spent double precision,
    OUT epsilon_spent double precision, OUT delta_spent double precision,
    OUT method text, OUT epsilon_remaining double precision)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    s record;
    c record;
BEGIN
    SELECT d.epsilon, d.delta INTO epsilon_budget, delta_budget
    FROM dpbayes.dataset d WHERE d.relation = dataset;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the relation is not a registered dataset' USING ERRCODE = '42704';
    END IF;
    SELECT count(*)::int AS n, coalesce(sum(g.rho), 0) AS rho, coalesce(sum(g.epsilon), 0) AS eps,
           coalesce(sum(g.delta), 0) AS delta
    INTO s FROM dpbayes.charge g WHERE g.relation = dataset;
    c := dpbayes.compose(s.rho, s.eps, s.delta, s.n, epsilon_budget, delta_budget);
    charges := s.n;
    rho_spent := s.rho;
    epsilon_spent := c.epsilon_spent;
    delta_spent := c.delta_spent;
    method := c.method;
    epsilon_remaining := greatest(epsilon_budget - c.epsilon_spent, 0);
END $$;
COMMENT ON FUNCTION dpbayes.budget(regclass) IS
  'the budget of a dataset: total, charges, spent (epsilon, delta) by the tighter valid composition (method zcdp or basic), remaining epsilon';

-- Step (a) of dpbayes.release: validate, check the budget and insert the
-- charge (the caller commits).  Returns the request's status: charged,
-- released, failed (the request id was seen before) or over_budget.
CREATE FUNCTION dpbayes._charge(dataset regclass, model text, response text,
    features text[], privacy dpbayes.privacy, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
RETURNS text LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    ds record;
    old record;
    ch record;
    s record;
    c record;
    f text;
    t regtype;
    spec jsonb;
    k integer;
BEGIN
    IF dataset IS NULL OR model IS NULL OR response IS NULL OR features IS NULL
       OR privacy IS NULL OR request_id IS NULL THEN
        RAISE EXCEPTION 'the arguments of dpbayes.release must not be null' USING ERRCODE = '22004';
    END IF;
    spec := jsonb_build_object('model', model, 'response', response, 'features', to_jsonb(features),
                               'privacy', to_jsonb(privacy), 'group_by', group_by,
                               'group_keys', to_jsonb(group_keys));
    -- the lock serialises every check-and-charge on this dataset
    SELECT * INTO ds FROM dpbayes.dataset d WHERE d.relation = dataset FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the relation is not a registered dataset' USING ERRCODE = '42704',
            HINT = 'A data owner registers it with dpbayes.register_dataset().';
    END IF;
    -- per-dataset grants: the session user must be a superuser, a member of
    -- the registering role, or a member of a granted role
    IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = session_user)
       AND NOT pg_has_role(session_user, ds.registered_by, 'MEMBER')
       AND NOT EXISTS (SELECT 1 FROM dpbayes.dataset_grant gr
                       WHERE gr.relation = dataset AND pg_has_role(session_user, gr.grantee, 'MEMBER')) THEN
        -- recorded (the caller commits), then refused by dpbayes.release
        INSERT INTO dpbayes.audit (relation, request_id, spec, outcome)
        VALUES (dataset, request_id, spec, 'refused: not granted');
        RETURN 'not_granted';
    END IF;
    SELECT * INTO old FROM dpbayes.charge g WHERE g.request_id = _charge.request_id;
    IF FOUND THEN
        IF old.relation <> dataset OR old.model <> _charge.model OR old.response <> _charge.response
           OR old.features <> _charge.features OR old.privacy IS DISTINCT FROM _charge.privacy
           OR old.group_by IS DISTINCT FROM _charge.group_by
           OR old.group_keys IS DISTINCT FROM _charge.group_keys THEN
            RAISE EXCEPTION 'the request id was already used for a different request'
                USING ERRCODE = '23505', HINT = 'Use a new request id for a new request.';
        END IF;
        INSERT INTO dpbayes.audit (relation, request_id, spec, outcome)
        VALUES (dataset, request_id, spec, 'duplicate');
        RETURN old.status;
    END IF;
    IF (privacy).neighbours IS DISTINCT FROM 'add_remove' THEN
        RAISE EXCEPTION 'governed releases use add/remove neighbours'
            USING ERRCODE = '0A000',
                  DETAIL = 'A dataset''s budget is accounted under add/remove-one neighbours, where the number of rows is private.';
    END IF;
    IF current_setting('dpbayes.insecure_noise_seed') <> '-1' THEN
        RAISE EXCEPTION 'governed releases refuse deterministic test noise'
            USING ERRCODE = '55000',
                  HINT = 'Reset dpbayes.insecure_noise_seed.';
    END IF;
    IF model NOT IN ('linear', 'logistic', 'poisson') THEN
        RAISE EXCEPTION 'unknown model' USING ERRCODE = '22023',
            HINT = 'Use "linear", "logistic" or "poisson".';
    END IF;
    IF cardinality(features) < 1 OR array_position(features, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'features must be a non-empty list of column names' USING ERRCODE = '22023';
    END IF;
    -- public group keys: a column and the list of its values to release
    IF (group_by IS NULL) <> (group_keys IS NULL) THEN
        RAISE EXCEPTION 'group_by and group_keys go together' USING ERRCODE = '22023',
            HINT = 'Give the group column and the public list of its values, or neither.';
    END IF;
    IF group_by IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = dataset AND a.attname = group_by
                       AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION 'the group column is not a column of the dataset' USING ERRCODE = '42703';
        END IF;
        IF cardinality(group_keys) NOT BETWEEN 1 AND 1000
           OR array_position(group_keys, NULL) IS NOT NULL
           OR EXISTS (SELECT 1 FROM unnest(group_keys) x WHERE octet_length(x) NOT BETWEEN 1 AND 50
                      OR x ~ '[[:cntrl:]]')
           OR (SELECT count(DISTINCT x) FROM unnest(group_keys) x) <> cardinality(group_keys) THEN
            RAISE EXCEPTION 'invalid group keys' USING ERRCODE = '22023',
                DETAIL = 'group_keys is a list of 1 to 1000 distinct public values, each 1 to 50 bytes of text without control characters.';
        END IF;
    END IF;
    -- every column by name against the relation's attributes
    FOREACH f IN ARRAY features || response LOOP
        SELECT a.atttypid::regtype INTO t FROM pg_attribute a
        WHERE a.attrelid = dataset AND a.attname = f AND a.attnum > 0 AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'a requested column is not a column of the dataset' USING ERRCODE = '42703',
                DETAIL = 'Features and the response are column names of the registered relation.';
        END IF;
        IF f = response AND model = 'logistic' THEN
            IF t <> 'boolean'::regtype THEN
                RAISE EXCEPTION 'the response of a logistic release must be a boolean column'
                    USING ERRCODE = '42804';
            END IF;
        ELSIF t NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'real'::regtype,
                        'double precision'::regtype, 'numeric'::regtype) THEN
            RAISE EXCEPTION 'features and a linear or poisson response must be numeric columns'
                USING ERRCODE = '42804';
        END IF;
    END LOOP;
    ch := dpbayes.charge_of(model, cardinality(features), privacy);
    -- a privacy unit with at most k rows (kept before the release): the
    -- charge is for a group of k rows (docs/governance.md §8): k^2 rho
    -- (zCDP group privacy), k eps (Laplace, pure DP), the Gaussian's eps
    -- from k^2 rho at the request's delta (CKS)
    k := coalesce(ds.max_rows_per_unit, 1);
    IF ds.privacy_unit IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = dataset
                       AND a.attname = ds.privacy_unit AND a.attnum > 0 AND NOT a.attisdropped) THEN
        RAISE EXCEPTION 'the privacy unit is no longer a column of the dataset' USING ERRCODE = '42703';
    END IF;
    IF k > 1 THEN
        ch.rho := (k * k) * ch.rho;
        IF ch.mechanism = 'laplace' THEN
            ch.epsilon := k * ch.epsilon;
        ELSE
            ch.epsilon := (dpbayes.compose(ch.rho, 1e300, 0, 1, 1e300, ch.delta)).epsilon_spent;
        END IF;
    END IF;
    SELECT count(*)::int AS n, coalesce(sum(g.rho), 0) AS rho, coalesce(sum(g.epsilon), 0) AS eps,
           coalesce(sum(g.delta), 0) AS delta
    INTO s FROM dpbayes.charge g WHERE g.relation = dataset;
    c := dpbayes.compose(s.rho + ch.rho, s.eps + ch.epsilon, s.delta + ch.delta, s.n + 1,
                         ds.epsilon, ds.delta);
    IF NOT c.fits THEN
        INSERT INTO dpbayes.audit (relation, request_id, spec, rho, epsilon, delta, outcome)
        VALUES (dataset, request_id, spec, ch.rho, ch.epsilon, ch.delta, 'refused: over budget');
        RETURN 'over_budget';
    END IF;
    INSERT INTO dpbayes.charge (request_id, relation, model, response, features, privacy,
        mechanism, sensitivity, noise_scale, rho, epsilon, delta, neighbours, unit_rows,
        group_by, group_keys, group_count)
    VALUES (request_id, dataset, model, response, features, privacy,
        ch.mechanism, ch.sensitivity, ch.noise_scale, ch.rho, ch.epsilon, ch.delta, ch.neighbours, k,
        group_by, group_keys, coalesce(cardinality(group_keys), 1));
    INSERT INTO dpbayes.audit (relation, request_id, spec, rho, epsilon, delta, outcome)
    VALUES (dataset, request_id, spec, ch.rho, ch.epsilon, ch.delta, 'charged');
    RETURN 'charged';
END $$;
COMMENT ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) IS
  'internal, step (a) of dpbayes.release: validates the request, locks the dataset, checks the budget with the exact charge and records it';

-- The rows a release reads, as a FROM item "s" with the relation's columns:
-- the relation, or, for a dataset with a privacy unit, at most k rows of
-- each unit, chosen at random (not by their values) before the release
-- (plus a column __dpb_row_number).
CREATE FUNCTION dpbayes._source(dataset regclass, k integer) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    u name;
BEGIN
    SELECT d.privacy_unit INTO u FROM dpbayes.dataset d WHERE d.relation = dataset;
    IF u IS NULL THEN
        RETURN format('%s s', dataset);
    END IF;
    RETURN format('(SELECT * FROM (SELECT t.*, pg_catalog.row_number() OVER '
                  '(PARTITION BY t.%I ORDER BY pg_catalog.random()) AS __dpb_row_number FROM %s t) b '
                  'WHERE b.__dpb_row_number OPERATOR(pg_catalog.<=) %s) s', u, dataset, k);
END $$;
COMMENT ON FUNCTION dpbayes._source(regclass, integer) IS
  'internal: the FROM item of a governed release: the relation, or at most k random rows of each privacy unit';
REVOKE ALL ON FUNCTION dpbayes._source(regclass, integer) FROM PUBLIC;

-- Step (b): computes the release of a committed charge (status charged) and
-- stores it, or records the failure; the charge stays either way.
CREATE FUNCTION dpbayes._compute(request_id text)
RETURNS text LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    g record;
    q text;
    rel dpbayes.release;
    st text;
    msg text;
    src text;
    agg text;
    kr record;
BEGIN
    SELECT * INTO g FROM dpbayes.charge c WHERE c.request_id = _compute.request_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no charge with this request id' USING ERRCODE = '42704';
    END IF;
    IF g.status <> 'charged' THEN
        RETURN g.status;                -- made (or failed) once: never again
    END IF;
    BEGIN
        src := dpbayes._source(g.relation, g.unit_rows);
        -- the privacy value as a constant (an empty group's release needs it)
        agg := format('dpbayes.%s_release(s.%I::%s, %L::dpbayes.privacy, %s)',
                    g.model, g.response, CASE g.model WHEN 'logistic' THEN 'boolean' ELSE 'float8' END,
                    g.privacy::text,
                    (SELECT string_agg(format('s.%I::float8', f), ', ' ORDER BY i)
                     FROM unnest(g.features) WITH ORDINALITY AS u(f, i)));
        IF g.group_by IS NULL THEN
            q := format('SELECT %s AS key, %s AS release FROM %s', quote_literal(''), agg, src);
        ELSE
            -- one release per public key, empty groups included (a release
            -- of noise alone): which keys occur is never revealed
            q := format('SELECT k.key, %s FILTER (WHERE s.%I IS NOT NULL) AS release '
                        'FROM pg_catalog.unnest($2) AS k(key) '
                        'LEFT JOIN %s ON s.%I::text OPERATOR(pg_catalog.=) k.key GROUP BY k.key',
                        agg, g.group_by, src, g.group_by);
        END IF;
        FOR kr IN EXECUTE q USING g.privacy, g.group_keys LOOP
            rel := kr.release;
            -- the release must record exactly the mechanism charged (for a
            -- privacy unit of k rows, the charge is k^2 times its rho)
            IF (g.unit_rows * g.unit_rows) * (dpbayes.release_json(rel) ->> 'zcdp_rho')::float8
               IS DISTINCT FROM g.rho THEN
                RAISE EXCEPTION 'the release does not match its charge' USING ERRCODE = 'P0003';
            END IF;
            -- signed over its canonical form, the request id and the
            -- dataset (with the group: "public.t [region = 2]")
            rel := dpbayes._sign(rel, g.request_id,
                                 CASE WHEN g.group_by IS NULL THEN g.relation::text
                                      ELSE format('%s [%s = %s]', g.relation, g.group_by, kr.key) END,
                                 (dpbayes._signing_key()).private_key);
            INSERT INTO dpbayes.released (request_id, group_key, release) VALUES (g.request_id, kr.key, rel);
        END LOOP;
        UPDATE dpbayes.charge c SET status = 'released', finished_at = clock_timestamp()
        WHERE c.request_id = g.request_id;
        INSERT INTO dpbayes.audit (relation, request_id, rho, epsilon, delta, outcome)
        VALUES (g.relation, g.request_id, g.rho, g.epsilon, g.delta, 'released');
        RETURN 'released';
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
        UPDATE dpbayes.charge c SET status = 'failed', finished_at = clock_timestamp(),
            error_sqlstate = st, error_message = msg
        WHERE c.request_id = g.request_id;
        INSERT INTO dpbayes.audit (relation, request_id, rho, epsilon, delta, outcome)
        VALUES (g.relation, g.request_id, g.rho, g.epsilon, g.delta, 'failed: ' || st);
        RETURN 'failed';
    END;
END $$;
COMMENT ON FUNCTION dpbayes._compute(text) IS
  'internal, step (b) of dpbayes.release: computes and stores the release of a charged request once; a failure is recorded and the charge kept';

CREATE PROCEDURE dpbayes.release(dataset regclass, model text, response text,
    features text[], privacy dpbayes.privacy, request_id text,
    group_by name DEFAULT NULL, group_keys text[] DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    st text;
BEGIN
    -- no SET clause and no SECURITY DEFINER: either would forbid COMMIT
    IF dpbayes._in_transaction_block() THEN
        RAISE EXCEPTION 'dpbayes.release cannot run inside a transaction block'
            USING ERRCODE = '2D000',
                  DETAIL = 'The charge must be committed before the release is computed.',
                  HINT = 'Call it on its own, outside BEGIN ... COMMIT.';
    END IF;
    st := dpbayes._charge(dataset, model, response, features, privacy, request_id, group_by, group_keys);
    COMMIT;
    IF st = 'not_granted' THEN
        RAISE EXCEPTION 'permission denied for dataset' USING ERRCODE = '42501',
            DETAIL = 'Nothing was released and nothing was charged.',
            HINT = 'A data owner grants it with dpbayes.grant_dataset().';
    END IF;
    IF st = 'over_budget' THEN
        RAISE EXCEPTION 'the privacy budget of the dataset would be exceeded (SQLSTATE DP001)'
            USING ERRCODE = 'DP001',
                  DETAIL = 'Nothing was released and nothing was charged.',
                  HINT = 'See dpbayes.budget() for what remains.';
    END IF;
    IF st = 'charged' THEN
        st := dpbayes._compute(request_id);
        COMMIT;
    END IF;
    IF st = 'failed' THEN
        RAISE EXCEPTION 'the release failed after its charge was committed (SQLSTATE DP002)'
            USING ERRCODE = 'DP002',
                  DETAIL = 'The charge is kept; the error is recorded with the request.',
                  HINT = 'See dpbayes.my_requests.';
    END IF;
END $$;
COMMENT ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) IS
  'governed release: commits the exact charge against the dataset''s budget (SQLSTATE DP001 when it would be exceeded), then computes and stores the release under request_id (idempotent; DP002 when it failed after the charge); read it from dpbayes.my_requests';

CREATE VIEW dpbayes.my_requests WITH (security_barrier) AS
SELECT g.request_id, g.relation, g.model, g.response, g.features, g.mechanism, g.sensitivity,
       g.noise_scale, g.rho, g.epsilon, g.delta, g.neighbours, g.group_count, g.unit_rows, g.group_by, r.group_key, g.status,
       g.charged_at, g.finished_at, g.error_sqlstate, g.error_message,
       -- a release is shown only once committed: never inside the
       -- transaction that made it, which could still roll back
       CASE WHEN r.made_in_xact IS DISTINCT FROM pg_current_xact_id_if_assigned()
            THEN r.release END AS release
FROM dpbayes.charge g LEFT JOIN dpbayes.released r USING (request_id)
WHERE g.requested_by = session_user;
COMMENT ON VIEW dpbayes.my_requests IS
  'the requests of the session user with their charges, status and (once committed) releases';
REVOKE ALL ON dpbayes.my_requests FROM PUBLIC;

REVOKE ALL ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]),
    dpbayes._compute(text), dpbayes.budget(regclass),
    dpbayes.register_dataset(regclass, double precision, double precision, text, integer) FROM PUBLIC;
REVOKE ALL ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) FROM PUBLIC;

CREATE FUNCTION dpbayes.governance_setup(owner_role regrole, analyst_role regrole)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF owner_role IS NULL OR analyst_role IS NULL THEN
        RAISE EXCEPTION 'both roles must be given' USING ERRCODE = '22004';
    END IF;
    -- the owner role owns the ledger and runs the SECURITY DEFINER routines
    EXECUTE format('ALTER TABLE dpbayes.dataset OWNER TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.charge OWNER TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.released OWNER TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.audit OWNER TO %I', owner_role);
    EXECUTE format('ALTER VIEW dpbayes.my_requests OWNER TO %I', owner_role);
    EXECUTE format('ALTER FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) OWNER TO %I', owner_role);
    EXECUTE format('ALTER FUNCTION dpbayes._compute(text) OWNER TO %I', owner_role);
    EXECUTE format('ALTER FUNCTION dpbayes.budget(regclass) OWNER TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.dataset_grant OWNER TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes.grant_dataset(regclass, regrole), dpbayes.revoke_dataset(regclass, regrole) TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.signing_key OWNER TO %I', owner_role);
    EXECUTE format('ALTER TABLE dpbayes.signing_secret OWNER TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes._source(regclass, integer) TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes._keygen(), dpbayes._sign(dpbayes.release, text, text, bytea), dpbayes._signing_key(), dpbayes.rotate_signing_key() TO %I', owner_role);
    EXECUTE format('GRANT USAGE ON SCHEMA dpbayes TO %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes.register_dataset(regclass, double precision, double precision, text, integer) TO %I', owner_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION dpbayes._charge(regclass, text, text, text[], dpbayes.privacy, text, name, text[]), dpbayes._compute(text), dpbayes.budget(regclass) TO %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT EXECUTE ON PROCEDURE dpbayes.release(regclass, text, text, text[], dpbayes.privacy, text, name, text[]) TO %I, %I', owner_role, analyst_role);
    EXECUTE format('GRANT SELECT ON dpbayes.my_requests TO %I, %I', owner_role, analyst_role);
    -- the signing key exists from the set-up on (a restore makes a new one)
    PERFORM dpbayes._signing_key();
END $$;
COMMENT ON FUNCTION dpbayes.governance_setup(regrole, regrole) IS
  'run once by the installing superuser (and again after a restore): hands the ledger and the SECURITY DEFINER routines to the owner role and grants the analyst role the governed path only';
REVOKE ALL ON FUNCTION dpbayes.governance_setup(regrole, regrole) FROM PUBLIC;
