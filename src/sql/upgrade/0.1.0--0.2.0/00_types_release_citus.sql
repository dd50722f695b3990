-- Scale-out on Citus (issue 27): the release aggregates of the array form
-- get the state dpbayes.release_state, which Citus pushes down to the
-- shards (worker_partial_agg) and combines on the coordinator
-- (coord_combine_agg); docs/scale-out.md.  The column form keeps the
-- internal state.  An aggregate's state type cannot be altered: the three
-- aggregates are dropped and created again (a view or a function with a
-- SQL-standard body that uses one of them must be dropped before the
-- update and created again after it; docs/upgrades.md).  Stored releases
-- are values of dpbayes.release and are not touched.  The internal-state
-- transition functions of the logistic and Poisson array forms have no
-- aggregate left and are dropped (their C entry points stay in the
-- library for the 0.1.0 script).

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

DROP AGGREGATE dpbayes.linear_release(double precision[], double precision, dpbayes.privacy);
DROP AGGREGATE dpbayes.logistic_release(double precision[], boolean, dpbayes.privacy);
DROP AGGREGATE dpbayes.poisson_release(double precision[], double precision, dpbayes.privacy);
DROP FUNCTION dpbayes._logistic_trans(internal, double precision[], boolean, dpbayes.privacy);
DROP FUNCTION dpbayes._poisson_trans(internal, double precision[], double precision, dpbayes.privacy);

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
