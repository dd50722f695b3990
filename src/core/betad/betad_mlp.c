/*
 * betad_mlp.c — the betaD posterior of a one-hidden-layer network (issue
 * 28): log density and exact gradient by back-propagation (betad_model.h
 * has the model and the parameter order).
 *
 * The rows are processed in blocks of DPB_BETAD_MLP_BLOCK, transposed (H x
 * nb: a unit's values over the block's rows are contiguous, so the
 * element-wise loops are long, branch-free and vectorisable): the block's
 * hidden pre-activations A' = W_x X_b' (dgemm) plus the biases, the
 * activations Z', the outputs u = Z c + c_0 (dgemv), the per-record terms
 * and their derivatives g by u (betad_kernel.c, the vector exp/log path),
 * then, with a gradient, dc += Z' g (dgemv), G' = (c g') .* act'(A') and
 * dW_x += G' X_b (dgemm) while the block is still in cache; the biases'
 * derivatives are G's row sums.  One evaluation costs O(N H d) flops, two
 * dgemms per block.
 */
#include "betad_model.h"
#include "betad_kernel.h"

#include <cblas.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
 * ReLU over n values: z = max(a + bh, 0), and the masked products
 * gh = [z > 0] ch g.  The sign of a pre-activation is unpredictable, so a
 * branch costs more than the arithmetic (GCC keeps one for the ternary at
 * -O2): SSE2 (every x86-64) takes two at a time without one.  Both paths
 * give 0 for a NaN pre-activation (maxpd returns its second operand, the
 * comparison is false), as the scalar tail does.
 */
static void
relu_fwd(int n, double bh, const double *restrict a, double *restrict z)
{
	int			i = 0;

#if defined(__SSE2__)
	__m128d		vb = _mm_set1_pd(bh),
				v0 = _mm_setzero_pd();

	for (; i + 1 < n; i += 2)
		_mm_storeu_pd(z + i, _mm_max_pd(_mm_add_pd(_mm_loadu_pd(a + i), vb), v0));
#endif
	for (; i < n; i++)
		z[i] = a[i] + bh > 0.0 ? a[i] + bh : 0.0;
}

/* ... and returns the sum of gh (the bias's derivative), in four running
 * sums: a fixed order, so the same value on every CPU */
static double
relu_back(int n, double ch, const double *restrict g, const double *restrict z,
		  double *restrict gh)
{
	int			i = 0;
	double		s = 0;

#if defined(__SSE2__)
	__m128d		vc = _mm_set1_pd(ch),
				v0 = _mm_setzero_pd(),
				s0 = v0,
				s1 = v0;
	double		t[2];

	for (; i + 3 < n; i += 4)
	{
		__m128d		p0 = _mm_and_pd(_mm_cmpgt_pd(_mm_loadu_pd(z + i), v0),
									_mm_mul_pd(vc, _mm_loadu_pd(g + i))),
					p1 = _mm_and_pd(_mm_cmpgt_pd(_mm_loadu_pd(z + i + 2), v0),
									_mm_mul_pd(vc, _mm_loadu_pd(g + i + 2)));

		_mm_storeu_pd(gh + i, p0);
		_mm_storeu_pd(gh + i + 2, p1);
		s0 = _mm_add_pd(s0, p0);
		s1 = _mm_add_pd(s1, p1);
	}
	_mm_storeu_pd(t, _mm_add_pd(s0, s1));
	s = t[0] + t[1];
#endif
	for (; i < n; i++)
	{
		gh[i] = z[i] > 0.0 ? ch * g[i] : 0.0;
		s += gh[i];
	}
	return s;
}

/*
 * The activations of one block, transposed (H x nb, row h contiguous, so
 * every loop below runs over the block's rows without a branch and can be
 * vectorised): Z = act(A + b 1'), A the products W_x X_b'.
 */
static void
block_act(int activation, int H, int nb, const double *bias, const double *restrict A,
		  double *restrict Z)
{
	int			h,
				i;

	for (h = 0; h < H; h++)
	{
		const double *restrict a = A + (size_t) h * nb;
		double	   *restrict z = Z + (size_t) h * nb;
		double		bh = bias[h];

		if (activation == DPB_BETAD_ACT_TANH)
			for (i = 0; i < nb; i++)
				z[i] = tanh(a[i] + bh);
		else
			relu_fwd(nb, bh, a, z);
	}
}

/*
 * G' = (c g') .* act'(A') (H x nb) from the block's output derivatives g;
 * adds the biases' derivatives (G's row sums) to gbias.  ReLU's derivative
 * is read from Z (Z > 0 exactly where A > 0).
 */
static void
block_back(int activation, int H, int nb, const double *c, const double *restrict g,
		   const double *restrict Z, double *restrict G, double *gbias)
{
	int			h,
				i;

	for (h = 0; h < H; h++)
	{
		const double *restrict z = Z + (size_t) h * nb;
		double	   *restrict gh = G + (size_t) h * nb;
		double		ch = c[h],
					s = 0;

		if (activation == DPB_BETAD_ACT_TANH)
			for (i = 0; i < nb; i++)
			{
				gh[i] = ch * g[i] * (1.0 - z[i] * z[i]);
				s += gh[i];
			}
		else
			s = relu_back(nb, ch, g, z, gh);
		gbias[h] += s;
	}
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
				ld = d + 1,
				h;
	const double *W = par,
			   *c = par + (size_t) H * ld;
	double	   *A = m->nwork,
			   *Z = A + (size_t) DPB_BETAD_MLP_BLOCK * H,
			   *G = Z + (size_t) DPB_BETAD_MLP_BLOCK * H,
			   *gW = grad,
			   *gc = grad ? grad + (size_t) H * ld : NULL,
				bias[DPB_BETAD_MAX_HIDDEN],
				gbias[DPB_BETAD_MAX_HIDDEN],
				s = 0;
	int64_t		i0;

	if (H < 1 || H > DPB_BETAD_MAX_HIDDEN)
		return NAN;
	for (h = 0; h < H; h++)
	{
		bias[h] = W[(size_t) h * ld];
		gbias[h] = 0;
	}
	for (i0 = 0; i0 < m->n; i0 += DPB_BETAD_MLP_BLOCK)
	{
		int			nb = (int) (m->n - i0 < DPB_BETAD_MLP_BLOCK ? m->n - i0 : DPB_BETAD_MLP_BLOCK),
					i;
		const double *Xb = m->X + i0 * d;
		double	   *ub = m->work + i0,
				   *gb = grad ? m->work + m->n + i0 : NULL;

		if (m->interrupt != NULL && m->interrupt())
			return NAN;
		/* A' = W_x X_b' (H x nb), then the biases and the activations */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, H, nb, d, 1.0, W + 1, ld, Xb, d,
					0.0, A, nb);
		block_act(m->activation, H, nb, bias, A, Z);
		/* u = Z c + c_0 */
		for (i = 0; i < nb; i++)
			ub[i] = c[0];
		cblas_dgemv(CblasRowMajor, CblasTrans, H, nb, 1.0, Z, nb, c + 1, 1, 1.0, ub, 1);
		s += m->gaussian ?
			dpb_betad_gauss_terms(ub, m->y + i0, nb, m->beta, s2, gb, dsum) :
			dpb_betad_logistic_terms(ub, m->y + i0, nb, m->beta, gb);
		if (grad)
		{
			for (i = 0; i < nb; i++)
				gc[0] += gb[i];
			cblas_dgemv(CblasRowMajor, CblasNoTrans, H, nb, 1.0, Z, nb, gb, 1, 1.0, gc + 1, 1);
			/* G = (c g') .* act'(A); the biases' derivatives are its row
			 * sums, the weights' G X_b */
			block_back(m->activation, H, nb, c + 1, gb, Z, G, gbias);
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, H, d, nb, 1.0, G, nb, Xb, d,
						1.0, gW + 1, ld);
		}
	}
	if (grad)
		for (h = 0; h < H; h++)
			gW[(size_t) h * ld] += gbias[h];
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
