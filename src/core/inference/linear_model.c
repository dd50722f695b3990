/*
 * linear_model.c — noise-aware linear regression with the statistics
 * marginalised (see linear_model.h): the log density on the unconstrained
 * phi, its exact gradient, the Laplace Gibbs step and the NUTS driver.
 *
 * Log density (scaled units):
 *   log N(z; N m, M = N V + D)                         release likelihood
 *   + the prior of (theta, sigma^2): weak (the default: independent
 *     normals on theta, sigma^2 ~ Exponential, posterior.h) or NIG:
 *     log N(theta; theta_mean, sigma^2 diag(1/theta_precision))
 *     + log InvGamma(sigma^2; sigma2_shape, sigma2_scale)  (as Gibbs-SS)
 *   + log N(mu; x_mean, Sigma / x_kappa) + log InvWishart(Sigma; x_df,
 *     x_scale)                                          ("update" moments)
 *   + log p(N) + log p(n_hat | N)                       (N unknown)
 *   + log |Jacobian| of phi -> (theta, sigma^2, mu, Sigma, N).
 * Gradient of the likelihood: with alpha = M^{-1} (z - N m),
 *   Wbar = -1/2 N (M^{-1} - alpha alpha^T), mbar = N alpha, so that
 *   d lik = <Wbar, dV> + mbar . dm (+ (-1/2 <M^{-1} - alpha alpha^T, V> +
 *   alpha . m) dN); then through Isserlis' formulas for m and V in the mean
 *   mv and covariance C of v = [w, y] (dpb_linear_joint_moments), and
 *   through C, mv in (theta, sigma^2, mu, Sigma): C_ww = Sigma (padded),
 *   C_wy = Sigma theta, C_yy = theta' Sigma theta + sigma^2, mv_y =
 *   theta' mv_w.  Sigma = L L^T: d/dL = 2 G L for the symmetric gradient G
 *   in Sigma; log |d Sigma / d phi_L| = sum_i (d - i + 1) log L_ii
 *   (0-based i, the exp of the diagonal included).
 * With o->lin.clamp (off by default) y's clamping at +-y_bound enters
 * after the joint moments: (mv_y, C_yy, C_xy) -> (E[y_c], Var(y_c),
 * P C_xy) (clamp_fwd, dpb_lin_clamp_moments), and their adjoints go back
 * through clamp_vjp before the chain above.
 */
#include "linear_model.h"

#include "clip.h"
#include "gauss_lik.h"
#include "gibbs_linear.h"
#include "linalg.h"
#include "nuts_chains.h"

#include <gsl/gsl_cblas.h>	/* cblas_dtrsm (OpenBLAS) */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dpb_lin_ctx
{
	const dpb_release *r;
	const dpb_infer_opts *o;
	dpb_layout	L;
	int			n,				/* modelled statistics */
				p,
				q,
				d,
				ic,
				nmu,			/* mu parameters: d or 0 */
				nchol,			/* Cholesky parameters: d(d+1)/2 or 0 */
				dim,
				nunk,
				laplace,
				eta_aug,		/* laplace: latent s = N m + chol(N V) eta (1),
								 * or N m + sqrt(N) B eta (2, the root form) */
				ymarg,			/* the root form with s_yy's own part and its
								 * noise integrated out (the mixed form) */
				kyy,			/* the statistic sum y^2 */
				polar,			/* the slopes and sigma in polar coordinates */
				ipol,			/* phi's index of log C (polar) */
				nlat,			/* latent coordinates (eta) */
				dim_phi;		/* dim without eta */
	double	   *rx;				/* root form scratch: 6 q x q + 3 q */
	double	   *zx;				/* omega form: Zs (np x np), P and C + P (q x q,
								 * stat_moments_lower), 4 np */
	int		   *pk;				/* omega form: packed index of (a, e), q x q */
	int		   *zd;				/* omega form: Zs's two entries of each pair
								 * (k, l <= k), 2 n (n + 1) / 2 */
	int			np;				/* q (q + 1) / 2 */
	double	   *ex;				/* eta_aug scratch: 3 n x n + n */
	int		   *ia,
			   *ib;
	double		N,
				sigma2,
				lik,
				dlik_dN;
	const double *z;
	double	   *D,				/* noise variances (omega for laplace) */
			   *bscale,			/* laplace scales */
			   *theta,
			   *mu,
			   *Lc,
			   *Sigma,
			   *Sinv,
			   *G,
			   *m,
			   *V,
			   *M,
			   *Wbar,
			   *mbar,
			   *mv,
			   *C,
			   *Cbar,
			   *mvbar,
			   *thbar,
			   *s,
			   *tmp;
	gsl_rng    *rng;
	int			clamp;			/* y's clamping modelled (o->lin.clamp) */
	double		Bc,				/* its bound, y_bound */
				cm0,			/* the unclamped mv_y, C_yy, C_xy */
				cs0,
				cxy0[DPB_MAX_D + 1],
				cr[DPB_MAX_D],	/* the root form: r = L^T theta_x, |r|^2, A_yy */
				cr2,
				cayy;
	dpb_lin_clamp cl;
	int			ccount;			/* the clamp scaled by the release's count of
								 * clamped records (dpb_lin_clamp_scale) */
	double		ccnt,			/* that count (>= 0), its noise variance, and N */
				ccvar,
				cN;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D];
};

int
dpb_lin_ctx_dim(const dpb_lin_ctx *c)
{
	return c->dim;
}

void
dpb_lin_set_rng(dpb_lin_ctx *c, gsl_rng *rng)
{
	c->rng = rng;
}

void
dpb_lin_ctx_free(dpb_lin_ctx *c)
{
	if (c == NULL)
		return;
	free(c->D);
	free(c->theta);
	free(c->ia);
	free(c->ex);
	free(c->rx);
	free(c->zx);
	free(c->pk);
	free(c->zd);
	free(c);
}

/* the noise variances as released: sigma^2, or E[omega] = 2 b^2 */
static void
reset_noise(dpb_lin_ctx *c)
{
	for (int k = 0; k < c->n; k++)
		c->D[k] = c->laplace ? 2 * c->bscale[k] * c->bscale[k] : c->bscale[k] * c->bscale[k];
}

dpb_lin_ctx *
dpb_lin_ctx_new(const dpb_release *r, const dpb_infer_opts *o)
{
	dpb_lin_ctx *c = calloc(1, sizeof(dpb_lin_ctx));
	size_t		n,
				q,
				d,
				total;
	double	   *b;
	int			k;

	if (c == NULL)
		return NULL;
	c->r = r;
	c->o = o;
	dpb_release_layout(r, &c->L);
	/* the count of an add/remove release (the last model statistic) is
	 * dpb_n_log_density's, as in Gibbs-SS; the moment blocks are not
	 * modelled */
	if (c->L.add_remove)
		c->L.nmodel--;
	c->n = c->L.nmodel;
	c->p = c->L.p;
	c->q = c->p + 1;
	c->d = r->d;
	c->ic = c->L.intercept;
	c->nmu = (o->lin.xmoments == DPB_XMOM_UPDATE && c->ic) ? c->d : 0;
	c->nchol = o->lin.xmoments == DPB_XMOM_UPDATE ? c->d * (c->d + 1) / 2 : 0;
	c->nunk = o->count.n_known ? 0 : 1;
	c->polar = o->lin.polar > 0 && c->d >= 2;	/* polar_chain */
	c->ipol = c->p + 1 + c->nmu + c->nchol;
	c->dim = c->p + 1 + c->nmu + c->nchol + c->polar + c->nunk;
	c->laplace = r->p.mechanism == DPB_MECH_LAPLACE;
	c->dim_phi = c->dim;
	c->eta_aug = c->laplace && o->lin.laplace_latent ? o->lin.laplace_latent : 0;
	/* the mixed form: the root form without G_yy (likelihood_root) */
	if (c->eta_aug == DPB_LIN_LATENT_MIXED)
	{
		c->eta_aug = 2;
		c->ymarg = 1;
	}
	/* the root form: xi (d + 1) and the symmetric G ((d + 1)(d + 2) / 2) */
	c->nlat = c->eta_aug == 2 ? (c->d + 1) + (c->d + 1) * (c->d + 2) / 2 - c->ymarg :
		c->eta_aug ? c->n : 0;
	c->dim += c->nlat;
	c->N = o->count.n_known ? o->count.n_hat : dpb_n_start(o);
	c->z = r->stats;
	c->clamp = c->ccount = 0;
	if (o->lin.clamp != 0 && r->model == DPB_MODEL_LINEAR && r->p.y_bound > 0)
	{
		double		cnt,
					csd;

		c->ccount = dpb_lin_clamp_count(r, o, &cnt, &csd);
		c->clamp = o->lin.clamp > 0 || c->ccount;
		if (c->ccount)
		{
			c->ccnt = cnt > 0 ? cnt : 0;
			c->ccvar = csd * csd;
			c->cN = o->count.n_hat > 0 ? o->count.n_hat : 0;
		}
	}
	c->Bc = r->p.y_bound;
	n = c->n;
	q = c->q;
	d = c->d;
	c->D = malloc(sizeof(double) * (2 * n + (size_t) r->nstats));
	total = c->p + d + 4 * d * d + n + 3 * n * n + n + q + 2 * q * q + q + c->p + 2 * n;
	c->theta = calloc(total, sizeof(double));
	c->ia = malloc(sizeof(int) * 2 * n);
	if (c->D == NULL || c->theta == NULL || c->ia == NULL)
	{
		dpb_lin_ctx_free(c);
		return NULL;
	}
	c->ib = c->ia + n;
	if (c->eta_aug == 1 && (c->ex = malloc(sizeof(double) * (3 * n * n + n))) == NULL)
	{
		dpb_lin_ctx_free(c);
		return NULL;
	}
	if (c->eta_aug == 2 && (c->rx = calloc(6 * q * q + 3 * q, sizeof(double))) == NULL)
	{
		dpb_lin_ctx_free(c);
		return NULL;
	}
	if (c->eta_aug == 0)
	{
		/* the omega form's Isserlis adjoint (moments_vjp_omega) */
		size_t		np = q * (q + 1) / 2;

		c->np = (int) np;
		c->zx = malloc(sizeof(double) * (np * np + 2 * q * q + 4 * np));
		c->pk = malloc(sizeof(int) * q * q);
		c->zd = malloc(sizeof(int) * n * (n + 1));
		if (c->zx == NULL || c->pk == NULL || c->zd == NULL)
		{
			dpb_lin_ctx_free(c);
			return NULL;
		}
		for (size_t a = 0, t = 0; a < q; a++)
			for (size_t e = a; e < q; e++, t++)
				c->pk[a * q + e] = c->pk[e * q + a] = (int) t;
	}
	c->kyy = -1;
	for (k = 0; k < (int) n; k++)
	{
		dpb_layout_linear_factors(&c->L, k, &c->ia[k], &c->ib[k]);
		if (c->ia[k] == c->p && c->ib[k] == c->p)
			c->kyy = k;
	}
	if (c->ymarg && c->kyy < 0)
	{
		dpb_lin_ctx_free(c);
		return NULL;
	}
	if (c->eta_aug == 0)
	{
		/* the pair (k, l <= k) adds to Zs at (ae, bf) and (af, be), each
		 * in the lower triangle (moments_vjp_omega) */
		int			np = c->np,
					t = 0;

		for (k = 0; k < (int) n; k++)
			for (int l = 0; l <= k; l++)
			{
				int			i1 = c->pk[c->ia[k] * q + c->ia[l]],
							j1 = c->pk[c->ib[k] * q + c->ib[l]],
							i2 = c->pk[c->ia[k] * q + c->ib[l]],
							j2 = c->pk[c->ib[k] * q + c->ia[l]];

				c->zd[t++] = i1 >= j1 ? i1 * np + j1 : j1 * np + i1;
				c->zd[t++] = i2 >= j2 ? i2 * np + j2 : j2 * np + i2;
			}
	}
	/* noise scales of every statistic (the count too), then the variances */
	c->bscale = c->D + n;
	dpb_release_noise_scale(r, c->bscale);
	reset_noise(c);
	/* carve the buffers from one block */
	{
		double	  **bufs[] = {&c->mu, &c->Lc, &c->Sigma, &c->Sinv, &c->G, &c->m, &c->V,
			&c->M, &c->Wbar, &c->mbar, &c->mv, &c->C, &c->Cbar, &c->mvbar, &c->thbar,
		&c->s, &c->tmp};
		size_t		len[] = {d, d * d, d * d, d * d, d * d, n, n * n, n * n, n * n, n, q,
			q * q, q * q, q, c->p, n, n};

		b = c->theta + c->p;
		for (k = 0; k < (int) (sizeof(len) / sizeof(len[0])); k++)
		{
			*bufs[k] = b;
			b += len[k];
		}
	}
	/* the root and polar forms with Sigma fixed: its Cholesky factor, once */
	if ((c->eta_aug == 2 || c->polar) && !c->nchol)
	{
		memcpy(c->Lc, o->lin.x_cov, sizeof(double) * d * d);
		if (dpb_chol(c->Lc, (int) d, NULL) != DPB_OK)
		{
			dpb_lin_ctx_free(c);
			return NULL;
		}
		for (size_t i = 0; i < d; i++)
			for (size_t j = i + 1; j < d; j++)
				c->Lc[i * d + j] = 0;
	}
	return c;
}

/*
 * An unknown N in the latent form (no upper bound): N = n_lo + s
 * softplus(u), s = the count's noise sd, instead of dpb_n_from_u's
 * n_lo + e^u.  Where the latent form is taken the count is noisy relative
 * to N, and N's posterior reaches towards n_lo: in log N that left tail is
 * long against the bulk (u's scale there is s / N), in u it is not.
 */
static int
lin_n_softplus(const dpb_lin_ctx *c)
{
	return c->eta_aug && isinf(c->o->count.n_hi) && c->o->count.n_sd > 0;
}

static double
lin_n_from_u(const dpb_lin_ctx *c, double u, double *dNdu, double *logjac,
			 double *dlogjac)
{
	const dpb_infer_opts *o = c->o;
	double		s = o->count.n_sd,
				sp,
				sg;

	if (!lin_n_softplus(c))
		return dpb_n_from_u(o, u, dNdu, logjac, dlogjac);
	/* softplus(u) and sigmoid(u), stable both ways */
	sp = u > 0 ? u + log1p(exp(-u)) : log1p(exp(u));
	sg = u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
	*dNdu = s * sg;
	*logjac = log(s) + (u > 0 ? -log1p(exp(-u)) : u - log1p(exp(u)));
	*dlogjac = 1 - sg;
	return o->count.n_lo + s * sp;
}

static double
lin_n_to_u(const dpb_lin_ctx *c, double N)
{
	double		t;

	if (!lin_n_softplus(c))
		return dpb_n_to_u(c->o, N);
	t = (N - c->o->count.n_lo) / c->o->count.n_sd;
	/* the inverse of softplus: log(e^t - 1) */
	return t > 30 ? t + log1p(-exp(-t)) : log(expm1(t));
}

/* theta, sigma^2, mu, Lc, Sigma and N from phi; dNdu etc. for N unknown */
static int
unpack(dpb_lin_ctx *c, const double *phi, double *dNdu, double *logjac,
	   double *dlogjac)
{
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				d = c->d,
				i,
				j,
				k;
	const double *ph = phi + p + 1;

	if (c->nmu)
		memcpy(c->mu, ph, sizeof(double) * d);
	else
		memcpy(c->mu, o->x_mean, sizeof(double) * d);
	ph += c->nmu;
	if (c->nchol)
	{
		memset(c->Lc, 0, sizeof(double) * d * d);
		for (i = 0, k = 0; i < d; i++)
			for (j = 0; j <= i; j++, k++)
				c->Lc[i * d + j] = i == j ? exp(ph[k]) : ph[k];
		for (i = 0; i < d; i++)
			for (j = 0; j <= i; j++)
			{
				double		t = 0;

				for (k = 0; k <= j; k++)
					t += c->Lc[i * d + k] * c->Lc[j * d + k];
				c->Sigma[i * d + j] = c->Sigma[j * d + i] = t;
			}
	}
	else
		memcpy(c->Sigma, o->lin.x_cov, sizeof(double) * d * d);
	memcpy(c->theta, phi, sizeof(double) * p);
	c->sigma2 = exp(2 * phi[p]);
	if (c->polar)
	{
		/* sigma^2 = C s, r_x = L^T theta_x = t w_x / |w_x|, t^2 = C (1 - s) */
		const double *w = phi + c->ic;
		double		ww = 0,
					C = exp(phi[c->ipol]),
					lam = phi[p],
					s = lam >= 0 ? 1 / (1 + exp(-lam)) : exp(lam) / (1 + exp(lam)),
					f;

		for (j = 0; j < d; j++)
			ww += w[j] * w[j];
		c->sigma2 = C * s;
		f = sqrt(C * (1 - s) / ww);
		if (!(ww > 0) || !dpb_isfinite(f))
			return 1;
		/* theta_x = L^-T r_x (back substitution) */
		for (j = d - 1; j >= 0; j--)
		{
			double		t = f * w[j];

			for (i = j + 1; i < d; i++)
				t -= c->Lc[i * d + j] * c->theta[c->ic + i];
			c->theta[c->ic + j] = t / c->Lc[j * d + j];
		}
	}
	if (c->ic)
		for (j = 0; j < d; j++)
			c->theta[0] -= c->theta[1 + j] * c->mu[j];
	if (c->nunk)
		c->N = lin_n_from_u(c, phi[c->dim_phi - 1], dNdu, logjac, dlogjac);
	if (!(c->sigma2 > 0) || !dpb_isfinite(c->sigma2) || !(c->N > 0))
		return 1;
	return 0;
}

void
dpb_lin_unpack(dpb_lin_ctx *c, const double *phi, double *theta, double *sigma2,
			   double *mu, double *Sigma, double *N)
{
	double		a,
				b,
				e;

	unpack(c, phi, &a, &b, &e);
	memcpy(theta, c->theta, sizeof(double) * c->p);
	*sigma2 = c->sigma2;
	memcpy(mu, c->mu, sizeof(double) * c->d);
	memcpy(Sigma, c->Sigma, sizeof(double) * c->d * c->d);
	*N = c->N;
}

void
dpb_lin_clamp_moments(double m, double s2, double B, dpb_lin_clamp *o)
{
	double		s = sqrt(s2),
				al = (-B - m) / s,
				be = (B - m) / s,
				Pa = gsl_cdf_ugaussian_P(al),	/* the lower tail, clamped at -B */
				Qb = gsl_cdf_ugaussian_Q(be),	/* the upper tail, clamped at B */
				fa = gsl_ran_ugaussian_pdf(al),
				fb = gsl_ran_ugaussian_pdf(be),
				omp = Pa + Qb,
				P,
				D1,
				D2,
				E1,
				T1,
				dE2ds,
				dVds,
				dPds;

	/* P = Phi(beta) - Phi(alpha) from the side where it keeps its digits */
	if (al > 0)
		P = gsl_cdf_ugaussian_Q(al) - Qb;
	else if (be < 0)
		P = gsl_cdf_ugaussian_P(be) - Pa;
	else
		P = 1 - omp;
	/* E[y_c] - m and E[y_c^2] - m^2 - s^2, then Var(y_c) - s^2 */
	D1 = -m * omp + s * (fa - fb) + B * (Qb - Pa);
	D2 = (B * B - m * m - s2) * omp + s * ((m - B) * fa - (m + B) * fb);
	E1 = m + D1;
	o->mean = E1;
	o->dvar = D2 - D1 * (2 * m + D1);
	o->var = s2 + o->dvar;
	if (be < 0 || al > 0)
	{
		/*
		 * |m| > B: the model's y is mostly clamped at one bound, Var(y_c)
		 * is far below s2 and the difference above loses its digits (terms
		 * of size m^2).  Directly from u = B - y_c >= 0 (for m > B; m < -B
		 * by symmetry): with the partial moments G1(x) = x Phi(x) + phi(x),
		 * G2(x) = (x^2 + 1) Phi(x) + x phi(x), E[u] = s (G1(b) - G1(a)),
		 * E[u^2] = s^2 (G2(b) - G2(a) - 2 (b - a) G1(a)), b = (B - |m|) / s
		 * and a = (-B - |m|) / s.  Their cancellation costs about 4 log10
		 * |b| digits, not 16.
		 */
		double		b = be < 0 ? be : -al,
					a = be < 0 ? al : -be,
					Fb = gsl_cdf_ugaussian_P(b),
					Fa = gsl_cdf_ugaussian_P(a),
					pb = gsl_ran_ugaussian_pdf(b),
					pa = gsl_ran_ugaussian_pdf(a),
					G1b = b * Fb + pb,
					G1a = isfinite(a) ? a * Fa + pa : 0,
					G2b = (b * b + 1) * Fb + b * pb,
					G2a = isfinite(a) ? (a * a + 1) * Fa + a * pa : 0,
					Eu = G1b - G1a,
					v = G2b - G2a - (isfinite(a) ? 2 * (b - a) * G1a : 0) - Eu * Eu;

		o->var = s2 * fmax(v, 0);
		o->dvar = o->var - s2;
	}
	o->P = P;
	o->omp = omp;
	/* d/dm E[g(y)] = E[g'(y)], d/ds E[g(y)] = E[g'(y) z]: E[y_c] has g' =
	 * 1{|y| < B}, E[y_c^2] has 2 y 1{|y| < B} */
	T1 = m * P + s * (fa - fb);	/* E[y 1{|y| < B}] */
	dE2ds = 2 * (m * (fa - fb) + s * (P + (isfinite(al) ? al * fa : 0) -
									 (isfinite(be) ? be * fb : 0)));
	o->dmean_dm = P;
	o->dmean_ds2 = (fa - fb) / (2 * s);
	o->dvar_dm = 2 * T1 - 2 * E1 * P;
	dVds = dE2ds - 2 * E1 * (fa - fb);
	o->dvar_ds2 = dVds / (2 * s);
	o->dP_dm = (fa - fb) / s;
	dPds = ((isfinite(al) ? al * fa : 0) - (isfinite(be) ? be * fb : 0)) / s;
	o->dP_ds2 = dPds / (2 * s);
}

void
dpb_lin_clamp_scale(dpb_lin_clamp *k, double m, double N, double c, double v)
{
	double		t = v / (DPB_LIN_CLAMP_TAU * DPB_LIN_CLAMP_TAU),
				A = N * k->omp,
				num = t + A * c,
				den = t + A * A,
				kap = 1,
				dkA = 0,
				km,
				ks,
				D1 = k->mean - m,
				g_dvar = k->dvar,
				g_omp = k->omp;

	if (den > 0 && isfinite(den))
	{
		kap = num / den;
		dkA = (c * den - num * 2 * A) / (den * den);
		if (kap > DPB_LIN_CLAMP_KMAX)
		{
			kap = DPB_LIN_CLAMP_KMAX;
			dkA = 0;
		}
	}
	/* dA/dm = -N dP/dm */
	km = -dkA * N * k->dP_dm;
	ks = -dkA * N * k->dP_ds2;
	k->mean = m + kap * D1;
	k->dmean_dm = 1 + kap * (k->dmean_dm - 1) + D1 * km;
	k->dmean_ds2 = kap * k->dmean_ds2 + D1 * ks;
	k->dvar = kap * g_dvar;
	k->var += k->dvar - g_dvar;
	k->dvar_dm = kap * k->dvar_dm + g_dvar * km;
	k->dvar_ds2 = 1 + kap * (k->dvar_ds2 - 1) + g_dvar * ks;
	k->omp = kap * g_omp;
	k->P = 1 - k->omp;
	k->dP_dm = kap * k->dP_dm - g_omp * km;
	k->dP_ds2 = kap * k->dP_ds2 - g_omp * ks;
}

int
dpb_lin_clamp_count(const dpb_release *r, const dpb_infer_opts *o,
					double *c, double *sd)
{
	if (dpb_release_yclamp(r, c, sd))
		return 1;
	if (o->lin.clamp_count_sd >= 0)
	{
		*c = o->lin.clamp_count;
		*sd = o->lin.clamp_count_sd;
		return 1;
	}
	return 0;
}

/*
 * The clamp in the joint moments (after dpb_linear_joint_moments): mv_y,
 * C_yy and C_xy become E[y_c], Var(y_c) and P C_xy; the originals are kept
 * for clamp_vjp
 */
static void
clamp_fwd(dpb_lin_ctx *c)
{
	int			p = c->p,
				q = c->q;

	if (!c->clamp)
		return;
	c->cm0 = c->mv[p];
	c->cs0 = c->C[p * q + p];
	dpb_lin_clamp_moments(c->cm0, c->cs0, c->Bc, &c->cl);
	if (c->ccount)
		dpb_lin_clamp_scale(&c->cl, c->cm0, c->cN, c->ccnt, c->ccvar);
	c->mv[p] = c->cl.mean;
	c->C[p * q + p] = c->cl.var;
	for (int a = 0; a < p; a++)
	{
		c->cxy0[a] = c->C[a * q + p];
		c->C[a * q + p] = c->C[p * q + a] = c->cl.P * c->cxy0[a];
	}
}

/*
 * The adjoints of the clamped (mv_y, C_yy, C_xy) (and, in the root form,
 * of A's row y: A_yx = P r^T, r = L^T theta_x, A_yy = sqrt(W), W = Var(y_c)
 * - P^2 |r|^2) back to the unclamped ones, in place in mvbar and Cbar; C
 * and mv are restored.  Returns what |r|^2's adjoint adds to sigma^2's
 * (|r|^2 = C_yy - sigma^2: its adjoint goes into Cbar_yy and out of
 * sigma^2's).
 */
static double
clamp_vjp(dpb_lin_ctx *c)
{
	int			p = c->p,
				q = c->q,
				a;
	const dpb_lin_clamp *k = &c->cl;
	double		Eb = c->mvbar[p],
				Vb = c->Cbar[p * q + p],
				Pb = 0,
				r2b = 0;

	if (!c->clamp)
		return 0;
	for (a = 0; a < p; a++)
	{
		double		g = c->Cbar[a * q + p] + c->Cbar[p * q + a];

		Pb += g * c->cxy0[a];
		c->Cbar[a * q + p] = g * k->P;
		c->Cbar[p * q + a] = 0;
	}
	if (c->eta_aug == 2)
	{
		double	   *Abar = c->rx + 5 * q * q,
					Wb;

		for (a = 0; a < c->d; a++)
		{
			Pb += Abar[p * q + c->ic + a] * c->cr[a];
			Abar[p * q + c->ic + a] *= k->P;
		}
		Wb = Abar[p * q + p] / (2 * c->cayy);
		Abar[p * q + p] = 0;
		Vb += Wb;
		Pb -= 2 * k->P * c->cr2 * Wb;
		r2b = -k->P * k->P * Wb;
	}
	c->mvbar[p] = Eb * k->dmean_dm + Vb * k->dvar_dm + Pb * k->dP_dm;
	c->Cbar[p * q + p] = Eb * k->dmean_ds2 + Vb * k->dvar_ds2 + Pb * k->dP_ds2 + r2b;
	c->mv[p] = c->cm0;
	c->C[p * q + p] = c->cs0;
	for (a = 0; a < p; a++)
		c->C[a * q + p] = c->C[p * q + a] = c->cxy0[a];
	return -r2b;
}

/* m and V (both triangles) from the clamped mv and C (Isserlis) */
static void
stat_moments_full(dpb_lin_ctx *c, double *m, double *V)
{
	int			n = c->n,
				q = c->q;
	const double *C = c->C,
			   *mv = c->mv;

	for (int k = 0; k < n; k++)
	{
		int			a = c->ia[k],
					b = c->ib[k];

		m[k] = C[a * q + b] + mv[a] * mv[b];
		for (int l = 0; l <= k; l++)
		{
			int			e = c->ia[l],
						f = c->ib[l];

			V[k * n + l] = V[l * n + k] =
				C[a * q + e] * C[b * q + f] + C[a * q + f] * C[b * q + e]
				+ mv[a] * mv[e] * C[b * q + f] + mv[a] * mv[f] * C[b * q + e]
				+ mv[b] * mv[e] * C[a * q + f] + mv[b] * mv[f] * C[a * q + e];
		}
	}
}

/* m and V of one record's statistics at the unpacked parameters, with the
 * clamp when it is on (C and mv restored) */
static void
lin_stat_moments(dpb_lin_ctx *c, double *m, double *V)
{
	if (!c->clamp)
	{
		dpb_linear_stat_moments(&c->L, c->theta, c->sigma2, c->mu, c->Sigma, m, V);
		return;
	}
	dpb_linear_joint_moments(&c->L, c->theta, c->sigma2, c->mu, c->Sigma, c->mv, c->C);
	clamp_fwd(c);
	stat_moments_full(c, m, V);
}

/*
 * log N(z; N m, N V + D) with mbar = N alpha and M^{-1} in M's lower
 * triangle (gauss_lik.h); Wbar = -1/2 N (M^{-1} - alpha alpha^T) is not
 * formed: moments_vjp_omega reads it from M and mbar, and sets dlik_dN
 */
static int
likelihood(dpb_lin_ctx *c)
{
	return dpb_gauss_lik_adjoint(c->n, c->N, c->z, c->D, c->m, c->V, c->M, NULL, c->mbar,
								 &c->lik, NULL);
}

/*
 * m and the lower triangle of V (Isserlis) from mv and C, as
 * dpb_linear_stat_moments (the lower triangle is all that the omega form's
 * likelihood reads)
 */
static void
stat_moments_lower(dpb_lin_ctx *c)
{
	int			n = c->n,
				q = c->q,
				k,
				l;
	const double *C = c->C,
			   *mv = c->mv;
	double	   *P = c->zx + (size_t) c->np * c->np,
			   *Ct = P + q * q;

	/*
	 * V_kl = C_ae Ct_bf + C_af Ct_be + P_ae C_bf + P_af C_be with P = mv
	 * mv^T, Ct = C + P: Isserlis' six terms in four products
	 */
	for (k = 0; k < q; k++)
		for (l = 0; l < q; l++)
		{
			P[k * q + l] = mv[k] * mv[l];
			Ct[k * q + l] = C[k * q + l] + P[k * q + l];
		}
	for (k = 0; k < n; k++)
	{
		int			a = c->ia[k],
					b = c->ib[k];
		const double *Ca = C + a * q,
				   *Cb = C + b * q,
				   *Pa = P + a * q,
				   *Tb = Ct + b * q;
		double	   *Vk = c->V + k * n;

		c->m[k] = Ca[b] + mv[a] * mv[b];
		for (l = 0; l <= k; l++)
		{
			int			e = c->ia[l],
						f = c->ib[l];

			Vk[l] = Ca[e] * Tb[f] + Ca[f] * Tb[e] + Pa[e] * Cb[f] + Pa[f] * Cb[e];
		}
	}
}

/*
 * Laplace, latent statistics non-centred: s = N m + L eta, L L^T = N V,
 * eta ~ N(0, I), z - s ~ Laplace(b).  lik = -sum |z - s| / b - eta'eta / 2;
 * its adjoints: mbar = N sbar, Wbar = N Sym(L^-T Phi(L^T Lbar) L^-1) with
 * Lbar = sbar eta^T (lower), sbar = sign(z - s) / b; eta's gradient into
 * geta.
 */
static int
likelihood_eta(dpb_lin_ctx *c, const double *eta, double *geta)
{
	int			n = c->n,
				i,
				j;
	double	   *L = c->M,
			   *P = c->ex,
			   *S,
			   *sb = c->ex + 3 * n * n,
				lik = 0,
				N = c->N;

	for (i = 0; i < n * n; i++)
		L[i] = N * c->V[i];
	if (dpb_chol(L, n, NULL) != DPB_OK)
		return 1;
	for (i = 0; i < n; i++)
	{
		double		s = N * c->m[i],
					r;

		for (j = 0; j <= i; j++)
			s += L[i * n + j] * eta[j];
		r = c->z[i] - s;
		c->s[i] = s;
		lik -= fabs(r) / c->bscale[i] + 0.5 * eta[i] * eta[i];
		sb[i] = (r > 0 ? 1.0 : r < 0 ? -1.0 : 0.0) / c->bscale[i];
		c->mbar[i] = N * sb[i];
	}
	/* eta: L^T sbar - eta */
	for (j = 0; j < n; j++)
	{
		double		t = -eta[j];

		for (i = j; i < n; i++)
			t += L[i * n + j] * sb[i];
		geta[j] = t;
	}
	/*
	 * P = Phi(L^T Lbar), Lbar_kj = sb_k eta_j (k >= j): for j <= i,
	 * (L^T Lbar)_ij = sum_{k >= i} L_ki sb_k eta_j = g_i eta_j with g =
	 * L^T sb = geta + eta
	 */
	for (i = 0; i < n; i++)
	{
		double		g = geta[i] + eta[i];

		for (j = 0; j < i; j++)
			P[i * n + j] = g * eta[j];
		P[i * n + i] = 0.5 * g * eta[i];
		for (j = i + 1; j < n; j++)
			P[i * n + j] = 0;
	}
	/* S = L^-T P L^-1: solve L^T X = P, then S L = X (in place, in P) */
	cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit,
				n, n, 1.0, L, n, P, n);
	cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit,
				n, n, 1.0, L, n, P, n);
	S = P;
	c->dlik_dN = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
		{
			c->Wbar[i * n + j] = 0.5 * N * (S[i * n + j] + S[j * n + i]);
			c->dlik_dN += c->Wbar[i * n + j] * c->V[i * n + j] / N;
		}
	for (i = 0; i < n; i++)
		c->dlik_dN += sb[i] * c->m[i];
	c->lik = lik;
	return dpb_isfinite(lik) ? 0 : 1;
}

/*
 * Laplace, the root form: s = N m + sqrt(N) S, S the symmetric q x q
 * matrix mv u^T + u mv^T + A G A^T read at the statistics' pairs (a_k,
 * b_k), with A A^T = C (A: rows x, y = L_Sigma, theta_x^T L_Sigma and 0,
 * sigma), u = A xi and G symmetric, G_ii = sqrt 2 eta_ii, G_ij = eta_ij.
 * With xi, eta ~ N(0, I) the linear part (mv u^T + u mv^T) and the
 * quadratic part (A G A^T, the Gaussian with the covariance of
 * A (xi xi^T - I) A^T) are uncorrelated and together have Isserlis'
 * covariance V: s ~ N(N m, N V) exactly as in the Cholesky form, at
 * O(q^3) per gradient instead of O(n^3) = O(q^6).  lik = -sum |z - s| / b
 * - |lat|^2 / 2.  With E the symmetric matrix of sbar = sign(z - s) / b
 * (E_ab = E_ba = sbar_k / 2 off the diagonal): d<E, S> = 2 mv^T E du +
 * 2 u^T E dmv + tr(A^T E A dG) + 2 tr(G A^T E dA); mbar = N sbar (to
 * moments_vjp), the rest into rx: mvbar (added after moments_vjp) and
 * Abar, chained by root_chain.
 */
static int
likelihood_root(dpb_lin_ctx *c, const double *lat, double *glat)
{
	int			n = c->n,
				q = c->q,
				p = c->p,
				d = c->d,
				ic = c->ic,
				a,
				b,
				e,
				k;
	double	   *A = c->rx,
			   *G = A + q * q,
			   *E = G + q * q,
			   *T = E + q * q,	/* A G, then E A */
			   *S = T + q * q,
			   *Abar = S + q * q,
			   *u = Abar + q * q,
			   *ub = u + q,
			   *mvb = ub + q,
				N = c->N,
				rN = sqrt(N),
				lik = 0,
				dN = 0,
				ydv = 0;
	const double *xi = lat,
			   *eta = lat + d + 1;

	/* A (q x q, columns indexed like the rows; row and column 0 zero with
	 * an intercept) */
	memset(A, 0, sizeof(double) * q * q);
	for (a = 0; a < d; a++)
		for (b = 0; b <= a; b++)
		{
			A[(ic + a) * q + ic + b] = c->Lc[a * d + b];
			A[p * q + ic + b] += c->theta[ic + a] * c->Lc[a * d + b];
		}
	A[p * q + p] = sqrt(c->sigma2);
	if (c->clamp)
	{
		/* the clamp: A_yx = P r^T, A_yy = sqrt(W), W = Var(y_c) - P^2 |r|^2
		 * = sigma^2 + dvar + (1 - P^2) |r|^2 (clamp_vjp) */
		double		r2 = 0;

		for (b = 0; b < d; b++)
		{
			c->cr[b] = A[p * q + ic + b];
			r2 += c->cr[b] * c->cr[b];
			A[p * q + ic + b] *= c->cl.P;
		}
		c->cr2 = r2;
		c->cayy = sqrt(c->cl.var - c->cl.P * c->cl.P * r2 + DPB_LIN_CLAMP_WFLOOR * c->Bc * c->Bc);
		if (!(c->cayy > 0) || !dpb_isfinite(c->cayy))
			return 1;
		A[p * q + p] = c->cayy;
	}
	/* G, u = A xi */
	memset(G, 0, sizeof(double) * q * q);
	for (a = 0, k = 0; a <= d; a++)
		for (b = a; b <= d && !(c->ymarg && a == d); b++, k++)
			G[(ic + a) * q + ic + b] = G[(ic + b) * q + ic + a] =
				a == b ? M_SQRT2 * eta[k] : eta[k];
	for (a = 0; a < q; a++)
	{
		double		t = 0;

		for (b = ic; b < q; b++)
			t += A[a * q + b] * xi[b - ic];
		u[a] = t;
	}
	/* S = mv u^T + u mv^T + A G A^T */
	for (a = 0; a < q; a++)
		for (b = 0; b < q; b++)
		{
			double		t = 0;

			for (e = ic; e <= a; e++)	/* A lower triangular */
				t += A[a * q + e] * G[e * q + b];
			T[a * q + b] = t;
		}
	for (a = 0; a < q; a++)
		for (b = 0; b <= a; b++)
		{
			double		t = c->mv[a] * u[b] + u[a] * c->mv[b];

			for (e = ic; e <= b; e++)
				t += T[a * q + e] * A[b * q + e];
			S[a * q + b] = S[b * q + a] = t;
		}
	/* the statistics, E */
	memset(E, 0, sizeof(double) * q * q);
	for (k = 0; k < n; k++)
	{
		int			ka = c->ia[k],
					kb = c->ib[k];
		double		m = c->C[ka * q + kb] + c->mv[ka] * c->mv[kb],
					s = N * m + rN * S[ka * q + kb],
					r = c->z[k] - s,
					sb = (r > 0 ? 1.0 : r < 0 ? -1.0 : 0.0) / c->bscale[k];

		c->m[k] = m;
		c->s[k] = s;
		if (k == c->kyy && c->ymarg)
		{
			/*
			 * the mixed form: s_yy = s + sqrt(2N) sigma^2 eta_yy, and eta_yy
			 * enters no other statistic; with it and the noise integrated
			 * out, z_yy - s ~ N(0, v = 2 N sigma^4) * Laplace(b)
			 */
			double		dr,
						dv,
						a2 = c->clamp ? A[p * q + p] * A[p * q + p] : c->sigma2,	/* or W */
						v = 2 * N * a2 * a2;

			lik += dpb_laplace_gauss_logconv(r, v, c->bscale[k], &dr, &dv);
			sb = -dr;			/* d lik / d s */
			ydv = dv;
		}
		else
			lik -= fabs(r) / c->bscale[k];
		c->mbar[k] = N * sb;
		dN += sb * (m + 0.5 * S[ka * q + kb] / rN);
		if (ka == kb)
			E[ka * q + ka] += sb;
		else
		{
			E[ka * q + kb] += 0.5 * sb;
			E[kb * q + ka] += 0.5 * sb;
		}
	}
	for (k = 0; k < c->nlat; k++)
		lik -= 0.5 * lat[k] * lat[k];
	/* ub = 2 rN E mv, mvb = 2 rN E u; T = E A */
	for (a = 0; a < q; a++)
	{
		double		t1 = 0,
					t2 = 0;

		for (b = 0; b < q; b++)
		{
			t1 += E[a * q + b] * c->mv[b];
			t2 += E[a * q + b] * u[b];
		}
		ub[a] = 2 * rN * t1;
		mvb[a] = 2 * rN * t2;
	}
	for (a = 0; a < q; a++)
		for (b = ic; b < q; b++)
		{
			double		t = 0;

			for (e = b; e < q; e++)
				t += E[a * q + e] * A[e * q + b];
			T[a * q + b] = t;
		}
	/* xi: A^T ub - xi */
	for (b = ic; b < q; b++)
	{
		double		t = -xi[b - ic];

		for (a = b; a < q; a++)
			t += A[a * q + b] * ub[a];
		glat[b - ic] = t;
	}
	/* eta: Gbar = rN A^T E A = rN A^T T */
	for (a = 0, k = 0; a <= d; a++)
		for (b = a; b <= d && !(c->ymarg && a == d); b++, k++)
		{
			double		t = 0;

			for (e = ic + a; e < q; e++)
				t += A[e * q + ic + a] * T[e * q + ic + b];
			glat[d + 1 + k] = (a == b ? M_SQRT2 : 2.0) * rN * t - eta[k];
		}
	/* Abar = 2 rN E A G + ub xi^T = 2 rN T G + ub xi^T (its lower
	 * triangle: A's) */
	for (a = 0; a < q; a++)
		for (b = ic; b <= a; b++)
		{
			double		t = 0;

			for (e = ic; e < q; e++)
				t += T[a * q + e] * G[e * q + b];
			Abar[a * q + b] = 2 * rN * t + ub[a] * xi[b - ic];
		}
	/* the mixed form: v = 2 N A_yy^4 */
	if (c->ymarg)
	{
		double		a2 = c->clamp ? A[p * q + p] * A[p * q + p] : c->sigma2;

		Abar[p * q + p] += ydv * 8 * N * a2 * A[p * q + p];
		dN += ydv * 2 * a2 * a2;
	}
	c->dlik_dN = dN;
	c->lik = lik;
	return dpb_isfinite(lik) ? 0 : 1;
}

/*
 * Adjoints of Isserlis' formulas: Cbar (q x q, entries as read; only
 * Cbar + Cbar^T is meaningful) and mvbar from Wbar (lower triangle of a
 * symmetric matrix: only its lower triangle is read) and mbar.
 */
static void
moments_vjp(dpb_lin_ctx *c)
{
	int			n = c->n,
				q = c->q,
				k,
				l;
	const double *C = c->C,
			   *mv = c->mv;
	double	   *Cb = c->Cbar,
			   *mb = c->mvbar;

	memset(Cb, 0, sizeof(double) * q * q);
	memset(mb, 0, sizeof(double) * q);
	for (k = 0; k < n; k++)
	{
		int			a = c->ia[k],
					b = c->ib[k];
		double		g = c->mbar[k];

		Cb[a * q + b] += g;
		mb[a] += g * mv[b];
		mb[b] += g * mv[a];
		if (c->eta_aug == 2)
			continue;			/* the root form: no Wbar */
		/* Wbar and V are symmetric, and the chain below reads only
		 * Cbar + Cbar^T: the (l, k) term adds what the (k, l) one does */
		for (l = 0; l <= k; l++)
		{
			int			e = c->ia[l],
						f = c->ib[l];
			double		w = (l == k ? 1.0 : 2.0) * c->Wbar[k * n + l];

			if (w == 0)
				continue;
			Cb[a * q + e] += w * (C[b * q + f] + mv[b] * mv[f]);
			Cb[b * q + f] += w * (C[a * q + e] + mv[a] * mv[e]);
			Cb[a * q + f] += w * (C[b * q + e] + mv[b] * mv[e]);
			Cb[b * q + e] += w * (C[a * q + f] + mv[a] * mv[f]);
			mb[a] += w * (mv[e] * C[b * q + f] + mv[f] * C[b * q + e]);
			mb[b] += w * (mv[e] * C[a * q + f] + mv[f] * C[a * q + e]);
			mb[e] += w * (mv[a] * C[b * q + f] + mv[b] * C[a * q + f]);
			mb[f] += w * (mv[a] * C[b * q + e] + mv[b] * C[a * q + e]);
		}
	}
}

/*
 * The omega form's adjoints of Isserlis' formulas, as moments_vjp, with
 * Wbar = -1/2 N (M^{-1} - alpha alpha^T) read from M (the lower triangle
 * of M^{-1}) and mbar = N alpha.  V = B(C, C) + B(C, P) + B(P, C), P =
 * mv mv^T, B(X, Y)_kl = X_ae Y_bf + X_af Y_be for k = (a, b), l = (e, f).
 * With x, y the packed upper triangles of X, Y (np = q (q + 1) / 2),
 * <Wbar, B(X, Y)> = x^T Z y, Z (np x np) the scatter of Wbar at
 * (ae, bf) and (af, be); F = <Wbar, V> = c^T Z c + c^T Z p + p^T Z c.
 * With Zs = Z + Z^T (lower triangle): dF/dc = Zs (c + p), dF/dp = Zs c,
 * p_ae = mv_a mv_e.  Two scatters per pair (k, l <= k) and two symmetric
 * np x np products replace moments_vjp's eight updates per pair; F (by
 * Euler, F is homogeneous of degree 2 in (c, p): F = (c . dF/dc + p .
 * dF/dp) / 2) gives dlik_dN = F / N + alpha . m without V.
 */
static void
moments_vjp_omega(dpb_lin_ctx *c)
{
	int			n = c->n,
				q = c->q,
				np = c->np,
				k,
				l,
				a,
				e;
	const double *mv = c->mv,
			   *Mi = c->M;
	const int  *zd = c->zd;
	double	   *Zs = c->zx,
			   *cp = Zs + (size_t) np * np + 2 * q * q,
			   *pp = cp + np,
			   *gc = pp + np,
			   *gp = gc + np,
			   *Cb = c->Cbar,
			   *mb = c->mvbar,
				hN = -0.5 * c->N,
				iN = 1.0 / c->N,
				F = 0,
				am = 0;

	memset(Zs, 0, sizeof(double) * np * np);
	memset(Cb, 0, sizeof(double) * q * q);
	memset(mb, 0, sizeof(double) * q);
	for (k = 0; k < n; k++)
	{
		int			ka = c->ia[k],
					kb = c->ib[k];
		double		ak = c->mbar[k] * iN,
					g = c->mbar[k],
					h = 2 * hN,
					hk = h * ak * iN;
		const double *Mk = Mi + k * n;

		Cb[ka * q + kb] += g;
		mb[ka] += g * mv[kb];
		mb[kb] += g * mv[ka];
		am += ak * c->m[k];
		/*
		 * Zs = Z + Z^T in its lower triangle: each pair adds its weight w
		 * at (ae, bf) and at (af, be), folded into the lower triangle (w =
		 * 2 Wbar_kl for l < k, as (k, l) and (l, k) weigh the same in
		 * <Wbar, V>, Wbar_kk for l = k); an entry on Zs's diagonal gets Z's
		 * value twice (Z + Z^T), hence the doubling after the loop
		 */
		for (l = 0; l < k; l++)
		{
			double		w = h * Mk[l] - hk * c->mbar[l];

			Zs[zd[0]] += w;
			Zs[zd[1]] += w;
			zd += 2;
		}
		{
			double		w = 0.5 * (h * Mk[k] - hk * c->mbar[k]);

			Zs[zd[0]] += w;
			Zs[zd[1]] += w;
			zd += 2;
		}
	}
	for (a = 0; a < np; a++)
		Zs[a * np + a] *= 2;
	for (a = 0; a < q; a++)
		for (e = a; e < q; e++)
		{
			int			t = c->pk[a * q + e];

			cp[t] = c->C[a * q + e];
			pp[t] = mv[a] * mv[e];
		}
	cblas_dsymv(CblasRowMajor, CblasLower, np, 1.0, Zs, np, cp, 1, 0.0, gc, 1);
	cblas_dsymv(CblasRowMajor, CblasLower, np, 1.0, Zs, np, pp, 1, 0.0, gp, 1);
	for (a = 0; a < q; a++)
		for (e = a; e < q; e++)
		{
			int			t = c->pk[a * q + e];

			Cb[a * q + e] += gc[t] + gp[t];
			mb[a] += gc[t] * mv[e];
			mb[e] += gc[t] * mv[a];
			F += cp[t] * (gc[t] + gp[t]) + pp[t] * gc[t];
		}
	c->dlik_dN = 0.5 * F * iN + am;
}

/*
 * The polar coordinates (o->lin.polar, d >= 2): l = log C (at ipol, C =
 * theta_x' Sigma theta_x + sigma^2, the variance of y), lambda = logit(s)
 * (at log sigma's slot, s = sigma^2 / C = 1 - R^2) and w_x (theta_x's
 * slots): sigma^2 = C s and r_x = L^T theta_x = t w_x / |w_x|, t^2 =
 * C (1 - s).  The density of (l, lambda, w_x) is that of (theta_x,
 * sigma^2) times the Jacobians 1 / |L| (theta_x -> r_x; added by the
 * caller with L's gradient when L is a parameter), t^(d-1) (r_x in polar
 * coordinates), C / (2t) ((t, sigma^2) -> (C, s)), C and s (1 - s) (the
 * logs), times N(w_x; 0, I) (the radius of w_x is auxiliary: w_x / |w_x|
 * is uniform on the sphere).  Where the release pins only C (sum y^2
 * data-dominated, the slopes' statistics noise-dominated) the posterior
 * of (theta_x, sigma) is a thin shell around C's sphere; here C is one
 * coordinate.  From s2bar and the final thetabar: the gradient in (l,
 * lambda, w_x) into grad, and g = L^-1 thetabar_x into pg for L's.
 * Returns the log Jacobian (less the 1 / |L|).
 */
static double
polar_chain(dpb_lin_ctx *c, const double *phi, double s2bar, const double *thbar,
			double *grad, double *pg)
{
	int			d = c->d,
				ic = c->ic,
				p = c->p,
				q = c->q,
				i,
				j;
	const double *w = phi + ic;
	double		ww = 0,
				C = exp(phi[c->ipol]),
				lam = phi[p],
				s = lam >= 0 ? 1 / (1 + exp(-lam)) : exp(lam) / (1 + exp(lam)),
				ls = lam >= 0 ? -log1p(exp(-lam)) : lam - log1p(exp(lam)),	/* log s */
				l1s = lam >= 0 ? -lam - log1p(exp(-lam)) : -log1p(exp(lam)),	/* log (1 - s) */
				t = sqrt(C * (1 - s)),
				nn,
				R = 0;

	for (j = 0; j < d; j++)
		ww += w[j] * w[j];
	nn = sqrt(ww);
	/* the root form's A_yy = sigma */
	if (c->eta_aug == 2)
		s2bar += 0.5 * c->rx[5 * q * q + p * q + p] / sqrt(c->sigma2);
	/* rbar_x = L^-1 thetabar_x (forward substitution); R = rbar_x . u */
	for (i = 0; i < d; i++)
	{
		double		v = thbar[ic + i];

		for (j = 0; j < i; j++)
			v -= c->Lc[i * d + j] * pg[j];
		pg[i] = v / c->Lc[i * d + i];
		R += pg[i] * w[i] / nn;
	}
	/* l: sigma^2 = C s, t = sqrt(C (1 - s)); Jacobian (d - 2) / 2 (l +
	 * log(1 - s)) + 2 l + log s + log(1 - s) */
	grad[c->ipol] = s2bar * c->sigma2 + 0.5 * R * t + 0.5 * (d - 2) + 2;
	grad[p] = s2bar * C * s * (1 - s) - 0.5 * R * t * s - 0.5 * (d - 2) * s + (1 - s) - s;
	/* w_x: r_x = t u, u = w_x / |w_x|: wbar = t (g - u (u . g)) / |w_x| */
	for (j = 0; j < d; j++)
		grad[ic + j] = t * (pg[j] - w[j] / nn * R) / nn - w[j];
	return 0.5 * (d - 2) * (phi[c->ipol] + l1s) + 2 * phi[c->ipol] + ls + l1s - 0.5 * ww;
}

double
dpb_lin_logp(const double *phi, double *grad, void *vctx)
{
	dpb_lin_ctx *c = vctx;
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				q = c->q,
				d = c->d,
				ic = c->ic,
				i,
				j,
				k;
	double		lp = 0,
				dNdu = 0,
				logjac = 0,
				dlogjac = 0,
				dn = 0,
				s2 = 0,
				s2bar,
				quadp = 0,
				gc[DPB_MAX_D + 1],
				pg[DPB_MAX_D],	/* polar: L^-1 thetabar_x */
				Ct;
	double	   *thbar = c->thbar,
			   *mubar = c->tmp;	/* d <= n */
	double		mubuf[DPB_MAX_D];

	memset(grad, 0, sizeof(double) * c->dim);
	if (unpack(c, phi, &dNdu, &logjac, &dlogjac) != 0)
		return NAN;
	s2 = c->sigma2;
	if (c->nunk)
	{
		lp += dpb_n_log_density(o, c->N, &dn) + logjac;
		if (!dpb_isfinite(lp))
			return NAN;
	}
	if (o->lin.prior == DPB_LIN_PRIOR_NIG)
	{
		/* NIG: theta | sigma^2 ~ N(theta_mean, sigma^2 / precision),
		 * sigma^2 ~ InvGamma(shape, scale); the (sigma^2)^{-p/2} as in
		 * Gibbs-SS */
		for (j = 0; j < p; j++)
		{
			double		dev = c->theta[j] - o->lin.theta_mean[j];

			quadp += o->lin.theta_precision[j] * dev * dev;
			thbar[j] = -o->lin.theta_precision[j] * dev / s2;
		}
		lp += -(0.5 * p + o->lin.sigma2_shape + 1) * log(s2) - (o->lin.sigma2_scale + 0.5 * quadp) / s2;
		s2bar = -(0.5 * p + o->lin.sigma2_shape + 1) / s2 + (o->lin.sigma2_scale + 0.5 * quadp) / (s2 * s2);
	}
	else
	{
		/* weak (posterior.h): independent normals on theta (theta_sd for
		 * the slopes, intercept_sd for theta_0), sigma^2 ~ Exponential(mean
		 * sigma2_mean): flat near 0, so that it does not pin sigma where
		 * the release identifies only theta' Sigma theta + sigma^2 */
		for (j = 0; j < p; j++)
		{
			double		dev = c->theta[j] - o->lin.theta_mean[j],
						sd = c->ic && j == 0 ? o->lin.intercept_sd : o->lin.theta_sd[j];

			lp -= 0.5 * dev * dev / (sd * sd);
			thbar[j] = -dev / (sd * sd);
		}
		lp -= s2 / o->lin.sigma2_mean;
		s2bar = -1 / o->lin.sigma2_mean;
	}

	/* the likelihood */
	dpb_linear_joint_moments(&c->L, c->theta, s2, c->mu, c->Sigma, c->mv, c->C);
	clamp_fwd(c);
	if (c->eta_aug == 0)
		stat_moments_lower(c);
	else if (c->eta_aug == 1)
	{
		if (c->clamp)
			stat_moments_full(c, c->m, c->V);
		else
			dpb_linear_stat_moments(&c->L, c->theta, s2, c->mu, c->Sigma, c->m, c->V);
	}
	if ((c->eta_aug == 2 ? likelihood_root(c, phi + c->dim_phi, grad + c->dim_phi) :
		 c->eta_aug ? likelihood_eta(c, phi + c->dim_phi, grad + c->dim_phi) :
		 likelihood(c)) != 0)
		return NAN;
	lp += c->lik;
	if (c->eta_aug == 0)
		moments_vjp_omega(c);
	else
		moments_vjp(c);
	if (c->eta_aug == 2)
		for (i = 0; i < q; i++)
			c->mvbar[i] += c->rx[6 * q * q + 2 * q + i];
	s2bar += clamp_vjp(c);
	/* through C and mv: Sbar (into G, d x d of the x block), theta, s2 */
	Ct = c->Cbar[p * q + p];
	s2bar += Ct;
	for (i = 0; i < p; i++)
		gc[i] = c->Cbar[i * q + p] + c->Cbar[p * q + i];
	/* mv_y = theta' mv_w */
	for (i = 0; i < p; i++)
		thbar[i] += c->mvbar[p] * c->mv[i];
	for (i = 0; i < p; i++)
	{
		double		t = 0;

		for (j = 0; j < p; j++)
			t += c->C[i * q + j] * (gc[j] + 2 * Ct * c->theta[j]);
		thbar[i] += t;
	}
	memset(c->G, 0, sizeof(double) * d * d);
	for (i = 0; i < d; i++)
	{
		mubar[i] = c->mvbar[ic + i] + c->mvbar[p] * c->theta[ic + i];
		for (j = 0; j < d; j++)
		{
			int			a = ic + i,
						b = ic + j;
			double		g = c->Cbar[a * q + b] + gc[a] * c->theta[b] + Ct * c->theta[a] * c->theta[b];

			c->G[i * d + j] += 0.5 * g;
			c->G[j * d + i] += 0.5 * g;
		}
	}
	/* the root form: A's rows y = theta_x^T L_Sigma and sigma */
	if (c->eta_aug == 2)
	{
		const double *Abar = c->rx + 5 * q * q;

		for (i = 0; i < d; i++)
		{
			double		t = 0;

			for (j = 0; j <= i; j++)
				t += c->Lc[i * d + j] * Abar[p * q + ic + j];
			thbar[ic + i] += t;
		}
	}
	/* the intercept's shear: theta_0 = a - sum_j theta_j mu_j */
	if (ic)
		for (j = 0; j < d; j++)
		{
			mubar[j] -= thbar[0] * c->theta[1 + j];
			thbar[1 + j] -= thbar[0] * c->mu[j];
		}
	memcpy(grad, thbar, sizeof(double) * p);
	if (c->polar)
		lp += polar_chain(c, phi, s2bar, thbar, grad, pg);
	else
	{
		/* log sigma: sigma^2 = exp(2 ls), Jacobian 2 ls */
		grad[p] = 2 * s2 * s2bar + 2;
		lp += 2 * phi[p];
		if (c->eta_aug == 2)
			grad[p] += sqrt(s2) * c->rx[5 * q * q + p * q + p];
	}

	if (c->nchol)
	{
		/* NIW (or IW with mu fixed): -(nu + d + 1 + [mu]) / 2 log|Sigma| -
		 * 1/2 tr(Psi' Sigma^{-1}), Psi' = Psi + kappa dev dev' */
		const double *ph = phi + p + 1 + c->nmu;
		double		pw = o->lin.x_df + d + 1 + (c->nmu ? 1 : 0),
					tr = 0;
		double	   *Psi = c->M;	/* scratch, d x d <= n x n */

		/* Sigma^{-1} (V, no longer needed, holds the factor) */
		memcpy(c->V, c->Sigma, sizeof(double) * d * d);
		if (dpb_chol(c->V, d, NULL) != DPB_OK)
			return NAN;
		dpb_chol_inverse(c->V, d, c->Sinv);
		for (i = 0; i < d * d; i++)
			Psi[i] = o->lin.x_scale[i];
		if (c->nmu)
		{
			for (i = 0; i < d; i++)
				mubuf[i] = c->mu[i] - o->x_mean[i];
			for (i = 0; i < d; i++)
			{
				double		t = 0;

				for (j = 0; j < d; j++)
				{
					Psi[i * d + j] += o->lin.x_kappa * mubuf[i] * mubuf[j];
					t += c->Sinv[i * d + j] * mubuf[j];
				}
				mubar[i] -= o->lin.x_kappa * t;
			}
		}
		/* tr(Psi' Sinv) and G += 1/2 Sinv Psi' Sinv */
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
			{
				double		t = 0;

				tr += Psi[i * d + j] * c->Sinv[j * d + i];
				for (k = 0; k < d; k++)
					t += Psi[i * d + k] * c->Sinv[k * d + j];
				c->Wbar[i * d + j] = t;	/* Psi' Sinv (scratch) */
			}
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
			{
				double		t = 0;

				for (k = 0; k < d; k++)
					t += c->Sinv[i * d + k] * c->Wbar[k * d + j];
				c->G[i * d + j] += 0.5 * t;
			}
		lp -= 0.5 * tr;
		/* into L: grad_L = 2 G L (lower), log-diagonal chained; log|Sigma|
		 * = 2 sum l_i and the Jacobian sum (d - i + 1) l_i */
		for (i = 0, k = 0; i < d; i++)
			for (j = 0; j <= i; j++, k++)
			{
				double		t = 0;
				int			l;

				for (l = j; l < d; l++)
					t += c->G[i * d + l] * c->Lc[l * d + j];
				t *= 2;
				if (i == j)
				{
					grad[p + 1 + c->nmu + k] = t * c->Lc[i * d + i] - pw + (d - i + 1);
					lp += (-pw + (d - i + 1)) * ph[k];
				}
				else
					grad[p + 1 + c->nmu + k] = t;
				/* the root form: A_xx = L_Sigma, A_yx = theta_x^T L_Sigma */
				if (c->eta_aug == 2)
				{
					const double *Abar = c->rx + 5 * q * q;
					double		lb = Abar[(ic + i) * q + ic + j] +
						c->theta[ic + i] * Abar[p * q + ic + j];

					grad[p + 1 + c->nmu + k] += i == j ? lb * c->Lc[i * d + i] : lb;
				}
			}
		if (c->nmu)
			memcpy(grad + p + 1, mubar, sizeof(double) * d);
		/* polar: theta_x = L^-T r_x, so Lbar_ij -= g_j theta_i (i >= j),
		 * and the Jacobian -sum log L_ii */
		if (c->polar)
			for (i = 0, k = 0; i < d; i++)
				for (j = 0; j <= i; j++, k++)
				{
					double		t = -pg[j] * c->theta[ic + i];

					if (i == j)
					{
						grad[p + 1 + c->nmu + k] += t * c->Lc[i * d + i] - 1;
						lp -= ph[k];
					}
					else
						grad[p + 1 + c->nmu + k] += t;
				}
	}
	if (c->nunk)
		grad[c->dim_phi - 1] = (dn + c->dlik_dN) * dNdu + dlogjac;
	for (i = 0; i < c->dim; i++)
		if (!dpb_isfinite(grad[i]))
			return NAN;
	return dpb_isfinite(lp) ? lp : NAN;
}

int
dpb_lin_gibbs_omega(const double *phi, void *vctx)
{
	dpb_lin_ctx *c = vctx;
	int			n = c->n,
				k,
				l;
	double		a,
				b,
				e,
				N;
	double	   *A = c->Wbar,
			   *M = c->M;

	if (unpack(c, phi, &a, &b, &e) != 0)
		return 1;
	N = c->N;
	lin_stat_moments(c, c->m, c->V);
	/* s | phi, omega, z by perturb and correct (gibbs_linear.c):
	 * s0 ~ N(N m, A = N V), s = s0 + A (A + D)^{-1} (z - s0 - e) */
	for (k = 0; k < n * n; k++)
		A[k] = N * c->V[k];
	memcpy(M, A, sizeof(double) * n * n);
	if (dpb_chol(M, n, NULL) != DPB_OK)
		return 1;
	for (k = 0; k < n; k++)
		c->tmp[k] = gsl_ran_ugaussian(c->rng);
	dpb_tri_mul(M, n, c->tmp);
	for (k = 0; k < n; k++)
		c->s[k] = N * c->m[k] + c->tmp[k];
	memcpy(M, A, sizeof(double) * n * n);
	for (k = 0; k < n; k++)
	{
		M[k * n + k] += c->D[k];
		c->tmp[k] = c->z[k] - c->s[k] - sqrt(c->D[k]) * gsl_ran_ugaussian(c->rng);
	}
	if (dpb_chol(M, n, NULL) != DPB_OK)
		return 1;
	dpb_chol_solve(M, n, c->tmp, 1);
	for (k = 0; k < n; k++)
	{
		double		t = 0;

		for (l = 0; l < n; l++)
			t += A[k * n + l] * c->tmp[l];
		c->s[k] += t;
	}
	/* omega_k | s, z: 1 / omega_k ~ InvGauss(1 / (b |z - s|), 1 / b^2) */
	for (k = 0; k < n; k++)
	{
		double		bk = c->bscale[k],
					dev = fmax(fabs(c->z[k] - c->s[k]), 1e-300);

		c->D[k] = 1.0 / dpb_ran_invgauss(c->rng, 1.0 / (bk * dev), 1.0 / (bk * bk));
		if (!(c->D[k] > 0) || !dpb_isfinite(c->D[k]))
			c->D[k] = 2 * bk * bk;
	}
	return 0;
}

int
dpb_lin_latent_stats(dpb_lin_ctx *c, const double *phi, double *s, double *m, double *V)
{
	double	   *g = malloc(sizeof(double) * c->dim),
				lp;

	if (g == NULL || !c->eta_aug)
	{
		free(g);
		return 1;
	}
	lp = dpb_lin_logp(phi, g, c);
	free(g);
	if (!dpb_isfinite(lp))
		return 1;
	memcpy(s, c->s, sizeof(double) * c->n);
	lin_stat_moments(c, m, V);
	return 0;
}

void
dpb_lin_init(dpb_lin_ctx *c, gsl_rng *rng, double *phi)
{
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				q = c->q,
				d = c->d,
				ic = c->ic,
				i,
				j,
				k;
	double		bnd = dpb_coord_bound(&c->r->p, d),
				N,
				mom[(DPB_MAX_D + 2) * (DPB_MAX_D + 2)],
				A[(DPB_MAX_D + 1) * (DPB_MAX_D + 1)],
				th[DPB_MAX_D + 1],
				s2,
				sse;

	memset(phi, 0, sizeof(double) * c->dim);
	if (c->nunk)
	{
		double		N0 = dpb_n_start(o),
					Nj = N0 + 0.1 * o->count.n_sd * gsl_ran_ugaussian(rng);

		if (!(Nj > o->count.n_lo && Nj < o->count.n_hi))
			Nj = N0;
		c->N = Nj;
		phi[c->dim_phi - 1] = lin_n_to_u(c, Nj);
	}
	N = c->N;
	/* the released moment matrix of v = [w, y] */
	memset(mom, 0, sizeof(mom));
	if (ic)
		mom[0] = N;
	for (k = 0; k < c->n; k++)
		mom[c->ia[k] * q + c->ib[k]] = mom[c->ib[k] * q + c->ia[k]] = c->z[k];
	/* a ridge fit: (W'W + N 1e-3 I) theta = W'y */
	for (i = 0; i < p; i++)
	{
		for (j = 0; j < p; j++)
			A[i * p + j] = mom[i * q + j];
		A[i * p + i] += 1e-3 * N + o->lin.theta_precision[i];
		th[i] = mom[i * q + p];
	}
	if (dpb_chol(A, p, NULL) == DPB_OK)
		dpb_chol_solve(A, p, th, 1);
	else
		memset(th, 0, sizeof(th));
	sse = mom[p * q + p];
	for (i = 0; i < p; i++)
	{
		if (!dpb_isfinite(th[i]) || fabs(th[i]) > 1e3)
			th[i] = 0;
		sse -= th[i] * mom[i * q + p];
	}
	s2 = sse / N;
	if (o->lin.prior == DPB_LIN_PRIOR_NIG)
	{
		if (!(s2 > 0.01 * o->lin.sigma2_scale) || !dpb_isfinite(s2))
			s2 = o->lin.sigma2_scale / (o->lin.sigma2_shape + 1);
	}
	else if (!(s2 > 0.01 * o->lin.sigma2_mean) || !dpb_isfinite(s2))
		s2 = o->lin.sigma2_mean;
	for (i = 0; i < p; i++)
		phi[i] = th[i] + 0.01 * gsl_ran_ugaussian(rng);
	phi[p] = 0.5 * log(s2) + 0.05 * gsl_ran_ugaussian(rng);
	for (j = 0; j < d; j++)
	{
		double		mj = ic ? fmax(-bnd, fmin(bnd, mom[ic + j] / N)) : o->x_mean[j],
					vj = mom[(ic + j) * q + ic + j] / N - mj * mj;

		if (!(vj > 0.01 * bnd * bnd))
			vj = 0.01 * bnd * bnd;
		if (vj > 4 * bnd * bnd)
			vj = 4 * bnd * bnd;
		if (c->nmu)
			phi[p + 1 + j] = mj + 0.01 * bnd * gsl_ran_ugaussian(rng);
		if (c->nchol)
			phi[p + 1 + c->nmu + (j * (j + 1)) / 2 + j] =
				0.5 * log(vj) + 0.05 * gsl_ran_ugaussian(rng);
	}
	/* phi[0] is a = theta_0 + sum_j theta_j mu_j */
	if (ic)
		for (j = 0; j < d; j++)
			phi[0] += phi[1 + j] * (c->nmu ? phi[p + 1 + j] : o->x_mean[j]);
	/* polar: (theta_x, log sigma) -> (w_x, lambda, log C), |w_x| = sqrt d */
	if (c->polar)
	{
		double		r[DPB_MAX_D],
					t2 = 0,
					s2i = exp(2 * phi[p]);
		const double *ph = phi + p + 1 + c->nmu;

		if (c->nchol)
			for (i = 0, k = 0; i < d; i++)
				for (j = 0; j <= i; j++, k++)
					A[i * d + j] = i == j ? exp(ph[k]) : ph[k];
		else
			memcpy(A, c->Lc, sizeof(double) * d * d);
		for (j = 0; j < d; j++)
		{
			double		t = 0;

			for (i = j; i < d; i++)
				t += A[i * d + j] * phi[ic + i];
			r[j] = t;
			t2 += t * t;
		}
		if (!(t2 > 1e-12 * s2i))
		{
			/* no slope: a random direction, R^2 1e-6 */
			for (j = 0, t2 = 0; j < d; j++)
			{
				r[j] = gsl_ran_ugaussian(rng);
				t2 += r[j] * r[j];
			}
			for (j = 0; j < d; j++)
				r[j] *= sqrt(1e-6 * s2i / t2);
			t2 = 1e-6 * s2i;
		}
		for (j = 0; j < d; j++)
			phi[ic + j] = r[j] * sqrt(d / t2);
		phi[p] = log(s2i / t2);	/* logit(s2 / C) */
		phi[c->ipol] = log(t2 + s2i);
	}
}

/*
 * The noise's share of the released statistics' variance at the release's
 * own moments (the chain start of dpb_lin_init with a fixed generator): the
 * smallest over the statistics of 2 b_k^2 / (2 b_k^2 + N V_kk), with V_kk
 * at most the square of the statistic's bound (|v_a v_b| <= bound_a
 * bound_b: 1, the features' coordinate bound, y_bound), because at a small
 * epsilon the release's own moments can imply a variance of y far beyond
 * y_bound^2.  A function of the release and the options alone; NaN on
 * failure (then the omega form is taken).
 */
double
dpb_lin_noise_share(dpb_lin_ctx *c)
{
	return dpb_lin_noise_shares(c, NULL);
}

double
dpb_lin_noise_shares(dpb_lin_ctx *c, double *rest)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double	   *phi = malloc(sizeof(double) * c->dim),
				a,
				b,
				e,
				share = NAN;
	int			k;

	if (rest)
		*rest = NAN;
	if (rng == NULL || phi == NULL)
		goto out;
	gsl_rng_set(rng, 1);
	dpb_lin_init(c, rng, phi);
	if (unpack(c, phi, &a, &b, &e) != 0)
		goto out;
	dpb_linear_stat_moments(&c->L, c->theta, c->sigma2, c->mu, c->Sigma, c->m, c->V);
	share = INFINITY;
	if (rest)
		*rest = INFINITY;
	for (k = 0; k < c->n; k++)
	{
		double		nv = 2 * c->bscale[k] * c->bscale[k],
					bnd = dpb_coord_bound(&c->r->p, c->d),
					ba = c->ia[k] == c->p ? c->r->p.y_bound : c->ic && c->ia[k] == 0 ? 1 : bnd,
					bb = c->ib[k] == c->p ? c->r->p.y_bound : c->ic && c->ib[k] == 0 ? 1 : bnd,
					vk = fmin(c->V[k * c->n + k], ba * ba * bb * bb),
					sh = isinf(nv) ? 1 : nv / (nv + c->N * vk);

		if (!(sh >= share))
			share = sh;
		if (rest && k != c->kyy && !(sh >= *rest))
			*rest = sh;
	}
out:
	if (rng)
		gsl_rng_free(rng);
	free(phi);
	return share;
}

int
dpb_lin_use_latent(const dpb_release *r, const dpb_infer_opts *o)
{
	dpb_infer_opts oc;
	dpb_lin_ctx *c;
	double		share,
				rest;

	if (r->model != DPB_MODEL_LINEAR || r->p.mechanism != DPB_MECH_LAPLACE ||
		o->method != DPB_METHOD_NOISE_AWARE)
		return 0;
	if (o->lin.laplace_latent >= 0)
		return o->lin.laplace_latent;
	oc = *o;
	oc.lin.laplace_latent = 0;
	if (oc.lin.xmoments == DPB_XMOM_NOISY)
		oc.lin.xmoments = DPB_XMOM_UPDATE;
	c = dpb_lin_ctx_new(r, &oc);
	if (c == NULL)
		return -1;
	share = dpb_lin_noise_shares(c, &rest);
	dpb_lin_ctx_free(c);
	return share >= DPB_LIN_LATENT_SHARE ? 2 :
		rest >= DPB_LIN_LATENT_SHARE && r->d >= DPB_LIN_MIXED_MIN_D &&
		o->count.n_hat >= DPB_LIN_MIXED_MIN_N ? DPB_LIN_LATENT_MIXED : 0;
}

/*
 * The latent form's warmup: a dense metric from the end of the first slow
 * window (nuts.h, recoord; the coordinates stay).  Against the diagonal
 * metric it is a wash where measured (bench/results/laplace_auto.md: 48
 * runs on 300-row epsilon 0.1 releases, 42 against 46 converged, 4 against
 * 9 divergences; d = 10, N = 1e4, epsilon 0.1: 334 against 278 gradients
 * per iteration); kept because the grid, the SBC and the regression tests
 * were measured with it.
 */
static int
latent_dense(int n, double *draws, double *q, void *ctx)
{
	(void) n;
	(void) draws;
	(void) q;
	(void) ctx;
	return DPB_RECOORD_DENSE;
}

/* the driver's callbacks */
static void
chain_start(void *vctx, gsl_rng *rng)
{
	dpb_lin_ctx *c = vctx;

	c->rng = rng;
	reset_noise(c);
}

static void
init_cb(void *vctx, gsl_rng *rng, double *phi)
{
	dpb_lin_init(vctx, rng, phi);
}

static void
record_cb(void *vctx, const double *phi, double *out)
{
	dpb_lin_ctx *c = vctx;
	double		theta[DPB_MAX_D + 1],
				mu[DPB_MAX_D],
				Sigma[DPB_MAX_D * DPB_MAX_D],
				s2,
				sd,
				N;

	dpb_lin_unpack(c, phi, theta, &s2, mu, Sigma, &N);
	sd = sqrt(s2);
	dpb_record_draw(c->r, c->gain, c->center, theta, &sd, c->nunk ? &N : NULL, mu, Sigma,
					c->o->nuisance, out);
}

dpb_status
dpb_linear_nuts_run(const dpb_release *r, const dpb_infer_opts *o, dpb_draws *out,
					dpb_err *err)
{
	dpb_lin_ctx *c;
	dpb_nuts_model m;
	dpb_status	st;
	dpb_infer_opts oc;

	if (o->lin.xmoments == DPB_XMOM_NOISY)
	{
		dpb_err_set(err, "sampler \"nuts\" does not support x_moments \"noisy\"",
					"Use options {\"sampler\": \"gibbs\"} with the noisy moments.");
		return DPB_ENOTSUP;
	}
	/* Laplace: the latent form where the noise dominates every statistic */
	oc = *o;
	oc.lin.laplace_latent = dpb_lin_use_latent(r, o);
	if (oc.lin.laplace_latent < 0)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	/* the polar coordinates: with the mixed form from DPB_LIN_MIXED_MIN_D
	 * features on (linear_model.h) */
	if (oc.lin.polar < 0)
		oc.lin.polar = r->p.mechanism == DPB_MECH_LAPLACE &&
			oc.lin.laplace_latent == DPB_LIN_LATENT_MIXED && r->d >= DPB_LIN_MIXED_MIN_D;
	/*
	 * The latent forms with N known (replace-one) and N below
	 * DPB_LIN_LATENT_TA_MAX_N: target_accept 0.9 when it is the default 0.8.
	 * Measured on 16 releases of 300 rows at epsilon 0.1: divergences 0-32
	 * (median 1) at 0.8, none at 0.9, for 1.1-1.9 times the gradients; with
	 * N unknown 0.8 had none in the grid's cells and 0.9 lowered N's tail
	 * ESS (bench/results/laplace_auto.md).  At N >= 1000 0.8 had none
	 * either (d = 2, N = 1000 and 3000: 14 releases; the grid's N = 1e4
	 * cells, d = 2, 5, 10), where 0.9 took 1.7-2.2 times the gradients
	 * (bench/results/laplace_fast.md).
	 */
	if (oc.lin.laplace_latent && r->p.mechanism == DPB_MECH_LAPLACE && o->count.n_known &&
		o->count.n_hat < DPB_LIN_LATENT_TA_MAX_N && oc.nuts.target_accept == 0.8)
		oc.nuts.target_accept = DPB_LIN_LATENT_TARGET_ACCEPT;
	o = &oc;
	c = dpb_lin_ctx_new(r, o);
	if (c == NULL || dpb_draws_alloc(out, o->chains, o->draws,
									 dpb_nvars(r, 1, !o->count.n_known, o->nuisance)) != DPB_OK)
	{
		dpb_lin_ctx_free(c);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_feature_map(r, c->gain, c->center);
	dpb_name_vars(r, 1, !o->count.n_known, o->nuisance, out->names);
	memset(&m, 0, sizeof(m));
	m.dim = c->dim;
	m.logp = dpb_lin_logp;
	m.ctx = c;
	m.init = init_cb;
	m.chain_start = chain_start;
	m.record = record_cb;
	m.gibbs = c->laplace && !c->eta_aug ? dpb_lin_gibbs_omega : NULL;
	if (c->eta_aug == 1 || (c->eta_aug == 2 && c->dim <= DPB_LIN_ROOT_DENSE_DIM))
	{
		/* the latent forms: a dense metric from the first slow window (the
		 * root form only up to DPB_LIN_ROOT_DENSE_DIM coordinates) */
		m.recoord_window = 1;
		m.recoord = latent_dense;
	}
	if (c->laplace && !c->eta_aug)
	{
		/*
		 * the omega form: trees of depth at most 5 until the first metric
		 * update.  Replace-one, d = 5, N = 1e4, epsilon 1: 119 -> 109
		 * gradients per iteration, no divergences.  A dense metric (from
		 * the first or second slow window) took 0.6-0.85 times the
		 * gradients but had divergent transitions where the diagonal one
		 * has none: 34 and 70 on two d = 5 replace-one cells, 45 on one at
		 * d = 2; 9 at target_accept 0.9 (bench/results/laplace_fast.md)
		 */
		m.init_max_depth = DPB_LIN_OMEGA_INIT_DEPTH;
	}
	if (c->eta_aug == 2)
	{
		/* the root form's warmup: trees of depth at most 5 until the first
		 * metric update, as the GLM's (glm_model.c); 0.6-0.9 times the
		 * gradients on the grid's latent cells.  The GLM's warm restarts of
		 * the step size too: the same cost there, but 2-3 times the
		 * divergences on 300-row replace-one releases
		 * (bench/results/laplace_fast.md) */
		m.init_max_depth = DPB_LIN_ROOT_INIT_DEPTH;
	}
	m.prior_options = o->lin.prior == DPB_LIN_PRIOR_NIG ?
		"sigma2_shape, sigma2_scale, theta_precision, x_scale, x_df, x_cov" :
		"theta_sd, intercept_sd, sigma2_mean, x_scale, x_df, x_cov";
	m.fail_hint = "A matrix was not positive definite.";
	st = dpb_nuts_chains(&m, o, o->thin > 0 ? o->thin : 1, out, err);
	dpb_lin_ctx_free(c);
	if (st != DPB_OK)
		dpb_draws_free(out);
	return st;
}
