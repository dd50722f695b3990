/*
 * release_cols.c — the column form of the release aggregates:
 *
 *   dpbayes.linear_release(y float8, p dpbayes.privacy, VARIADIC x "any")
 *   dpbayes.logistic_release(y boolean, p dpbayes.privacy, VARIADIC x "any")
 *   dpbayes.poisson_release(y float8, p dpbayes.privacy, VARIADIC x "any")
 *
 * The features come as separate arguments, so no array is built per row
 * (ARRAY[x1, ..., xd] costs as much as the release itself, see
 * bench/README.md).  Their types are resolved once per call site (cached in
 * fn_extra): double precision, real, smallint, integer, bigint and numeric
 * (converted to double precision), or domains over them.  An explicit
 * VARIADIC ARRAY[...] passes the features as one array of such a type.
 * State, combine, serialization and final functions are those of the array
 * form (release_agg.c), and so are the NULL policy and the errors.
 */
#include "dpbayes_pg.h"
#include "release_agg.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/* argument numbers of the transition function (0 is the state) */
#define ARG_Y 1
#define ARG_P 2
#define ARG_X 3

typedef enum col_kind
{
	COL_FLOAT8,
	COL_FLOAT4,
	COL_INT2,
	COL_INT4,
	COL_INT8,
	COL_NUMERIC,
	COL_OTHER
} col_kind;

/* what a call site passes, resolved on its first row */
typedef struct cols_call
{
	bool		spread;			/* explicit VARIADIC: one array of features */
	int			nargs;			/* feature arguments (not spread) */
	bool		all_float8;
	col_kind	kind[DPB_MAX_D];	/* per argument; spread: [0], the elements */
	Oid			elemtype;		/* spread */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	double		x[DPB_MAX_D];	/* the row's features as double */
} cols_call;

static col_kind
kind_of(Oid type)
{
	switch (getBaseType(type))
	{
		case FLOAT8OID:
			return COL_FLOAT8;
		case FLOAT4OID:
			return COL_FLOAT4;
		case INT2OID:
			return COL_INT2;
		case INT4OID:
			return COL_INT4;
		case INT8OID:
			return COL_INT8;
		case NUMERICOID:
			return COL_NUMERIC;
		default:
			return COL_OTHER;
	}
}

pg_attribute_noreturn()
static void
type_error(const char *agg, Oid type, int feature, bool lone_array)
{
	if (lone_array)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("feature arguments must be numeric"),
				 errdetail("Feature 1 has type %s.", format_type_be(type)),
				 errhint("To pass the features as one array, put it first, as in dpbayes.%s(x, y, p), or write VARIADIC before it.",
						 agg)));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("feature arguments must be numeric"),
			 errdetail("Feature %d has type %s.", feature, format_type_be(type)),
			 errhint("Pass double precision, real, smallint, integer, bigint or numeric values, or cast the argument.")));
}

static cols_call *
resolve_call(FunctionCallInfo fcinfo, const char *agg)
{
	FmgrInfo   *fl = fcinfo->flinfo;
	cols_call  *c = MemoryContextAllocZero(fl->fn_mcxt, sizeof(cols_call));
	int			j;

	c->spread = get_fn_expr_variadic(fl);
	if (c->spread)
	{
		Oid			at = get_fn_expr_argtype(fl, ARG_X);

		c->elemtype = OidIsValid(at) ? get_element_type(getBaseType(at)) : InvalidOid;
		if (!OidIsValid(c->elemtype))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("could not determine the type of the feature array")));
		c->kind[0] = kind_of(c->elemtype);
		if (c->kind[0] == COL_OTHER)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("feature arguments must be numeric"),
					 errdetail("The VARIADIC feature array has type %s.", format_type_be(at)),
					 errhint("Pass an array of double precision, real, smallint, integer, bigint or numeric values.")));
		get_typlenbyvalalign(c->elemtype, &c->elmlen, &c->elmbyval, &c->elmalign);
		fl->fn_extra = c;
		return c;
	}

	c->nargs = PG_NARGS() - ARG_X;
	if (c->nargs > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many features"),
				 errdetail("A release supports at most %d features; the call has %d.",
						   DPB_MAX_D, c->nargs)));
	c->all_float8 = true;
	for (j = 0; j < c->nargs; j++)
	{
		Oid			t = get_fn_expr_argtype(fl, ARG_X + j);

		if (!OidIsValid(t))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("could not determine the types of the feature arguments")));
		c->kind[j] = kind_of(t);
		if (c->kind[j] == COL_OTHER)
			type_error(agg, t, j + 1, c->nargs == 1 && type_is_array(t));
		c->all_float8 &= c->kind[j] == COL_FLOAT8;
	}
	fl->fn_extra = c;
	return c;
}

/*
 * A numeric feature beyond the double range: the conversion of core would
 * print the value (issue 8, finding 4), so the range is checked here and
 * only the feature's position is named.  Tiny values round to 0 (or a
 * subnormal), as double arithmetic does.
 */
pg_attribute_noreturn()
static void
numeric_range_error(int feature)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("feature %d is out of the range of double precision", feature),
			 errdetail("A numeric feature value (argument %d of the feature list) is too large in magnitude to convert to double precision; the value is not shown.",
					   feature),
			 errhint("Clamp or rescale the column to the public bounds before the release.")));
	pg_unreachable();
}

static inline double
to_double(col_kind k, Datum v, int feature, bool *skip)
{
	switch (k)
	{
		case COL_FLOAT8:
			return DatumGetFloat8(v);
		case COL_FLOAT4:
			return (double) DatumGetFloat4(v);
		case COL_INT2:
			return (double) DatumGetInt16(v);
		case COL_INT4:
			return (double) DatumGetInt32(v);
		case COL_INT8:
			return (double) DatumGetInt64(v);
		case COL_NUMERIC:
			{
				/* NaN and infinity stay so and are rejected while clipping */
				bool		overflow;
				double		x = dpb_pg_numeric_float8(DatumGetNumeric(v), &overflow);

				if (overflow)
				{
					/* the governed row policy drops the row instead */
					if (skip != NULL)
					{
						*skip = true;
						return 0.0;
					}
					numeric_range_error(feature);
				}
				return x;
			}
		default:
			pg_unreachable();
	}
}

/* the features of an explicit VARIADIC array into c->x; returns d */
static int
spread_features(FunctionCallInfo fcinfo, cols_call *c, bool *skip)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *enulls;
	int			d,
				n,
				j;

	if (PG_ARGISNULL(ARG_X))
	{
		if (skip != NULL)
		{
			*skip = true;
			return 0;
		}
		dpb_rel_null_error("feature array");
	}
	a = PG_GETARG_ARRAYTYPE_P(ARG_X);
	d = dpb_rel_array_len(a);
	if (c->kind[0] == COL_FLOAT8 && skip == NULL)
	{
		memcpy(c->x, ARR_DATA_PTR(a), sizeof(double) * d);
		return d;
	}
	deconstruct_array(a, c->elemtype, c->elmlen, c->elmbyval, c->elmalign,
					  &elems, &enulls, &n);
	for (j = 0; j < n; j++)
	{
		if (enulls != NULL && enulls[j])
		{
			if (skip == NULL)
				dpb_rel_null_error("feature values");
			*skip = true;
			return d;
		}
		c->x[j] = to_double(c->kind[0], elems[j], j + 1, skip);
	}
	return d;
}

/*
 * The row's features as doubles (c->x) and their number.  skip NULL: a
 * NULL or a numeric beyond double range is an error.  skip given (the
 * governed row policy, docs/governance.md §5): such a row, or one with a
 * NaN or infinite feature, sets *skip, and is not an error.
 */
static double *
cols_features(FunctionCallInfo fcinfo, const char *agg, int *dout, bool *skip)
{
	cols_call  *c = fcinfo->flinfo->fn_extra;
	NullableDatum *xs = fcinfo->args + ARG_X;
	int			d,
				j;

	if (c == NULL)
		c = resolve_call(fcinfo, agg);
	if (c->spread)
		d = spread_features(fcinfo, c, skip);
	else
	{
		d = c->nargs;
		for (j = 0; j < d; j++)
			if (xs[j].isnull)
			{
				if (skip == NULL)
					dpb_rel_null_error("feature values");
				*skip = true;
				*dout = d;
				return c->x;
			}
		if (c->all_float8)
			for (j = 0; j < d; j++)
				c->x[j] = DatumGetFloat8(xs[j].value);
		else
			for (j = 0; j < d; j++)
				c->x[j] = to_double(c->kind[j], xs[j].value, j + 1, skip);
	}
	if (skip != NULL && !*skip)
		for (j = 0; j < d; j++)
			if (isnan(c->x[j]) || isinf(c->x[j]))
			{
				*skip = true;
				break;
			}
	*dout = d;
	return c->x;
}

double *
dpb_rel_cols_features(FunctionCallInfo fcinfo, const char *agg, int *dout)
{
	return cols_features(fcinfo, agg, dout, NULL);
}

double *
dpb_rel_cols_features_governed(FunctionCallInfo fcinfo, const char *agg, int *dout, bool *skip)
{
	*skip = false;
	return cols_features(fcinfo, agg, dout, skip);
}

static Datum
cols_trans(FunctionCallInfo fcinfo, dpb_model model)
{
	MemoryContext aggcxt;
	RelState   *s = dpb_rel_trans_state(fcinfo, model, ARG_P, &aggcxt);
	double	   *x;
	double		y;
	int			d;

	if (PG_ARGISNULL(ARG_Y))
		dpb_rel_null_error("response");
	x = dpb_rel_cols_features(fcinfo, model == DPB_MODEL_LOGISTIC ? "logistic_release" :
							  model == DPB_MODEL_POISSON ? "poisson_release" : "linear_release",
							  &d);
	if (dpb_rel_d(s) == 0)
		dpb_rel_setup(s, aggcxt, d);
	else if (d != dpb_rel_d(s))
		dpb_rel_d_error(dpb_rel_d(s), d);
	y = dpb_rel_response(fcinfo, model, ARG_Y);
	dpb_rel_add(s, x, y);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dpbayes_linear_cols_trans);
Datum
dpbayes_linear_cols_trans(PG_FUNCTION_ARGS)
{
	return cols_trans(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_cols_trans);
Datum
dpbayes_logistic_cols_trans(PG_FUNCTION_ARGS)
{
	return cols_trans(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_cols_trans);
Datum
dpbayes_poisson_cols_trans(PG_FUNCTION_ARGS)
{
	return cols_trans(fcinfo, DPB_MODEL_POISSON);
}

/*
 * The governed row policy (docs/governance.md §5; the aggregates
 * dpbayes._governed_<model>_release, which only dpbayes._compute uses): a
 * row whose response or any feature is NULL, NaN, infinite or beyond the
 * range of a double, or (poisson) a negative or fractional count, is skipped
 * as if it were not in the table (add/remove neighbours), never an error:
 * the outcome of a governed release must not depend on the data.  The state
 * is set up on the first row either way, so a group whose rows are all
 * skipped is released as an empty one.
 */
static Datum
cols_trans_governed(FunctionCallInfo fcinfo, dpb_model model)
{
	MemoryContext aggcxt;
	RelState   *s = dpb_rel_trans_state(fcinfo, model, ARG_P, &aggcxt);
	double	   *x;
	double		y = 0;
	int			d;
	bool		skip;

	x = dpb_rel_cols_features_governed(fcinfo, model == DPB_MODEL_LOGISTIC ? "logistic_release" :
									   model == DPB_MODEL_POISSON ? "poisson_release" : "linear_release",
									   &d, &skip);
	if (dpb_rel_d(s) == 0)
		dpb_rel_setup(s, aggcxt, d);
	else if (d != dpb_rel_d(s))
		dpb_rel_d_error(dpb_rel_d(s), d);
	if (skip || PG_ARGISNULL(ARG_Y))
		PG_RETURN_POINTER(s);
	if (model == DPB_MODEL_LOGISTIC)
		y = PG_GETARG_BOOL(ARG_Y) ? 1.0 : -1.0;
	else
	{
		y = PG_GETARG_FLOAT8(ARG_Y);
		if (isnan(y) || isinf(y))
			PG_RETURN_POINTER(s);
		if (model == DPB_MODEL_POISSON && (y < 0 || y != floor(y)))
			PG_RETURN_POINTER(s);
	}
	dpb_rel_add(s, x, y);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dpbayes_linear_cols_trans_governed);
Datum
dpbayes_linear_cols_trans_governed(PG_FUNCTION_ARGS)
{
	return cols_trans_governed(fcinfo, DPB_MODEL_LINEAR);
}

PG_FUNCTION_INFO_V1(dpbayes_logistic_cols_trans_governed);
Datum
dpbayes_logistic_cols_trans_governed(PG_FUNCTION_ARGS)
{
	return cols_trans_governed(fcinfo, DPB_MODEL_LOGISTIC);
}

PG_FUNCTION_INFO_V1(dpbayes_poisson_cols_trans_governed);
Datum
dpbayes_poisson_cols_trans_governed(PG_FUNCTION_ARGS)
{
	return cols_trans_governed(fcinfo, DPB_MODEL_POISSON);
}
