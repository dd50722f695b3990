/*
 * betad_agg.c — the betaD-Bayes aggregates (issue 10, docs/betad.md):
 *
 *   dpbayes.betad_logistic(x float8[], y boolean, p dpbayes.betad_params)
 *   dpbayes.betad_linear(x float8[], y float8, p dpbayes.betad_params)
 *   dpbayes.betad_logistic(y boolean, p, VARIADIC x "any")   (column form)
 *   dpbayes.betad_linear(y float8, p, VARIADIC x "any")
 *
 * There is no sufficient statistic for the betaD loss: the transition
 * function buffers the group's rows (features and response as doubles), at
 * most work_mem bytes of them (an error, SQLSTATE 54000, past it); combine,
 * serialize and deserialize concatenate buffers, so parallel plans work.
 * The final function runs the mechanism (dpb_betad_run: NUTS with the fixed
 * public schedule, or the certified exact tier) with every random number
 * from pg_strong_random (or, stamped insecure, the test stream of
 * dpbayes.insecure_noise_seed), and returns a dpbayes.release of kind
 * betad.  No seed and no diagnostic is ever reported (not in the release,
 * a NOTICE, a log line or an error).  The buffered rows are zeroed after the
 * run.
 *
 * dpbayes.betad_tune_NOT_PRIVATE runs the same sampler on raw rows and
 * returns everything the mechanism hides (the chains, R-hat, ESS, step
 * sizes, divergences): for choosing a schedule on public or synthetic data.
 */
#include "dpbayes_pg.h"
#include "release_agg.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "betad/betad_release.h"
#include "diag.h"
#include "nuts.h"

typedef struct BetadState
{
	int			gaussian;
	dpb_betad_spec spec;		/* checked, from the group's first row */
	bool		have_spec;
	char	   *p_copy;			/* the parameters' bytes (row-by-row check) */
	Size		p_len;
	int			d;				/* 0 until the first row */
	int64		n;
	int64		cap;			/* rows allocated */
	double	   *X;				/* n x d */
	double	   *y;
	bool		gathered;		/* the rows come from Citus's shards */
} BetadState;

#define BSER_MAGIC 0x44504244	/* "DPBD" */

static int
betad_interrupt(void)
{
	/* the elapsed-only progress NOTICE of a release (progress.c) */
	if (dpb_pg_progress_poll())
		return 1;
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

/* the cap of a group's buffer: work_mem, or none in the governed path
 * (dpbayes.betad_buffer_unbounded, pinned by dpbayes._compute) */
static double
buffer_cap_bytes(void)
{
	return dpbayes_betad_buffer_unbounded ? INFINITY : (double) work_mem * 1024;
}

/*
 * Whether the aggregate reads the rows of a table distributed by Citus: a
 * betaD draw cannot be combined from partial states (it needs all the rows
 * of a group in one place), so Citus gathers the rows on the coordinator,
 * and the error past work_mem says so.
 */
static bool
rows_from_citus(FunctionCallInfo fcinfo)
{
	PlanState  *ps;
	int			i;

	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return false;
	ps = outerPlanState((AggState *) fcinfo->context);
	for (i = 0; ps != NULL && i < 4; i++, ps = outerPlanState(ps))
		if (IsA(ps, CustomScanState))
		{
			CustomScan *cs = (CustomScan *) ps->plan;

			return cs->methods != NULL && cs->methods->CustomName != NULL &&
				strncmp(cs->methods->CustomName, "Citus", 5) == 0;
		}
	return false;
}

pg_attribute_noreturn()
static void
too_many_rows(const BetadState *s)
{
	if (s->gathered)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rows for a betaD release of a distributed table"),
				 errdetail("A betaD draw needs all the rows of a group in one place: the shards send their rows to the coordinator, which holds at most work_mem (%d kB) of them per group (8 bytes per feature and per response).",
						   work_mem),
				 errhint("Raise work_mem on the coordinator for this query (SET work_mem = ...), or release from a public random sample of the rows.")));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many rows for a betaD release"),
			 errdetail("A betaD aggregate holds the rows of a group in memory (8 bytes per feature and per response), at most work_mem (%d kB) per group.",
					   work_mem),
			 errhint("Raise work_mem for this query (SET work_mem = ...), or release from a public random sample of the rows.")));
}

/* room for n + more rows */
static void
reserve(BetadState *s, MemoryContext cxt, int64 more)
{
	int64		need = s->n + more,
				cap;

	if ((double) need * (s->d + 1) * sizeof(double) > buffer_cap_bytes())
		too_many_rows(s);
	if (need <= s->cap)
		return;
	cap = Max(need, Max(s->cap * 2, 256));
	if ((double) cap * (s->d + 1) * sizeof(double) > buffer_cap_bytes())
		cap = need;
	if (s->X == NULL)
	{
		s->X = MemoryContextAllocHuge(cxt, sizeof(double) * s->d * cap);
		s->y = MemoryContextAllocHuge(cxt, sizeof(double) * cap);
	}
	else
	{
		s->X = repalloc_huge(s->X, sizeof(double) * s->d * cap);
		s->y = repalloc_huge(s->y, sizeof(double) * cap);
	}
	s->cap = cap;
}

static void
check_d(BetadState *s, int d)
{
	if (s->spec.fx.d != 0 && d != s->spec.fx.d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of features does not match the parameters"),
				 errdetail("The parameters give %d features; the rows have %d.", s->spec.fx.d, d)));
}

static const char *
agg_name(int gaussian, int network)
{
	return network ? (gaussian ? "betad_mlp_regression" : "betad_mlp_classifier") :
		(gaussian ? "betad_linear" : "betad_logistic");
}

static BetadState *
trans_state(FunctionCallInfo fcinfo, int gaussian, int network, int p_arg,
			MemoryContext *aggcxt)
{
	BetadState *s;
	HeapTupleHeader th;
	Size		len;

	if (!AggCheckCallContext(fcinfo, aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("betaD transition function called in non-aggregate context")));
	if (PG_ARGISNULL(p_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("betaD parameters must not be null"),
				 errhint("Pass dpbayes.betad(epsilon => ..., model => ...).")));
	if (PG_ARGISNULL(0))
	{
		s = MemoryContextAllocZero(*aggcxt, sizeof(BetadState));
		s->gaussian = gaussian;
		s->gathered = rows_from_citus(fcinfo);
	}
	else
		s = (BetadState *) PG_GETARG_POINTER(0);
	th = DatumGetHeapTupleHeader(PG_GETARG_DATUM(p_arg));
	len = HeapTupleHeaderGetDatumLength(th);
	if (!s->have_spec)
	{
		dpb_pg_betad_from_datum(PG_GETARG_DATUM(p_arg), &s->spec);
		if ((s->spec.hidden > 0) != (network != 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the parameters are for the %s model", dpb_betad_model_name(&s->spec)),
					 errhint("Use dpbayes.%s, or dpbayes.betad(..., model => '%s').",
							 agg_name(s->spec.gaussian, s->spec.hidden > 0),
							 network ? (gaussian ? "mlp_regression" : "mlp_classifier") :
							 (gaussian ? "linear" : "logistic"))));
		if (s->spec.gaussian != gaussian)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the parameters are for the %s model", dpb_betad_model_name(&s->spec)),
					 errhint("Use dpbayes.%s, or dpbayes.betad(..., model => '%s').",
							 agg_name(s->spec.gaussian, network),
							 network ? (gaussian ? "mlp_regression" : "mlp_classifier") :
							 (gaussian ? "linear" : "logistic"))));
		dpb_pg_betad_require_scales(&s->spec);
		s->p_copy = MemoryContextAlloc(*aggcxt, len);
		memcpy(s->p_copy, th, len);
		s->p_len = len;
		s->have_spec = true;
	}
	else if (len != s->p_len || memcmp(th, s->p_copy, len) != 0)
	{
		dpb_betad_spec other;

		dpb_pg_betad_from_datum(PG_GETARG_DATUM(p_arg), &other);
		other.fx.d = other.fx.d ? other.fx.d : s->spec.fx.d;
		if (memcmp(&other, &s->spec, sizeof(other)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("betaD parameters must be the same for every row of a group")));
	}
	return s;
}

static void
add_row(BetadState *s, MemoryContext cxt, const double *x, int d, double y)
{
	int			j;

	if (s->d == 0)
	{
		check_d(s, d);
		s->d = d;
		s->spec.fx.d = d;
	}
	else if (d != s->d)
		dpb_rel_d_error(s->d, d);
	for (j = 0; j < d; j++)
		if (!dpb_isfinite(x[j]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("feature values must be finite"),
					 errdetail("NaN and infinity are not allowed as feature values.")));
	reserve(s, cxt, 1);
	memcpy(s->X + s->n * d, x, sizeof(double) * d);
	s->y[s->n] = y;
	s->n++;
}

static double
response(FunctionCallInfo fcinfo, int gaussian, int arg)
{
	if (PG_ARGISNULL(arg))
		dpb_rel_null_error("response");
	return dpb_rel_response(fcinfo, gaussian ? DPB_MODEL_LINEAR : DPB_MODEL_LOGISTIC, arg);
}

/* the array form: (x float8[], y, p) */
static Datum
betad_trans(FunctionCallInfo fcinfo, int gaussian, int network)
{
	MemoryContext aggcxt;
	BetadState *s = trans_state(fcinfo, gaussian, network, 3, &aggcxt);
	double	   *x;
	int			d;

	if (PG_ARGISNULL(1))
		dpb_rel_null_error("feature array");
	d = dpb_rel_feature_array(PG_GETARG_ARRAYTYPE_P(1), &x);
	add_row(s, aggcxt, x, d, response(fcinfo, gaussian, 2));
	PG_RETURN_POINTER(s);
}

/* the column form: (y, p, VARIADIC x) */
static Datum
betad_cols_trans(FunctionCallInfo fcinfo, int gaussian, int network)
{
	MemoryContext aggcxt;
	BetadState *s = trans_state(fcinfo, gaussian, network, 2, &aggcxt);
	double		y = response(fcinfo, gaussian, 1);
	double	   *x;
	int			d;

	x = dpb_rel_cols_features(fcinfo, agg_name(gaussian, network), &d);
	add_row(s, aggcxt, x, d, y);
	PG_RETURN_POINTER(s);
}

#define BETAD_TRANS(fn, body, gaussian, network) \
PG_FUNCTION_INFO_V1(fn); \
Datum \
fn(PG_FUNCTION_ARGS) \
{ \
	return body(fcinfo, gaussian, network); \
}

BETAD_TRANS(dpbayes_betad_logistic_trans, betad_trans, 0, 0)
BETAD_TRANS(dpbayes_betad_linear_trans, betad_trans, 1, 0)
BETAD_TRANS(dpbayes_betad_logistic_cols_trans, betad_cols_trans, 0, 0)
BETAD_TRANS(dpbayes_betad_linear_cols_trans, betad_cols_trans, 1, 0)
/* the networks (issue 28): the same buffered rows and final functions */
BETAD_TRANS(dpbayes_betad_mlp_classifier_trans, betad_trans, 0, 1)
BETAD_TRANS(dpbayes_betad_mlp_regression_trans, betad_trans, 1, 1)
BETAD_TRANS(dpbayes_betad_mlp_classifier_cols_trans, betad_cols_trans, 0, 1)
BETAD_TRANS(dpbayes_betad_mlp_regression_cols_trans, betad_cols_trans, 1, 1)

/* appends b's rows to a */
static void
append_rows(BetadState *a, MemoryContext cxt, const BetadState *b)
{
	if (b->n == 0)
		return;
	reserve(a, cxt, b->n);
	memcpy(a->X + a->n * a->d, b->X, sizeof(double) * b->d * b->n);
	memcpy(a->y + a->n, b->y, sizeof(double) * b->n);
	a->n += b->n;
}

PG_FUNCTION_INFO_V1(dpbayes_betad_combine);
Datum
dpbayes_betad_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	BetadState *a,
			   *b;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("betaD combine function called in non-aggregate context")));
	a = PG_ARGISNULL(0) ? NULL : (BetadState *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (BetadState *) PG_GETARG_POINTER(1);
	if (b == NULL || b->d == 0)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL || a->d == 0)
	{
		a = MemoryContextAllocZero(aggcxt, sizeof(BetadState));
		a->gaussian = b->gaussian;
		a->spec = b->spec;
		a->have_spec = true;
		a->d = b->d;
		append_rows(a, aggcxt, b);
		PG_RETURN_POINTER(a);
	}
	if (a->gaussian != b->gaussian || a->d != b->d ||
		memcmp(&a->spec, &b->spec, sizeof(dpb_betad_spec)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("betaD parameters must be the same for every row of a group")));
	append_rows(a, aggcxt, b);
	PG_RETURN_POINTER(a);
}

/* serialized: magic u32 | gaussian i32 | d i32 | pad i32 | n i64 | spec
 * (native layout: only exchanged between processes of one server) | X | y */
#define BSER_HDR (4 * sizeof(int32) + sizeof(int64))

PG_FUNCTION_INFO_V1(dpbayes_betad_serialize);
Datum
dpbayes_betad_serialize(PG_FUNCTION_ARGS)
{
	BetadState *s = (BetadState *) PG_GETARG_POINTER(0);
	int32		hdr[4] = {BSER_MAGIC, s->gaussian, s->d, 0};
	Size		data = sizeof(double) * (Size) s->n * (s->d + 1),
				sz = BSER_HDR + sizeof(dpb_betad_spec) + data;
	bytea	   *out;
	char	   *p;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("betaD serialize function called in non-aggregate context")));
	if (sz + VARHDRSZ > MaxAllocSize)
		too_many_rows(s);
	out = palloc(VARHDRSZ + sz);
	p = VARDATA(out);
	SET_VARSIZE(out, VARHDRSZ + sz);
	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + sizeof(hdr), &s->n, sizeof(int64));
	p += BSER_HDR;
	memcpy(p, &s->spec, sizeof(dpb_betad_spec));
	p += sizeof(dpb_betad_spec);
	if (s->n > 0)
	{
		memcpy(p, s->X, sizeof(double) * s->n * s->d);
		memcpy(p + sizeof(double) * s->n * s->d, s->y, sizeof(double) * s->n);
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_deserialize);
Datum
dpbayes_betad_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	bytea	   *in;
	const char *p;
	Size		len;
	int32		hdr[4];
	int64		n;
	BetadState *s;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("betaD deserialize function called in non-aggregate context")));
	in = PG_GETARG_BYTEA_PP(0);
	p = VARDATA_ANY(in);
	len = VARSIZE_ANY_EXHDR(in);
	if (len < BSER_HDR + sizeof(dpb_betad_spec))
		goto corrupt;
	memcpy(hdr, p, sizeof(hdr));
	memcpy(&n, p + sizeof(hdr), sizeof(int64));
	if (hdr[0] != BSER_MAGIC || hdr[1] < 0 || hdr[1] > 1 || hdr[2] < 0 || hdr[2] > DPB_MAX_D ||
		n < 0 || (hdr[2] == 0 && n != 0) ||
		len != BSER_HDR + sizeof(dpb_betad_spec) + sizeof(double) * (Size) n * (hdr[2] + 1))
		goto corrupt;
	s = MemoryContextAllocZero(aggcxt, sizeof(BetadState));
	s->gaussian = hdr[1];
	s->d = hdr[2];
	memcpy(&s->spec, p + BSER_HDR, sizeof(dpb_betad_spec));
	s->have_spec = true;
	p += BSER_HDR + sizeof(dpb_betad_spec);
	if (n > 0)
	{
		reserve(s, aggcxt, n);
		memcpy(s->X, p, sizeof(double) * n * s->d);
		memcpy(s->y, p + sizeof(double) * n * s->d, sizeof(double) * n);
		s->n = n;
	}
	PG_RETURN_POINTER(s);

corrupt:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid serialized betaD aggregate state")));
	PG_RETURN_NULL();
}

/* The parameters of an empty group: the aggregate's argument, when it is a
 * constant (the transition function never ran). */
static void
empty_group_spec(FunctionCallInfo fcinfo, dpb_betad_spec *spec)
{
	Aggref	   *ag = AggGetAggref(fcinfo);
	TargetEntry *te;
	bool		cols;

	if (ag == NULL || list_length(ag->args) < 3)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release an empty group in this context")));
	cols = exprType((Node *) ((TargetEntry *) linitial(ag->args))->expr) != FLOAT8ARRAYOID;
	te = (TargetEntry *) list_nth(ag->args, cols ? 1 : 2);
	if (!IsA(te->expr, Const) || ((Const *) te->expr)->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release an empty group unless the betaD parameters are a constant")));
	dpb_pg_betad_from_datum(((Const *) te->expr)->constvalue, spec);
	dpb_pg_betad_require_scales(spec);
	if (spec->fx.d == 0 && cols && !ag->aggvariadic)
		spec->fx.d = list_length(ag->args) - 2;
	if (spec->fx.d == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot release an empty group without knowing the number of features"),
				 errhint("Give lower/upper or features in dpbayes.betad(...).")));
}

/*
 * Progress of a betaD release (progress.c): the whole MCMC run is the
 * privacy mechanism, and how fast it moves depends on the data (and N,
 * private under add/remove neighbours), so before the run only the public
 * schedule is shown (no cost estimate: it would be a function of N), and
 * during it only the time since the start, at fixed clock times, never
 * per iteration (docs/betad.md, "Progress").
 */
static void
betad_progress_start(const dpb_betad_spec *spec)
{
	if (!dpb_pg_progress_enabled())
		return;
	ereport(NOTICE,
			(spec->tier == DPB_BETAD_EXACT ?
			 errmsg("betaD release: %d draw%s by rejection from the prior (the exact tier)",
					spec->ndraws, spec->ndraws == 1 ? "" : "s") :
			 errmsg("betaD release: %d draw%s, each %d chain%s of %d warmup and %d iterations (the public schedule)",
					spec->ndraws, spec->ndraws == 1 ? "" : "s", spec->sched.chains,
					spec->sched.chains == 1 ? "" : "s", spec->sched.warmup, spec->sched.iters),
			 errdetail("Only the time since the start is reported, every %s: how fast the sampler moves depends "
					   "on the data, so its position is not shown (docs/betad.md).",
					   dpb_pg_format_duration(Max(dpb_pg_progress_interval_ms(), 1000) / 1000.0))));
	dpb_pg_progress_begin("betaD release", true);
}

static Datum
betad_final(FunctionCallInfo fcinfo, int gaussian)
{
	BetadState *s = PG_ARGISNULL(0) ? NULL : (BetadState *) PG_GETARG_POINTER(0);
	dpb_betad_spec spec;
	dpb_betad_release r;
	dpb_rbits  *rb;
	bool		insecure;
	double	   *work,
			   *X = NULL,
			   *y = NULL;
	int64		n = 0;
	dpb_err		err;
	dpb_status	st;
	Datum		result;

	if (s == NULL || s->d == 0)
		empty_group_spec(fcinfo, &spec);
	else
	{
		spec = s->spec;
		n = s->n;
		/* the mechanism scales the rows in place: work on a copy, so that
		 * the state stays as the transition function left it */
		X = palloc_extended(sizeof(double) * (Size) n * s->d, MCXT_ALLOC_HUGE);
		y = palloc_extended(sizeof(double) * (Size) n, MCXT_ALLOC_HUGE);
		memcpy(X, s->X, sizeof(double) * (Size) n * s->d);
		memcpy(y, s->y, sizeof(double) * (Size) n);
	}
	work = palloc_extended(sizeof(double) * 2 * (Size) Max(n, 1), MCXT_ALLOC_HUGE);
	rb = dpb_pg_noise_bits(&insecure);
	betad_progress_start(&spec);
	st = dpb_betad_run(&spec, n, X, y, work, rb, betad_interrupt, &r, &err);
	dpb_pg_progress_end();
	dpb_pg_noise_bits_done(rb);
	if (st == DPB_OK && dpb_pg_progress_failed())
	{
		/* a progress NOTICE failed (the run was told to stop) */
		dpb_betad_release_free(&r);
		st = DPB_EINTR;
	}
	if (X != NULL)
	{
		memset(X, 0, sizeof(double) * (Size) n * spec.fx.d);
		memset(y, 0, sizeof(double) * (Size) n);
	}
	memset(work, 0, sizeof(double) * 2 * (Size) Max(n, 1));
	if (st == DPB_ERANGE && spec.tier == DPB_BETAD_EXACT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err.msg),
				 errdetail("%s", err.detail),
				 errhint("The exact tier is feasible when N epsilon is small (logistic: about N epsilon <= 30): use tier => 'approximate', a smaller epsilon, or a larger delta_prime.")));
	if (st == DPB_ENUMERIC)
		/* no diagnostic of the run leaves it (docs/betad.md): only that the
		 * scaled data were not of a size the sampler can work with */
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the betaD sampler failed"),
				 errdetail("The log density of the publicly scaled data was not finite along the sampler's path."),
				 errhint("Use public scales (lower/upper, y_scale) that put the features and y near unit scale, and keep values finite.")));
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	r.insecure = insecure ? 1 : 0;
	st = dpb_betad_release_validate(&r, &err);
	if (st != DPB_OK)
	{
		dpb_betad_release_free(&r);
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the betaD draw is not representable"),
				 errhint("Use public scales (lower/upper, y_scale) that put the data near unit scale.")));
	}
	result = dpb_pg_betad_to_datum(&r);
	dpb_betad_release_free(&r);
	PG_RETURN_DATUM(result);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_logistic_final);
Datum
dpbayes_betad_logistic_final(PG_FUNCTION_ARGS)
{
	return betad_final(fcinfo, 0);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_linear_final);
Datum
dpbayes_betad_linear_final(PG_FUNCTION_ARGS)
{
	return betad_final(fcinfo, 1);
}

/* ---- NOT PRIVATE: the tuning function ---- */

static void
tune_row(ReturnSetInfo *rsinfo, int chain, int iter, const char *var, double value)
{
	Datum		v[4];
	bool		nul[4] = {chain < 0, iter < 0, false, false};

	v[0] = Int32GetDatum(chain);
	v[1] = Int32GetDatum(iter);
	v[2] = CStringGetTextDatum(var);
	v[3] = Float8GetDatum(value);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nul);
}

/*
 * dpbayes.betad_tune_NOT_PRIVATE(x float8[][], y float8[], p, seed): the
 * chains of the approximate tier on raw rows (x: N x d; y: logistic 1/0,
 * linear in its units), then the diagnostics the mechanism hides: per
 * variable (chain and iteration null) rhat, ess_bulk, ess_tail; per chain
 * (iteration null) step_size, divergences, mean_tree_depth, mean_accept,
 * gradient_evals.  A seeded Mersenne Twister: NOT PRIVATE in every way.
 */
PG_FUNCTION_INFO_V1(dpbayes_betad_tune);
Datum
dpbayes_betad_tune(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArrayType  *xa,
			   *ya;
	dpb_betad_spec spec;
	double	   *X,
			   *y,
			   *work,
			   *draws,
			   *col;
	dpb_nuts_stats *st;
	int64		n,
				i;
	int			d,
				nvar,
				c,
				j,
				chains,
				iters;
	gsl_rng    *g;
	dpb_err		err;
	dpb_status	status;
	char		name[DPB_NAME_LEN + 8];

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("x, y and p must not be null")));
	xa = PG_GETARG_ARRAYTYPE_P(0);
	ya = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(xa) != 2 || ARR_ELEMTYPE(xa) != FLOAT8OID || array_contains_nulls(xa))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x must be a two-dimensional double precision array without nulls (N rows x d features)")));
	n = ARR_DIMS(xa)[0];
	d = ARR_DIMS(xa)[1];
	if (ARR_NDIM(ya) != 1 || ARR_ELEMTYPE(ya) != FLOAT8OID || array_contains_nulls(ya) ||
		ARR_DIMS(ya)[0] != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("y must be a double precision array without nulls, one value per row of x")));
	dpb_pg_betad_from_datum(PG_GETARG_DATUM(2), &spec);
	dpb_pg_betad_require_scales(&spec);
	if (spec.fx.d != 0 && spec.fx.d != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of features does not match the parameters")));
	if (d < 1 || d > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("x must have between 1 and %d columns", DPB_MAX_D)));
	spec.fx.d = d;
	X = palloc_extended(sizeof(double) * n * d, MCXT_ALLOC_HUGE);
	y = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	work = palloc_extended(sizeof(double) * 2 * Max(n, 1), MCXT_ALLOC_HUGE);
	memcpy(X, ARR_DATA_PTR(xa), sizeof(double) * n * d);
	memcpy(y, ARR_DATA_PTR(ya), sizeof(double) * n);
	for (i = 0; i < n * d; i++)
		if (!dpb_isfinite(X[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("feature values must be finite")));
	for (i = 0; i < n; i++)
	{
		if (!dpb_isfinite(y[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("response must be finite")));
		if (!spec.gaussian && y[i] != 0 && y[i] != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("logistic y must be 0 or 1"),
					 errdetail("The array y holds a value other than 0 and 1: logistic regression takes labels, "
							   "not probabilities or scores."),
					 errhint("Pass the labels as 1 (positive) and 0, e.g. (diabetes = 'pos')::int.")));
		if (!spec.gaussian)
			y[i] = y[i] == 1 ? 1 : -1;
	}
	chains = spec.sched.chains;
	iters = spec.sched.iters;
	nvar = dpb_betad_nvar(&spec);
	draws = palloc_extended(sizeof(double) * chains * iters * nvar, MCXT_ALLOC_HUGE);
	st = palloc0(sizeof(dpb_nuts_stats) * chains);
	g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, PG_ARGISNULL(3) ? 1 : (unsigned long) PG_GETARG_INT64(3));
	status = dpb_betad_tune(&spec, n, X, y, work, g, betad_interrupt, draws, st, &err);
	gsl_rng_free(g);
	if (status != DPB_OK)
		dpb_pg_raise(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	InitMaterializedSRF(fcinfo, 0);
	col = palloc(sizeof(double) * chains * iters);
	for (j = 0; j < nvar; j++)
	{
		dpb_betad_var_name(&spec, j, name, sizeof(name));
		for (c = 0; c < chains; c++)
			for (i = 0; i < iters; i++)
			{
				double		v = draws[((size_t) c * iters + i) * nvar + j];

				tune_row(rsinfo, c + 1, (int) i + 1, dpb_pg_from_utf8(name), v);
				col[c * iters + i] = v;
			}
		tune_row(rsinfo, -1, -1, psprintf("rhat:%s", dpb_pg_from_utf8(name)),
				 dpb_rhat(col, chains, iters));
		tune_row(rsinfo, -1, -1, psprintf("ess_bulk:%s", dpb_pg_from_utf8(name)),
				 dpb_ess_bulk(col, chains, iters));
		tune_row(rsinfo, -1, -1, psprintf("ess_tail:%s", dpb_pg_from_utf8(name)),
				 dpb_ess_tail(col, chains, iters));
	}
	for (c = 0; c < chains; c++)
	{
		tune_row(rsinfo, c + 1, -1, "step_size", st[c].step_size);
		tune_row(rsinfo, c + 1, -1, "divergences", (double) st[c].divergences);
		tune_row(rsinfo, c + 1, -1, "mean_tree_depth", st[c].mean_tree_depth);
		tune_row(rsinfo, c + 1, -1, "mean_accept", st[c].mean_accept);
		tune_row(rsinfo, c + 1, -1, "gradient_evals", (double) st[c].gradient_evals);
	}
	return (Datum) 0;
}
