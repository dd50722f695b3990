/*
 * betad_model.c — log density and gradient of the betaD posterior (see
 * betad_model.h).
 */
#include "betad_model.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

int
dpb_betad_dim(const dpb_betad_model *m)
{
	return m->d + (m->intercept ? 1 : 0) + (m->gaussian ? 1 : 0);
}

/* log sigma(v) = -log1p(e^{-v}), stable for every v */
static inline double
log_sigmoid(double v)
{
	return v >= 0 ? -log1p(exp(-v)) : v - log1p(exp(v));
}

/* lin[i] = xbar_i' coef (coef: intercept first when present) */
static void
linear_predictor(const dpb_betad_model *m, const double *coef, double *lin)
{
	int64_t		i;
	double		c0 = m->intercept ? coef[0] : 0.0;
	const double *c = coef + (m->intercept ? 1 : 0);

	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) m->n, m->d, 1.0, m->X, m->d, c, 1,
				0.0, lin, 1);
	for (i = 0; i < m->n; i++)
		lin[i] += c0;
}

/* grad[coef] += sum_i g_i xbar_i */
static void
add_xt(const dpb_betad_model *m, const double *g, double *grad)
{
	int64_t		i;
	int			off = m->intercept ? 1 : 0;

	if (m->intercept)
		for (i = 0; i < m->n; i++)
			grad[0] += g[i];
	cblas_dgemv(CblasRowMajor, CblasTrans, (int) m->n, m->d, 1.0, m->X, m->d, g, 1,
				1.0, grad + off, 1);
}

/* sum_i -l_beta of the logistic model at the linear predictors lin; the
 * derivatives by u_i into g when not NULL.  y_i = +-1, so q_i is p_i or
 * 1 - p_i: per record one exp and one log1p give p, 1 - p and their logs,
 * and two more exps their b-th powers. */
static double
negloss_logistic(const dpb_betad_model *m, const double *lin, double *g)
{
	double		b = m->beta - 1.0,
				beta = m->beta,
				s = 0;
	int64_t		i;

	for (i = 0; i < m->n; i++)
	{
		double		u = lin[i],
					a = fabs(u),
					e = exp(-a),
					l = log1p(e),
					inv = 1.0 / (1.0 + e),
					p,			/* sigma(u) */
					pm,			/* 1 - p */
					pb,			/* p^b */
					rb,			/* (1 - p)^b */
					qb,
					q1;			/* 1 - q */

		if (u >= 0)
		{
			p = inv;
			pm = e * inv;
			pb = exp(-b * l);
			rb = exp(-b * (a + l));
		}
		else
		{
			p = e * inv;
			pm = inv;
			pb = exp(-b * (a + l));
			rb = exp(-b * l);
		}
		if (m->y[i] > 0)
		{
			qb = pb;
			q1 = pm;
		}
		else
		{
			qb = rb;
			q1 = p;
		}
		s += qb / b - (p * pb + pm * rb) / beta;
		/* d/du: y q^b (1 - q) - p (1 - p) (p^b - (1 - p)^b) */
		if (g)
			g[i] = m->y[i] * qb * q1 - p * pm * (pb - rb);
	}
	return s;
}

/* the data-free integral term (1/beta) int f^beta of the Gaussian model */
static double
gauss_integ(double b, double beta, double s2)
{
	return exp(-0.5 * b * log(2.0 * M_PI) - 0.5 * b * log(s2)) * pow(beta, -1.5);
}

/* sum_i -l_beta of the Gaussian model with variance s2; with g, the
 * derivatives by the linear predictors (g) and sum of d/d s2 (*dsum) */
static double
negloss_gauss(const dpb_betad_model *m, const double *lin, double s2, double *g,
			  double *dsum)
{
	double		b = m->beta - 1.0,
				lc = -0.5 * b * log(2.0 * M_PI * s2),	/* log (2 pi s2)^(-b/2) */
				integ = gauss_integ(b, m->beta, s2),
				s = 0;
	int64_t		i;

	if (dsum)
		*dsum = 0;
	for (i = 0; i < m->n; i++)
	{
		double		r = m->y[i] - lin[i],
					fb = exp(lc - 0.5 * b * r * r / s2);

		s += fb / b - integ;
		if (g)
		{
			g[i] = fb * r / s2;
			*dsum += fb * (r * r - s2) / (2.0 * s2 * s2);
		}
	}
	return s;
}

double
dpb_betad_negloss(const dpb_betad_model *m, const double *coef, double sigma2)
{
	linear_predictor(m, coef, m->work);
	return m->gaussian ? negloss_gauss(m, m->work, sigma2, NULL, NULL) :
		negloss_logistic(m, m->work, NULL);
}

double
dpb_betad_logpost(const dpb_betad_model *m, const double *par, double *grad)
{
	int			p = m->d + (m->intercept ? 1 : 0),
				j;
	double		b = m->beta - 1.0,
				lp = 0,
				v2 = m->prior_sd * m->prior_sd;
	double	   *lin = m->work,
			   *g = grad ? m->work + m->n : NULL;

	if (grad)
		memset(grad, 0, sizeof(double) * dpb_betad_dim(m));
	/* prior of the coefficients */
	for (j = 0; j < p; j++)
	{
		lp -= 0.5 * par[j] * par[j] / v2;
		if (grad)
			grad[j] -= par[j] / v2;
	}
	linear_predictor(m, par, lin);
	if (!m->gaussian)
	{
		lp += negloss_logistic(m, lin, g);
		if (grad)
			add_xt(m, g, grad);
		return lp;
	}
	else
	{
		double		eta = par[p],
					e = exp(eta),
					s2 = m->s2 + e,
					dsum = 0;

		/* sigma^2 ~ InverseGamma(a, b0) above the floor; Jacobian e^eta */
		lp += -(m->ig_a + 1.0) * log(s2) - m->ig_b / s2 + eta;
		lp += negloss_gauss(m, lin, s2, g, &dsum);
		if (grad)
		{
			double		dsig;

			add_xt(m, g, grad);
			/* d/d sigma^2 of the loss terms, the prior; then chain to eta */
			dsig = dsum + (double) m->n * 0.5 * b * gauss_integ(b, m->beta, s2) / s2 -
				(m->ig_a + 1.0) / s2 + m->ig_b / (s2 * s2);
			grad[p] = dsig * e + 1.0;
		}
		return lp;
	}
}
