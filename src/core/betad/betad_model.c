/*
 * betad_model.c — log density and gradient of the betaD posterior (see
 * betad_model.h).
 */
#include "betad_model.h"
#include "betad_kernel.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

int
dpb_betad_dim(const dpb_betad_model *m)
{
	if (m->hidden > 0)
		return m->hidden * (m->d + 1) + m->hidden + 1 + (m->gaussian ? 1 : 0);
	return m->d + (m->intercept ? 1 : 0) + (m->gaussian ? 1 : 0);
}

/*
 * The rows are processed in blocks: the block's linear predictors (dgemv),
 * its per-record terms (betad_kernel.c), and, with a gradient, the block's
 * X' g (dgemv) while its rows are still in cache, so that X is read from
 * memory once per evaluation.
 */
#define DPB_BETAD_BLOCK 512

/* the data-free integral term (1/beta) int f^beta of the Gaussian model */
double
dpb_betad_gauss_integ(double b, double beta, double s2)
{
	return exp(-0.5 * b * log(2.0 * M_PI) - 0.5 * b * log(s2)) * pow(beta, -1.5);
}

/*
 * sum_i -l_beta(D_i) at the coefficients coef (intercept first when
 * present) and, Gaussian, the variance s2.  With grad: grad[coef] += the
 * derivatives by the coefficients, and (Gaussian) *dsum += the sum of the
 * derivatives of the data terms by s2.  lin and g: n doubles each of
 * scratch (g only with grad).
 */
static double
data_terms(const dpb_betad_model *m, const double *coef, double s2, double *lin,
		   double *g, double *grad, double *dsum)
{
	int			d = m->d,
				off = m->intercept ? 1 : 0;
	double		c0 = m->intercept ? coef[0] : 0.0,
				s = 0;
	const double *c = coef + off;
	int64_t		i0;

	for (i0 = 0; i0 < m->n; i0 += DPB_BETAD_BLOCK)
	{
		int			nb = (int) (m->n - i0 < DPB_BETAD_BLOCK ? m->n - i0 : DPB_BETAD_BLOCK),
					i;
		const double *Xb = m->X + i0 * d;
		double	   *lb = lin + i0,
				   *gb = grad ? g + i0 : NULL;

		cblas_dgemv(CblasRowMajor, CblasNoTrans, nb, d, 1.0, Xb, d, c, 1, 0.0, lb, 1);
		for (i = 0; i < nb; i++)
			lb[i] += c0;
		s += m->gaussian ?
			dpb_betad_gauss_terms(lb, m->y + i0, nb, m->beta, s2, gb, dsum) :
			dpb_betad_logistic_terms(lb, m->y + i0, nb, m->beta, gb);
		if (grad)
		{
			if (m->intercept)
				for (i = 0; i < nb; i++)
					grad[0] += gb[i];
			cblas_dgemv(CblasRowMajor, CblasTrans, nb, d, 1.0, Xb, d, gb, 1, 1.0,
						grad + off, 1);
		}
	}
	if (m->gaussian)
		s -= (double) m->n * dpb_betad_gauss_integ(m->beta - 1.0, m->beta, s2);
	return s;
}

double
dpb_betad_negloss(const dpb_betad_model *m, const double *coef, double sigma2)
{
	if (m->hidden > 0)
		return dpb_betad_mlp_negloss(m, coef, sigma2);
	return data_terms(m, coef, sigma2, m->work, NULL, NULL, NULL);
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

	if (m->hidden > 0)
		return dpb_betad_mlp_logpost(m, par, grad);
	if (grad)
		memset(grad, 0, sizeof(double) * dpb_betad_dim(m));
	/* prior of the coefficients */
	for (j = 0; j < p; j++)
	{
		lp -= 0.5 * par[j] * par[j] / v2;
		if (grad)
			grad[j] -= par[j] / v2;
	}
	if (!m->gaussian)
		return lp + data_terms(m, par, 0.0, lin, g, grad, NULL);
	else
	{
		double		eta = par[p],
					e = exp(eta),
					s2 = m->s2 + e,
					dsum = 0;

		/* sigma^2 ~ InverseGamma(a, b0) above the floor; Jacobian e^eta */
		lp += -(m->ig_a + 1.0) * log(s2) - m->ig_b / s2 + eta;
		lp += data_terms(m, par, s2, lin, g, grad, &dsum);
		if (grad)
		{
			double		dsig;

			/* d/d sigma^2 of the loss terms, the prior; then chain to eta */
			dsig = dsum + (double) m->n * 0.5 * b * dpb_betad_gauss_integ(b, m->beta, s2) / s2 -
				(m->ig_a + 1.0) / s2 + m->ig_b / (s2 * s2);
			grad[p] = dsig * e + 1.0;
		}
		return lp;
	}
}
