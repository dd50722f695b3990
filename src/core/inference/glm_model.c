/*
 * glm_model.c — noise-aware logistic and Poisson regression (see
 * glm_model.h): the model on an unconstrained parameter vector, its log
 * density with an exact gradient, and the NUTS driver.
 *
 * phi = [theta (p), mu (d), u (d), y (d(d-1)/2)], except that with an
 * intercept phi[0] is a = theta_0 + sum_j theta_j mu_j, the linear predictor
 * at the mean of x, rather than theta_0 (a shear with unit Jacobian, so the
 * model is unchanged).  The release pins a down far more tightly than
 * theta_0: when the slopes are weakly identified (small N, small epsilon)
 * theta_0 is nearly a linear function of them, a narrow diagonal ridge a
 * diagonal metric cannot follow (on Pima, d = 4, N = 768, epsilon = 1, the
 * draws' correlation matrix had a smallest eigenvalue of 0.0015 in the
 * theta_0 coordinates, about 0.5 in these; see docs/posterior.md).  The
 * correlation matrix is Omega = L L^T with L from the canonical partial correlations
 * z = tanh(y) (Stan's cholesky_corr transform); Sigma = diag(tau) Omega
 * diag(tau); tau_j = tau_scale softplus(u_j) (where the prior dominates,
 * log tau_j had a normalised curvature of up to 20-47 in the right tail of
 * its half-normal prior; softplus is linear there).  logp_core works on
 * (theta, log tau) and dpb_glm_logp chains it to phi.  When the release
 * pins b_j = tau_j theta_j (N = 1e3 at d = 8), theta_j and log tau_j form
 * a banana: the warmup may then switch the slopes to b_j = tau_j^alpha
 * theta_j and a dense metric (run_recoord).  Log density:
 *   log N(z_rel; N m, N V + D)                      release likelihood
 *   + log p(theta) + log p(mu) + log p(tau) + log LKJ(L | eta)
 *   + log |Jacobian| of tau = tau_scale softplus(u), of the slopes'
 *   coordinates and of the CPC transform.
 * The gradient of the Gaussian term: with M = N V + D, alpha = M^{-1} r,
 * r = z_rel - N m and W = M^{-1} - alpha alpha^T,
 *   d/dq = -1/2 N <W, dV/dq> + N alpha^T dm/dq
 * for each moment parameter q (theta, mu, Sigma's unique entries), then
 * chained to phi.
 * When the number of records is unknown (an add/remove release), phi has
 * one more entry u, N = dpb_n_from_u(u), and the log density gains
 * log p(N) + log p(n_hat | N) + log dN/du; the likelihood's derivative in N
 * is -1/2 <W, V> + alpha^T m.
 */
#include "glm_model.h"
#include "nuts_chains.h"

#include "gauss_lik.h"
#include "glm_moments.h"
#include "linalg.h"
#include "nuts.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tree depth limit of the warmup until the first metric update (nuts.h):
 * from the starting point the first trajectories ran to depth 8-10, a
 * quarter of all the gradients of a chain at d = 8, N = 1000.  Until
 * 2026-11 the limit held only in the initial fast buffer (75 iterations):
 * the first slow window (25 iterations, still with the metric of the
 * starting point) then ran to depth 6-7, 120-220 gradients per iteration,
 * a tenth of a chain's gradients.
 */
#define DPB_GLM_INIT_DEPTH 5

/* The slopes' coordinates are chosen at the end of slow window
 * DPB_GLM_RECOORD_WINDOW of the warmup (2: after 75 + 25 + 50 iterations),
 * by the rule of run_recoord with the threshold DPB_GLM_KAPPA; when the
 * rule keeps theta, again at the end of the following windows up to
 * DPB_GLM_RECOORD_LAST (4: after 450 iterations), on all the slow windows'
 * draws so far.  kappa_0 from the 75 draws of the first two windows is
 * noisy: at d = 8, N = 1e3, a quarter of the chains kept theta
 * (kappa_0 -0.45 to 0.06), and these chains ran at depth 5, 1.45 times the
 * gradients of the others; on the 175 draws of three windows most of them
 * switch (kappa_0 -0.61 to -0.67).  See docs/posterior.md. */
#define DPB_GLM_RECOORD_WINDOW 2
#define DPB_GLM_RECOORD_LAST 4
#define DPB_GLM_KAPPA 0.5

/* The switch to b_j = tau_j^alpha theta_j also needs the location of theta_j
 * to move as tau_j^-lambda (slope_shift) with lambda >= DPB_GLM_LAMBDA and
 * lambda / se >= DPB_GLM_LAMBDA_T (se from the draws as if independent, so
 * a signal-to-noise ratio, not a test).  The spread rule alone (kappa) also
 * fired where the prior holds theta_j whatever tau_j (Poisson, d = 8,
 * N = 1e4, eps = 0.1): there the switched slopes made a funnel and 20, 0,
 * 8, 2, 12, 3 divergences of 4000 draws at seeds 7, 1, 2, 8, 9, 10.  Over
 * the warmup draws of these chains lambda was -0.64 to 0.28 (one chain
 * 0.75 at se 0.25), in the logistic d = 8, N = 1e3 chains that switched
 * 0.49 to 1.29, lambda / se 2.7 to 13 (seeds 7-16).  Where the spread rule
 * holds and this one does not, the metric becomes dense in the theta
 * coordinates: no divergences in the Poisson cell at these six seeds, at
 * 29.6-32.2 gradients per iteration against 28.8-31.6 (a diagonal metric
 * there: 30.4-35.0, with 10-36% less bulk ESS).  The logistic chains are
 * unchanged but for one that now keeps theta (seed 8, 22.2 gradients per
 * iteration instead of 21.1). */
#define DPB_GLM_LAMBDA 0.5
#define DPB_GLM_LAMBDA_T 3.5

struct dpb_glm_ctx
{
	const dpb_release *r;
	const dpb_infer_opts *o;
	dpb_layout	L;
	int			n,				/* statistics */
				p,
				d,
				K,				/* moment parameters */
				ncorr,			/* d(d-1)/2 */
				dim,			/* unconstrained parameters */
				nunk;			/* 1 when N is a parameter (last in phi) */
	double		N;
	const double *z;
	double	   *D;				/* noise variances */
	/* buffers */
	double	   *theta,
			   *mu,
			   *tau,
			   *Sigma,
			   *Lc,				/* d x d correlation Cholesky factor */
			   *dLc,			/* ncorr x d (corr_transform) */
			   *dlj,			/* ncorr: d/dy of the log Jacobian + LKJ */
			   *Sbar,			/* d x d: adjoint of tau_i tau_j Omega_ij */
			   *m,
			   *V,
			   *M,
			   *Minv,
			   *alpha,
			   *gq;				/* K: gradient w.r.t. moment parameters */
	double		lik;			/* the release log likelihood */
	double		dlik_dN;		/* its derivative in N (N unknown) */
	/* the sampler's coordinates (phi_to_core) */
	double		slope_alpha;	/* slopes sampled as tau_j^alpha theta_j */
	double	   *phi2;			/* dim: phi in logp_core's coordinates */
};

int
dpb_glm_dim(int d, int intercept)
{
	return d + intercept + 2 * d + d * (d - 1) / 2;
}

void
dpb_glm_ctx_free(dpb_glm_ctx *c)
{
	if (c == NULL)
		return;
	free(c->D);
	free(c->theta);
	free(c);
}

dpb_glm_ctx *
dpb_glm_ctx_new(const dpb_release *r, const dpb_infer_opts *o)
{
	dpb_glm_ctx *c = calloc(1, sizeof(dpb_glm_ctx));
	size_t		n,
				d,
				K,
				nc,
				total;
	double	   *b;
	int			k;

	if (c == NULL)
		return NULL;
	c->r = r;
	c->o = o;
	dpb_release_layout(r, &c->L);
	if (c->L.add_remove && dpb_layout_count_index(&c->L) == c->L.nstats - 1)
	{
		/* the count of an add/remove release (the last statistic) is not
		 * modelled with the others: its likelihood p(n_hat | N) is
		 * dpb_n_log_density */
		c->L.nblocks--;
		c->L.nmodel_blocks--;
		c->L.nstats--;
		c->L.nmodel--;
		c->L.add_remove = 0;
	}
	/* the release clips counts at y_bound: the exact moments model
	 * min(y, y_bound) (glm_ypois.h) */
	if (r->model == DPB_MODEL_POISSON)
		c->L.y_clip = r->p.y_bound;
	c->n = c->L.nstats;
	c->p = c->L.p;
	c->d = r->d;
	c->K = dpb_glm_nparams(&c->L);
	c->ncorr = c->d * (c->d - 1) / 2;
	c->nunk = o->count.n_known ? 0 : 1;
	c->dim = dpb_glm_dim(c->d, c->L.intercept) + c->nunk;
	c->N = c->nunk ? dpb_n_start(o) : o->count.n_hat;
	c->z = r->stats;
	n = c->n;
	d = c->d;
	K = c->K;
	nc = c->ncorr;
	/* dpb_release_noise_scale fills every statistic of r (the count too) */
	c->D = malloc(sizeof(double) * (size_t) (r->nstats > (int) n ? r->nstats : (int) n));
	total = c->p + 3 * d + d * d + d * d + nc * d + nc + d * d + n + n * n
		+ 2 * n * n + n + K + c->dim;
	c->theta = calloc(total, sizeof(double));
	if (c->D == NULL || c->theta == NULL)
	{
		dpb_glm_ctx_free(c);
		return NULL;
	}
	dpb_release_noise_scale(r, c->D);
	for (k = 0; k < (int) n; k++)
		c->D[k] *= c->D[k];
	b = c->theta + c->p;
	c->mu = b;
	b += d;
	c->tau = b;
	b += d;
	c->Sigma = b;
	b += d * d;
	c->Lc = b;
	b += d * d;
	c->dLc = b;
	b += nc * d;
	c->dlj = b;
	b += nc;
	c->Sbar = b;
	b += d * d;
	c->m = b;
	b += n;
	c->V = b;
	b += n * n;
	c->M = b;
	b += n * n;
	c->Minv = b;
	b += n * n;
	c->alpha = b;
	b += n;
	c->gq = b;
	b += K;
	c->phi2 = b;
	return c;
}

/*
 * The CPC transform with forward derivatives: Lc from y, the log Jacobian
 * of y -> Omega plus the LKJ(eta) log density, and their derivatives in
 * dLc and dlj (ncorr).  The parameter y_l of row i (l = i(i-1)/2 + j,
 * j < i) moves only row i of Lc, so dLc holds that row: dLc[l * d + k] =
 * d Lc[i][k] / d y_l (ncorr x d).  Returns the log term, or NaN.
 */
static double
corr_transform(dpb_glm_ctx *c, const double *y)
{
	int			d = c->d,
				nc = c->ncorr,
				i,
				j,
				l,
				k = 0;
	double		lp = 0,
				eta = c->o->glm.lkj_eta;
	double	   *Lc = c->Lc,
			   *dL = c->dLc,
			   *dlj = c->dlj;
	double		dss[DPB_MAX_D];	/* d ss / d y_(k0 + t) of the row */

	memset(Lc, 0, sizeof(double) * d * d);
	memset(dL, 0, sizeof(double) * nc * d);
	memset(dlj, 0, sizeof(double) * nc);
	Lc[0] = 1.0;
	for (i = 1; i < d; i++)
	{
		const int	k0 = k;		/* the row's first parameter */
		double		ss = 0;

		memset(dss, 0, sizeof(double) * i);
		for (j = 0; j < i; j++, k++)
		{
			double		zk = tanh(y[k]),
						dz = 1 - zk * zk,
						rt,
						v;

			if (!(dz > 1e-300))
				return NAN;
			lp += log(dz);		/* tanh Jacobian */
			dlj[k] += -2 * zk;
			if (j == 0)
			{
				Lc[i * d] = zk;
				dL[(size_t) k * d] = dz;
			}
			else
			{
				if (!(1 - ss > 1e-300))
					return NAN;
				lp += 0.5 * log(1 - ss);
				rt = sqrt(1 - ss);
				/* ss depends on the row's parameters before k only */
				for (l = k0; l < k; l++)
				{
					double		drt = -0.5 * dss[l - k0] / rt;

					dlj[l] += -0.5 * dss[l - k0] / (1 - ss);
					dL[(size_t) l * d + j] = zk * drt;
				}
				dL[(size_t) k * d + j] = dz * rt;
				Lc[i * d + j] = zk * rt;
			}
			v = Lc[i * d + j];
			ss += v * v;
			for (l = k0; l <= k; l++)
				dss[l - k0] += 2 * v * dL[(size_t) l * d + j];
		}
		if (!(1 - ss > 1e-300))
			return NAN;
		Lc[i * d + i] = sqrt(1 - ss);
		for (l = k0; l < k; l++)
			dL[(size_t) l * d + i] = -0.5 * dss[l - k0] / Lc[i * d + i];
		/* LKJ on the Cholesky factor: (d - i - 1 + 2 (eta - 1)) log L_ii */
		{
			double		coef = (d - i - 1) + 2 * (eta - 1);

			lp += coef * log(Lc[i * d + i]);
			for (l = k0; l < k; l++)
				dlj[l] += coef * dL[(size_t) l * d + i] / Lc[i * d + i];
		}
	}
	return lp;
}

/*
 * theta_0 from phi (whose phi[0] is a = theta_0 + sum_j theta_j mu_j with an
 * intercept); without one, theta[0] = phi[0].
 */
static double
intercept_from_phi(const dpb_glm_ctx *c, const double *phi)
{
	double		t0 = phi[0];
	int			j;

	if (c->L.intercept)
		for (j = 0; j < c->d; j++)
			t0 -= phi[1 + j] * phi[c->p + j];
	return t0;
}

/* softplus(u) = log(1 + e^u), and the logistic function */
static double
softplus(double u)
{
	return u > 30 ? u + log1p(exp(-u)) : log1p(exp(u));
}

static double
sigmoid(double u)
{
	return 1 / (1 + exp(-u));
}

/*
 * The sampler's coordinates phi and logp_core's (theta, log tau): phi holds
 * u_j with tau_j = tau_scale softplus(u_j), and with slope_alpha the slopes
 * b_j = tau_j^alpha theta_j.  Returns c->phi2 in logp_core's coordinates,
 * or NULL when a tau underflows.
 */
static const double *
phi_to_core(dpb_glm_ctx *c, const double *phi)
{
	int			p = c->p,
				d = c->d,
				j;
	double	   *x = c->phi2;

	memcpy(x, phi, sizeof(double) * c->dim);
	for (j = 0; j < d; j++)
	{
		double		sp = softplus(phi[p + d + j]),
					l;

		if (!(sp > 0) || !dpb_isfinite(sp))
			return NULL;
		l = log(c->o->glm.tau_scale) + log(sp);
		x[p + d + j] = l;
		if (c->slope_alpha != 0)
			x[c->L.intercept + j] = phi[c->L.intercept + j] * exp(-c->slope_alpha * l);
	}
	return x;
}

/* the inverse, in place */
static void
core_to_phi(const dpb_glm_ctx *c, double *x)
{
	int			p = c->p,
				d = c->d,
				j;

	for (j = 0; j < d; j++)
	{
		double		l = x[p + d + j],
					t = exp(l) / c->o->glm.tau_scale;

		if (c->slope_alpha != 0)
			x[c->L.intercept + j] *= exp(c->slope_alpha * l);
		x[p + d + j] = t > 30 ? t + log1p(-exp(-t)) : log(expm1(t));
	}
}

void
dpb_glm_set_slope_power(dpb_glm_ctx *c, double alpha)
{
	c->slope_alpha = alpha;
}

int
dpb_glm_ctx_dim(const dpb_glm_ctx *c)
{
	return c->dim;
}

double
dpb_glm_n(const dpb_glm_ctx *c, const double *phi)
{
	double		dNdu,
				lj,
				dlj;

	if (!c->nunk)
		return c->N;
	return dpb_n_from_u(c->o, phi[c->dim - 1], &dNdu, &lj, &dlj);
}

void
dpb_glm_unpack(const dpb_glm_ctx *cc, const double *phi, double *theta,
			   double *mu, double *Sigma)
{
	dpb_glm_ctx *c = (dpb_glm_ctx *) cc;
	int			d = c->d,
				i,
				j,
				k;

	phi = phi_to_core(c, phi);
	memcpy(theta, phi, sizeof(double) * c->p);
	memcpy(mu, phi + c->p, sizeof(double) * d);
	theta[0] = intercept_from_phi(c, phi);
	corr_transform(c, phi + c->p + 2 * d);
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			double		s = 0;

			for (k = 0; k <= (i < j ? i : j); k++)
				s += c->Lc[i * d + k] * c->Lc[j * d + k];
			Sigma[i * d + j] = exp(phi[c->p + d + i]) * exp(phi[c->p + d + j]) * s;
		}
}

/*
 * The release likelihood given m and V (called back from the moment
 * computation): log N(z; N m, M = N V + D), and the adjoints
 * Wbar = -1/2 N (M^{-1} - alpha alpha^T), mbar = N alpha, alpha = M^{-1} r.
 */
static int
likelihood_adjoint(const double *m, const double *V, double *Wbar, double *mbar,
				   void *vctx)
{
	dpb_glm_ctx *c = vctx;

	return dpb_gauss_lik_adjoint(c->n, c->N, c->z, c->D, m, V, c->M, Wbar, mbar, &c->lik,
								 c->nunk ? &c->dlik_dN : NULL);
}

static double
logp_core(const double *phi, double *grad, void *vctx)
{
	dpb_glm_ctx *c = vctx;
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				d = c->d,
				nc = c->ncorr,
				i,
				j,
				k,
				l,
				q;
	double		lp = 0,
				lc,
				dNdu = 0,
				dlogjac = 0,
				dn_prior = 0;
	const double *ltau = phi + p + d;

	memset(grad, 0, sizeof(double) * c->dim);
	if (c->nunk)
	{
		/* N = N(u): its prior, the count's likelihood and the Jacobian */
		double		logjac;

		c->N = dpb_n_from_u(o, phi[c->dim - 1], &dNdu, &logjac, &dlogjac);
		lp = dpb_n_log_density(o, c->N, &dn_prior) + logjac;
		if (!dpb_isfinite(lp))
			return NAN;
	}
	/* theta and mu; grad[0 .. p + d) is the gradient in (theta, mu) until
	 * it is chained to phi at the end */
	memcpy(c->theta, phi, sizeof(double) * p);
	memcpy(c->mu, phi + p, sizeof(double) * d);
	c->theta[0] = intercept_from_phi(c, phi);

	/* prior on theta */
	lp += dpb_theta_log_prior(o, p, c->theta, grad);
	if (!dpb_isfinite(lp))
		return lp;
	/* mu ~ N(x_mean, mu_scale^2) */
	for (j = 0; j < d; j++)
	{
		double		dev = phi[p + j] - o->x_mean[j],
					s2 = o->glm.mu_scale * o->glm.mu_scale;

		lp -= 0.5 * dev * dev / s2;
		grad[p + j] -= dev / s2;
	}
	/* tau = exp(ltau) ~ half-normal(tau_scale), with the exp Jacobian */
	for (j = 0; j < d; j++)
	{
		double		t = exp(ltau[j]),
					s2 = o->glm.tau_scale * o->glm.tau_scale;

		if (!(t > 0) || !dpb_isfinite(t))
			return NAN;
		c->tau[j] = t;
		lp += -0.5 * t * t / s2 + ltau[j];
		grad[p + d + j] += -t * t / s2 + 1;
	}
	/* correlations: CPC transform, its Jacobian and the LKJ prior */
	lc = corr_transform(c, phi + p + 2 * d);
	if (!dpb_isfinite(lc))
		return NAN;
	lp += lc;
	for (l = 0; l < nc; l++)
		grad[p + 2 * d + l] += c->dlj[l];

	/* moments */
	for (i = 0; i < d; i++)
		for (j = 0; j <= i; j++)
		{
			double		s = 0;

			for (k = 0; k <= j; k++)
				s += c->Lc[i * d + k] * c->Lc[j * d + k];
			c->Sigma[i * d + j] = c->Sigma[j * d + i] = c->tau[i] * c->tau[j] * s;
		}
	/* one pass: moments, then (in the callback) the release likelihood and
	 * its adjoints, then the vector-Jacobian product */
	c->lik = NAN;
	if (dpb_glm_moments_vjp_cb(&c->L, (dpb_glm_approx) o->glm.approx, c->theta, c->mu,
							   c->Sigma, likelihood_adjoint, c, c->Minv, c->alpha,
							   c->m, c->V, c->gq) != DPB_OK || !dpb_isfinite(c->lik))
		return NAN;
	lp += c->lik;
	/* chain: theta and mu directly */
	for (j = 0; j < p + d; j++)
		grad[j] += c->gq[j];
	/*
	 * Sigma's unique entries (i <= j, row by row) -> log tau and y: with
	 * Sigma_ij = tau_i tau_j (Lc Lc^T)_ij, the adjoint of Lc is S Lc, S_ij =
	 * g_ij tau_i tau_j off the diagonal and 2 g_ii tau_i^2 on it; y_l moves
	 * only its row of Lc (corr_transform).
	 */
	q = p + d;
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++, q++)
		{
			double		g = c->gq[q],
						sij = c->Sigma[i * d + j];

			grad[p + d + i] += g * sij;
			grad[p + d + j] += g * sij;
			c->Sbar[i * d + j] = c->Sbar[j * d + i] =
				(i == j ? 2.0 : 1.0) * g * c->tau[i] * c->tau[j];
		}
	for (i = 1, l = 0; i < d; i++)
	{
		double		Lb[DPB_MAX_D];

		for (k = 0; k <= i; k++)
		{
			double		s = 0;

			for (j = k; j < d; j++)
				s += c->Sbar[i * d + j] * c->Lc[j * d + k];
			Lb[k] = s;
		}
		for (j = 0; j < i; j++, l++)
		{
			const double *dL = c->dLc + (size_t) l * d;
			double		s = 0;

			for (k = 0; k <= i; k++)
				s += Lb[k] * dL[k];
			grad[p + 2 * d + l] += s;
		}
	}
	/* (theta, mu) -> phi: theta_0 = a - sum_j theta_j mu_j */
	if (c->L.intercept)
		for (j = 0; j < d; j++)
		{
			grad[1 + j] -= grad[0] * c->mu[j];
			grad[p + j] -= grad[0] * c->theta[1 + j];
		}
	if (c->nunk)
		grad[c->dim - 1] = (dn_prior + c->dlik_dN) * dNdu + dlogjac;
	return lp;
}

/*
 * The log density in the sampler's coordinates: logp_core at phi_to_core's
 * point, its gradient chained back, plus the log Jacobians.
 */
double
dpb_glm_logp(const double *phi, double *grad, void *vctx)
{
	dpb_glm_ctx *c = vctx;
	const double *x = phi_to_core(c, phi);
	int			p = c->p,
				d = c->d,
				j;
	double		lp;

	if (x == NULL)
		return NAN;
	lp = logp_core(x, grad, c);
	if (!dpb_isfinite(lp))
		return lp;
	for (j = 0; j < d; j++)
	{
		double	   *gl = &grad[p + d + j];

		if (c->slope_alpha != 0)
		{
			int			k = c->L.intercept + j;
			double		a = c->slope_alpha;

			/* theta_j = b_j e^{-a l_j}: log Jacobian -a l_j */
			*gl += -a * x[k] * grad[k] - a;
			grad[k] *= exp(-a * x[p + d + j]);
			lp -= a * x[p + d + j];
		}
		{
			/* l_j = log tau_scale + log softplus(u_j): log Jacobian log r */
			double		u = phi[p + d + j],
						sg = sigmoid(u),
						r = sg / softplus(u);	/* dl/du */

			lp += log(r);
			*gl = *gl * r + (1 - sg) - r;
		}
	}
	return lp;
}

void
dpb_glm_init(dpb_glm_ctx *c, gsl_rng *rng, double *phi)
{
	int			d = c->d,
				p = c->p,
				j,
				k;
	double		sx[DPB_MAX_D] = {0},
				sxx[DPB_MAX_D] = {0};
	int			has_sx = 0;
	double		b = c->o->glm.tau_scale;
	dpb_entry	e;

	c->slope_alpha = 0;
	memset(phi, 0, sizeof(double) * c->dim);
	if (c->nunk)
	{
		/* N near the released count, inside the prior's support */
		const dpb_infer_opts *o = c->o;
		double		N0 = dpb_n_start(o),
					Nj = N0 + 0.1 * o->count.n_sd * gsl_ran_ugaussian(rng);

		if (!(Nj > o->count.n_lo && Nj < o->count.n_hi))
			Nj = N0;
		c->N = Nj;
		phi[c->dim - 1] = dpb_n_to_u(o, Nj);
	}
	for (k = 0; k < c->n; k++)
	{
		dpb_layout_entry(&c->L, k, &e);
		if (e.ypow != 0)
			continue;
		if (e.j < 0 && e.i >= 0)
		{
			sx[e.i] = c->z[k];	/* T1: no intercept */
			has_sx = 1;
		}
		else if (c->L.intercept && e.i == 0 && e.j > 0)
		{
			sx[e.j - 1] = c->z[k];
			has_sx = 1;
		}
		else if (e.i == e.j && e.i >= c->L.intercept)
			sxx[e.i - c->L.intercept] = c->z[k];
	}
	for (j = 0; j < d; j++)
	{
		double		mj = 0,
					vj;

		if (c->N > 0 && has_sx)
			mj = fmax(-b, fmin(b, sx[j] / c->N));
		vj = c->N > 0 ? sxx[j] / c->N - mj * mj : 0;
		if (!(vj > 0.01 * b * b))
			vj = 0.01 * b * b;
		if (vj > 4 * b * b)
			vj = 4 * b * b;
		phi[p + j] = mj + 0.1 * b * gsl_ran_ugaussian(rng);
		phi[p + d + j] = 0.5 * log(vj) + 0.1 * gsl_ran_ugaussian(rng);
	}
	for (j = 0; j < p; j++)
		phi[j] = 0.1 * gsl_ran_ugaussian(rng);
	for (j = 0; j < c->ncorr; j++)
		phi[p + 2 * d + j] = 0.1 * gsl_ran_ugaussian(rng);
	/* phi[0] holds theta_0 so far; a = theta_0 + sum_j theta_j mu_j */
	if (c->L.intercept)
		for (j = 0; j < d; j++)
			phi[0] += phi[1 + j] * phi[p + j];
	core_to_phi(c, phi);
}

/* the callbacks of the shared chain loop (nuts_chains.c) */
typedef struct glm_run_ctx
{
	dpb_glm_ctx *c;
	const dpb_release *r;
	int			nuisance;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D],
				theta[DPB_MAX_D + 1],
				mu[DPB_MAX_D],
				Sigma[DPB_MAX_D * DPB_MAX_D];
} glm_run_ctx;

static double
run_logp(const double *phi, double *grad, void *vctx)
{
	return dpb_glm_logp(phi, grad, ((glm_run_ctx *) vctx)->c);
}

static void
run_init(void *vctx, gsl_rng *rng, double *phi)
{
	dpb_glm_init(((glm_run_ctx *) vctx)->c, rng, phi);
}

/*
 * kappa_a: the slope of log |b_j - mean b_j| on log tau_j over the draws,
 * b_j = tau_j^a theta_j, pooled over j (weighted by the variance of
 * log tau_j), for a = 0 and 1; x holds n draws in the core's coordinates.
 */
static void
slope_spread(const dpb_glm_ctx *c, const double *x, int n, double *kappa)
{
	int			d = c->d,
				p = c->p,
				dim = c->dim;
	double		num[2] = {0, 0},
				den = 0;

	for (int j = 0; j < d; j++)
	{
		int			k = c->L.intercept + j;
		double		ml = 0,
					mb[2] = {0, 0},
					my[2] = {0, 0},
					cv[2] = {0, 0},
					vl = 0;

		for (int i = 0; i < n; i++)
		{
			const double *r = x + (size_t) i * dim;

			ml += r[p + d + j] / n;
			mb[0] += r[k] / n;
			mb[1] += r[k] * exp(r[p + d + j]) / n;
		}
		for (int a = 0; a < 2; a++)
			for (int i = 0; i < n; i++)
			{
				const double *r = x + (size_t) i * dim;
				double		y = log(fabs(r[k] * (a ? exp(r[p + d + j]) : 1) - mb[a]) + 1e-300);

				my[a] += y / n;
			}
		for (int a = 0; a < 2; a++)
			for (int i = 0; i < n; i++)
			{
				const double *r = x + (size_t) i * dim;
				double		y = log(fabs(r[k] * (a ? exp(r[p + d + j]) : 1) - mb[a]) + 1e-300);

				cv[a] += (r[p + d + j] - ml) * (y - my[a]);
			}
		for (int i = 0; i < n; i++)
			vl += (x[(size_t) i * dim + p + d + j] - ml) * (x[(size_t) i * dim + p + d + j] - ml);
		num[0] += cv[0];
		num[1] += cv[1];
		den += vl;
	}
	kappa[0] = den > 0 ? num[0] / den : 0;
	kappa[1] = den > 0 ? num[1] / den : 0;
}

/*
 * lambda: the slope of theta_j on log tau_j in units of -mean theta_j, pooled
 * over j by least squares with each j weighted by its precision
 * (mean theta_j / sd theta_j)^2 times the variance of log tau_j; about 1
 * when the release pins b_j = tau_j theta_j (theta_j ~ 1 / tau_j), about 0
 * when the prior dominates.  *prec gets the sum of the weights, so that
 * lambda's standard error for n independent draws is 1 / sqrt(n *prec).
 * x holds n draws in the core's coordinates.
 */
static double
slope_shift(const dpb_glm_ctx *c, const double *x, int n, double *prec)
{
	int			d = c->d,
				p = c->p,
				dim = c->dim;
	double		num = 0,
				den = 0;

	for (int j = 0; j < d; j++)
	{
		int			k = c->L.intercept + j;
		double		ml = 0,
					mt = 0,
					cv = 0,
					vl = 0,
					vt = 0;

		for (int i = 0; i < n; i++)
		{
			ml += x[(size_t) i * dim + p + d + j] / n;
			mt += x[(size_t) i * dim + k] / n;
		}
		for (int i = 0; i < n; i++)
		{
			double		l = x[(size_t) i * dim + p + d + j] - ml,
						t = x[(size_t) i * dim + k] - mt;

			cv += l * t;
			vl += l * l;
			vt += t * t;
		}
		if (vt > 0)
		{
			num -= mt * cv / vt;
			den += mt * mt * vl / vt;
		}
	}
	*prec = den;
	return den > 0 ? num / den : 0;
}

/*
 * The choice of the slopes' coordinates at the end of the second slow
 * window of the warmup (nuts.h, recoord), from the 75 draws of the slow
 * windows, and when it keeps theta, again at the end of the third and the
 * fourth on all the slow windows' draws (DPB_GLM_RECOORD_LAST).  kappa_0 is the slope of log |theta_j - mean| on log tau_j:
 * about -1 when the release pins b_j = tau_j theta_j and theta_j's spread
 * scales as 1 / tau_j (the banana at N = 1e3), about 0 when the prior
 * dominates.  kappa_1 is the same for b_j: about 0 in the first case, and
 * positive (a funnel) in the second.  With kappa_0 <= -DPB_GLM_KAPPA and
 * |kappa_1| <= DPB_GLM_KAPPA, and lambda (slope_shift) >= DPB_GLM_LAMBDA
 * at lambda / se >= DPB_GLM_LAMBDA_T, the slopes become b_j =
 * tau_j^alpha theta_j with alpha = min(1, -kappa_0), and the metric dense;
 * when only the kappa rule holds, only the metric becomes dense (and no
 * later window tries again); else nothing changes.  (The draws are a
 * function of the release and the sampler's randomness only, so this is
 * post-processing; the sampling phase runs in the coordinates chosen
 * here.)
 */
static int
run_recoord(int n, double *draws, double *q, void *vctx)
{
	dpb_glm_ctx *c = ((glm_run_ctx *) vctx)->c;
	int			dim = c->dim;
	double		kappa[2],
				lambda,
				prec;
	int			spread,
				shift;
	const double *x;
	double	   *core;

	if (c->slope_alpha != 0)
		return 0;
	/* the draws in the core's coordinates, in a copy: when the rule keeps
	 * theta they stay as they are, for the next window's try */
	if ((core = malloc(sizeof(double) * (size_t) n * dim)) == NULL)
		return 0;
	for (int i = 0; i < n; i++)
	{
		if ((x = phi_to_core(c, draws + (size_t) i * dim)) == NULL)
		{
			free(core);
			return 0;
		}
		memcpy(core + (size_t) i * dim, x, sizeof(double) * dim);
	}
	slope_spread(c, core, n, kappa);
	lambda = slope_shift(c, core, n, &prec);
	spread = kappa[0] <= -DPB_GLM_KAPPA && fabs(kappa[1]) <= DPB_GLM_KAPPA;
	shift = lambda >= DPB_GLM_LAMBDA &&
		lambda * sqrt(n * prec) >= DPB_GLM_LAMBDA_T;
	if (spread && !shift)
	{
		free(core);
		return DPB_RECOORD_DENSE;
	}
	if (!spread || (x = phi_to_core(c, q)) == NULL)
	{
		free(core);
		return 0;
	}
	memcpy(q, x, sizeof(double) * dim);
	memcpy(draws, core, sizeof(double) * (size_t) n * dim);
	free(core);
	c->slope_alpha = fmin(1, -kappa[0]);
	for (int i = 0; i <= n; i++)
		core_to_phi(c, i < n ? draws + (size_t) i * dim : q);
	return DPB_RECOORD_MAPPED | DPB_RECOORD_DENSE;
}

static void
run_record(void *vctx, const double *phi, double *out)
{
	glm_run_ctx *x = vctx;
	double		N = dpb_glm_n(x->c, phi);

	dpb_glm_unpack(x->c, phi, x->theta, x->mu, x->Sigma);
	dpb_record_draw(x->r, x->gain, x->center, x->theta, NULL, x->c->nunk ? &N : NULL, x->mu,
					x->Sigma, x->nuisance, out);
}

dpb_status
dpb_glm_run(const dpb_release *r, const dpb_infer_opts *o, dpb_draws *out,
			dpb_err *err)
{
	int			nvars = dpb_nvars(r, 0, !o->count.n_known, o->nuisance);
	glm_run_ctx x;
	dpb_nuts_model m;
	dpb_status	st;

	if (r->p.mechanism == DPB_MECH_LAPLACE)
	{
		dpb_err_set(err, "laplace releases of GLMs are not supported", NULL);
		return DPB_ENOTSUP;
	}
	if (o->method == DPB_METHOD_NAIVE || o->method == DPB_METHOD_NONPRIVATE)
	{
		dpb_err_set(err, "this method is not available for this model",
					"Logistic and Poisson releases are analysed with method \"noise_aware\"; "
					"the non-private reference is dpbayes.nonprivate_posterior().");
		return DPB_ENOTSUP;
	}
	memset(&x, 0, sizeof(x));
	dpb_feature_map(r, x.gain, x.center);
	x.r = r;
	x.nuisance = o->nuisance;
	x.c = dpb_glm_ctx_new(r, o);
	if (x.c == NULL || dpb_draws_alloc(out, o->chains, o->draws, nvars) != DPB_OK)
	{
		dpb_glm_ctx_free(x.c);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_name_vars(r, 0, !o->count.n_known, o->nuisance, out->names);
	memset(&m, 0, sizeof(m));
	m.dim = x.c->dim;
	m.logp = run_logp;
	m.ctx = &x;
	m.init = run_init;
	m.record = run_record;
	m.prior_options = "theta_scale, mu_scale, tau_scale, lkj_eta";
	m.init_max_depth = DPB_GLM_INIT_DEPTH;
	m.warm_restart = 1;
	m.recoord_window = DPB_GLM_RECOORD_WINDOW;
	m.recoord_last = DPB_GLM_RECOORD_LAST;
	m.recoord = run_recoord;
	st = dpb_nuts_chains(&m, o, 1, out, err);
	dpb_glm_ctx_free(x.c);
	if (st != DPB_OK)
		dpb_draws_free(out);
	return st;
}
