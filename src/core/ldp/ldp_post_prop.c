/*
 * ldp_post_prop.c — the proportion of a binary attribute from randomized
 * response (rr) reports (ldp_models.h, model "proportion"; digest §A3.7,
 * last paragraph).
 *
 * A record x ~ Bernoulli(theta) is reported as x with probability p (the
 * protocol's keep probability e^eps / (1 + e^eps)), else 1 - x, so a report
 * is 1 with probability q = p theta + (1 - p)(1 - theta), which lies in
 * [1 - p, p] for every theta: the exact likelihood of N reports with K ones
 * is q^K (1 - q)^(N - K), and (N, K) is sufficient.  Parameter phi =
 * logit(theta), so dq/dphi = (2p - 1) theta (1 - theta).  With two groups
 * the likelihood is the product of the groups' (independent records,
 * possibly under different protocols).
 */
#include "ldp_models.h"

#include <math.h>

/* theta = 1 / (1 + e^{-phi}), without overflow */
static double
expit(double phi)
{
	return phi >= 0 ? 1 / (1 + exp(-phi)) : exp(phi) / (1 + exp(phi));
}

double
dpb_ldpm_prop_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad)
{
	double		ll = 0;

	for (int g = 0; g < dt->groups; g++)
	{
		double		th = expit(phi[g]),
					p = dt->g_keep[g],
					q = p * th + (1 - p) * (1 - th),
					q1 = p * (1 - th) + (1 - p) * th,	/* 1 - q, without cancellation */
					k = dt->g_k[g],
					n = dt->g_n[g];

		if (!isfinite(phi[g]))
			return NAN;
		ll += (k > 0 ? k * log(q) : 0) + (n - k > 0 ? (n - k) * log(q1) : 0);
		if (grad)
			grad[g] = (2 * p - 1) * th * (1 - th) * (k / q - (n - k) / q1);
	}
	return ll;
}
