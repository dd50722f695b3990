/*
 * params.c — validation of privacy parameters.
 */
#include "params.h"
#include "names.h"

#include <float.h>
#include <math.h>
#include <string.h>

void
dpb_params_default(dpb_params *p)
{
	memset(p, 0, sizeof(*p));
	p->epsilon = 1.0;
	p->delta = 1e-6;
	p->clip = 1.0;
	p->intercept = 1;
	p->mechanism = DPB_MECH_GAUSSIAN;
	p->scaling = DPB_SCALE_BOX;
	p->neighbours = DPB_NB_ADD_REMOVE;
}

double
dpb_params_default_y_clamped(const dpb_params *p, dpb_model model)
{
	if (model != DPB_MODEL_LINEAR ||
		(p->mechanism != DPB_MECH_GAUSSIAN && p->mechanism != DPB_MECH_LAPLACE) ||
		!(p->x_moments + DPB_Y_CLAMPED_DEFAULT < 1.0))
		return 0.0;
	return DPB_Y_CLAMPED_DEFAULT;
}

dpb_status
dpb_params_model_layout(const dpb_params *p, dpb_model model, int d,
						dpb_layout *L)
{
	dpb_status	st = dpb_layout_init(L, model, d, p->intercept);

	if (st == DPB_OK && p->neighbours == DPB_NB_ADD_REMOVE)
		st = dpb_layout_add_count(L);
	return st;
}

dpb_status
dpb_params_check(const dpb_params *p, dpb_err *err)
{
	int			j,
				k;

	if (!dpb_isfinite(p->epsilon) || p->epsilon <= 0)
	{
		dpb_err_set(err, "epsilon must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (p->mechanism != DPB_MECH_GAUSSIAN && p->mechanism != DPB_MECH_LAPLACE &&
		p->mechanism != DPB_MECH_NONE && p->mechanism != DPB_MECH_LDP_GAUSSIAN)
	{
		dpb_err_set(err, "unknown noise mechanism",
					"The mechanism must be \"gaussian\" or \"laplace\".");
		return DPB_EINVAL;
	}
	if (dpb_mech_gaussian(p->mechanism) &&
		(!dpb_isfinite(p->delta) || p->delta <= 0 || p->delta >= 1))
	{
		dpb_err_set(err, "delta must be in the open interval (0, 1) for the gaussian mechanism", NULL);
		return DPB_EINVAL;
	}
	if (p->mechanism == DPB_MECH_LAPLACE && p->delta != 0)
	{
		dpb_err_set(err, "delta must be 0 for the laplace mechanism",
					"The Laplace mechanism is pure epsilon-differentially private.");
		return DPB_EINVAL;
	}
	if (!dpb_isfinite(p->clip) || p->clip <= 0)
	{
		dpb_err_set(err, "clip must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (p->clip < DBL_MIN)
	{
		/* subnormal: the projection onto the ball could not keep ||z|| <= R
		 * through rounding */
		dpb_err_set(err, "clip must be positive and finite",
					"clip must be at least %.17g.", DBL_MIN);
		return DPB_EINVAL;
	}
	if (p->y_bound != 0 && (!dpb_isfinite(p->y_bound) || p->y_bound < 0))
	{
		dpb_err_set(err, "y_bound must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (p->scaling != DPB_SCALE_BOX && p->scaling != DPB_SCALE_BALL)
	{
		dpb_err_set(err, "unknown scaling",
					"The scaling must be \"box\" or \"ball\".");
		return DPB_EINVAL;
	}
	if (p->neighbours != DPB_NB_ADD_REMOVE && p->neighbours != DPB_NB_REPLACE)
	{
		dpb_err_set(err, "unknown neighbouring relation",
					"The neighbours must be \"add_remove\" or \"replace\".");
		return DPB_EINVAL;
	}
	if (p->d < 0 || p->d > DPB_MAX_D)
	{
		dpb_err_set(err, "too many features", "At most %d features are supported.",
					DPB_MAX_D);
		return DPB_ERANGE;
	}
	if ((p->has_bounds || p->has_names) && p->d == 0)
	{
		dpb_err_set(err, "feature bounds and names need the number of features",
					"The parameters have bounds or names but d = 0.");
		return DPB_EINVAL;
	}
	if (dpb_names_check(p, err) != DPB_OK)	/* the one rule, names.h */
		return DPB_EINVAL;
	if (p->has_bounds)
		for (j = 0; j < p->d; j++)
		{
			if (!dpb_isfinite(p->lower[j]) || !dpb_isfinite(p->upper[j]))
			{
				dpb_err_set(err, "feature bounds must be finite", NULL);
				return DPB_EINVAL;
			}
			if (!(p->lower[j] < p->upper[j]))
			{
				dpb_err_set(err, "lower bound must be below upper bound",
							"Feature %d has lower >= upper.", j + 1);
				return DPB_EINVAL;
			}
		}
	if (p->nweights < 0 || p->nweights > DPB_MAX_MODEL_BLOCKS)
	{
		dpb_err_set(err, "too many noise weights", NULL);
		return DPB_EINVAL;
	}
	for (k = 0; k < p->nweights; k++)
		if (!dpb_isfinite(p->noise_weights[k]) || p->noise_weights[k] <= 0)
		{
			dpb_err_set(err, "noise weights must be positive and finite", NULL);
			return DPB_EINVAL;
		}
	if (!dpb_isfinite(p->x_moments) || p->x_moments < 0 || p->x_moments >= 1)
	{
		dpb_err_set(err, "x_moments must be in [0, 1)",
					"It is the share of the privacy budget spent on the moments of the features; 0 releases none.");
		return DPB_EINVAL;
	}
	if (!dpb_isfinite(p->y_clamped) || p->y_clamped < 0 || p->y_clamped >= 1)
	{
		dpb_err_set(err, "y_clamped must be in [0, 1)",
					"It is the share of the privacy budget spent on the number of records whose response was clamped; 0 releases none.");
		return DPB_EINVAL;
	}
	if (!(p->x_moments + p->y_clamped < 1))
	{
		dpb_err_set(err, "x_moments and y_clamped must add up to less than 1",
					"They are shares of the privacy budget; the model's statistics take the rest.");
		return DPB_EINVAL;
	}
	return DPB_OK;
}

dpb_status
dpb_params_check_model(const dpb_params *p, dpb_model model, int d,
					   dpb_err *err)
{
	dpb_status	st;
	dpb_layout	L;

	if ((st = dpb_params_check(p, err)) != DPB_OK)
		return st;
	if (d < 1 || d > DPB_MAX_D)
	{
		dpb_err_set(err, "number of features out of range",
					"A release needs between 1 and %d features; got %d.",
					DPB_MAX_D, d);
		return DPB_ERANGE;
	}
	if (p->d != 0 && p->d != d)
	{
		dpb_err_set(err, "feature array length does not match the privacy parameters",
					"The privacy parameters describe %d features; the row has %d.",
					p->d, d);
		return DPB_EDATA;
	}
	if (model == DPB_MODEL_LOGISTIC)
	{
		if (p->y_bound != 0 && p->y_bound != 1)
		{
			dpb_err_set(err, "y_bound does not apply to logistic regression",
						"The response of logistic regression is boolean.");
			return DPB_EINVAL;
		}
	}
	else if (p->y_bound == 0)
	{
		dpb_err_set(err, "y_bound is required for this model",
					"%s regression needs a public bound on the response.",
					model == DPB_MODEL_LINEAR ? "Linear" : "Poisson");
		return DPB_EINVAL;
	}
	if (p->mechanism == DPB_MECH_LAPLACE && model != DPB_MODEL_LINEAR)
	{
		dpb_err_set(err, "the laplace mechanism is only available for linear regression", NULL);
		return DPB_EINVAL;
	}
	if (p->x_moments > 0 && model != DPB_MODEL_LINEAR)
	{
		dpb_err_set(err, "x_moments is only available for linear regression",
					"The moments of the features are used by the linear model's \"noisy\" moments option.");
		return DPB_EINVAL;
	}
	if (p->y_clamped > 0 && model != DPB_MODEL_LINEAR)
	{
		dpb_err_set(err, "y_clamped is only available for linear regression",
					"Only the linear model clamps its response to [-y_bound, y_bound].");
		return DPB_EINVAL;
	}
	if (p->x_moments > 0 && d > DPB_MAX_D_XMOM)
	{
		dpb_err_set(err, "too many features for x_moments",
					"Releasing the moments of the features supports at most %d features; got %d.",
					DPB_MAX_D_XMOM, d);
		return DPB_ERANGE;
	}
	if (dpb_params_model_layout(p, model, d, &L) != DPB_OK)
	{
		dpb_err_set(err, "invalid model", NULL);
		return DPB_EINVAL;
	}
	if (p->nweights != 0 && p->nweights != L.nblocks)
	{
		if (L.add_remove)
			dpb_err_set(err, "wrong number of noise weights",
						"The %s release under add_remove neighbours has %d statistic blocks, the last of them the count; %d weights were given.",
						dpb_model_name(model), L.nblocks, p->nweights);
		else
			dpb_err_set(err, "wrong number of noise weights",
						"The %s release has %d statistic blocks; %d weights were given.",
						dpb_model_name(model), L.nblocks, p->nweights);
		return DPB_EINVAL;
	}
	return DPB_OK;
}
