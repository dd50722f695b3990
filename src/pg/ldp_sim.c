/*
 * ldp_sim.c — dpbayes_sim: randomizing raw records INSIDE the database, for
 * simulations and tests only (docs/ldp.md "Simulation").  The database then
 * sees the raw values, so this is NOT local differential privacy.  Every
 * function refuses to run (42501) unless the superuser-only setting
 * dpbayes.allow_simulation is on.  The randomness is the server's CSPRNG,
 * or the INSECURE deterministic stream of dpbayes.insecure_noise_seed, in
 * which case the reports' protocol id is stamped "insecure_test:".
 */
#include "ldp_pg.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"

bool		dpbayes_allow_simulation = false;

void		dpb_pg_ldp_define_gucs(void);

void
dpb_pg_ldp_define_gucs(void)
{
	DefineCustomBoolVariable("dpbayes.allow_simulation",
							 "NOT LOCAL DP: allows dpbayes_sim to randomize raw records in the database.",
							 "Off by default. Only a superuser can turn it on; the functions of the "
							 "dpbayes_sim schema then see raw values, which local DP exists to avoid.",
							 &dpbayes_allow_simulation,
							 false,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
}

static void
require_simulation(void)
{
	if (!dpbayes_allow_simulation)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("simulation of local-DP reports in the database is disabled"),
				 errdetail("dpbayes_sim randomizes raw records inside the database, which is not local differential privacy."),
				 errhint("A superuser can SET dpbayes.allow_simulation = on for simulations and tests.")));
}

/* dpbayes_sim.randomize_raw_record_not_ldp(protocol jsonb, record float8[])
 * -> float8[]: one report of the record (the client's randomizer) */
static Datum
sim_randomize(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp;
	ArrayType  *a;
	Datum	   *el,
			   *out;
	bool	   *nulls;
	int			n,
				k;
	double	   *in,
			   *z;
	dpb_rbits  *rb;
	bool		insecure;
	dpb_err		err;
	dpb_status	st;

	require_simulation();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol and the record must not be null")));
	lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	a = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the record must be a one-dimensional array")));
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &el, &nulls, &n);
	if (n != dpb_ldp_input_len(&lp->p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the record must have %d values for this protocol",
						dpb_ldp_input_len(&lp->p))));
	in = palloc(sizeof(double) * (n + 1));
	for (k = 0; k < n; k++)
	{
		if (nulls[k])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the record must not contain NULL values")));
		in[k] = DatumGetFloat8(el[k]);
	}
	z = palloc(sizeof(double) * lp->n);
	rb = dpb_pg_noise_bits(&insecure);
	memset(&err, 0, sizeof(err));
	st = dpb_ldp_randomize(&lp->p, &lp->c, in, rb, z, &err);
	dpb_pg_noise_bits_done(rb);
	memset(in, 0, sizeof(double) * n);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	out = palloc(sizeof(Datum) * lp->n);
	for (k = 0; k < lp->n; k++)
		out[k] = Float8GetDatum(z[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(out, lp->n, FLOAT8OID, 8, FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}

/* dpbayes_sim.report_protocol_id(protocol jsonb) -> text: the id that
 * simulated reports carry ("insecure_test:<id>" under the test seed) */
static Datum
sim_report_id(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp;

	require_simulation();
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol must not be null")));
	lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%s%s", dpbayes_insecure_noise_seed >= 0 ?
											  "insecure_test:" : "", lp->p.id)));
}

/* the 0.1.0 SQL functions take the protocol as jsonb, 0.2.0's as text */
PG_FUNCTION_INFO_V1(dpbayes_sim_randomize);
Datum
dpbayes_sim_randomize(PG_FUNCTION_ARGS)
{
	return sim_randomize(fcinfo, LDP_ARG_JSONB);
}

PG_FUNCTION_INFO_V1(dpbayes_sim_randomize_t);
Datum
dpbayes_sim_randomize_t(PG_FUNCTION_ARGS)
{
	return sim_randomize(fcinfo, LDP_ARG_TEXT);
}

PG_FUNCTION_INFO_V1(dpbayes_sim_report_id);
Datum
dpbayes_sim_report_id(PG_FUNCTION_ARGS)
{
	return sim_report_id(fcinfo, LDP_ARG_JSONB);
}

PG_FUNCTION_INFO_V1(dpbayes_sim_report_id_t);
Datum
dpbayes_sim_report_id_t(PG_FUNCTION_ARGS)
{
	return sim_report_id(fcinfo, LDP_ARG_TEXT);
}
