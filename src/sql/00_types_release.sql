-- ---------------------------------------------------------------------------
-- Privacy parameters
-- ---------------------------------------------------------------------------

CREATE TYPE dpbayes.privacy AS (
    epsilon       double precision,
    delta         double precision,
    clip          double precision,
    y_bound       double precision,
    lower         double precision[],
    upper         double precision[],
    intercept     boolean,
    mechanism     text,
    scaling       text,
    features      text[],
    noise_weights double precision[],
    x_moments     double precision,
    neighbours    text,
    y_clamped     double precision
);
COMMENT ON TYPE dpbayes.privacy IS
  'privacy parameters of a release; build it with dpbayes.privacy(...), which validates them';

CREATE FUNCTION dpbayes.privacy(
    epsilon       double precision   DEFAULT NULL,  -- required: a default only so that
                                                    -- a call without it is explained
    delta         double precision   DEFAULT NULL,
    clip          double precision   DEFAULT 1,
    y_bound       double precision   DEFAULT NULL,
    lower         double precision[] DEFAULT NULL,
    upper         double precision[] DEFAULT NULL,
    intercept     boolean            DEFAULT true,
    mechanism     text               DEFAULT 'gaussian',
    scaling       text               DEFAULT 'box',
    features      text[]             DEFAULT NULL,
    noise_weights double precision[] DEFAULT NULL,
    x_moments     double precision   DEFAULT 0,
    neighbours    text               DEFAULT 'add_remove',
    y_clamped     double precision   DEFAULT NULL)
RETURNS dpbayes.privacy
AS 'MODULE_PATHNAME', 'dpbayes_privacy'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.privacy(double precision, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text, double precision) IS
  'validated privacy parameters: epsilon, delta (default 1e-6 gaussian, 0 laplace), clip (L2 bound R of the scaled features), y_bound (public bound of the response), lower/upper (public feature bounds: a release needs them, or scaling none), intercept, mechanism (gaussian|laplace), scaling (box|ball: how the bounds scale the features; none: no bounds, the features are used as given, for features already scaled to the unit ball), features (names), noise_weights (relative noise scale per model statistic block, the count block last under add_remove), x_moments (share of the budget spent on releasing the third and fourth moments of the features, for the linear model''s "noisy" moments; 0: none), neighbours (add_remove: the default, the number of rows is private and released with noise, right for WHERE subsets and GROUP BY groups; replace: a fixed population whose size is public, released exactly), y_clamped (share of the budget spent on the number of rows whose response was clamped to y_bound, for the posterior''s model of the clamping; linear only; NULL: 0.02 for linear releases, 0 otherwise; 0: none)';

-- ---------------------------------------------------------------------------
-- The release type
-- ---------------------------------------------------------------------------

CREATE TYPE dpbayes.release;

CREATE FUNCTION dpbayes.release_in(cstring) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_release_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_out(dpbayes.release) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpbayes_release_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_recv(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_release_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_send(dpbayes.release) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_release_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE dpbayes.release (
    INPUT = dpbayes.release_in,
    OUTPUT = dpbayes.release_out,
    RECEIVE = dpbayes.release_recv,
    SEND = dpbayes.release_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpbayes.release IS
  'a differentially private release: noisy sufficient statistics with their privacy metadata; its text form is JSON';

CREATE FUNCTION dpbayes.release_json(r dpbayes.release) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpbayes_release_json' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.release_json(dpbayes.release) IS 'the release as jsonb';
CREATE CAST (dpbayes.release AS jsonb) WITH FUNCTION dpbayes.release_json(dpbayes.release);

CREATE FUNCTION dpbayes.release_summary(r dpbayes.release)
RETURNS TABLE (key text, value text)
AS 'MODULE_PATHNAME', 'dpbayes_release_summary' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.release_summary(dpbayes.release) IS
  'the metadata of a release, one row per property';

CREATE FUNCTION dpbayes.release_stats(r dpbayes.release)
RETURNS TABLE (block text, entry text, value double precision, noise_sd double precision)
AS 'MODULE_PATHNAME', 'dpbayes_release_stats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.release_stats(dpbayes.release) IS
  'the noisy statistics of a release, one row per entry, with the standard deviation of their noise';

-- ---------------------------------------------------------------------------
-- The partial state of the release aggregates (array form, ldp_release):
-- a non-internal type, so that Citus pushes the aggregates down to the
-- shards (worker_partial_agg) and combines their states on the coordinator
-- (coord_combine_agg), where the final function adds the noise once
-- (docs/scale-out.md).  In memory it is the internal state's accumulator,
-- updated in place; it is flattened only when it leaves the aggregate.
-- NOT PRIVATE: a state holds the exact statistics of the rows that made it
-- (docs/privacy.md §16).  Text form: \x and the hex digits of its portable,
-- versioned binary form (src/core/release/rstate.h), validated on input.
-- ---------------------------------------------------------------------------

CREATE TYPE dpbayes.release_state;

CREATE FUNCTION dpbayes.release_state_in(cstring) RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_release_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_state_out(dpbayes.release_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpbayes_release_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_state_recv(internal) RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_release_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes.release_state_send(dpbayes.release_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_release_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE dpbayes.release_state (
    INPUT = dpbayes.release_state_in,
    OUTPUT = dpbayes.release_state_out,
    RECEIVE = dpbayes.release_state_recv,
    SEND = dpbayes.release_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpbayes.release_state IS
  'NOT PRIVATE: the partial state of a release aggregate (exact sums of the rows that made it, with the public parameters); shards send it to the coordinator, which combines the states and adds the noise once';

CREATE FUNCTION dpbayes._release_state_combine(dpbayes.release_state, dpbayes.release_state)
RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_release_state_combine' LANGUAGE C PARALLEL SAFE;

-- ---------------------------------------------------------------------------
-- Release aggregates
-- ---------------------------------------------------------------------------

-- The array form: state dpbayes.release_state (pushed down by Citus).  The
-- column form below keeps the internal state: Citus cannot ship the
-- arguments of a VARIADIC "any" aggregate, so it gathers the rows either
-- way, and the internal state is what PostgreSQL runs fastest in parallel.

CREATE FUNCTION dpbayes._release_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_release_combine' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._release_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpbayes_release_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION dpbayes._release_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpbayes_release_deserialize' LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION dpbayes._linear_trans(internal, double precision[], double precision, dpbayes.privacy)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_linear_trans' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._linear_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_linear_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpbayes._logistic_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_logistic_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpbayes._poisson_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_poisson_final' LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE FUNCTION dpbayes._linear_state_trans(dpbayes.release_state, double precision[],
    double precision, dpbayes.privacy) RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_linear_trans_s' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._linear_state_final(dpbayes.release_state) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_linear_final_s' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpbayes.linear_release(double precision[], double precision, dpbayes.privacy) (
    SFUNC = dpbayes._linear_state_trans,
    STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._linear_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.linear_release(double precision[], double precision, dpbayes.privacy) IS
  'private release of the sufficient statistics of linear regression (sum x, x x^T, y x, y, y^2)';

CREATE FUNCTION dpbayes._logistic_state_trans(dpbayes.release_state, double precision[],
    boolean, dpbayes.privacy) RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_logistic_trans_s' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._logistic_state_final(dpbayes.release_state) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_logistic_final_s' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpbayes.logistic_release(double precision[], boolean, dpbayes.privacy) (
    SFUNC = dpbayes._logistic_state_trans,
    STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._logistic_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(double precision[], boolean, dpbayes.privacy) IS
  'private release of the degree-2 approximate sufficient statistics of logistic regression (sum y x, x x^T)';

CREATE FUNCTION dpbayes._poisson_state_trans(dpbayes.release_state, double precision[],
    double precision, dpbayes.privacy) RETURNS dpbayes.release_state
AS 'MODULE_PATHNAME', 'dpbayes_poisson_trans_s' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._poisson_state_final(dpbayes.release_state) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_poisson_final_s' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpbayes.poisson_release(double precision[], double precision, dpbayes.privacy) (
    SFUNC = dpbayes._poisson_state_trans,
    STYPE = dpbayes.release_state,
    FINALFUNC = dpbayes._poisson_state_final,
    COMBINEFUNC = dpbayes._release_state_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.poisson_release(double precision[], double precision, dpbayes.privacy) IS
  'private release of the approximate sufficient statistics of Poisson regression (sums of x, x x^T, y x, y x x^T)';

-- ---------------------------------------------------------------------------
-- Release aggregates, column form: the features as separate arguments
-- (double precision, real, smallint, integer, bigint or numeric), so that no
-- array is built per row; the same results as the array form, bit for bit,
-- from the same accumulator (here in the internal state, whose combine,
-- serialization and final functions parallel plans use).  VARIADIC
-- ARRAY[...] passes one array.
-- ---------------------------------------------------------------------------

CREATE FUNCTION dpbayes._linear_cols_trans(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_linear_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.linear_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._linear_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._linear_final,
    COMBINEFUNC = dpbayes._release_combine,
    SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.linear_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'linear_release(x[], y, p) with the features as separate arguments: linear_release(y, p, x1, ..., xd); no array per row';

CREATE FUNCTION dpbayes._logistic_cols_trans(internal, boolean, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_logistic_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.logistic_release(y boolean, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._logistic_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._logistic_final,
    COMBINEFUNC = dpbayes._release_combine,
    SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(boolean, dpbayes.privacy, VARIADIC "any") IS
  'logistic_release(x[], y, p) with the features as separate arguments: logistic_release(y, p, x1, ..., xd); no array per row';

CREATE FUNCTION dpbayes._poisson_cols_trans(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_poisson_cols_trans' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.poisson_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._poisson_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._poisson_final,
    COMBINEFUNC = dpbayes._release_combine,
    SERIALFUNC = dpbayes._release_serialize,
    DESERIALFUNC = dpbayes._release_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.poisson_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'poisson_release(x[], y, p) with the features as separate arguments: poisson_release(y, p, x1, ..., xd); no array per row';

-- ---------------------------------------------------------------------------
-- Common mistakes that PostgreSQL would report only as "function ... does
-- not exist" reach a function that explains them (issue 25; docs/errors.md,
-- "Common mistakes and misspellings").  None of these releases anything.
-- ---------------------------------------------------------------------------

-- a numeric y for logistic regression (both forms): "y must be boolean"
CREATE FUNCTION dpbayes._numeric_y_trans(internal, double precision[], double precision, dpbayes.privacy)
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._numeric_y_cols_trans(internal, double precision, dpbayes.privacy, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dpbayes._numeric_y_final(internal) RETURNS dpbayes.release
AS 'MODULE_PATHNAME', 'dpbayes_mistake_numeric_y' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dpbayes.logistic_release(double precision[], double precision, dpbayes.privacy) (
    SFUNC = dpbayes._numeric_y_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(double precision[], double precision, dpbayes.privacy) IS
  'not a release: logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';
CREATE AGGREGATE dpbayes.logistic_release(y double precision, p dpbayes.privacy, VARIADIC x "any") (
    SFUNC = dpbayes._numeric_y_cols_trans,
    STYPE = internal,
    FINALFUNC = dpbayes._numeric_y_final,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpbayes.logistic_release(double precision, dpbayes.privacy, VARIADIC "any") IS
  'not a release: logistic regression takes a boolean y, and this overload says so (use y = 1, y > 0.5 or a comparison)';

-- the American spelling neighbors => ...: it is required here, so only a
-- call that uses the name resolves to this overload (epsilon first, for a
-- call in mixed notation)
CREATE FUNCTION dpbayes.privacy(
    epsilon       double precision,
    neighbors     text,
    delta         double precision   DEFAULT NULL,
    clip          double precision   DEFAULT NULL,
    y_bound       double precision   DEFAULT NULL,
    lower         double precision[] DEFAULT NULL,
    upper         double precision[] DEFAULT NULL,
    intercept     boolean            DEFAULT NULL,
    mechanism     text               DEFAULT NULL,
    scaling       text               DEFAULT NULL,
    features      text[]             DEFAULT NULL,
    noise_weights double precision[] DEFAULT NULL,
    x_moments     double precision   DEFAULT NULL,
    neighbours    text               DEFAULT NULL,
    y_clamped     double precision   DEFAULT NULL)
RETURNS dpbayes.privacy
AS 'MODULE_PATHNAME', 'dpbayes_mistake_argument'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpbayes.privacy(double precision, text, double precision, double precision,
    double precision, double precision[], double precision[], boolean, text, text, text[],
    double precision[], double precision, text, double precision) IS
  'not privacy parameters: the argument is spelled neighbours, and this overload says so';
