/*
 * ldp_post_scalar.c — likelihoods of Laplace reports of a clipped scalar
 * (digest §A3.4, eq. 28; §A3.5, eq. 30; both corrected), in log space with
 * analytic gradients.
 *
 * Reduction to in-range reports.  For z < a every clipped x lies above z,
 * so p(z) = (lambda/2) e^{lambda z} E[e^{-lambda x}]: log p(z) =
 * lambda (z - a) + log p(a) with p(a) the density at z = a.  Likewise
 * z > b gives log p(z) = -lambda (z - b) + log p(b).  The terms
 * lambda (z - a) do not depend on the parameters, so the reports outside
 * [a, b] enter the posterior only through n_low log p(a) + n_high log p(b):
 * the evaluation costs O(#reports in [a, b]), and O(#groups) once they
 * are grouped (dpb_ldpm_group, at the end of this file).
 */
#include "ldp_models.h"

#include <gsl/gsl_sf_erf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOG_SQRT_2PI 0.91893853320467274178

/* log Phi(x): libm's erfc is accurate to its underflow, GSL's log_erfc
 * beyond */
static double
log_ndtr(double x)
{
	if (x > -30)
		return log(0.5 * erfc(-x * M_SQRT1_2));
	return gsl_sf_log_erfc(-x * M_SQRT1_2) - M_LN2;
}

/* log phi(x) */
static double
log_npdf(double x)
{
	return -0.5 * x * x - LOG_SQRT_2PI;
}

/* log(1 - e^x), x < 0 */
static double
log1mexp(double x)
{
	return x > -M_LN2 ? log(-expm1(x)) : log1p(-exp(x));
}

/* A point x with log Phi(x) and log Phi(-x) (one of them may be unset,
 * NAN, and is then computed on demand). */
typedef struct npt
{
	double		x,
				lp,				/* log Phi(x) */
				lm;				/* log Phi(-x) */
} npt;

static double
npt_lp(npt *p)
{
	if (isnan(p->lp))
		p->lp = log_ndtr(p->x);
	return p->lp;
}

static double
npt_lm(npt *p)
{
	if (isnan(p->lm))
		p->lm = log_ndtr(-p->x);
	return p->lm;
}

static npt
npt_make(double x)
{
	npt			p = {x, NAN, NAN};

	return p;
}

/*
 * log(Phi(hi) - Phi(lo)) for lo <= hi, and the derivatives of the log with
 * respect to lo (dlo) and hi (dhi).  -inf (derivatives 0) when lo == hi.
 */
static double
log_ndtr_diff(npt *lo, npt *hi, double *dlo, double *dhi)
{
	double		ld;

	*dlo = *dhi = 0;
	if (!(hi->x > lo->x))
		return -INFINITY;
	if (lo->x >= 0)				/* upper tail: Phi(-lo) - Phi(-hi) */
	{
		double		u = npt_lm(lo);

		ld = u + log1mexp(npt_lm(hi) - u);
	}
	else if (hi->x <= 0)
	{
		double		u = npt_lp(hi);

		ld = u + log1mexp(npt_lp(lo) - u);
	}
	else						/* straddles 0: no cancellation in erf */
		ld = log(0.5 * (erf(hi->x * M_SQRT1_2) - erf(lo->x * M_SQRT1_2)));
	*dlo = -exp(log_npdf(lo->x) - ld);
	*dhi = exp(log_npdf(hi->x) - ld);
	return ld;
}

/* log-sum-exp of n terms with weights into w */
static double
lse(const double *t, int n, double *w)
{
	double		m = -INFINITY,
				s = 0;

	for (int k = 0; k < n; k++)
		if (t[k] > m)
			m = t[k];
	if (m == -INFINITY)
	{
		for (int k = 0; k < n; k++)
			w[k] = 0;
		return -INFINITY;
	}
	for (int k = 0; k < n; k++)
		s += (w[k] = exp(t[k] - m));
	for (int k = 0; k < n; k++)
		w[k] /= s;
	return m + log(s);
}

/* What eq. 28 shares across reports at one (mu, sigma). */
typedef struct gpre
{
	double		mu,
				sigma,
				a,
				b,
				lambda;
	double		la,
				ga_m,
				ga_s;			/* log F(a) and its derivatives */
	double		lb,
				gb_m,
				gb_s;			/* log (1 - F(b)) ... */
	npt			lo3,
				hi4;			/* the fixed ends of the two integrals */
} gpre;

static void
gpre_init(gpre *g, double mu, double sigma, double a, double b, double lambda)
{
	double		x,
				r;

	g->mu = mu, g->sigma = sigma, g->a = a, g->b = b, g->lambda = lambda;
	x = (a - mu) / sigma;
	g->la = log_ndtr(x);
	r = exp(log_npdf(x) - g->la);
	g->ga_m = -r / sigma;
	g->ga_s = -r * x / sigma;
	x = (mu - b) / sigma;
	g->lb = log_ndtr(x);
	r = exp(log_npdf(x) - g->lb);
	g->gb_m = r / sigma;
	g->gb_s = -r * x / sigma;
	g->lo3 = npt_make((a - mu) / sigma - lambda * sigma);
	g->hi4 = npt_make((b - mu) / sigma + lambda * sigma);
}

static double
gauss_eval(gpre *g, double z, double *dmu, double *dsigma)
{
	double		mu = g->mu,
				sigma = g->sigma,
				a = g->a,
				b = g->b,
				lambda = g->lambda,
				l = z < a ? a : (z > b ? b : z),
				ls2 = lambda * sigma * sigma,
				s2 = sigma * sigma,
				t[4],
				gm[4],
				gs[4],
				w[4],
				dlo,
				dhi,
				res;
	npt			hi3 = npt_make((l - mu) / sigma - lambda * sigma),
				lo4 = npt_make((l - mu) / sigma + lambda * sigma);

	/* atoms at a and b: F(a) e^{-lambda |z - a|}, (1 - F(b)) e^{-lambda |z - b|} */
	t[0] = g->la - lambda * fabs(z - a);
	gm[0] = g->ga_m;
	gs[0] = g->ga_s;
	t[1] = g->lb - lambda * fabs(z - b);
	gm[1] = g->gb_m;
	gs[1] = g->gb_s;
	/* x in (a, l): e^{lambda (mu - z) + lambda^2 sigma^2 / 2} [Phi(.) - Phi(.)] */
	t[2] = lambda * (mu - z) + 0.5 * ls2 * lambda + log_ndtr_diff(&g->lo3, &hi3, &dlo, &dhi);
	gm[2] = lambda - (dlo + dhi) / sigma;
	gs[2] = ls2 * lambda / sigma + dlo * (-(a - mu) / s2 - lambda)
		+ dhi * (-(l - mu) / s2 - lambda);
	/* x in (l, b) */
	t[3] = lambda * (z - mu) + 0.5 * ls2 * lambda + log_ndtr_diff(&lo4, &g->hi4, &dlo, &dhi);
	gm[3] = -lambda - (dlo + dhi) / sigma;
	gs[3] = ls2 * lambda / sigma + dlo * (-(l - mu) / s2 + lambda)
		+ dhi * (-(b - mu) / s2 + lambda);
	res = lse(t, 4, w);
	if (dmu)
	{
		*dmu = *dsigma = 0;
		for (int k = 0; k < 4; k++)
			if (w[k] > 0)
			{
				*dmu += w[k] * gm[k];
				*dsigma += w[k] * gs[k];
			}
	}
	return log(0.5 * lambda) + res;
}

/*
 * eq. 28: the density of z = clip(x, a, b) + Laplace(1/lambda), x ~ N(mu,
 * sigma^2), with d/dmu and d/dsigma of its log.
 */
double
dpb_ldpm_gauss_logpdf(double z, double mu, double sigma, double a, double b,
					  double lambda, double *dmu, double *dsigma)
{
	gpre		g;

	gpre_init(&g, mu, sigma, a, b, lambda);
	return gauss_eval(&g, z, dmu, dsigma);
}

/*
 * Gaussian noise (gaussian_gn; the LDP paper's Lemma 3.2 set-up, digest
 * §A3.6, with g = 1 and h the exponent of N(mu, sigma^2), plus the atoms
 * of clipping, eq. 6).  With S = sigma^2 + tau^2,
 *   p(z) = F(a) phi_tau(z - a) + (1 - F(b)) phi_tau(z - b)
 *        + N(z; mu, S) [Phi(beta) - Phi(alpha)],
 *   m = (z sigma^2 + mu tau^2) / S,  s = sigma tau / sqrt(S),
 *   alpha = (a - m) / s,  beta = (b - m) / s
 * (the in-range integral of N(x; mu, sigma^2) N(z - x; 0, tau^2) is the
 * product of the marginal N(z; mu, S) and the mass of x | z ~ N(m, s^2) in
 * (a, b)).  The derivatives: dm/dmu = tau^2 / S, dm/dsigma = 2 sigma tau^2
 * (z - mu) / S^2, ds/dsigma = tau^3 / S^{3/2}.
 */
typedef struct gnpre
{
	double		mu,
				sigma,
				a,
				b,
				tau;
	double		la,
				ga_m,
				ga_s;			/* log F(a) and its derivatives */
	double		lb,
				gb_m,
				gb_s;			/* log (1 - F(b)) ... */
	double		S,
				s,
				t2S,			/* tau^2 / S */
				dsds,			/* ds/dsigma */
				lnS;			/* log S */
} gnpre;

static void
gnpre_init(gnpre *g, double mu, double sigma, double a, double b, double tau)
{
	double		x,
				r;

	g->mu = mu, g->sigma = sigma, g->a = a, g->b = b, g->tau = tau;
	x = (a - mu) / sigma;
	g->la = log_ndtr(x);
	r = exp(log_npdf(x) - g->la);
	g->ga_m = -r / sigma;
	g->ga_s = -r * x / sigma;
	x = (mu - b) / sigma;
	g->lb = log_ndtr(x);
	r = exp(log_npdf(x) - g->lb);
	g->gb_m = r / sigma;
	g->gb_s = -r * x / sigma;
	g->S = sigma * sigma + tau * tau;
	g->s = sigma * tau / sqrt(g->S);
	g->t2S = tau * tau / g->S;
	g->dsds = tau * tau * tau / (g->S * sqrt(g->S));
	g->lnS = log(g->S);
}

static double
gn_eval(const gnpre *g, double z, double *dmu, double *dsigma)
{
	double		tau = g->tau,
				S = g->S,
				da = (z - g->a) / tau,
				db = (z - g->b) / tau,
				u = z - g->mu,
				m = g->mu + (u * g->sigma * g->sigma) / S,
				dm_s = 2 * g->sigma * tau * tau * u / (S * S),
				t[3],
				gm[3],
				gs[3],
				w[3],
				dlo,
				dhi,
				res;
	npt			lo = npt_make((g->a - m) / g->s),
				hi = npt_make((g->b - m) / g->s);

	/* the atoms: F(a) phi_tau(z - a), (1 - F(b)) phi_tau(z - b) */
	t[0] = g->la - 0.5 * da * da - log(tau);
	gm[0] = g->ga_m;
	gs[0] = g->ga_s;
	t[1] = g->lb - 0.5 * db * db - log(tau);
	gm[1] = g->gb_m;
	gs[1] = g->gb_s;
	/* the in-range part: N(z; mu, S) [Phi(beta) - Phi(alpha)] */
	t[2] = -0.5 * g->lnS - 0.5 * u * u / S + log_ndtr_diff(&lo, &hi, &dlo, &dhi);
	gm[2] = u / S - (dlo + dhi) * g->t2S / g->s;
	gs[2] = g->sigma * (u * u / (S * S) - 1 / S)
		+ dlo * (-dm_s / g->s - lo.x * g->dsds / g->s)
		+ dhi * (-dm_s / g->s - hi.x * g->dsds / g->s);
	res = lse(t, 3, w);
	if (dmu)
	{
		*dmu = *dsigma = 0;
		for (int k = 0; k < 3; k++)
			if (w[k] > 0)
			{
				*dmu += w[k] * gm[k];
				*dsigma += w[k] * gs[k];
			}
	}
	return res - LOG_SQRT_2PI;
}

double
dpb_ldpm_gn_logpdf(double z, double mu, double sigma, double a, double b, double tau,
				   double *dmu, double *dsigma)
{
	gnpre		g;

	gnpre_init(&g, mu, sigma, a, b, tau);
	return gn_eval(&g, z, dmu, dsigma);
}

/*
 * log((e^{k l} - 1) / k) for l > 0 (the limit l at k = 0) and its
 * derivative in k.
 */
static double
log_expm1_ratio(double k, double l, double *dk)
{
	double		x = k * l;

	if (fabs(x) < 1e-2)
	{
		double		x2 = x * x;

		/* (e^x - 1)/x = 1 + x/2 + x^2/6 + x^3/24 + x^4/120 + x^5/720;
		 * d/dx log of it = 1/2 + x/12 - x^3/720 + x^5/30240 */
		*dk = l * (0.5 + x / 12 - x * x2 / 720 + x * x2 * x2 / 30240);
		return log(l) + log1p(x / 2 + x2 / 6 + x * x2 / 24 + x2 * x2 / 120
							  + x * x2 * x2 / 720);
	}
	/* d/dx log((e^x - 1)/x) = 1/(1 - e^{-x}) - 1/x */
	*dk = l * (-1.0 / expm1(-x) - 1.0 / x);
	if (x > 0)
		return x + log(-expm1(-x)) - log(k);
	return log(-expm1(x)) - log(-k);
}

/*
 * eq. 30: the density of z = clip(x, 0, b) + Laplace(1/lambda), x ~
 * Exp(rate), with d/drate of its log.
 */
double
dpb_ldpm_exp_logpdf(double z, double rate, double b, double lambda, double *drate)
{
	double		l = z < 0 ? 0 : (z > b ? b : z),
				t[3],
				g[3],
				w[3],
				res,
				dk;

	/* x in (0, l): rate e^{-lambda z} (e^{(lambda - rate) l} - 1)/(lambda - rate) */
	if (l > 0)
	{
		t[0] = log(rate) - lambda * z + log_expm1_ratio(lambda - rate, l, &dk);
		g[0] = 1 / rate - dk;
	}
	else
		t[0] = -INFINITY, g[0] = 0;
	/* x in (l, b): rate e^{lambda z} (e^{-rho l} - e^{-rho b}) / rho */
	if (l < b)
	{
		double		rho = lambda + rate,
					D = b - l;

		t[1] = log(rate) + lambda * z - rho * l + log(-expm1(-rho * D)) - log(rho);
		g[1] = 1 / rate - l + D / expm1(rho * D) - 1 / rho;
	}
	else
		t[1] = -INFINITY, g[1] = 0;
	/* atom at b */
	t[2] = -rate * b - lambda * fabs(z - b);
	g[2] = -b;
	res = lse(t, 3, w);
	if (drate)
	{
		*drate = 0;
		for (int k = 0; k < 3; k++)
			if (w[k] > 0)
				*drate += w[k] * g[k];
	}
	return log(0.5 * lambda) + res;
}

/* Log-likelihood of the scalar models in (mu, log sigma) or (log rate). */
double
dpb_ldpm_scalar_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad)
{
	double		ll = 0,
				g0 = 0,
				g1 = 0,
				d0,
				d1;
	long		i;

	if (dt->model == DPB_LDPM_GAUSSIAN_GN)
	{
		double		mu = phi[0],
					sigma = exp(phi[1]);
		gnpre		g;

		if (!(sigma > 0) || !isfinite(sigma))
			return NAN;
		gnpre_init(&g, mu, sigma, dt->a, dt->b, dt->tau);
		if (dt->gz)
			for (i = 0; i < dt->n_grp; i++)
			{
				double		w = dt->gw[i];

				ll += w * gn_eval(&g, dt->gz[i], &d0, &d1);
				g0 += w * d0, g1 += w * d1;
			}
		else
			for (i = 0; i < dt->n_in; i++)
			{
				ll += gn_eval(&g, dt->z[i], &d0, &d1);
				g0 += d0, g1 += d1;
			}
		if (grad)
		{
			grad[0] = g0;
			grad[1] = g1 * sigma;
		}
		return ll;
	}
	if (dt->model == DPB_LDPM_GAUSSIAN)
	{
		double		mu = phi[0],
					sigma = exp(phi[1]);

		gpre		g;

		if (!(sigma > 0) || !isfinite(sigma))
			return NAN;
		gpre_init(&g, mu, sigma, dt->a, dt->b, dt->lambda);
		if (dt->n_low > 0)
		{
			ll += dt->n_low * gauss_eval(&g, dt->a, &d0, &d1);
			g0 += dt->n_low * d0, g1 += dt->n_low * d1;
		}
		if (dt->n_high > 0)
		{
			ll += dt->n_high * gauss_eval(&g, dt->b, &d0, &d1);
			g0 += dt->n_high * d0, g1 += dt->n_high * d1;
		}
		if (dt->gz)
			for (i = 0; i < dt->n_grp; i++)
			{
				double		w = dt->gw[i];

				ll += w * gauss_eval(&g, dt->gz[i], &d0, &d1);
				g0 += w * d0, g1 += w * d1;
			}
		else
			for (i = 0; i < dt->n_in; i++)
			{
				ll += gauss_eval(&g, dt->z[i], &d0, &d1);
				g0 += d0, g1 += d1;
			}
		if (grad)
		{
			grad[0] = g0;
			grad[1] = g1 * sigma;
		}
		return ll;
	}
	else
	{
		double		rate = exp(phi[0]);

		if (!(rate > 0) || !isfinite(rate))
			return NAN;
		if (dt->n_low > 0)
		{
			ll += dt->n_low * dpb_ldpm_exp_logpdf(0, rate, dt->b, dt->lambda, &d0);
			g0 += dt->n_low * d0;
		}
		if (dt->n_high > 0)
		{
			ll += dt->n_high * dpb_ldpm_exp_logpdf(dt->b, rate, dt->b, dt->lambda, &d0);
			g0 += dt->n_high * d0;
		}
		if (dt->gz)
			for (i = 0; i < dt->n_grp; i++)
			{
				double		w = dt->gw[i];

				ll += w * dpb_ldpm_exp_logpdf(dt->gz[i], rate, dt->b, dt->lambda, &d0);
				g0 += w * d0;
			}
		else
			for (i = 0; i < dt->n_in; i++)
			{
				ll += dpb_ldpm_exp_logpdf(dt->z[i], rate, dt->b, dt->lambda, &d0);
				g0 += d0;
			}
		if (grad)
			grad[0] = g0 * rate;
		return ll;
	}
}

/*
 * Grouping (ldp_models.h, docs/ldp.md "Grouped and binned likelihood").
 *
 * The bound.  Write f(z) = log p(z) with p = k * P, k the Laplace density
 * of rate lambda and P the law of the clipped x (any P: both models).  As
 * |k'| = lambda k, |f'| <= lambda; as k'' = lambda^2 k - lambda^2 delta,
 * p'' = lambda^2 (p - P) <= lambda^2 p, so f'' = p''/p - f'^2 <= lambda^2:
 * G(z) = f'(z) - lambda^2 z is non-increasing, and over [a, b] falls by at
 * most 2 lambda + lambda^2 (b - a).  For a bin of reports z_i with mean m
 * (so sum (z_i - m) = 0),
 *   sum_i f(z_i) - n f(m) = sum_i int_m^{z_i} (f'(t) - f'(m)) dt
 *     = (lambda^2/2) sum_i (z_i - m)^2 + sum_i int_m^{z_i} (G(t) - G(m)) dt,
 * and each last integral lies in [-|z_i - m| dG_b, 0], dG_b the fall of G
 * over the bin.  Summed over the (disjoint) bins, sum_b D_b dG_b <=
 * max_b D_b (2 lambda + lambda^2 (b - a)), D_b = sum_{i in b} |z_i - m_b|.
 */
static uint64_t
dbits(double x)
{
	uint64_t	u;

	if (x == 0)
		x = 0;					/* -0 and 0 are one value */
	memcpy(&u, &x, sizeof(u));
	return u;
}

static int
cmp_pair(const void *pa, const void *pb)
{
	const double *a = pa,
			   *b = pb;

	return a[0] < b[0] ? -1 : (a[0] > b[0] ? 1 : 0);
}

void
dpb_ldpm_groups_free(dpb_ldpm_groups *g)
{
	free(g->z);
	free(g->w);
	memset(g, 0, sizeof(*g));
}

#define POLL(i) (((i) & 65535) == 65535 && interrupt && interrupt())

/* Exact: 1 with the (value, count) pairs when at most max_distinct values,
 * 0 when more, -1 on interrupt, -2 out of memory. */
static int
group_exact(const dpb_ldpm_data *dt, long max_distinct, dpb_interrupt_fn interrupt,
			dpb_ldpm_groups *g)
{
	size_t		cap = 16;
	double	   *pairs;
	long		k = 0;
	unsigned char *used;

	if (max_distinct < 1)
		return 0;
	while (cap < 2 * (size_t) max_distinct)
		cap *= 2;
	pairs = malloc(sizeof(double) * 2 * cap);
	used = calloc(cap, 1);
	if (pairs == NULL || used == NULL)
	{
		free(pairs);
		free(used);
		return -2;
	}
	for (long i = 0; i < dt->n_in; i++)
	{
		double		z = dt->z[i] == 0 ? 0 : dt->z[i];
		uint64_t	h = dbits(z) * UINT64_C(0x9E3779B97F4A7C15);
		size_t		j = (size_t) (h >> 40) & (cap - 1);

		if (POLL(i))
		{
			free(pairs);
			free(used);
			return -1;
		}
		while (used[j] && pairs[2 * j] != z)
			j = (j + 1) & (cap - 1);
		if (used[j])
			pairs[2 * j + 1] += 1;
		else
		{
			if (++k > max_distinct)
			{
				free(pairs);
				free(used);
				return 0;
			}
			used[j] = 1;
			pairs[2 * j] = z;
			pairs[2 * j + 1] = 1;
		}
	}
	/* compact and sort by value: the sum's order does not depend on the
	 * reports' order */
	k = 0;
	for (size_t j = 0; j < cap; j++)
		if (used[j])
		{
			pairs[2 * k] = pairs[2 * j];
			pairs[2 * k + 1] = pairs[2 * j + 1];
			k++;
		}
	free(used);
	qsort(pairs, k, 2 * sizeof(double), cmp_pair);
	g->z = malloc(sizeof(double) * (k > 0 ? k : 1));
	g->w = malloc(sizeof(double) * (k > 0 ? k : 1));
	if (g->z == NULL || g->w == NULL)
	{
		free(pairs);
		dpb_ldpm_groups_free(g);
		return -2;
	}
	for (long j = 0; j < k; j++)
	{
		g->z[j] = pairs[2 * j];
		g->w[j] = pairs[2 * j + 1];
	}
	free(pairs);
	g->k = k;
	g->exact = 1;
	return 1;
}

static long
bin_of(double z, double a, double scale, long B)
{
	double		x = (z - a) * scale;
	long		j = x > 0 ? (long) x : 0;

	return j < B ? j : B - 1;
}

dpb_status
dpb_ldpm_group(const dpb_ldpm_data *dt, double tol, long max_distinct,
			   dpb_interrupt_fn interrupt, dpb_ldpm_groups *g)
{
	int			gn = dt->model == DPB_LDPM_GAUSSIAN_GN;
	double		a = dt->a,
				W = dt->b - dt->a,
				lam = dt->lambda,
				slope = 2 * lam + lam * lam * W,
				lo = a,
				span = W;
	double	   *cnt = NULL,
			   *sum = NULL,
			   *dev = NULL,
			   *sq = NULL;
	long		n = dt->n_in;
	dpb_status	st = DPB_OK;
	int			r;

	memset(g, 0, sizeof(*g));
	if (n < 2 || dt->z == NULL)
		return DPB_OK;
	r = group_exact(dt, max_distinct, interrupt, g);
	if (r == -1)
		return DPB_EINTR;
	if (r == -2)
		return DPB_ENOMEM;
	/* exact when it at least halves the terms; else bins if they do */
	if (r == 1 && 2 * g->k <= n)
		return DPB_OK;
	if (gn)
	{
		/* Gaussian noise: every report has its own term, so the bins cover
		 * the reports' range */
		double		zmin = dt->z[0],
					zmax = dt->z[0];

		for (long i = 1; i < n; i++)
		{
			zmin = fmin(zmin, dt->z[i]);
			zmax = fmax(zmax, dt->z[i]);
		}
		lo = zmin;
		span = zmax - zmin;
		if (!(dt->tau > 0) || !isfinite(dt->tau) || !(span > 0) || !isfinite(span))
			W = NAN;
	}
	if (!(W > 0) || !isfinite(W) || (!gn && !(lam > 0)) || !(tol > 0))
	{
		if (r == 1 && g->k >= n)
			dpb_ldpm_groups_free(g);
		return DPB_OK;
	}
	for (long B = 16; B < n / 2; B *= 2)
	{
		double		scale = B / span,
					dmax = 0,
					c = 0,
					v;
		long		k = 0;

		cnt = calloc(B, sizeof(double));
		sum = calloc(B, sizeof(double));
		dev = calloc(B, sizeof(double));
		sq = calloc(B, sizeof(double));
		if (!cnt || !sum || !dev || !sq)
		{
			st = DPB_ENOMEM;
			break;
		}
		for (long i = 0; i < n; i++)
		{
			long		j = bin_of(dt->z[i], lo, scale, B);

			if (POLL(i))
			{
				st = DPB_EINTR;
				break;
			}
			cnt[j] += 1;
			sum[j] += dt->z[i];
		}
		if (st != DPB_OK)
			break;
		for (long j = 0; j < B; j++)
			if (cnt[j] > 0)
			{
				sum[j] /= cnt[j];	/* now the mean */
				k++;
			}
		for (long i = 0; i < n; i++)
		{
			long		j = bin_of(dt->z[i], lo, scale, B);
			double		e = dt->z[i] - sum[j];

			if (POLL(i))
			{
				st = DPB_EINTR;
				break;
			}
			dev[j] += fabs(e);
			sq[j] += e * e;
		}
		if (st != DPB_OK)
			break;
		for (long j = 0; j < B; j++)
		{
			dmax = fmax(dmax, dev[j]);
			c += sq[j];
		}
		/*
		 * the bound (ldp_models.h).  Gaussian noise: f = log p with p =
		 * phi_tau * P has f'' = -1/tau^2 + Var(x | z)/tau^4, and x | z
		 * lies in [a, b], so Var(x | z) <= (b - a)^2 / 4: each bin's error
		 * sum_i int_m^{z_i} (f'(t) - f'(m)) dt lies within (z_i - m)^2 / 2
		 * times [-1/tau^2, -1/tau^2 + (b - a)^2 / (4 tau^4)].
		 */
		if (gn)
		{
			double		t2 = dt->tau * dt->tau;

			v = W * W * c / (8 * t2 * t2);
			c = v - 0.5 * c / t2;
		}
		else
		{
			v = slope * dmax;
			c = 0.5 * lam * lam * c;
		}
		if (v <= tol && k < n && (!g->exact || k < g->k))
		{
			dpb_ldpm_groups_free(g);
			g->z = malloc(sizeof(double) * k);
			g->w = malloc(sizeof(double) * k);
			if (g->z == NULL || g->w == NULL)
			{
				st = DPB_ENOMEM;
				break;
			}
			k = 0;
			for (long j = 0; j < B; j++)
				if (cnt[j] > 0)
				{
					g->z[k] = gn ? sum[j] : fmin(fmax(sum[j], dt->a), dt->b);
					g->w[k] = cnt[j];
					k++;
				}
			g->k = k;
			g->bins = B;
			g->c = c;
			g->v = v;
			break;
		}
		free(cnt), free(sum), free(dev), free(sq);
		cnt = sum = dev = sq = NULL;
	}
	free(cnt), free(sum), free(dev), free(sq);
	if (st != DPB_OK || (g->exact && g->k >= n))
		dpb_ldpm_groups_free(g);
	return st;
}
