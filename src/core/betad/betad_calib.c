/*
 * betad_calib.c — epsilon <-> beta of betaD-Bayes (see betad_calib.h).
 */
#include "betad_calib.h"

#include <gsl/gsl_sf_lambert.h>
#include <math.h>

static int
positive_finite(double x)
{
	return x > 0 && dpb_isfinite(x);
}

double
dpb_betad_gauss_logm(double sigma2_floor, double y_scale)
{
	double		s2 = sigma2_floor / (y_scale * y_scale);

	return -0.5 * log(2.0 * M_PI * s2);
}

double
dpb_betad_epsilon(int gaussian, double beta, double sigma2_floor, double y_scale)
{
	double		b = beta - 1.0;

	if (!(b > 0) || !dpb_isfinite(beta))
		return NAN;
	if (!gaussian)
		return 2.0 / b;
	if (!positive_finite(sigma2_floor) || !positive_finite(y_scale))
		return NAN;
	return 2.0 * exp(b * dpb_betad_gauss_logm(sigma2_floor, y_scale)) / b;
}

double
dpb_betad_epsilon_min(double sigma2_floor, double y_scale)
{
	double		k;

	if (!positive_finite(sigma2_floor) || !positive_finite(y_scale))
		return NAN;
	k = dpb_betad_gauss_logm(sigma2_floor, y_scale);
	return k > 0 ? 2.0 * M_E * k : 0.0;
}

dpb_status
dpb_betad_beta(int gaussian, double epsilon, double sigma2_floor, double y_scale,
			   dpb_betad_root root, double *beta, dpb_err *err)
{
	double		k,
				b;

	if (!positive_finite(epsilon))
	{
		dpb_err_set(err, "epsilon must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (!gaussian)
	{
		*beta = 1.0 + 2.0 / epsilon;
		return DPB_OK;
	}
	if (!positive_finite(sigma2_floor) || !positive_finite(y_scale))
	{
		dpb_err_set(err, "sigma2_floor and y_scale must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	k = dpb_betad_gauss_logm(sigma2_floor, y_scale);
	if (fabs(k) < 1e-12)
		b = 2.0 / epsilon;		/* epsilon(b) = 2 / b at k = 0 */
	else if (k < 0)
		b = gsl_sf_lambert_W0(2.0 * (-k) / epsilon) / (-k);
	else
	{
		double		x = -2.0 * k / epsilon,
					emin = 2.0 * M_E * k;

		if (epsilon < emin)
		{
			/* the floor on the original scale that reaches epsilon:
			 * s^2 >= exp(-epsilon / e) / (2 pi) on the model's scale */
			dpb_err_set(err, "epsilon is below the smallest epsilon this variance floor allows",
						"With sigma2_floor %.6g and y_scale %.6g the Gaussian model's density is bounded by exp(%.6g), so one draw is at best %.6g-DP; epsilon %.6g needs sigma2_floor >= %.6g at this y_scale (or a smaller public y_scale).",
						sigma2_floor, y_scale, k, emin, epsilon,
						exp(-epsilon / M_E) / (2.0 * M_PI) * y_scale * y_scale);
			return DPB_ERANGE;
		}
		if (x < -1.0 / M_E)
			x = -1.0 / M_E;		/* epsilon = epsilon_min up to rounding */
		b = (root == DPB_BETAD_ROOT_LARGER ? gsl_sf_lambert_Wm1(x) : gsl_sf_lambert_W0(x)) / (-k);
	}
	if (!positive_finite(b))
	{
		dpb_err_set(err, "could not calibrate beta", NULL);
		return DPB_ENUMERIC;
	}
	*beta = 1.0 + b;
	return DPB_OK;
}
