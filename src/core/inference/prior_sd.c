/*
 * prior_sd.c — the prior standard deviation of a posterior's reported
 * variables, in closed form, for the prior-dominance columns of the summary
 * (prior_sd, sd_ratio) and the "the data barely moved" NOTICE
 * (docs/posterior.md, "How much did the data move the prior?").
 *
 * These formulas restate the priors of the samplers (linear: the NIG prior
 * of linear_model.c and gibbs_linear.c; logistic/Poisson: dpb_theta_log_prior
 * and the mu, tau priors of glm_model.c; an unknown N: the uniform prior of
 * dpb_n_log_density).  A change of a prior's family there must change the
 * matching case here; regression test 32_prior_sensitivity checks that a
 * posterior the data cannot move has a posterior sd close to this prior sd.
 *
 * Linear regression, scaled units, the weak prior of the NUTS sampler (the
 * default since issue 26; dpb_lin_weak_prior_used): theta_j ~ N(m_j,
 * theta_sd_j^2) (theta_0: intercept_sd), sigma^2 ~ Exponential(mean s), so
 * Var sigma = s - (E sigma)^2 = s (1 - pi / 4).  The NIG prior (options
 * prior "nig", Gibbs-SS, the naive and non-private methods): theta_j |
 * sigma^2 ~ N(m_j, sigma^2 /
 * lambda_j), sigma^2 ~ InvGamma(a, b), so Var theta_j = E[sigma^2] / lambda_j
 * = b / ((a - 1) lambda_j) for a > 1 (infinite otherwise), and the
 * coefficients are uncorrelated a priori (fixed prior means).  sigma:
 * E sigma = sqrt(b) Gamma(a - 1/2) / Gamma(a), Var sigma = b / (a - 1) -
 * (E sigma)^2.  GLM: theta_j ~ N(0, s_j^2), or N(0, I) truncated to ||theta||
 * <= B (p coordinates), whose coordinates are uncorrelated with variance
 * P(chi2_{p+2} <= B^2) / P(chi2_p <= B^2); mu_j ~ N(x_mean_j, mu_scale^2),
 * tau_j ~ half-normal(tau_scale) with sd tau_scale sqrt(1 - 2 / pi).  N
 * unknown: uniform on (n_lo, n_hi), sd (n_hi - n_lo) / sqrt 12, infinite for
 * the default flat prior.
 *
 * The reported coefficients are in the user's units (dpb_record_draw):
 * slope_j = gain_j theta_j, intercept = theta_0 - sum_j gain_j center_j
 * theta_j; with uncorrelated coordinates their variances follow.
 */
#include "posterior.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sd of sigma when sigma^2 ~ InvGamma(a, b); +inf when a <= 1 */
static double
invgamma_sqrt_sd(double a, double b)
{
	double		m;

	if (!(a > 1))
		return INFINITY;
	m = sqrt(b) * exp(lgamma(a - 0.5) - lgamma(a));
	return sqrt(fmax(0, b / (a - 1) - m * m));
}

/*
 * Variance of the scaled coefficients theta_0 .. theta_{p-1}; returns 0 when
 * they are all finite, else sets the infinite ones to +inf.
 */
static void
theta_var(const dpb_release *r, const dpb_infer_opts *o, int p, double *v)
{
	int			j;

	if (r->model == DPB_MODEL_LINEAR && dpb_lin_weak_prior_used(r, o))
	{
		for (j = 0; j < p; j++)
		{
			double		s = r->p.intercept && j == 0 ? o->lin.intercept_sd : o->lin.theta_sd[j];

			v[j] = s * s;
		}
		return;
	}
	if (r->model == DPB_MODEL_LINEAR)
	{
		double		a = o->lin.sigma2_shape,
					es2 = a > 1 ? o->lin.sigma2_scale / (a - 1) : INFINITY;

		for (j = 0; j < p; j++)
			v[j] = es2 / o->lin.theta_precision[j];
		return;
	}
	if (o->glm.theta_norm_bound > 0)
	{
		double		B2 = o->glm.theta_norm_bound * o->glm.theta_norm_bound,
					den = gsl_cdf_chisq_P(B2, p),
					num = gsl_cdf_chisq_P(B2, p + 2),
					w = den > 0 ? num / den : NAN;

		for (j = 0; j < p; j++)
			v[j] = w;
		return;
	}
	for (j = 0; j < p; j++)
		v[j] = o->glm.theta_scale[j] * o->glm.theta_scale[j];
}

void
dpb_prior_sd(const dpb_release *r, const dpb_infer_opts *o, const dpb_draws *dr,
			 double *out)
{
	int			d = r->d,
				ic = r->p.intercept ? 1 : 0,
				p = d + ic,
				linear = r->model == DPB_MODEL_LINEAR,
				nall = dpb_nvars(r, linear, 1, 1),
				j,
				k;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D],
				v[DPB_MAX_D + 1] = {0},
				sd[DPB_MAX_D * 2 + DPB_MAX_D + 3];
	char		(*names)[DPB_VAR_NAME_LEN];

	for (k = 0; k < dr->nvars; k++)
		out[k] = NAN;
	if (r->model != DPB_MODEL_LINEAR && r->model != DPB_MODEL_LOGISTIC &&
		r->model != DPB_MODEL_POISSON)
		return;
	names = calloc(nall, DPB_VAR_NAME_LEN);
	if (names == NULL)
		return;
	dpb_name_vars(r, linear, 1, 1, names);
	dpb_feature_map(r, gain, center);
	theta_var(r, o, p, v);

	/* the layout of dpb_name_vars: theta (p), sigma, n, mu_x (d), sd_x (d) */
	k = 0;
	if (ic)
	{
		double		s = v[0];

		for (j = 0; j < d; j++)
			if (gain[j] * center[j] != 0)	/* a centred feature adds 0,
											 * even to an infinite sd */
				s += gain[j] * center[j] * gain[j] * center[j] * v[ic + j];
		sd[k++] = sqrt(s);
	}
	for (j = 0; j < d; j++)
		sd[k++] = gain[j] * sqrt(v[ic + j]);
	if (linear)
		sd[k++] = dpb_lin_weak_prior_used(r, o) ?
			sqrt(o->lin.sigma2_mean * (1 - M_PI / 4)) :
			invgamma_sqrt_sd(o->lin.sigma2_shape, o->lin.sigma2_scale);
	sd[k++] = o->count.n_known ? NAN :
		isinf(o->count.n_hi) ? INFINITY : (o->count.n_hi - o->count.n_lo) / sqrt(12.0);
	for (j = 0; j < d; j++)
		sd[k++] = linear ? NAN : o->glm.mu_scale / gain[j];
	for (j = 0; j < d; j++)
		sd[k++] = linear ? NAN : o->glm.tau_scale * sqrt(1 - 2 / M_PI) / gain[j];

	for (k = 0; k < dr->nvars; k++)
		for (j = 0; j < nall; j++)
			if (strcmp(dr->names[k], names[j]) == 0)
			{
				out[k] = sd[j];
				break;
			}
	free(names);
}
