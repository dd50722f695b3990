/*
 * betad_mlp.c — the betaD posterior of a one-hidden-layer network (issue
 * 28): log density and exact gradient by back-propagation (betad_model.h
 * has the model and the parameter order).
 *
 * The rows are processed in blocks of DPB_BETAD_MLP_BLOCK: the block's
 * hidden pre-activations A = X_b W' + 1 b' (dgemm), the activations Z, the
 * outputs u = Z c + c_0 (dgemv), the per-record terms and their derivatives
 * g by u (betad_kernel.c, the vector exp/log path), then, with a gradient,
 * dc += Z' g (dgemv), G = (g c') .* act'(A) and dW += G' X_b (dgemm) while
 * the block is still in cache.  One evaluation costs O(N H d) flops, two
 * dgemms per block.
 */
#include "betad_model.h"
#include "betad_kernel.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

size_t
dpb_betad_mlp_nwork(int hidden)
{
	return (size_t) 3 * DPB_BETAD_MLP_BLOCK * (size_t) (hidden > 0 ? hidden : 1);
}

static inline double
act(int kind, double a)
{
	return kind == DPB_BETAD_ACT_TANH ? tanh(a) : (a > 0 ? a : 0.0);
}

double
dpb_betad_mlp_output(int d, int hidden, int activation, const double *par, const double *x)
{
	int			ld = d + 1,
				h,
				j;
	const double *c = par + (size_t) hidden * ld;
	double		u = c[0];

	for (h = 0; h < hidden; h++)
	{
		double		a = par[h * ld];

		for (j = 0; j < d; j++)
			a += par[h * ld + 1 + j] * x[j];
		u += c[1 + h] * act(activation, a);
	}
	return u;
}

/*
 * sum_i -l_beta(D_i) of the network at par (W1, w2) and, Gaussian, the
 * variance s2.  With grad: grad[W1, w2] += the derivatives, *dsum += the
 * sum of the data terms' derivatives by s2.  NaN when interrupted.
 */
static double
mlp_data(const dpb_betad_model *m, const double *par, double s2, double *grad, double *dsum)
{
	int			d = m->d,
				H = m->hidden,
				ld = d + 1;
	const double *W = par,
			   *c = par + (size_t) H * ld;
	double	   *A = m->nwork,
			   *Z = A + (size_t) DPB_BETAD_MLP_BLOCK * H,
			   *G = Z + (size_t) DPB_BETAD_MLP_BLOCK * H,
			   *gW = grad,
			   *gc = grad ? grad + (size_t) H * ld : NULL,
				s = 0;
	int64_t		i0;

	for (i0 = 0; i0 < m->n; i0 += DPB_BETAD_MLP_BLOCK)
	{
		int			nb = (int) (m->n - i0 < DPB_BETAD_MLP_BLOCK ? m->n - i0 : DPB_BETAD_MLP_BLOCK),
					i,
					h;
		const double *Xb = m->X + i0 * d;
		double	   *ub = m->work + i0,
				   *gb = grad ? m->work + m->n + i0 : NULL;

		if (m->interrupt != NULL && m->interrupt())
			return NAN;
		/* A = X_b W_x' (nb x H), then the biases and the activations */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, H, d, 1.0, Xb, d, W + 1, ld,
					0.0, A, H);
		for (i = 0; i < nb; i++)
			for (h = 0; h < H; h++)
			{
				double		a = A[i * H + h] + W[h * ld];

				A[i * H + h] = a;
				Z[i * H + h] = act(m->activation, a);
			}
		cblas_dgemv(CblasRowMajor, CblasNoTrans, nb, H, 1.0, Z, H, c + 1, 1, 0.0, ub, 1);
		for (i = 0; i < nb; i++)
			ub[i] += c[0];
		s += m->gaussian ?
			dpb_betad_gauss_terms(ub, m->y + i0, nb, m->beta, s2, gb, dsum) :
			dpb_betad_logistic_terms(ub, m->y + i0, nb, m->beta, gb);
		if (grad)
		{
			for (i = 0; i < nb; i++)
				gc[0] += gb[i];
			cblas_dgemv(CblasRowMajor, CblasTrans, nb, H, 1.0, Z, H, gb, 1, 1.0, gc + 1, 1);
			/* G = (g c') .* act'(A); the biases' derivatives are its column
			 * sums, the weights' G' X_b */
			for (i = 0; i < nb; i++)
				for (h = 0; h < H; h++)
				{
					double		z = Z[i * H + h],
								dz = m->activation == DPB_BETAD_ACT_TANH ? 1.0 - z * z :
						(A[i * H + h] > 0 ? 1.0 : 0.0),
								gv = gb[i] * c[1 + h] * dz;

					G[i * H + h] = gv;
					gW[h * ld] += gv;
				}
			cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, d, nb, 1.0, G, H, Xb, d,
						1.0, gW + 1, ld);
		}
	}
	if (m->gaussian)
		s -= (double) m->n * dpb_betad_gauss_integ(m->beta - 1.0, m->beta, s2);
	return s;
}

double
dpb_betad_mlp_negloss(const dpb_betad_model *m, const double *par, double sigma2)
{
	if (m->nwork == NULL)
		return NAN;
	return mlp_data(m, par, sigma2, NULL, NULL);
}

double
dpb_betad_mlp_logpost(const dpb_betad_model *m, const double *par, double *grad)
{
	int			dim = dpb_betad_dim(m),
				p = dim - (m->gaussian ? 1 : 0),
				j;
	double		b = m->beta - 1.0,
				lp = 0,
				v2 = m->prior_sd * m->prior_sd;

	if (m->nwork == NULL)
		return NAN;				/* no block scratch: a caller's error */
	if (grad)
		memset(grad, 0, sizeof(double) * dim);
	/* N(0, prior_sd^2) on every weight and bias */
	for (j = 0; j < p; j++)
	{
		lp -= 0.5 * par[j] * par[j] / v2;
		if (grad)
			grad[j] -= par[j] / v2;
	}
	if (!m->gaussian)
		return lp + mlp_data(m, par, 0.0, grad, NULL);
	else
	{
		double		eta = par[p],
					e = exp(eta),
					s2 = m->s2 + e,
					dsum = 0;

		/* sigma^2 ~ InverseGamma(a, b0) above the floor; Jacobian e^eta */
		lp += -(m->ig_a + 1.0) * log(s2) - m->ig_b / s2 + eta;
		lp += mlp_data(m, par, s2, grad, &dsum);
		if (grad)
		{
			double		dsig;

			dsig = dsum + (double) m->n * 0.5 * b * dpb_betad_gauss_integ(b, m->beta, s2) / s2 -
				(m->ig_a + 1.0) / s2 + m->ig_b / (s2 * s2);
			grad[p] = dsig * e + 1.0;
		}
		return lp;
	}
}
