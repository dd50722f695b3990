/*
 * agm.c — the analytic Gaussian mechanism (Balle & Wang 2018, Algorithm 1).
 *
 * With v = sigma / sens, a = 1/(2v) - eps v and b = 1/(2v) + eps v, the
 * privacy loss profile of the Gaussian mechanism is
 *
 *     delta(v) = Phi(a) - e^eps Phi(-b),
 *
 * a decreasing function of v, from 1 (v -> 0) to 0 (v -> infinity).  We
 * return the smallest sigma with delta <= the target (docs/privacy.md §9).
 *
 * e^eps overflows for eps > 709, so the second term is computed without
 * it: b^2 - a^2 = 2 eps, hence e^eps phi(b) = phi(a) and
 *
 *     e^eps Phi(-b) = e^eps phi(b) / h(b) = phi(a) / h(b),
 *
 * where h(x) = phi(x) / Phi(-x) is the hazard function (inverse Mills
 * ratio, gsl_sf_hazard).  Both terms are then plain tail probabilities of
 * size at most Phi(a), with no overflow for any eps.
 *
 * The root is bracketed by doubling/halving and refined by bisection on
 * an upper bound of delta(sigma) (the value plus GSL's error estimates), so
 * the invariant "delta(hi) <= target" holds for the returned value; a
 * final relative margin of 1e-12 covers the rounding of a and b.
 */
#include "agm.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_erf.h>

#define AGM_MARGIN 1e-12
/* below this delta, Phi(a) would underflow before reaching the target */
#define AGM_MIN_DELTA 1e-300

/*
 * delta(sigma); when errp is not NULL, *errp receives a bound on the
 * absolute error of the value (GSL's estimates plus a few ulps).
 */
static double
agm_delta_err(double eps, double sens, double sigma, double *errp)
{
	double		v = sigma / sens;
	double		a = 0.5 / v - eps * v;
	double		b = 0.5 / v + eps * v;
	gsl_sf_result t1,
				hz;
	double		phia,
				t2,
				err;

	/* Phi(a) = erfc(-a / sqrt2) / 2 */
	if (gsl_sf_erfc_e(-a * M_SQRT1_2, &t1) != GSL_SUCCESS)
	{
		/* underflow: Phi(a) is below the smallest double */
		t1.val = 0.0;
		t1.err = 0.0;
	}
	t1.val *= 0.5;
	t1.err *= 0.5;

	/* phi(a) / h(b): exp(-a^2/2) has relative error ~ (a^2/2) ulp */
	phia = exp(-0.5 * a * a) / sqrt(2.0 * M_PI);
	if (gsl_sf_hazard_e(b, &hz) != GSL_SUCCESS || !(hz.val > 0.0))
	{
		/* b >= 0 always; h(b) >= h(0) > 0.79, so this cannot happen
		 * except for NaN input */
		if (errp)
			*errp = INFINITY;
		return NAN;
	}
	t2 = phia / hz.val;

	if (errp)
	{
		err = t1.err
			+ t2 * (hz.err / hz.val + (0.5 * a * a + 8.0) * 2.3e-16)
			+ 4.0 * 2.3e-16 * (t1.val + t2);
		*errp = err;
	}
	return t1.val - t2;
}

double
dpb_agm_delta(double epsilon, double sens, double sigma)
{
	return agm_delta_err(epsilon, sens, sigma, NULL);
}

/* Upper bound of delta(sigma); +inf when it cannot be computed. */
static double
delta_upper(double eps, double sens, double sigma)
{
	double		err;
	double		d = agm_delta_err(eps, sens, sigma, &err);

	if (!(d == d) || !(err == err))
		return INFINITY;
	return d + err;
}

dpb_status
dpb_agm_sigma(double epsilon, double delta, double sens,
			  double *sigma, dpb_err *err)
{
	double		lo,
				hi;
	int			it;

	*sigma = NAN;
	if (!dpb_isfinite(epsilon) || epsilon <= 0.0)
	{
		dpb_err_set(err, "epsilon must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (!(delta > 0.0 && delta < 1.0))
	{
		dpb_err_set(err, "delta must be between 0 and 1 (exclusive)", NULL);
		return DPB_EINVAL;
	}
	if (delta < AGM_MIN_DELTA)
	{
		dpb_err_set(err, "delta is too small",
					"delta must be at least 1e-300");
		return DPB_EINVAL;
	}
	if (!dpb_isfinite(sens) || sens <= 0.0)
	{
		dpb_err_set(err, "sensitivity must be positive and finite", NULL);
		return DPB_EINVAL;
	}

	/* bracket: delta_upper(lo) > delta >= delta_upper(hi) */
	lo = hi = sens;
	if (delta_upper(epsilon, sens, hi) > delta)
	{
		for (it = 0; it < 2100 && delta_upper(epsilon, sens, hi) > delta; it++)
		{
			lo = hi;
			hi *= 2.0;
		}
	}
	else
	{
		for (it = 0; it < 2100 && delta_upper(epsilon, sens, lo) <= delta; it++)
		{
			hi = lo;
			lo *= 0.5;
		}
	}
	if (!(delta_upper(epsilon, sens, hi) <= delta) || !(lo > 0.0) ||
		!dpb_isfinite(hi))
	{
		dpb_err_set(err, "could not calibrate the Gaussian noise",
					"no noise scale reaches the requested delta");
		return DPB_ENUMERIC;
	}

	/* bisection; the invariant delta_upper(hi) <= delta is kept */
	for (it = 0; it < 200 && hi - lo > 4e-16 * hi; it++)
	{
		double		mid = lo + 0.5 * (hi - lo);

		if (mid <= lo || mid >= hi)
			break;
		if (delta_upper(epsilon, sens, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}

	hi *= 1.0 + AGM_MARGIN;
	/* never below the root: step up until the inequality holds */
	for (it = 0; it < 64 && !(delta_upper(epsilon, sens, hi) <= delta); it++)
		hi *= 1.0 + 1e-12;
	if (!(delta_upper(epsilon, sens, hi) <= delta) || !dpb_isfinite(hi))
	{
		dpb_err_set(err, "could not calibrate the Gaussian noise", NULL);
		return DPB_ENUMERIC;
	}
	*sigma = hi;
	return DPB_OK;
}
