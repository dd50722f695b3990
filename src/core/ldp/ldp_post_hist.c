/*
 * ldp_post_hist.c — the OUE histogram likelihood (digest §A3.7, eq. 33 with
 * the corrected OUE probabilities) on the distinct report patterns, and the
 * OUE point estimate with its L2 projection onto the simplex.
 *
 * Per report z (K bits), Pr[z | theta] = C(z) (1 + (e^eps - 1) theta'z), with
 * C(z) free of theta: a 1 bit stays 1 w.p. 1/2, a 0 bit turns 1 w.p.
 * 1/(1 + e^eps).  The log-likelihood sum_u n_u log(1 + c theta'z_u) needs
 * the count of every distinct pattern: the column sums are not sufficient
 * (docs/ldp.md gives a two-report counterexample).
 *
 * theta = softmax(phi_1, ..., phi_{K-1}, 0) (additive log-ratio); the
 * gradient of theta'z in phi_j is theta_j (z_j - theta'z).
 */
#include "ldp_models.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* theta from the K - 1 log-ratios */
void
dpb_ldpm_softmax(const double *phi, int K, double *theta)
{
	double		m = 0,
				s = 0;

	for (int k = 0; k < K - 1; k++)
		if (phi[k] > m)
			m = phi[k];
	for (int k = 0; k < K; k++)
		s += (theta[k] = exp((k < K - 1 ? phi[k] : 0) - m));
	for (int k = 0; k < K; k++)
		theta[k] /= s;
}

double
dpb_ldpm_hist_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad)
{
	int			K = dt->K;
	double		c = expm1(dt->eps),
				ll = 0;
	double	   *theta = malloc(sizeof(double) * K);

	if (theta == NULL)
		return NAN;
	dpb_ldpm_softmax(phi, K, theta);
	if (grad)
		memset(grad, 0, sizeof(double) * (K - 1));
	for (long u = 0; u < dt->npat; u++)
	{
		const unsigned char *z = dt->pat + (size_t) u * K;
		double		tz = 0,
					den;

		for (int k = 0; k < K; k++)
			if (z[k])
				tz += theta[k];
		den = 1 + c * tz;
		ll += dt->count[u] * log(den);
		if (grad)
		{
			double		f = dt->count[u] * c / den;

			for (int j = 0; j < K - 1; j++)
				grad[j] += f * theta[j] * ((z[j] ? 1.0 : 0.0) - tz);
		}
	}
	free(theta);
	return ll;
}

static int
cmp_desc(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x < y) - (x > y);
}

void
dpb_ldpm_oue_estimate(const dpb_ldpm_data *dt, int simplex, double *f)
{
	int			K = dt->K;
	double		q = 1.0 / (1.0 + exp(dt->eps)),
				n = 0;

	for (int k = 0; k < K; k++)
		f[k] = 0;
	for (long u = 0; u < dt->npat; u++)
	{
		n += dt->count[u];
		for (int k = 0; k < K; k++)
			if (dt->pat[(size_t) u * K + k])
				f[k] += dt->count[u];
	}
	for (int k = 0; k < K; k++)
		f[k] = (f[k] / n - q) / (0.5 - q);
	if (simplex)
	{
		/* Euclidean projection onto {f >= 0, sum f = 1} (Held et al. 1974;
		 * Duchi et al. 2008): subtract the threshold tau and clip at 0 */
		double	   *s = malloc(sizeof(double) * K),
					cum = 0,
					tau = 0;

		if (s == NULL)
		{
			for (int k = 0; k < K; k++)
				f[k] = NAN;
			return;
		}
		memcpy(s, f, sizeof(double) * K);
		qsort(s, K, sizeof(double), cmp_desc);
		for (int k = 0; k < K; k++)
		{
			cum += s[k];
			if (s[k] - (cum - 1) / (k + 1) > 0)
				tau = (cum - 1) / (k + 1);
		}
		for (int k = 0; k < K; k++)
			f[k] = f[k] > tau ? f[k] - tau : 0;
		free(s);
	}
}
