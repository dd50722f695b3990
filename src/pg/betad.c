/*
 * betad.c — SQL helpers of the betaD-Bayes calibration (issue 10, first
 * part): epsilon <-> beta and epsilon_min, for the docs, for planning a
 * release, and for tests (src/core/betad/betad_calib.h, docs/betad.md).
 */
#include "dpbayes_pg.h"

#include "utils/builtins.h"

#include "betad/betad_calib.h"

/* the model argument: 'logistic' or 'linear' (Gaussian regression) */
static int
betad_gaussian(FunctionCallInfo fcinfo, int arg)
{
	char	   *m;

	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be null"),
				 errhint("Use 'logistic' or 'linear'.")));
	m = text_to_cstring(PG_GETARG_TEXT_PP(arg));
	if (strcmp(m, "logistic") == 0)
		return 0;
	if (strcmp(m, "linear") == 0)
		return 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown betaD model"),
			 errdetail("betaD-Bayes supports the models \"logistic\" and \"linear\" (Gaussian regression)."),
			 errhint("Use 'logistic' or 'linear'.")));
	return 0;
}

/* sigma2_floor and y_scale of the Gaussian model (floor required) */
static void
betad_floor(FunctionCallInfo fcinfo, int gaussian, int farg, int sarg,
			double *floor_, double *scale)
{
	*floor_ = PG_ARGISNULL(farg) ? NAN : PG_GETARG_FLOAT8(farg);
	*scale = PG_ARGISNULL(sarg) ? 1.0 : PG_GETARG_FLOAT8(sarg);
	if (gaussian && PG_ARGISNULL(farg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the linear model needs sigma2_floor"),
				 errdetail("The privacy of a Gaussian model rests on a public lower bound on the residual variance."),
				 errhint("Pass sigma2_floor => a public floor on the residual variance, in the units of y.")));
	if (!gaussian && !PG_ARGISNULL(farg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma2_floor applies only to the linear model")));
	if (gaussian && !(*floor_ > 0 && isfinite(*floor_) && *scale > 0 && isfinite(*scale)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma2_floor and y_scale must be positive and finite")));
}

PG_FUNCTION_INFO_V1(dpbayes_betad_beta);
Datum
dpbayes_betad_beta(PG_FUNCTION_ARGS)
{
	int			gaussian = betad_gaussian(fcinfo, 1);
	double		eps,
				fl,
				sc,
				beta;
	dpb_betad_root root = DPB_BETAD_ROOT_SMALLER;
	dpb_err		err;
	dpb_status	st;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be null")));
	eps = PG_GETARG_FLOAT8(0);
	betad_floor(fcinfo, gaussian, 2, 3, &fl, &sc);
	if (!PG_ARGISNULL(4))
	{
		char	   *r = text_to_cstring(PG_GETARG_TEXT_PP(4));

		if (strcmp(r, "larger") == 0)
			root = DPB_BETAD_ROOT_LARGER;
		else if (strcmp(r, "smaller") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("root must be \"smaller\" or \"larger\"")));
	}
	st = dpb_betad_beta(gaussian, eps, fl, sc, root, &beta, &err);
	if (st == DPB_ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err.msg),
				 errdetail("%s", err.detail),
				 errhint("Use a larger epsilon, a larger public sigma2_floor, or a smaller public y_scale (the model is fitted to y / y_scale).")));
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_FLOAT8(beta);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_epsilon);
Datum
dpbayes_betad_epsilon(PG_FUNCTION_ARGS)
{
	int			gaussian = betad_gaussian(fcinfo, 1);
	double		beta,
				fl,
				sc,
				eps;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("beta must not be null")));
	beta = PG_GETARG_FLOAT8(0);
	betad_floor(fcinfo, gaussian, 2, 3, &fl, &sc);
	if (!(beta > 1 && isfinite(beta)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("beta must be greater than 1 and finite")));
	eps = dpb_betad_epsilon(gaussian, beta, fl, sc);
	if (!isfinite(eps))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("epsilon is not representable for this beta")));
	PG_RETURN_FLOAT8(eps);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_epsilon_min);
Datum
dpbayes_betad_epsilon_min(PG_FUNCTION_ARGS)
{
	double		fl,
				sc;

	betad_floor(fcinfo, 1, 0, 1, &fl, &sc);
	PG_RETURN_FLOAT8(dpb_betad_epsilon_min(fl, sc));
}
