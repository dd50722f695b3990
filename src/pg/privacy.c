/*
 * privacy.c — the dpbayes.privacy constructor and its composite type.
 *
 * dpbayes.privacy(...) validates its arguments and returns a composite
 * (see dpbayes--*.sql for the attribute order).  The release aggregates read
 * that composite back with dpb_pg_params_from_datum() once per group and
 * validate it again: a composite built by hand with ROW(...) gets the same
 * checks.
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "names.h"

#define NATTS 14
/* the attributes of dpbayes 0.1.0's composite (without y_clamped): a value
 * stored before ALTER EXTENSION UPDATE has only these */
#define NATTS_0_1 13
enum
{
	A_EPSILON, A_DELTA, A_CLIP, A_Y_BOUND, A_LOWER, A_UPPER, A_INTERCEPT,
	A_MECHANISM, A_SCALING, A_FEATURES, A_NOISE_WEIGHTS, A_X_MOMENTS,
	A_NEIGHBOURS, A_Y_CLAMPED
};

static const char *const attnames[NATTS] = {
	"epsilon", "delta", "clip", "y_bound", "lower", "upper", "intercept",
	"mechanism", "scaling", "features", "noise_weights", "x_moments",
	"neighbours", "y_clamped"
};

int
dpb_pg_float8_array(Datum d, const char *what, double *out, int maxn)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n,
				i;
	double	   *v;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be an array of double precision", what)));
	if (ARR_NDIM(a) == 0)
		return 0;
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain nulls", what)));
	n = ARR_DIMS(a)[0];
	if (n > maxn)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has too many elements", what),
				 errdetail("At most %d are allowed; got %d.", maxn, n)));
	v = (double *) ARR_DATA_PTR(a);
	for (i = 0; i < n; i++)
	{
		if (isnan(v[i]) || isinf(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must contain only finite values", what)));
		out[i] = v[i];
	}
	return n;
}

int
dpb_pg_name_array(Datum d, dpb_params *p)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;

	if (ARR_NDIM(a) == 0)
		return 0;
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("features must be a one-dimensional array")));
	deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("features has too many elements"),
				 errdetail("At most %d features are supported; got %d.", DPB_MAX_D, n)));
	for (i = 0; i < n; i++)
	{
		text	   *t;
		char	   *s;
		dpb_err		err;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("features must not contain nulls")));
		t = DatumGetTextPP(elems[i]);
		/* the release stores UTF-8; the one rule of names.h (the
		 * duplicates are checked with the others by dpb_params_check) */
		if (VARSIZE_ANY_EXHDR(t) >= DPB_NAME_LEN)
			s = VARDATA_ANY(t); /* too long: refused below, not converted */
		else
			s = dpb_pg_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		if (dpb_name_check(s, s == VARDATA_ANY(t) ? VARSIZE_ANY_EXHDR(t) : strlen(s),
						   i, &err) != DPB_OK)
			dpb_pg_raise(DPB_EINVAL, &err, ERRCODE_INVALID_PARAMETER_VALUE);
		strlcpy(p->names[i], s, DPB_NAME_LEN);
	}
	return n;
}

/* Fills p from the NATTS values (NULL = not given) and checks it. */
static void
params_fill(const Datum *v, const bool *isnull, dpb_params *p)
{
	dpb_err		err;
	dpb_status	st;
	int			nlo = 0,
				nup = 0,
				nnames = 0;

	dpb_params_default(p);
	if (isnull[A_EPSILON])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be null"),
				 errhint("epsilon, the privacy budget of the release, is required: dpbayes.privacy(epsilon => 1, ...).")));
	p->epsilon = DatumGetFloat8(v[A_EPSILON]);
	if (!isnull[A_MECHANISM])
	{
		char	   *m = TextDatumGetCString(v[A_MECHANISM]);

		p->mechanism = dpb_mechanism_from_name(m);
		if (p->mechanism == 0 || p->mechanism == DPB_MECH_NONE ||
			p->mechanism == DPB_MECH_LDP_GAUSSIAN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown noise mechanism \"%s\"", dpb_pg_quote(m, strlen(m))),
					 errhint("Use \"gaussian\" or \"laplace\".")));
	}
	if (isnull[A_DELTA])
		p->delta = p->mechanism == DPB_MECH_LAPLACE ? 0.0 : 1e-6;
	else
		p->delta = DatumGetFloat8(v[A_DELTA]);
	if (!isnull[A_CLIP])
		p->clip = DatumGetFloat8(v[A_CLIP]);
	if (!isnull[A_Y_BOUND])
	{
		p->y_bound = DatumGetFloat8(v[A_Y_BOUND]);
		if (!(p->y_bound > 0) || isinf(p->y_bound))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("y_bound must be positive and finite")));
	}
	if (!isnull[A_INTERCEPT])
		p->intercept = DatumGetBool(v[A_INTERCEPT]) ? 1 : 0;
	if (!isnull[A_SCALING])
	{
		char	   *s = TextDatumGetCString(v[A_SCALING]);

		if (strcmp(s, "none") == 0)
		{
			/* no bounds, explicitly: the features are used as given */
			p->unscaled = 1;
			p->scaling = DPB_SCALE_BOX; /* unused without bounds */
		}
		else
		{
			p->scaling = dpb_scaling_from_name(s);
			if (p->scaling == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown scaling \"%s\"", dpb_pg_quote(s, strlen(s))),
						 errhint("Use \"box\" (the default) or \"ball\" with lower and upper, or \"none\" for features already scaled to the unit ball.")));
		}
	}
	if (!isnull[A_LOWER])
		nlo = dpb_pg_float8_array(v[A_LOWER], "lower", p->lower, DPB_MAX_D);
	if (!isnull[A_UPPER])
		nup = dpb_pg_float8_array(v[A_UPPER], "upper", p->upper, DPB_MAX_D);
	if (isnull[A_LOWER] != isnull[A_UPPER] || nlo != nup)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lower and upper must be given together and have the same length"),
				 errdetail("lower has %d elements and upper has %d.", nlo, nup)));
	if (!isnull[A_LOWER])
	{
		if (nlo == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("lower and upper must not be empty")));
		if (p->unscaled)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scaling \"none\" cannot be combined with lower and upper"),
					 errdetail("scaling => 'none' uses the features as given, without bounds."),
					 errhint("Leave out scaling (the default \"box\") or pass \"ball\" to scale by the bounds.")));
		p->has_bounds = 1;
		p->d = nlo;
	}
	if (!isnull[A_FEATURES])
	{
		nnames = dpb_pg_name_array(v[A_FEATURES], p);
		if (nnames == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("features must not be empty")));
		if (p->d != 0 && nnames != p->d)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("features and the bounds must have the same length"),
					 errdetail("features has %d elements and the bounds have %d.",
							   nnames, p->d)));
		p->has_names = 1;
		p->d = nnames;
	}
	if (!isnull[A_NOISE_WEIGHTS])
	{
		p->nweights = dpb_pg_float8_array(v[A_NOISE_WEIGHTS], "noise_weights",
								   p->noise_weights, DPB_MAX_MODEL_BLOCKS);
		if (p->nweights == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("noise_weights must not be empty")));
	}
	if (!isnull[A_X_MOMENTS])
		p->x_moments = DatumGetFloat8(v[A_X_MOMENTS]);
	if (!isnull[A_NEIGHBOURS])
	{
		char	   *s = TextDatumGetCString(v[A_NEIGHBOURS]);

		p->neighbours = dpb_neighbours_from_name(s);
		if (p->neighbours == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown neighbouring relation"),
					 errhint("Use \"add_remove\" (the number of rows is private) or \"replace\" (a fixed population whose size is public).")));
	}
	/* NULL: the model's default (dpb_pg_params_for_release) */
	if (!isnull[A_Y_CLAMPED])
	{
		p->y_clamped = DatumGetFloat8(v[A_Y_CLAMPED]);
		p->y_clamped_set = 1;
	}
	st = dpb_params_check(p, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
}

PG_FUNCTION_INFO_V1(dpbayes_privacy);
Datum
dpbayes_privacy(PG_FUNCTION_ARGS)
{
	Datum		v[NATTS];
	bool		isnull[NATTS];
	dpb_params	p;
	TupleDesc	tupdesc;
	int			i;

	/* 13 arguments: the function of a 0.1.0 schema not yet updated (its
	 * composite has 13 attributes too) */
	if (PG_NARGS() != NATTS && PG_NARGS() != NATTS_0_1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
				 errmsg("dpbayes.privacy takes %d arguments", NATTS)));
	for (i = 0; i < NATTS; i++)
	{
		isnull[i] = i >= PG_NARGS() || PG_ARGISNULL(i);
		v[i] = isnull[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	params_fill(v, isnull, &p);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	/* store the defaults that were applied, so the value is explicit */
	isnull[A_DELTA] = false;
	v[A_DELTA] = Float8GetDatum(p.delta);
	isnull[A_CLIP] = false;
	v[A_CLIP] = Float8GetDatum(p.clip);
	isnull[A_INTERCEPT] = false;
	v[A_INTERCEPT] = BoolGetDatum(p.intercept != 0);
	isnull[A_MECHANISM] = false;
	v[A_MECHANISM] = CStringGetTextDatum(dpb_mechanism_name(p.mechanism));
	isnull[A_SCALING] = false;
	v[A_SCALING] = CStringGetTextDatum(p.unscaled ? "none" : dpb_scaling_name(p.scaling));
	isnull[A_X_MOMENTS] = false;
	v[A_X_MOMENTS] = Float8GetDatum(p.x_moments);
	isnull[A_NEIGHBOURS] = false;
	v[A_NEIGHBOURS] = CStringGetTextDatum(dpb_neighbours_name(p.neighbours));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, isnull)));
}

void
dpb_pg_params_from_datum(Datum composite, dpb_params *p)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	Datum		v[NATTS];
	bool		isnull[NATTS];
	int			i;

	/* a value stored by dpbayes 0.1.0 has no y_clamped (read as NULL) */
	if (HeapTupleHeaderGetNatts(th) != NATTS && HeapTupleHeaderGetNatts(th) != NATTS_0_1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("privacy parameters have %d attributes, expected %d",
						HeapTupleHeaderGetNatts(th), NATTS)));
	for (i = 0; i < NATTS; i++)
	{
		/* y_clamped only in a value of the 0.2.0 type (a 0.1.0 value, or
		 * one of a 0.1.0 schema, has none: NULL, the model's default) */
		if (i >= HeapTupleHeaderGetNatts(th))
		{
			v[i] = (Datum) 0;
			isnull[i] = true;
		}
		else
			v[i] = GetAttributeByName(th, attnames[i], &isnull[i]);
	}
	params_fill(v, isnull, p);
}

void
dpb_pg_params_for_release(Datum composite, dpb_model model, dpb_params *p)
{
	dpb_pg_params_from_datum(composite, p);
	if (!p->y_clamped_set)
		p->y_clamped = dpb_params_default_y_clamped(p, model);
	p->y_clamped_set = 0;		/* resolved: compared byte for byte */
}

void
dpb_pg_require_bounds(const dpb_params *p)
{
	if (p->has_bounds || p->unscaled)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("a release needs public bounds on its features"),
			 errdetail("Without lower and upper the features are used as given and every record is "
					   "projected onto the ball of radius clip (%g): features on other scales are distorted, "
					   "and the posterior then describes the projected records, not the data.", p->clip),
			 errhint("Pass lower => ARRAY[...] and upper => ARRAY[...] to dpbayes.privacy(): public bounds of "
					 "each feature, never computed from the data (docs/release-aggregates.md has a query that "
					 "counts what given bounds would clip). For features already scaled to the unit ball, "
					 "pass scaling => 'none'.")));
}
