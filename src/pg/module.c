/*
 * module.c — module initialisation, settings and the noise source.
 */
#include "dpbayes_pg.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "compat.h"

#include <cblas.h>
#include <limits.h>
#include <gsl/gsl_errno.h>

#include "dnoise.h"

PG_MODULE_MAGIC;

void		_PG_init(void);
void		dpb_pg_ldp_define_gucs(void);	/* ldp_sim.c */

/* -1: off (secure noise).  Otherwise the seed of the INSECURE deterministic
 * stream used by the regression tests. */
int			dpbayes_insecure_noise_seed = -1;

/* the INSECURE deterministic stream (malloc'ed), while the setting is on */
static dpb_rbits *test_rb = NULL;

static void
assign_seed(int newval, void *extra)
{
	/* restart the deterministic stream whenever the setting changes (an
	 * assign hook must not fail: a failed allocation is reported when the
	 * stream is used) */
	if (test_rb != NULL)
		dpb_rbits_free(test_rb);
	test_rb = newval >= 0 ? dpb_rbits_new_insecure_seeded((uint64_t) newval) : NULL;
}

bool		dpbayes_betad_buffer_unbounded = false;

void
_PG_init(void)
{
	/* GSL must return error codes, never abort the backend */
	gsl_set_error_handler_off();
	/* one BLAS thread inside a backend */
	openblas_set_num_threads(1);

	DefineCustomIntVariable("dpbayes.insecure_noise_seed",
							"INSECURE: seeds the release noise for reproducible tests.",
							"-1 (the default) draws release noise from pg_strong_random. "
							"Any other value makes releases deterministic and NOT private; "
							"such releases are marked insecure.",
							&dpbayes_insecure_noise_seed,
							-1, -1, INT_MAX,
							PGC_SUSET, 0,
							NULL, assign_seed, NULL);
	DefineCustomBoolVariable("dpbayes.betad_buffer_unbounded",
							 "Lifts the work_mem cap of a betaD aggregate's row buffer.",
							 "Off (the default): a betaD aggregate holds at most work_mem of a group's rows "
							 "and fails past it. dpbayes._compute (governed releases) sets it on, so that "
							 "no governed release fails by the size of a group under a work_mem the analyst "
							 "chose: the status of a release would then depend on the data (docs/governance.md).",
							 &dpbayes_betad_buffer_unbounded,
							 false,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	dpb_pg_ldp_define_gucs();
	dpb_pg_progress_define_gucs();
	MarkGUCPrefixReserved("dpbayes");
}

static int
strong_bytes(void *ctx, void *buf, size_t len)
{
	(void) ctx;
	return pg_strong_random(buf, len) ? 1 : 0;
}

dpb_rbits *
dpb_pg_noise_bits(bool *insecure)
{
	dpb_rbits  *r;

	if (dpbayes_insecure_noise_seed >= 0)
	{
		*insecure = true;
		if (test_rb == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
		return test_rb;
	}
	*insecure = false;
	r = dpb_rbits_new(strong_bytes, NULL);
	if (r == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	return r;
}

void
dpb_pg_noise_bits_done(dpb_rbits *r)
{
	if (r != NULL && r != test_rb)
		dpb_rbits_free(r);
}

void
dpb_pg_raise(dpb_status st, const dpb_err *err, int corrupt_code)
{
	int			code;
	const char *msg = (err && err->msg[0]) ? err->msg : "dpbayes failure";
	const char *detail = (err && err->detail[0]) ? err->detail : NULL;

	switch (st)
	{
		case DPB_EINVAL:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case DPB_EDATA:
			code = ERRCODE_DATA_EXCEPTION;
			break;
		case DPB_ERANGE:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case DPB_ECORRUPT:
			code = corrupt_code;
			break;
		case DPB_ENOMEM:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case DPB_ENUMERIC:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		case DPB_EINTR:
			/* a progress NOTICE that failed stopped the run */
			dpb_pg_progress_rethrow();
			CHECK_FOR_INTERRUPTS();
			code = ERRCODE_QUERY_CANCELED;
			break;
		case DPB_ERNG:
			code = ERRCODE_SYSTEM_ERROR;
			break;
		default:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%s", msg),
			 detail ? errdetail_internal("%s", detail) : 0));
	pg_unreachable();
}
