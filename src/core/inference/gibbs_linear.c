/*
 * gibbs_linear.c — Gibbs-SS for linear regression (B&S 2019, Algorithm 1).
 *
 * State of a chain: theta, sigma^2 (the regression), mu, Sigma (moments of
 * the scaled features), the latent exact statistics s, and for a Laplace
 * release the per-entry noise variances omega^2.  One iteration:
 *   1. s | theta, sigma^2, mu, Sigma, z: the CLT prior s ~ N(N m, N V)
 *      times the release likelihood z ~ N(s, D), sampled exactly by
 *      "perturb and correct": s0 ~ N(N m, A), e ~ N(0, D),
 *      s = s0 + A (A + D)^{-1} (z - s0 - e), A = N V;
 *   2. (Laplace) 1/omega_j^2 ~ InvGauss(1/(b_j |z_j - s_j|), 1/b_j^2);
 *   3. s is projected so that the moment matrix of [1, x, y] is PSD;
 *   4. (theta, sigma^2) | s: conjugate normal-inverse-gamma update;
 *   5. (mu, Sigma) | s: conjugate normal-inverse-Wishart update ("update")
 *      or fixed ("prior").
 * With the "noisy" moments (xmoments.h) step 1 takes m and V from the
 * released second and fourth moments of the features instead of a Gaussian
 * (mu, Sigma), and step 5 is skipped.
 * When the number of records N is unknown (an add/remove release holds only
 * a noisy count), N is a parameter and step 1 is preceded by
 *   0. N | theta, sigma^2, mu, Sigma, omega, z, n_hat with s marginalised:
 *      p(N) p(n_hat | N) N(z; N m, N V + D), by slice sampling (Neal 2003,
 *      stepping out and shrinkage), so that (N, s) is one Gibbs block;
 * steps 3-5 then use the current N.
 * The naive method plugs the PSD-projected z (and the released count) into
 * step 4 as if exact; the non-private method does the same with exact
 * statistics.
 */
#include "gibbs_linear.h"
#include "progress.h"

#include "linalg.h"
#include "xmoments.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* indices into v = [w_0..w_{p-1}, y] of each statistic's two factors */
static void
stat_pairs(const dpb_layout *L, int *ia, int *ib)
{
	int			k;

	for (k = 0; k < L->nmodel; k++)
		dpb_layout_linear_factors(L, k, &ia[k], &ib[k]);
}

void
dpb_linear_joint_moments(const dpb_layout *L, const double *theta, double sigma2,
			  const double *mu, const double *Sigma, double *mv, double *C)
{
	int			p = L->p,
				q = p + 1,
				ic = L->intercept,
				d = L->d,
				a,
				b;
	double		cyy = 0,
				my = 0;

	memset(C, 0, sizeof(double) * q * q);
	if (ic)
		mv[0] = 1.0;
	for (a = 0; a < d; a++)
	{
		mv[ic + a] = mu[a];
		for (b = 0; b < d; b++)
			C[(ic + a) * q + ic + b] = Sigma[a * d + b];
	}
	for (a = 0; a < p; a++)
	{
		double		s = 0;

		for (b = 0; b < p; b++)
			s += C[a * q + b] * theta[b];
		C[a * q + p] = C[p * q + a] = s;
		cyy += theta[a] * s;
		my += theta[a] * mv[a];
	}
	C[p * q + p] = cyy + sigma2;
	mv[p] = my;
}

void
dpb_linear_stat_moments(const dpb_layout *L, const double *theta,
						double sigma2, const double *mu, const double *Sigma,
						double *m, double *V)
{
	int			q = L->p + 1,
				n = L->nmodel,
				k,
				l;
	int		   *ia = malloc(sizeof(int) * 2 * n);
	int		   *ib;
	double	   *mv = malloc(sizeof(double) * (q + q * q));
	double	   *C;

	if (ia == NULL || mv == NULL)
	{
		free(ia);
		free(mv);
		return;
	}
	ib = ia + n;
	C = mv + q;
	stat_pairs(L, ia, ib);
	dpb_linear_joint_moments(L, theta, sigma2, mu, Sigma, mv, C);
	for (k = 0; k < n; k++)
	{
		int			a = ia[k],
					b = ib[k];

		m[k] = C[a * q + b] + mv[a] * mv[b];
		for (l = 0; l <= k; l++)
		{
			int			c = ia[l],
						e = ib[l];
			double		v;

			v = C[a * q + c] * C[b * q + e] + C[a * q + e] * C[b * q + c]
				+ mv[a] * mv[c] * C[b * q + e] + mv[a] * mv[e] * C[b * q + c]
				+ mv[b] * mv[c] * C[a * q + e] + mv[b] * mv[e] * C[a * q + c];
			V[k * n + l] = V[l * n + k] = v;
		}
	}
	free(ia);
	free(mv);
}

double
dpb_ran_invgauss(gsl_rng *rng, double mean, double shape)
{
	double		nu = gsl_ran_ugaussian(rng);
	double		y = nu * nu;
	double		x,
				u;

	x = mean + mean * mean * y / (2 * shape)
		- mean / (2 * shape) * sqrt(4 * mean * shape * y + mean * mean * y * y);
	u = gsl_rng_uniform(rng);
	if (!(x > 0))
		x = mean * 1e-12;		/* cancellation for huge mean */
	return u <= mean / (mean + x) ? x : mean * mean / x;
}

/* ---- working memory of one chain ---- */

typedef struct chain
{
	const dpb_release *r;
	const dpb_infer_opts *o;
	dpb_layout	L;
	int			n,				/* statistics */
				p,				/* regression coefficients */
				q,				/* p + 1 */
				d;
	double		N;
	gsl_rng    *rng;
	/* state */
	double	   *theta,
				sigma2,
			   *mu,
			   *Sigma,
			   *s,
			   *D;				/* noise variances (omega^2 for laplace) */
	const double *z;
	double	   *bscale;			/* laplace scale per entry */
	dpb_xmom   *xm;				/* the noisy moments, or NULL */
	/* scratch */
	double	   *m,
			   *V,
			   *A,
			   *M,
			   *tmp,
			   *tmp2,
			   *mom,
			   *pp,
			   *pv,
			   *dd,
			   *dd2;
	int		   *ia,
			   *ib;
	long		rejected;
	int			nunk;			/* N is a parameter */
	double		nwidth;			/* slice width for N */
} chain;

static void
chain_free(chain *c)
{
	free(c->theta);
	free(c->m);
	free(c->ia);
	if (c->rng)
		gsl_rng_free(c->rng);
}

static dpb_status
chain_init(chain *c, const dpb_release *r, const dpb_infer_opts *o, int ci)
{
	int			n,
				p,
				q,
				d;
	size_t		nd;

	memset(c, 0, sizeof(*c));
	c->r = r;
	c->o = o;
	dpb_release_layout(r, &c->L);
	/* the count of an add/remove release, the last model statistic, is
	 * not one of s: its likelihood p(n_hat | N) is dpb_n_log_density */
	if (c->L.add_remove)
		c->L.nmodel--;
	n = c->n = c->L.nmodel;		/* the moment blocks are not modelled */
	p = c->p = c->L.p;
	q = c->q = p + 1;
	d = c->d = r->d;
	c->nunk = !o->count.n_known && o->method == DPB_METHOD_NOISE_AWARE;
	/* naive: the released count is plugged in as if exact */
	c->N = c->nunk ? dpb_n_start(o) : (o->count.n_known ? o->count.n_hat : fmax(o->count.n_hat, 1.0));
	c->nwidth = 2 * o->count.n_sd;
	c->z = r->stats;
	/* one block of doubles for the state, one for the scratch */
	nd = p + d + d * d + 2 * n + n;
	c->theta = calloc(nd, sizeof(double));
	c->m = calloc(n + 3 * (size_t) n * n + 2 * (size_t) n + q * q + p * p + q + 2 * (size_t) d * d,
				  sizeof(double));
	c->ia = malloc(sizeof(int) * 2 * n);
	c->rng = dpb_chain_rng(o->seed, ci);
	if (c->theta == NULL || c->m == NULL || c->ia == NULL || c->rng == NULL)
	{
		chain_free(c);
		return DPB_ENOMEM;
	}
	c->mu = c->theta + p;
	c->Sigma = c->mu + d;
	c->s = c->Sigma + d * d;
	c->D = c->s + n;
	c->bscale = c->D + n;
	c->V = c->m + n;
	c->A = c->V + (size_t) n * n;
	c->M = c->A + (size_t) n * n;
	c->tmp = c->M + (size_t) n * n;
	c->tmp2 = c->tmp + n;
	c->mom = c->tmp2 + n;
	c->pp = c->mom + q * q;
	c->pv = c->pp + p * p;
	c->dd = c->pv + q;
	c->dd2 = c->dd + d * d;
	c->ib = c->ia + n;
	stat_pairs(&c->L, c->ia, c->ib);
	return DPB_OK;
}

/* The moment matrix of v = [w, y] from statistics s, PSD-projected. */
static dpb_status
moment_matrix(chain *c, const double *s)
{
	int			q = c->q,
				k,
				changed;

	memset(c->mom, 0, sizeof(double) * q * q);
	if (c->L.intercept)
		c->mom[0] = c->N;
	for (k = 0; k < c->n; k++)
		c->mom[c->ia[k] * q + c->ib[k]] = c->mom[c->ib[k] * q + c->ia[k]] = s[k];
	return dpb_psd_project(c->mom, q, 0.0, &changed);
}

/* (theta, sigma^2) | moment matrix: conjugate NIG draw */
static dpb_status
draw_theta(chain *c)
{
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				q = c->q,
				i,
				j;
	double	   *Ln = c->pp,
			   *mn = c->pv;
	double		an,
				bn,
				quad = 0,
				prior = 0,
				sd;
	dpb_status	st;

	for (i = 0; i < p; i++)
	{
		for (j = 0; j < p; j++)
			Ln[i * p + j] = c->mom[i * q + j];
		Ln[i * p + i] += o->lin.theta_precision[i];
		mn[i] = c->mom[i * q + p] + o->lin.theta_precision[i] * o->lin.theta_mean[i];
		prior += o->lin.theta_precision[i] * o->lin.theta_mean[i] * o->lin.theta_mean[i];
	}
	st = dpb_chol(Ln, p, NULL);
	if (st != DPB_OK)
		return st;
	dpb_chol_solve(Ln, p, mn, 1);
	/* mu_n^T Lambda_n mu_n = ||L^T mu_n||^2 */
	for (i = 0; i < p; i++)
	{
		double		t = 0;

		for (j = i; j < p; j++)
			t += Ln[j * p + i] * mn[j];
		quad += t * t;
	}
	an = o->lin.sigma2_shape + 0.5 * c->N;
	bn = o->lin.sigma2_scale + 0.5 * (c->mom[p * q + p] + prior - quad);
	if (!(bn > o->lin.sigma2_scale * 1e-9))
		bn = o->lin.sigma2_scale * 1e-9;
	c->sigma2 = 1.0 / gsl_ran_gamma(c->rng, an, 1.0 / bn);
	sd = sqrt(c->sigma2);
	for (i = 0; i < p; i++)
		c->tmp[i] = sd * gsl_ran_ugaussian(c->rng);
	dpb_tri_solve_t(Ln, p, c->tmp);
	for (i = 0; i < p; i++)
		c->theta[i] = mn[i] + c->tmp[i];
	return DPB_OK;
}

/* Sigma ~ InvWishart(df, Psi): Sigma^{-1} ~ Wishart(df, Psi^{-1}) */
static dpb_status
draw_invwishart(chain *c, double df, const double *Psi, double *Sigma)
{
	int			d = c->d;
	double	   *Lp = c->dd,
			   *W = c->dd2;
	double	   *work = c->A;	/* n*n >= d*d scratch, free at this point */
	gsl_matrix_view Lv,
				Wv,
				Kv;
	dpb_status	st;

	memcpy(Lp, Psi, sizeof(double) * d * d);
	st = dpb_chol(Lp, d, NULL);
	if (st != DPB_OK)
		return st;
	dpb_chol_inverse(Lp, d, W);	/* Psi^{-1} */
	memcpy(Lp, W, sizeof(double) * d * d);
	st = dpb_chol(Lp, d, NULL);
	if (st != DPB_OK)
		return st;
	Lv = gsl_matrix_view_array(Lp, d, d);
	Wv = gsl_matrix_view_array(W, d, d);
	Kv = gsl_matrix_view_array(work, d, d);
	if (gsl_ran_wishart(c->rng, df, &Lv.matrix, &Wv.matrix, &Kv.matrix) != 0)
		return DPB_ENUMERIC;
	st = dpb_chol(W, d, NULL);
	if (st != DPB_OK)
		return st;
	dpb_chol_inverse(W, d, Sigma);
	return DPB_OK;
}

/* (mu, Sigma) | moment matrix: conjugate NIW (or IW with mu = 0) */
static dpb_status
draw_xmoments(chain *c)
{
	const dpb_infer_opts *o = c->o;
	int			d = c->d,
				q = c->q,
				ic = c->L.intercept,
				i,
				j;
	double	   *Psi = c->M;		/* scratch */
	double		N = c->N,
				kn,
				nu;
	dpb_status	st;

	if (o->lin.xmoments != DPB_XMOM_UPDATE)
		return DPB_OK;
	kn = o->lin.x_kappa + N;
	nu = o->lin.x_df + N;
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			Psi[i * d + j] = o->lin.x_scale[i * d + j] + c->mom[(ic + i) * q + ic + j];
	if (ic && N > 0)
	{
		double	   *xbar = c->tmp,
				   *mn = c->tmp2;

		for (i = 0; i < d; i++)
		{
			xbar[i] = c->mom[i + 1] / N;
			mn[i] = (o->lin.x_kappa * o->x_mean[i] + N * xbar[i]) / kn;
		}
		/* scatter about the mean: the Schur complement of the projected
		 * moment matrix (its [0][0] entry may differ slightly from N after
		 * the projection; using it keeps the scatter PSD) */
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				Psi[i * d + j] += -c->mom[i + 1] * c->mom[j + 1] / c->mom[0]
					+ o->lin.x_kappa * N / kn * (xbar[i] - o->x_mean[i]) * (xbar[j] - o->x_mean[j]);
		st = draw_invwishart(c, nu, Psi, c->Sigma);
		if (st != DPB_OK)
			return st;
		/* mu ~ N(mn, Sigma / kn) */
		memcpy(c->dd, c->Sigma, sizeof(double) * d * d);
		st = dpb_chol(c->dd, d, NULL);
		if (st != DPB_OK)
			return st;
		for (i = 0; i < d; i++)
			c->mu[i] = gsl_ran_ugaussian(c->rng) / sqrt(kn);
		dpb_tri_mul(c->dd, d, c->mu);
		for (i = 0; i < d; i++)
			c->mu[i] += mn[i];
		return DPB_OK;
	}
	/* no intercept: no sum of x is released; mu stays at x_mean */
	return draw_invwishart(c, nu, Psi, c->Sigma);
}

/* m and V of one record's statistics at the current state (and N, for the
 * noisy moments) */
static dpb_status
stat_moments(chain *c)
{
	int			n = c->n,
				k;

	if (c->xm)
	{
		int			changed;

		/* the noisy moments need not give a PSD V: project it (its
		 * Cholesky below needs a little room) */
		dpb_xmom_stat_moments(&c->L, c->xm, c->theta, c->sigma2, c->m, c->V);
		memcpy(c->A, c->V, sizeof(double) * n * n);
		if (dpb_chol(c->A, n, NULL) != DPB_OK)
		{
			double		tr = 0;

			for (k = 0; k < n; k++)
				tr += c->V[k * n + k];
			return dpb_psd_project(c->V, n, 1e-12 * tr / n, &changed);
		}
	}
	else
		dpb_linear_stat_moments(&c->L, c->theta, c->sigma2, c->mu, c->Sigma, c->m, c->V);
	return DPB_OK;
}

/*
 * log p(N) + log p(n_hat | N) + log N(z; N m, N V + D): the density of N
 * given everything but s (s marginalised).  m and V are those of the
 * current state; with the noisy moments they depend on N and are
 * recomputed.  -inf outside the prior's support or for a non-PD matrix.
 */
static double
n_log_cond(chain *c, double N)
{
	int			n = c->n,
				k,
				l;
	double		lp = dpb_n_log_density(c->o, N, NULL),
				quad = 0;

	if (!dpb_isfinite(lp))
		return -INFINITY;
	if (c->xm)
	{
		dpb_xmom_set_n(c->xm, c->L.intercept, N, 0);
		if (stat_moments(c) != DPB_OK)
			return -INFINITY;
	}
	for (k = 0; k < n; k++)
	{
		for (l = 0; l <= k; l++)
			c->M[k * n + l] = c->M[l * n + k] = N * c->V[k * n + l];
		c->M[k * n + k] += c->D[k];
		c->tmp[k] = c->z[k] - N * c->m[k];
	}
	if (dpb_chol(c->M, n, NULL) != DPB_OK)
		return -INFINITY;
	memcpy(c->tmp2, c->tmp, sizeof(double) * n);
	dpb_chol_solve(c->M, n, c->tmp2, 1);
	for (k = 0; k < n; k++)
		quad += c->tmp[k] * c->tmp2[k];
	return lp - 0.5 * dpb_chol_logdet(c->M, n) - 0.5 * quad;
}

/*
 * N | everything but s: one slice-sampling update (Neal 2003, section 4:
 * stepping out with at most 32 steps of width w, then shrinkage), which
 * leaves the conditional invariant.  w is twice the count's noise sd: the
 * conditional is at most about that wide, since it contains p(n_hat | N).
 */
static dpb_status
draw_n(chain *c)
{
	double		N0 = c->N,
				w = c->nwidth,
				f0,
				y,
				lo,
				hi,
				N1;
	int			j,
				k,
				steps;
	dpb_status	st;

	if (!c->xm && (st = stat_moments(c)) != DPB_OK)
		return st;
	f0 = n_log_cond(c, N0);
	if (!dpb_isfinite(f0))
		return DPB_ENUMERIC;
	y = f0 - gsl_ran_exponential(c->rng, 1.0);
	lo = N0 - w * gsl_rng_uniform(c->rng);
	hi = lo + w;
	j = (int) floor(32 * gsl_rng_uniform(c->rng));
	k = 31 - j;
	while (j-- > 0 && n_log_cond(c, lo) > y)
		lo -= w;
	while (k-- > 0 && n_log_cond(c, hi) > y)
		hi += w;
	for (steps = 0;; steps++)
	{
		N1 = lo + (hi - lo) * gsl_rng_uniform(c->rng);
		if (n_log_cond(c, N1) > y)
			break;
		if (N1 < N0)
			lo = N1;
		else
			hi = N1;
		if (steps > 200)
		{
			N1 = N0;			/* cannot happen for a continuous density */
			break;
		}
	}
	c->N = N1;
	if (c->xm)
	{
		dpb_xmom_set_n(c->xm, c->L.intercept, N1, 1);
		memcpy(c->mu, c->xm->mu, sizeof(double) * c->d);
		memcpy(c->Sigma, c->xm->Sigma, sizeof(double) * c->d * c->d);
	}
	return DPB_OK;
}

/* s | rest: perturb and correct */
static dpb_status
draw_stats(chain *c)
{
	int			n = c->n,
				k,
				l;
	double		N = c->N;
	dpb_status	st;

	if ((st = stat_moments(c)) != DPB_OK)
		return st;
	for (k = 0; k < n * n; k++)
		c->A[k] = N * c->V[k];
	memcpy(c->M, c->A, sizeof(double) * n * n);
	for (k = 0; k < n; k++)
		c->M[k * n + k] += c->D[k];
	st = dpb_chol(c->M, n, NULL);
	if (st != DPB_OK)
		return st;
	/* s0 = N m + chol(A) xi: keep A intact, factor a copy into V */
	memcpy(c->V, c->A, sizeof(double) * n * n);
	st = dpb_chol(c->V, n, NULL);
	if (st != DPB_OK)
		return st;
	for (k = 0; k < n; k++)
		c->tmp[k] = gsl_ran_ugaussian(c->rng);
	dpb_tri_mul(c->V, n, c->tmp);
	for (k = 0; k < n; k++)
	{
		c->s[k] = N * c->m[k] + c->tmp[k];
		c->tmp2[k] = c->z[k] - c->s[k] - sqrt(c->D[k]) * gsl_ran_ugaussian(c->rng);
	}
	dpb_chol_solve(c->M, n, c->tmp2, 1);
	for (k = 0; k < n; k++)
	{
		double		t = 0;

		for (l = 0; l < n; l++)
			t += c->A[k * n + l] * c->tmp2[l];
		c->s[k] += t;
	}
	return DPB_OK;
}

static void
draw_omega(chain *c)
{
	int			k;

	for (k = 0; k < c->n; k++)
	{
		double		b = c->bscale[k];
		double		dev = fabs(c->z[k] - c->s[k]);

		if (dev < 1e-300)
			dev = 1e-300;
		c->D[k] = 1.0 / dpb_ran_invgauss(c->rng, 1.0 / (b * dev), 1.0 / (b * b));
		if (!(c->D[k] > 0) || !dpb_isfinite(c->D[k]))
			c->D[k] = 2 * b * b;
	}
}

/* ---- output ---- */

static void
record(const chain *c, const double *gain, const double *center, double *out)
{
	double		sd = sqrt(c->sigma2);

	dpb_record_draw(c->r, gain, center, c->theta, &sd, c->nunk ? &c->N : NULL,
					c->mu, c->Sigma, c->o->nuisance, out);
}

dpb_status
dpb_gibbs_linear_run(const dpb_release *r, const dpb_infer_opts *o,
					 dpb_draws *out, dpb_err *err)
{
	int			d = r->d,
				nunk = !o->count.n_known && o->method == DPB_METHOD_NOISE_AWARE,
				nvars = dpb_nvars(r, 1, nunk, o->nuisance);
	int			ci,
				j,
				k;
	long		it;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D];
	dpb_status	st;
	int			iid = o->method != DPB_METHOD_NOISE_AWARE;
	long		rejected = 0;
	dpb_xmom	xm;
	double	   *scale;

	memset(&xm, 0, sizeof(xm));
	if (!iid && o->lin.xmoments == DPB_XMOM_NOISY &&
		(st = dpb_xmom_from_release(r, o->count.n_known ? o->count.n_hat : dpb_n_start(o),
									&xm, err)) != DPB_OK)
		return st;
	scale = malloc(sizeof(double) * r->nstats);
	if (scale == NULL)
	{
		dpb_xmom_free(&xm);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_release_noise_scale(r, scale);
	dpb_feature_map(r, gain, center);
	st = dpb_draws_alloc(out, o->chains, o->draws, nvars);
	if (st != DPB_OK)
	{
		free(scale);
		dpb_xmom_free(&xm);
		dpb_err_set(err, "out of memory", NULL);
		return st;
	}
	dpb_name_vars(r, 1, nunk, o->nuisance, out->names);

	for (ci = 0; ci < o->chains; ci++)
	{
		chain		c;
		int			thin = iid ? 1 : (o->thin > 0 ? o->thin : 1);
		int			burn = iid ? 0 : o->warmup;
		long		total = burn + (long) o->draws * thin;

		dpb_progress_chain(ci + 1, o->chains);
		dpb_progress_run(burn, (int) total);
		st = chain_init(&c, r, o, ci);
		if (st != DPB_OK)
		{
			free(scale);
			dpb_xmom_free(&xm);
			dpb_err_set(err, "out of memory", NULL);
			dpb_draws_free(out);
			return st;
		}
		/* noise variances and prior moments */
		memcpy(c.bscale, scale, sizeof(double) * c.n);
		for (k = 0; k < c.n; k++)
			c.D[k] = r->p.mechanism == DPB_MECH_LAPLACE ?
				2 * c.bscale[k] * c.bscale[k] : c.bscale[k] * c.bscale[k];
		for (j = 0; j < d; j++)
			c.mu[j] = o->x_mean[j];
		memcpy(c.Sigma, o->lin.xmoments == DPB_XMOM_PRIOR ? o->lin.x_cov : o->lin.x_scale,
			   sizeof(double) * d * d);
		if (o->lin.xmoments != DPB_XMOM_PRIOR && o->lin.x_df > d + 1)
			for (k = 0; k < d * d; k++)
				c.Sigma[k] /= o->lin.x_df - d - 1;
		if (xm.eta2 != NULL)
		{
			/* the moments implied by the noisy release (reported as the
			 * nuisance mu_x, sigma_x) */
			c.xm = &xm;
			dpb_xmom_set_n(&xm, c.L.intercept, c.N, 1);	/* after another chain */
			memcpy(c.mu, xm.mu, sizeof(double) * d);
			memcpy(c.Sigma, xm.Sigma, sizeof(double) * d * d);
		}
		/* start from the statistics as released */
		st = moment_matrix(&c, r->stats);
		if (st == DPB_OK)
			st = draw_theta(&c);
		if (st == DPB_OK && !iid && draw_xmoments(&c) != DPB_OK)
			c.rejected++;		/* start from the prior moments */
		for (it = 0; st == DPB_OK && it < total; it++)
		{
			dpb_progress_iter((int) it);
			if (o->interrupt && o->interrupt())
			{
				st = DPB_EINTR;
				break;
			}
			if (!iid)
			{
				dpb_status	s1 = c.nunk ? draw_n(&c) : DPB_OK;

				if (s1 == DPB_OK)
					s1 = draw_stats(&c);

				if (s1 == DPB_OK)
				{
					if (r->p.mechanism == DPB_MECH_LAPLACE)
						draw_omega(&c);
					s1 = moment_matrix(&c, c.s);
				}
				if (s1 == DPB_OK)
					s1 = draw_xmoments(&c);
				if (s1 == DPB_ENUMERIC)
				{
					/* a non-PD matrix: keep the previous state */
					c.rejected++;
					goto keep;
				}
				if (s1 != DPB_OK)
				{
					st = s1;
					break;
				}
			}
			st = draw_theta(&c);
			if (st == DPB_ENUMERIC)
			{
				c.rejected++;
				st = DPB_OK;
			}
	keep:
			if (st == DPB_OK && it >= burn && (it - burn) % thin == thin - 1)
				record(&c, gain, center,
					   out->v + ((size_t) ci * o->draws + (it - burn) / thin) * nvars);
		}
		rejected += c.rejected;
		out->proposals += total;
		chain_free(&c);
		if (st != DPB_OK)
		{
			free(scale);
			dpb_xmom_free(&xm);
			if (st == DPB_EINTR)
				dpb_err_set(err, "canceling statement due to user request", NULL);
			else if (st == DPB_ENOMEM)
				dpb_err_set(err, "out of memory", NULL);
			else
				dpb_err_set(err, "the sampler failed", "A matrix was not positive definite.");
			dpb_draws_free(out);
			return st;
		}
	}
	free(scale);
	dpb_xmom_free(&xm);
	out->rejected = rejected;
	return DPB_OK;
}
