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
 * the evaluation costs O(#reports in [a, b]).
 */
#include "ldp_models.h"

#include <gsl/gsl_sf_erf.h>
#include <math.h>

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
