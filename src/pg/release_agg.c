/*
 * release_agg.c — the release aggregates linear_release, logistic_release
 * and poisson_release.
 *
 * The transition function clips each record and adds its monomials to exact
 * sums held in the aggregate state; the privacy parameters are parsed once,
 * on the group's first row.  The exact sums never leave the state: the final
 * function copies them, adds calibrated noise to the copy and returns a
 * dpbayes.release.  Combine, serialize and deserialize make the aggregates
 * parallel-safe (the pattern of core's float8_regr_accum/_combine; the
 * serialized form is length-checked like postgresql-hll's).
 *
 * NULL policy: a NULL feature array, element or response is an error, so
 * that silently skipping rows never changes what is released without the
 * user noticing; filter rows explicitly (WHERE ...) to release a subset.
 * Under add/remove neighbours (the default) the number of rows of a
 * subset is private and is released only as a noisy count; under replace
 * neighbours it is recorded exactly (a fixed population of public size).
 *
 * The aggregates exist in two forms that share the state and every support
 * function: features as one float8[] (x, y, p), here, and as separate
 * arguments (y, p, VARIADIC x "any"), release_cols.c, through the
 * transition steps declared in release_agg.h.
 */
#include "dpbayes_pg.h"
#include "release_agg.h"
#include "release_state.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "accum.h"
#include "clip.h"
#include "layout.h"

struct RelState
{
	dpb_model	model;
	int			d;				/* 0 until the first row fixed it */
	int64		n;
	bool		p_const;		/* the privacy argument is a constant */
	char	   *p_copy;			/* a copy of its bytes */
	Size		p_len;
	dpb_params	params;
	dpb_layout	L;
	dpb_clipper clip;
	double	   *z;				/* scratch: the clipped record */
	void	   *accmem;			/* the accumulator's memory block */
	dpb_acc		acc;			/* exact sums: never leave the state */
};

#define SER_MAGIC 0x44504253	/* "DPBS" */

static RelState *
state_new(MemoryContext cxt, dpb_model model)
{
	RelState   *s = MemoryContextAllocZero(cxt, sizeof(RelState));

	s->model = model;
	return s;
}

/* The release also holds the moments of the features (x_moments). */
#define STATE_XMOM(s) ((s)->params.x_moments > 0)

/*
 * The parameters for the model and d, and their calibration: one whose noise
 * scale is not representable would give a release that cannot be stored and
 * read back, so it is refused before any row is read.
 */
static void
check_release_params(const dpb_params *p, dpb_model model, int d)
{
	dpb_err		err;
	dpb_status	st = dpb_params_check_model(p, model, d, &err);

	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	dpb_pg_require_bounds(p);
	/* valid parameters: what fails now is their calibration */
	if (dpb_release_check_params(model, p, d, &err) != DPB_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_internal("%s", err.msg),
				 err.detail[0] ? errdetail_internal("%s", err.detail) : 0,
				 strncmp(err.msg, "x_moments", 9) == 0 ?
				 errhint("Give the moments a share such as 0.1 to 0.5 of the budget (docs/posterior.md), or x_moments => 0 to release none.") :
				 errhint("Use a larger epsilon, or smaller clip and y_bound: the noise must be representable in double precision.")));
}

/* Fixes d: validates the parameters for the model and sets up the sums. */
static void
state_setup(RelState *s, MemoryContext cxt, int d)
{
	check_release_params(&s->params, s->model, d);
	s->params.d = d;
	/* with the count block under add/remove neighbours */
	dpb_params_model_layout(&s->params, s->model, d, &s->L);
	if (STATE_XMOM(s))
		dpb_layout_add_xmoments(&s->L); /* checked by dpb_params_check_model */
	if (s->params.y_clamped > 0)
		dpb_layout_add_yclamp(&s->L);	/* linear only: checked likewise */
	dpb_clipper_init(&s->clip, &s->params, s->model, d);
	s->d = d;
	{
		dpb_acc_bounds ab;
		Size		sz = dpb_acc_size(d, s->model == DPB_MODEL_POISSON, STATE_XMOM(s));

		ab.model = s->model;
		ab.d = d;
		ab.xmom = STATE_XMOM(s);
		ab.R = s->params.clip;
		ab.B = dpb_coord_bound(&s->params, d);
		ab.Ry = s->params.y_bound;
		/* the accumulator's totals are 128-bit integers: 16-byte aligned */
		s->accmem = (void *) TYPEALIGN(16, MemoryContextAlloc(cxt, sz + 16));
		dpb_acc_init(&s->acc, s->accmem, &ab);
	}
	s->z = MemoryContextAllocZero(cxt, sizeof(double) * d);
}

/*
 * The privacy argument of an aggregate call: the third of the array form
 * (x float8[], y, p), the second of the column form (y, p, VARIADIC x).
 */
static TargetEntry *
privacy_arg(Aggref *ag, bool *cols)
{
	*cols = exprType((Node *) ((TargetEntry *) linitial(ag->args))->expr) != FLOAT8ARRAYOID;
	return (TargetEntry *) list_nth(ag->args, *cols ? 1 : 2);
}

/*
 * Reads the privacy parameters on the group's first row.  On later rows they
 * must be the same: when the argument is a plan-time constant that holds by
 * construction; otherwise its bytes are compared (a pointer comparison would
 * not do: per-row values are reallocated at the same address).
 */
static void
check_params(FunctionCallInfo fcinfo, RelState *s, MemoryContext cxt, Datum pd)
{
	HeapTupleHeader th;
	Size		len;

	if (s->p_const)
		return;
	th = DatumGetHeapTupleHeader(pd);
	len = HeapTupleHeaderGetDatumLength(th);
	if (s->p_copy == NULL)
	{
		Aggref	   *ag = AggGetAggref(fcinfo);
		bool		cols;

		if (s->d > 0)
		{
			/* a state copied from another (release_state): same
			 * parameters */
			dpb_params	other;

			dpb_pg_params_for_release(pd, s->model, &other);
			if (other.d == 0)
				other.d = s->params.d;
			if (memcmp(&other, &s->params, sizeof(other)) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("privacy parameters must be the same for every row of a group")));
		}
		else
			dpb_pg_params_for_release(pd, s->model, &s->params);
		s->p_copy = MemoryContextAlloc(cxt, len);
		memcpy(s->p_copy, th, len);
		s->p_len = len;
		s->p_const = ag != NULL && list_length(ag->args) >= 3 &&
			IsA(privacy_arg(ag, &cols)->expr, Const);
	}
	else if (len != s->p_len || memcmp(th, s->p_copy, len) != 0)
	{
		dpb_params	other;

		dpb_pg_params_for_release(pd, s->model, &other);
		if (other.d == 0)
			other.d = s->params.d;	/* state_setup fixed d from the data */
		if (memcmp(&other, &s->params, sizeof(other)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("privacy parameters must be the same for every row of a group")));
	}
}

void
dpb_rel_d_error(int d0, int d)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("feature arrays of a group must all have the same length"),
			 errdetail("The group started with %d features; a row has %d.", d0, d)));
}

int
dpb_rel_array_len(ArrayType *a)
{
	int			d;

	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature array must not be empty"),
				 errdetail("A release needs between 1 and %d features.", DPB_MAX_D)));
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("feature array must be one-dimensional")));
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("feature array must not contain nulls"),
				 errhint("Filter or impute missing values before the release; rows are never skipped because the row count is released.")));
	d = ARR_DIMS(a)[0];
	if (d > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many features"),
				 errdetail("A release supports at most %d features; the array has %d.",
						   DPB_MAX_D, d)));
	return d;
}

int
dpb_rel_feature_array(ArrayType *a, double **values)
{
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("feature array must be of type double precision[]")));
	*values = (double *) ARR_DATA_PTR(a);
	return dpb_rel_array_len(a);
}

/* ---- transition steps shared by both forms (release_agg.h) ---- */

RelState *
dpb_rel_trans_state(FunctionCallInfo fcinfo, dpb_model model, int p_arg,
					MemoryContext *aggcxt)
{
	RelState   *s;

	if (!AggCheckCallContext(fcinfo, aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release transition function called in non-aggregate context")));
	if (PG_ARGISNULL(p_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("privacy parameters must not be null"),
				 errhint("Pass dpbayes.privacy(epsilon => ..., ...).")));
	s = PG_ARGISNULL(0) ? state_new(*aggcxt, model) : (RelState *) PG_GETARG_POINTER(0);
	check_params(fcinfo, s, *aggcxt, PG_GETARG_DATUM(p_arg));
	return s;
}

void
dpb_rel_null_error(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s must not be null", what),
			 errhint("Filter or impute missing values before the release; rows are never skipped because the row count is released.")));
}

int
dpb_rel_d(const RelState *s)
{
	return s->d;
}

void
dpb_rel_setup(RelState *s, MemoryContext cxt, int d)
{
	state_setup(s, cxt, d);
}

double
dpb_rel_response(FunctionCallInfo fcinfo, dpb_model model, int y_arg)
{
	double		y;

	if (model == DPB_MODEL_LOGISTIC)
		return PG_GETARG_BOOL(y_arg) ? 1.0 : -1.0;
	y = PG_GETARG_FLOAT8(y_arg);
	if (isnan(y) || isinf(y))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("response must be finite"),
				 errdetail("NaN and infinity are not allowed as the response.")));
	if (model == DPB_MODEL_POISSON)
		dpb_pg_check_count(y);
	return y;
}

void
dpb_pg_check_count(double y)
{
	if (y < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("poisson response must not be negative")));
	if (y != floor(y))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("poisson response must be a whole number"),
				 errdetail("Poisson regression models counts; a response with a fractional part is not a count."),
				 errhint("If the counts are stored as decimals, round them in the query (round(y)); "
						 "for a continuous response use linear_release.")));
}

void
dpb_rel_add(RelState *s, const double *x, double y)
{
	/* the finiteness check is part of the clipping pass */
	if (dpb_clip_x(&s->clip, x, s->z) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("feature values must be finite"),
				 errdetail("NaN and infinity are not allowed as feature values.")));
	dpb_acc_add(&s->acc, s->z, dpb_clip_y(&s->clip, y));
	/* the records whose response is clamped (the y_clamped block) */
	if (dpb_clip_y_clamped(&s->clip, y))
		dpb_acc_add_yclamped(&s->acc);
	s->n++;
}

/* one row of the array form (x float8[], y, p) into s (memory of cxt) */
static void
array_row(FunctionCallInfo fcinfo, RelState *s, MemoryContext cxt, dpb_model model)
{
	double	   *x;
	double		y;
	int			d;

	if (PG_ARGISNULL(1))
		dpb_rel_null_error("feature array");
	if (PG_ARGISNULL(2))
		dpb_rel_null_error("response");
	d = dpb_rel_feature_array(PG_GETARG_ARRAYTYPE_P(1), &x);
	if (s->d == 0)
		state_setup(s, cxt, d);
	else if (d != s->d)
		dpb_rel_d_error(s->d, d);
	y = dpb_rel_response(fcinfo, model, 2);
	dpb_rel_add(s, x, y);
}

/* the array form with the internal state (nonprivate_linear_stats, and the
 * release aggregates of dpbayes 0.1.0) */
static Datum
release_trans(FunctionCallInfo fcinfo, dpb_model model)
{
	MemoryContext aggcxt;
	RelState   *s = dpb_rel_trans_state(fcinfo, model, 3, &aggcxt);

	array_row(fcinfo, s, aggcxt, model);
	PG_RETURN_POINTER(s);
}

/*
 * The array form with the state dpbayes.release_state (release_state.h):
 * the same RelState, inside an expanded object that the aggregate updates
 * in place; it is flattened only when it leaves the aggregate (a parallel
 * worker's partial result, Citus's worker_partial_agg).
 */
static Datum
release_trans_s(FunctionCallInfo fcinfo, dpb_model model)
{
	MemoryContext aggcxt;
	DpbState   *e;
	RelState   *s;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release transition function called in non-aggregate context")));
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("privacy parameters must not be null"),
				 errhint("Pass dpbayes.privacy(epsilon => ..., ...).")));
	if (PG_ARGISNULL(0))
	{
		e = dpb_state_new(aggcxt, DPB_STATE_KIND_STATS);
		e->s = state_new(e->hdr.eoh_context, model);
	}
	else
		e = dpb_state_update(PG_GETARG_DATUM(0), DPB_STATE_KIND_STATS, aggcxt);
	s = e->s;
	if (s->model != model)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the release aggregate state is of another model")));
	check_params(fcinfo, s, e->hdr.eoh_context, PG_GETARG_DATUM(3));
	array_row(fcinfo, s, e->hdr.eoh_context, model);
	PG_RETURN_DATUM(dpb_state_datum(e));
}

PG_FUNCTION_INFO_V1(dpbayes_linear_trans_s);
Datum
dpbayes_linear_trans_s(PG_FUNCTION_ARGS)
{
	return release_trans_s(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_trans_s);
Datum
dpbayes_logistic_trans_s(PG_FUNCTION_ARGS)
{
	return release_trans_s(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_trans_s);
Datum
dpbayes_poisson_trans_s(PG_FUNCTION_ARGS)
{
	return release_trans_s(fcinfo, DPB_MODEL_POISSON);
}

PG_FUNCTION_INFO_V1(dpbayes_linear_trans);
Datum
dpbayes_linear_trans(PG_FUNCTION_ARGS)
{
	return release_trans(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_trans);
Datum
dpbayes_logistic_trans(PG_FUNCTION_ARGS)
{
	return release_trans(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_trans);
Datum
dpbayes_poisson_trans(PG_FUNCTION_ARGS)
{
	return release_trans(fcinfo, DPB_MODEL_POISSON);
}

static RelState *
state_copy(MemoryContext cxt, const RelState *src)
{
	RelState   *s = state_new(cxt, src->model);

	s->n = src->n;
	s->params = src->params;
	if (src->d > 0)
	{
		state_setup(s, cxt, src->d);
		dpb_acc_merge(&s->acc, (dpb_acc *) &src->acc);
	}
	return s;
}

PG_FUNCTION_INFO_V1(dpbayes_release_combine);
Datum
dpbayes_release_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	RelState   *a,
			   *b;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release combine function called in non-aggregate context")));
	a = PG_ARGISNULL(0) ? NULL : (RelState *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (RelState *) PG_GETARG_POINTER(1);
	if (b == NULL || b->d == 0)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL || a->d == 0)
		PG_RETURN_POINTER(state_copy(aggcxt, b));
	if (a->model != b->model || a->d != b->d ||
		memcmp(&a->params, &b->params, sizeof(dpb_params)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("privacy parameters must be the same for every row of a group")));
	dpb_acc_merge(&a->acc, &b->acc);
	a->n += b->n;
	PG_RETURN_POINTER(a);
}

/* ---- the hooks of dpbayes.release_state (release_state.h) ---- */

Size
dpb_rel_state_size(void *ps)
{
	RelState   *s = ps;

	return dpb_state_stats_size(s->model, &s->params, s->d);
}

void
dpb_rel_state_pack(void *ps, unsigned char *buf)
{
	RelState   *s = ps;

	dpb_state_stats_pack(s->model, &s->params, s->d, s->n, &s->acc, buf);
}

void *
dpb_rel_state_unpack(const unsigned char *buf, size_t len, MemoryContext cxt, int code)
{
	dpb_model	model;
	dpb_params	p;
	int			d;
	int64_t		n;
	const unsigned char *totals;
	dpb_err		err;
	RelState   *s;

	dpb_status	st;

	memset(&err, 0, sizeof(err));
	st = dpb_state_stats_unpack(buf, len, &model, &p, &d, &n, &totals, &err);
	if (st == DPB_ECORRUPT)
		ereport(ERROR,
				(errcode(code),
				 errmsg_internal("%s", err.msg),
				 err.detail[0] ? errdetail_internal("%s", err.detail) : 0));
	if (st != DPB_OK)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid release aggregate state"),
				 errdetail("The state's parameters are not valid parameters of a release (%s).",
						   err.msg)));
	s = state_new(cxt, model);
	s->params = p;
	state_setup(s, cxt, d);
	s->n = n;
	if (dpb_state_load_totals(&s->acc, &p, totals, n, &err) != DPB_OK)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid release aggregate state"),
				 errdetail_internal("%s", err.detail)));
	return s;
}

void
dpb_rel_state_merge(void *pa, void *pb)
{
	RelState   *a = pa,
			   *b = pb;

	if (a->model != b->model || a->d != b->d ||
		memcmp(&a->params, &b->params, sizeof(dpb_params)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("privacy parameters must be the same for every row of a group")));
	if (a->n > DPB_STATE_MAX_N - b->n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rows for one release"),
				 errdetail("A release sums at most 2^38 rows.")));
	dpb_acc_merge(&a->acc, &b->acc);
	a->n += b->n;
}

void *
dpb_rel_state_copy(void *pb, MemoryContext cxt)
{
	return state_copy(cxt, (RelState *) pb);
}

/* serialized: magic u32 | model i32 | d i32 | nbytes i32 | n i64 |
 * dpb_params | the 128-bit totals G and H of the accumulator (native
 * layout: only exchanged between processes of one server) */
#define SER_HDR (4 * sizeof(int32) + sizeof(int64))

PG_FUNCTION_INFO_V1(dpbayes_release_serialize);
Datum
dpbayes_release_serialize(PG_FUNCTION_ARGS)
{
	RelState   *s = (RelState *) PG_GETARG_POINTER(0);
	int32		hdr[4];
	int			nd = s->d > 0 ? (int) dpb_acc_total_bytes(s->d, s->model == DPB_MODEL_POISSON,
														  STATE_XMOM(s)) : 0;
	Size		sz = SER_HDR + sizeof(dpb_params) + nd;
	bytea	   *out = palloc(VARHDRSZ + sz);
	char	   *p = VARDATA(out);

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release serialize function called in non-aggregate context")));
	if (s->d > 0)
		dpb_acc_flush(&s->acc);
	SET_VARSIZE(out, VARHDRSZ + sz);
	hdr[0] = SER_MAGIC;
	hdr[1] = s->model;
	hdr[2] = s->d;
	hdr[3] = nd;
	memcpy(p, hdr, sizeof(hdr));
	p += sizeof(hdr);
	memcpy(p, &s->n, sizeof(int64));
	p += sizeof(int64);
	memcpy(p, &s->params, sizeof(dpb_params));
	p += sizeof(dpb_params);
	if (nd > 0)
		memcpy(p, s->acc.G, nd);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpbayes_release_deserialize);
Datum
dpbayes_release_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	bytea	   *in;
	const char *p;
	Size		len;
	int32		hdr[4];
	RelState   *s;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release deserialize function called in non-aggregate context")));
	in = PG_GETARG_BYTEA_PP(0);
	p = VARDATA_ANY(in);
	len = VARSIZE_ANY_EXHDR(in);
	if (len < SER_HDR + sizeof(dpb_params))
		goto corrupt;
	memcpy(hdr, p, sizeof(hdr));
	if (hdr[0] != SER_MAGIC || hdr[1] < DPB_MODEL_LINEAR || hdr[1] > DPB_MODEL_POISSON ||
		hdr[2] < 0 || hdr[2] > DPB_MAX_D || hdr[3] < 0 ||
		len != SER_HDR + sizeof(dpb_params) + (Size) hdr[3])
		goto corrupt;
	s = state_new(aggcxt, (dpb_model) hdr[1]);
	memcpy(&s->n, p + sizeof(hdr), sizeof(int64));
	memcpy(&s->params, p + SER_HDR, sizeof(dpb_params));
	if (hdr[2] > 0)
	{
		state_setup(s, aggcxt, hdr[2]);
		if ((int) dpb_acc_total_bytes(s->d, s->model == DPB_MODEL_POISSON,
									  STATE_XMOM(s)) != hdr[3])
			goto corrupt;
		memcpy(s->acc.G, p + SER_HDR + sizeof(dpb_params), hdr[3]);
	}
	else if (hdr[3] != 0)
		goto corrupt;
	PG_RETURN_POINTER(s);

corrupt:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid serialized release aggregate state")));
	PG_RETURN_NULL();
}

/* The privacy parameters of an empty group: the aggregate's argument, when
 * it is a constant (the transition function never ran). */
static void
empty_group_params(FunctionCallInfo fcinfo, dpb_model model, dpb_params *p)
{
	Aggref	   *ag = AggGetAggref(fcinfo);
	TargetEntry *te;
	bool		cols;

	if (ag == NULL || list_length(ag->args) < 3)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release an empty group in this context")));
	te = privacy_arg(ag, &cols);
	/* finalized by another aggregate (Citus's coord_combine_agg combines
	 * the shards' states and then calls the final function): the call's
	 * own arguments are not there */
	if (!type_is_rowtype(exprType((Node *) te->expr)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release an empty group of a distributed table"),
				 errdetail("No shard has a row of the group, and the coordinator that combines the shards' partial states does not see the privacy parameters of the call."),
				 errhint("Release only groups that have rows, or release an empty group from a local table.")));
	if (!IsA(te->expr, Const) || ((Const *) te->expr)->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release an empty group unless the privacy parameters are a constant"),
				 errdetail("The group has no rows, so the parameters were never evaluated."),
				 errhint("Pass dpbayes.privacy(...) with constant arguments.")));
	dpb_pg_params_for_release(((Const *) te->expr)->constvalue, model, p);
	/* the column form without explicit VARIADIC: d is the argument count */
	if (p->d == 0 && cols && !ag->aggvariadic)
		p->d = list_length(ag->args) - 2;
	if (p->d == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot release an empty group without knowing the number of features"),
				 errhint("Give lower/upper or features in dpbayes.privacy(...).")));
}

static Datum
release_final_of(FunctionCallInfo fcinfo, dpb_model model, RelState *s)
{
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	dpb_rbits  *rb;
	dpb_i128   *I = NULL;
	int		   *e = NULL;
	bool		insecure;

	memset(&r, 0, sizeof(r));
	r.version = DPB_RELEASE_VERSION;
	r.model = model;
	if (s == NULL || s->d == 0)
	{
		empty_group_params(fcinfo, model, &r.p);
		check_release_params(&r.p, model, r.p.d);
		r.d = r.p.d;
		r.n = 0;
	}
	else
	{
		r.p = s->params;
		r.d = s->d;
		/* under add/remove N is private: only its noisy count (the count
		 * block) is released */
		r.n = r.p.neighbours == DPB_NB_REPLACE ? s->n : 0;
	}
	st = dpb_release_calibrate(&r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	/* the exact sums stay in this function: only their noisy, rounded
	 * version is written to r.stats */
	r.stats = palloc0(sizeof(double) * r.nstats);
	if (s != NULL && s->d > 0)
	{
		/* 128-bit integers: 16-byte aligned (palloc gives 8) */
		I = (dpb_i128 *) TYPEALIGN(16, palloc(sizeof(dpb_i128) * r.nstats + 16));
		e = palloc(sizeof(int) * r.nstats);
		dpb_acc_fixed(&s->acc, &s->L, I, e);
	}
	rb = dpb_pg_noise_bits(&insecure);
	st = dpb_release_add_noise(&r, I, e, rb, &err);
	dpb_pg_noise_bits_done(rb);
	if (I != NULL)
		memset(I, 0, sizeof(dpb_i128) * r.nstats); /* freed with the context */
	if (st != DPB_OK)
	{
		memset(r.stats, 0, sizeof(double) * r.nstats);
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	}
	r.insecure = insecure ? 1 : 0;
	/* the last line of defence: never store a release that cannot be read
	 * back (the messages name statistics by position, never a value) */
	st = dpb_release_validate(&r, &err);
	if (st != DPB_OK)
	{
		memset(r.stats, 0, sizeof(double) * r.nstats);
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the release is not representable"),
				 errdetail_internal("%s", err.detail[0] ? err.detail : err.msg),
				 errhint("Use a larger epsilon, or smaller clip and y_bound, so that the noisy statistics stay within double precision.")));
	}
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}

static Datum
release_final(FunctionCallInfo fcinfo, dpb_model model)
{
	return release_final_of(fcinfo, model,
							PG_ARGISNULL(0) ? NULL : (RelState *) PG_GETARG_POINTER(0));
}

/* the final functions of the release_state aggregates */
static Datum
release_final_s(FunctionCallInfo fcinfo, dpb_model model)
{
	RelState   *s = NULL;

	if (!PG_ARGISNULL(0))
	{
		s = dpb_state_read(PG_GETARG_DATUM(0), DPB_STATE_KIND_STATS)->s;
		if (s->model != model)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the release aggregate state is of another model")));
	}
	return release_final_of(fcinfo, model, s);
}

PG_FUNCTION_INFO_V1(dpbayes_linear_final_s);
Datum
dpbayes_linear_final_s(PG_FUNCTION_ARGS)
{
	return release_final_s(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_final_s);
Datum
dpbayes_logistic_final_s(PG_FUNCTION_ARGS)
{
	return release_final_s(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_final_s);
Datum
dpbayes_poisson_final_s(PG_FUNCTION_ARGS)
{
	return release_final_s(fcinfo, DPB_MODEL_POISSON);
}

PG_FUNCTION_INFO_V1(dpbayes_linear_final);
Datum
dpbayes_linear_final(PG_FUNCTION_ARGS)
{
	return release_final(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_final);
Datum
dpbayes_logistic_final(PG_FUNCTION_ARGS)
{
	return release_final(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_final);
Datum
dpbayes_poisson_final(PG_FUNCTION_ARGS)
{
	return release_final(fcinfo, DPB_MODEL_POISSON);
}

/*
 * NOT PRIVATE: the exact sums as a release with mechanism "none", for the
 * non-private reference posterior.  The only function that lets exact
 * statistics out of the state, by explicit request of its name.
 */
PG_FUNCTION_INFO_V1(dpbayes_nonprivate_final);
Datum
dpbayes_nonprivate_final(PG_FUNCTION_ARGS)
{
	RelState   *s = PG_ARGISNULL(0) ? NULL : (RelState *) PG_GETARG_POINTER(0);
	dpb_release r;
	dpb_err		err;
	dpb_status	st;

	if (s == NULL || s->d == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("non-private statistics need at least one row")));
	memset(&r, 0, sizeof(r));
	r.version = DPB_RELEASE_VERSION;
	r.model = s->model;
	r.p = s->params;
	r.p.mechanism = DPB_MECH_NONE;
	r.d = s->d;
	r.n = r.p.neighbours == DPB_NB_REPLACE ? s->n : 0;	/* else in the count */
	st = dpb_release_calibrate(&r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	r.stats = palloc(sizeof(double) * r.nstats);
	if (!dpb_acc_stats(&s->acc, &s->L, r.stats))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	st = dpb_release_validate(&r, &err);
	if (st != DPB_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the statistics are not representable"),
				 errdetail_internal("%s", err.detail[0] ? err.detail : err.msg),
				 errhint("Use smaller clip and y_bound.")));
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}
