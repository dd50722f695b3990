/*
 * posterior.c — dpbayes.posterior() and dpbayes.posterior_summary():
 * posterior draws on a release, in materialize mode.
 *
 * The core sampler runs with malloc'd memory and polls for query cancel
 * through a callback that only reads the pending-interrupt flags (it never
 * longjmps out of core code); once the core has returned and freed its
 * memory, CHECK_FOR_INTERRUPTS() raises the cancel error.
 */
#include "dpbayes_pg.h"

#include "compat.h"

#include "miscadmin.h"
#include "utils/builtins.h"

#include "diag.h"

#include <stdlib.h>

static int
pg_interrupt(void)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

/* Arguments: r, draws, chains, warmup, seed, method, options. */
static void
run_sampler(FunctionCallInfo fcinfo, dpb_release *r, dpb_draws *dr,
			dpb_infer_opts *o)
{
	char	   *method;
	dpb_err		err;
	dpb_status	st;
	int			i;

	for (i = 0; i < 7; i++)
		if (PG_ARGISNULL(i) && i != 4)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only the seed may be null")));
	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), r);
	dpb_infer_opts_default(o, r);
	o->draws = PG_GETARG_INT32(1);
	o->chains = PG_GETARG_INT32(2);
	o->warmup = PG_GETARG_INT32(3);
	if (o->draws < 1 || o->draws > DPB_MAX_DRAWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("draws must be between 1 and %d", DPB_MAX_DRAWS)));
	if (o->chains < 1 || o->chains > DPB_MAX_CHAINS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chains must be between 1 and %d", DPB_MAX_CHAINS)));
	if (o->warmup < 1 || o->warmup > DPB_MAX_WARMUP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("warmup must be between 1 and %d", DPB_MAX_WARMUP)));
	method = text_to_cstring(PG_GETARG_TEXT_PP(5));
	if (strcmp(method, "noise_aware") == 0)
		o->method = DPB_METHOD_NOISE_AWARE;
	else if (strcmp(method, "naive") == 0)
		o->method = DPB_METHOD_NAIVE;
	else if (strcmp(method, "nonprivate") == 0)
		o->method = DPB_METHOD_NONPRIVATE;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown method \"%s\"", method),
				 errhint("Use \"noise_aware\", \"naive\" or \"nonprivate\".")));
	/* a non-private release is always analysed exactly */
	if (r->p.mechanism == DPB_MECH_NONE && o->method == DPB_METHOD_NOISE_AWARE)
		o->method = DPB_METHOD_NONPRIVATE;
	dpb_pg_parse_infer_opts(PG_GETARG_JSONB_P(6), r, o);
	o->interrupt = pg_interrupt;
	/* the seed last: no NOTICE when an argument is invalid */
	if (PG_ARGISNULL(4))
	{
		uint64		s;

		if (!pg_strong_random(&s, sizeof(s)))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not generate a random seed")));
		o->seed = s & INT64CONST(0x7fffffffffffffff);
		ereport(NOTICE,
				(errmsg("posterior seed: " INT64_FORMAT, (int64) o->seed),
				 errhint("Pass seed => " INT64_FORMAT " to reproduce these draws.",
						 (int64) o->seed)));
	}
	else
		o->seed = (uint64) PG_GETARG_INT64(4);


	st = dpb_posterior_run(r, o, dr, &err);
	if (st == DPB_EINTR)
		CHECK_FOR_INTERRUPTS();
	if (st == DPB_ENOTSUP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s", err.msg),
				 err.detail[0] ? errdetail("%s", err.detail) : 0));
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_DATA_CORRUPTED);
	if (dr->rejected > 0)
		ereport(NOTICE,
				(errmsg("%ld sampler updates were rejected (a matrix was not positive definite)",
						dr->rejected)));
}

PG_FUNCTION_INFO_V1(dpbayes_posterior);
Datum
dpbayes_posterior(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_sampler(fcinfo, &r, &dr, &o);
	PG_TRY();
	{
		int			c,
					i,
					k;
		Datum	   *names = palloc(sizeof(Datum) * dr.nvars);

		for (k = 0; k < dr.nvars; k++)
			names[k] = CStringGetTextDatum(dr.names[k]);
		for (c = 0; c < dr.chains; c++)
			for (i = 0; i < dr.iters; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (k = 0; k < dr.nvars; k++)
				{
					Datum		v[5];
					bool		n[5] = {false, false, false, false, false};

					v[0] = Int32GetDatum(c + 1);
					v[1] = Int32GetDatum(i + 1);
					v[2] = Int32GetDatum(c * dr.iters + i + 1);
					v[3] = names[k];
					v[4] = Float8GetDatum(dr.v[((size_t) c * dr.iters + i) * dr.nvars + k]);
					tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
				}
			}
	}
	PG_FINALLY();
	{
		dpb_draws_free(&dr);
	}
	PG_END_TRY();
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_posterior_summary);
Datum
dpbayes_posterior_summary(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_sampler(fcinfo, &r, &dr, &o);
	PG_TRY();
	{
		double	   *x = palloc(sizeof(double) * (size_t) dr.chains * dr.iters);
		int			c,
					i,
					k;

		for (k = 0; k < dr.nvars; k++)
		{
			dpb_summary s;
			Datum		v[12];
			bool		n[12];

			CHECK_FOR_INTERRUPTS();
			for (c = 0; c < dr.chains; c++)
				for (i = 0; i < dr.iters; i++)
					x[(size_t) c * dr.iters + i] =
						dr.v[((size_t) c * dr.iters + i) * dr.nvars + k];
			if (dpb_summarize(x, dr.chains, dr.iters, &s) != DPB_OK)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory")));
			v[0] = CStringGetTextDatum(dr.names[k]);
			v[1] = Float8GetDatum(s.mean);
			v[2] = Float8GetDatum(s.median);
			v[3] = Float8GetDatum(s.sd);
			v[4] = Float8GetDatum(s.mad);
			v[5] = Float8GetDatum(s.q5);
			v[6] = Float8GetDatum(s.q95);
			v[7] = Float8GetDatum(s.rhat);
			v[8] = Float8GetDatum(s.ess_bulk);
			v[9] = Float8GetDatum(s.ess_tail);
			v[10] = Float8GetDatum(s.prob_positive);
			v[11] = Int64GetDatum((int64) dr.divergences);
			for (i = 0; i < 12; i++)
				n[i] = false;
			/* NaN diagnostics (too few draws, constant draws) become NULL */
			for (i = 7; i <= 9; i++)
				if (isnan(DatumGetFloat8(v[i])))
					n[i] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
		}
	}
	PG_FINALLY();
	{
		dpb_draws_free(&dr);
	}
	PG_END_TRY();
	return (Datum) 0;
}
