/*
 * governance.c — the C helpers of governed releases (docs/governance.md):
 * the exact charge of a release computed from its public parameters alone
 * (no row is read), the accountant's composition, and the transaction-block
 * test of dpbayes.release.
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

TupleDesc
dpb_pg_result_desc(FunctionCallInfo fcinfo)
{
	TupleDesc	td;

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	return BlessTupleDesc(td);
}

/*
 * dpbayes.charge_of(model text, d int, p dpbayes.privacy): the mechanism of
 * a release of d features under p, calibrated exactly as the release
 * aggregate will calibrate it (dpb_release_calibrate): mechanism,
 * sensitivity, noise_scale, rho (zCDP), epsilon, delta, neighbours.
 */
PG_FUNCTION_INFO_V1(dpbayes_charge_of);
Datum
dpbayes_charge_of(PG_FUNCTION_ARGS)
{
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	char	   *mname;
	int			d;
	Datum		v[7];
	bool		nulls[7] = {0};
	TupleDesc	td = dpb_pg_result_desc(fcinfo);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model, d and the privacy parameters must not be null")));
	memset(&r, 0, sizeof(r));
	r.version = DPB_RELEASE_VERSION;
	mname = text_to_cstring(PG_GETARG_TEXT_PP(0));
	r.model = dpb_model_from_name(mname);
	if (r.model == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown model \"%s\"", dpb_pg_quote(mname, strlen(mname))),
				 errhint("Use \"linear\", \"logistic\" or \"poisson\".")));
	d = PG_GETARG_INT32(1);
	if (d < 1 || d > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of features must be between 1 and %d", DPB_MAX_D)));
	/* as the release aggregate will read them (the y_clamped default) */
	dpb_pg_params_for_release(PG_GETARG_DATUM(2), r.model, &r.p);
	if (r.p.d != 0 && r.p.d != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the privacy parameters are for %d features, not %d", r.p.d, d)));
	if ((st = dpb_params_check_model(&r.p, r.model, d, &err)) != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	/* refused here, before the governed procedure charges anything */
	dpb_pg_require_bounds(&r.p);
	if ((st = dpb_release_check_params(r.model, &r.p, d, &err)) != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	r.p.d = d;
	r.d = d;
	if ((st = dpb_release_calibrate(&r, &err)) != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	v[0] = CStringGetTextDatum(dpb_mechanism_name(r.p.mechanism));
	v[1] = Float8GetDatum(r.sensitivity);
	v[2] = Float8GetDatum(r.noise_scale);
	v[3] = Float8GetDatum(r.rho);
	v[4] = Float8GetDatum(r.p.epsilon);
	v[5] = Float8GetDatum(r.p.delta);
	v[6] = CStringGetTextDatum(dpb_neighbours_name(r.p.neighbours));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, v, nulls)));
}

/*
 * dpbayes.compose(rho, epsilon, delta, n, epsilon_budget, delta_budget):
 * the (epsilon, delta) spent by n charges with these sums, by the tighter
 * valid composition (ledger.h), the method, and whether it fits.
 */
PG_FUNCTION_INFO_V1(dpbayes_compose);
Datum
dpbayes_compose(PG_FUNCTION_ARGS)
{
	dpb_ledger_sum s;
	double		eb,
				db,
				e,
				d;
	dpb_comp_method m;
	int			fits;
	Datum		v[4];
	bool		nulls[4] = {0};
	TupleDesc	td = dpb_pg_result_desc(fcinfo);
	int			i;

	for (i = 0; i < 6; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the arguments of dpbayes.compose must not be null")));
	s.rho = PG_GETARG_FLOAT8(0);
	s.eps = PG_GETARG_FLOAT8(1);
	s.delta = PG_GETARG_FLOAT8(2);
	s.count = PG_GETARG_INT32(3);
	eb = PG_GETARG_FLOAT8(4);
	db = PG_GETARG_FLOAT8(5);
	if (!(s.rho >= 0 && isfinite(s.rho) && s.eps >= 0 && isfinite(s.eps) &&
		  s.delta >= 0 && isfinite(s.delta) && s.count >= 0 &&
		  eb > 0 && isfinite(eb) && db >= 0 && db < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid ledger sums or budget"),
				 errdetail("The sums must be finite and non-negative, epsilon_budget positive and finite, and 0 <= delta_budget < 1.")));
	dpb_ledger_spent(&s, eb, db, &e, &d, &m, &fits);
	v[0] = Float8GetDatum(e);
	v[1] = Float8GetDatum(d);
	v[2] = CStringGetTextDatum(dpb_comp_method_name(m));
	v[3] = BoolGetDatum(fits != 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, v, nulls)));
}

/* dpbayes._in_transaction_block(): inside BEGIN ... COMMIT (where a
 * procedure cannot commit). */
PG_FUNCTION_INFO_V1(dpbayes_in_transaction_block);
Datum
dpbayes_in_transaction_block(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(IsTransactionBlock());
}

/*
 * dpbayes._numeric_f8(x numeric): the double nearest x, or NULL when x is
 * NaN, infinite or beyond the range of a double.  The governed row policy
 * uses it instead of numeric::float8, whose error on overflow prints the
 * value.  Never raises: the digits go through numeric_out and strtod only.
 */
PG_FUNCTION_INFO_V1(dpbayes_numeric_f8);
Datum
dpbayes_numeric_f8(PG_FUNCTION_ARGS)
{
	Numeric		x = PG_GETARG_NUMERIC(0);
	char	   *s,
			   *end;
	double		v;
	int			e;

	if (numeric_is_nan(x))
		PG_RETURN_NULL();
#if PG_VERSION_NUM >= 140000
	if (numeric_is_inf(x))
		PG_RETURN_NULL();
#endif
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(x)));
	errno = 0;
	v = strtod(s, &end);
	e = errno;
	if (*end != '\0' || !isfinite(v) || (e == ERANGE && fabs(v) >= 1.0))
	{
		explicit_bzero(s, strlen(s));
		pfree(s);
		PG_RETURN_NULL();
	}
	explicit_bzero(s, strlen(s));
	pfree(s);
	PG_RETURN_FLOAT8(v);
}

/*
 * dpbayes._strong_random_key(): 63 random bits from pg_strong_random, as a
 * sort key for the privacy-unit sample of governed releases (its order
 * cannot be seeded or predicted by the session: setseed() does not reach
 * it).  Read 512 bytes at a time; each backend and parallel worker has its
 * own buffer, which is never shared and starts empty.
 */
#define SRK_BUF 512
static unsigned char srk_buf[SRK_BUF];
static int	srk_pos = SRK_BUF;

PG_FUNCTION_INFO_V1(dpbayes_strong_random_key);
Datum
dpbayes_strong_random_key(PG_FUNCTION_ARGS)
{
	uint64		v = 0;

	if (srk_pos + 8 > SRK_BUF)
	{
		if (!pg_strong_random(srk_buf, SRK_BUF))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random bits for the privacy-unit sample")));
		srk_pos = 0;
	}
	memcpy(&v, srk_buf + srk_pos, 8);
	explicit_bzero(srk_buf + srk_pos, 8);
	srk_pos += 8;
	PG_RETURN_INT64((int64) (v >> 1));
}
