/*
 * test_nuts.c — the No-U-Turn sampler (nuts.c) on targets with known
 * answers: iid and badly scaled normals, short warmups, a correlated normal,
 * the curvature-based initial metric, a half-normal with an invalid region, Neal's funnel (divergences),
 * interruption and error paths, a Bayesian logistic regression against an
 * importance-sampling reference, and simulation-based calibration on a
 * conjugate normal model.
 *
 * Seeds are fixed; DPB_TEST_SEED_SHIFT=k (unit.h) reruns everything on
 * other seeds.  Each check fails on purpose-broken samplers
 * (always taking the second half's proposal, no U-turn check or a reversed
 * one, a missing leapfrog half step, wrong momentum scale, sign errors in
 * the weights or the dual averaging, no x_bar at the end of warmup, the
 * acceptance statistic without min(1, .), no metric update, sd instead of
 * variance, no window doubling, no divergence threshold, -inf treated as a
 * valid density, always jumping to the new subtree).
 */
#include "unit.h"

#include "diag.h"
#include "linalg.h"
#include "nuts.h"
#include "nuts_chains.h"
#include "posterior.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define CHAINS 4

/* ---------------------------------------------------------------- targets */

/* independent normals N(mean_i, sd_i^2); sd == NULL: standard */
typedef struct normal_ctx
{
	int			dim;
	const double *sd;
	const double *mean;
} normal_ctx;

static double
normal_logp(const double *x, double *g, void *ctx)
{
	const normal_ctx *c = ctx;
	double		lp = 0.0;

	for (int i = 0; i < c->dim; i++)
	{
		double		s = c->sd ? c->sd[i] : 1.0,
					z = (x[i] - (c->mean ? c->mean[i] : 0.0)) / s;

		lp -= 0.5 * z * z;
		g[i] = -z / s;
	}
	return lp;
}

/* 2-D normal, unit variances, correlation rho */
static double
corr_logp(const double *x, double *g, void *ctx)
{
	double		r = *(const double *) ctx,
				k = 1.0 / (1.0 - r * r);

	g[0] = -k * (x[0] - r * x[1]);
	g[1] = -k * (x[1] - r * x[0]);
	return -0.5 * k * (x[0] * x[0] - 2.0 * r * x[0] * x[1] + x[1] * x[1]);
}

/* half-normal in x0 (-inf for x0 < 0; grad left unset there), N(0,1) in x1 */
static double
halfnormal_logp(const double *x, double *g, void *ctx)
{
	if (x[0] < 0.0)
		return -INFINITY;
	g[0] = -x[0];
	g[1] = -x[1];
	return -0.5 * (x[0] * x[0] + x[1] * x[1]);
}

/* Neal's funnel: v ~ N(0, 3^2), x_i | v ~ N(0, e^v), i = 1..dim-1 */
static double
funnel_logp(const double *x, double *g, void *ctx)
{
	int			dim = *(const int *) ctx;
	double		v = x[0],
				lp = -v * v / 18.0 - 0.5 * (dim - 1) * v;

	g[0] = -v / 9.0 - 0.5 * (dim - 1);
	for (int i = 1; i < dim; i++)
	{
		double		e = exp(-v) * x[i];

		lp -= 0.5 * x[i] * e;
		g[0] += 0.5 * x[i] * e;
		g[i] = -e;
	}
	return lp;
}

/* logistic regression, beta ~ N(0, 5^2 I) */
typedef struct logit_ctx
{
	int			n,
				d;
	const double *X;			/* n x d */
	const int  *y;
} logit_ctx;

static double
logit_logp(const double *b, double *g, void *ctx)
{
	const logit_ctx *c = ctx;
	double		lp = 0.0;
	int			j;

	for (j = 0; j < c->d; j++)
	{
		lp -= b[j] * b[j] / 50.0;
		g[j] = -b[j] / 25.0;
	}
	for (int i = 0; i < c->n; i++)
	{
		const double *x = c->X + (size_t) i * c->d;
		double		eta = 0.0,
					p;

		for (j = 0; j < c->d; j++)
			eta += x[j] * b[j];
		/* y log s(eta) + (1 - y) log(1 - s(eta)), stable */
		lp += (c->y[i] ? eta : 0.0) -
			(eta > 0 ? eta + log1p(exp(-eta)) : log1p(exp(eta)));
		p = 1.0 / (1.0 + exp(-eta));
		for (j = 0; j < c->d; j++)
			g[j] += (c->y[i] - p) * x[j];
	}
	return lp;
}

/* ---------------------------------------------------------------- helpers */

/* CHAINS chains from inits drawn uniformly in [-2, 2]^dim (+ offset); draws
 * are (chain, iteration, dim) row-major.  Returns the first bad status. */
static dpb_status
run_chains(int dim, dpb_logp_fn f, void *ctx, const dpb_nuts_opts *o,
		   uint64_t seed, double init_lo, double init_hi, double *draws,
		   dpb_nuts_stats *st, double *metric)
{
	double		init[64];

	for (int c = 0; c < CHAINS; c++)
	{
		gsl_rng    *rng = dpb_chain_rng(USEED(seed), c);
		dpb_status	s;

		for (int i = 0; i < dim; i++)
			init[i] = init_lo + (init_hi - init_lo) * gsl_rng_uniform(rng);
		s = dpb_nuts_run_metric(dim, f, ctx, init, o, rng,
								draws + (size_t) c * o->draws * dim, &st[c],
								metric ? metric + (size_t) c * dim : NULL);
		gsl_rng_free(rng);
		if (s != DPB_OK)
			return s;
	}
	return DPB_OK;
}

/* component k as chain-major vector x[c * n + i] */
static void
column(const double *draws, int chains, int n, int dim, int k, double *x)
{
	for (int c = 0; c < chains; c++)
		for (int i = 0; i < n; i++)
			x[c * n + i] = draws[((size_t) c * n + i) * dim + k];
}

static double
variance(const double *x, int n)
{
	double		m = 0.0,
				v = 0.0;

	for (int i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (int i = 0; i < n; i++)
		v += (x[i] - m) * (x[i] - m);
	return v / (n - 1);
}

/* ------------------------------------------------------------------ tests */

/* 10-D standard normal, 4 x 1000 after 1000 warmup */
static void
test_std_normal(void)
{
	enum { D = 10, N = 1000 };
	normal_ctx	ctx = {D, NULL, NULL};
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				x[CHAINS * N],
				min_ess = INFINITY,
				max_rhat = 0.0,
				max_z = 0.0,
				max_verr = 0.0,
				leapfrogs = 0.0;
	long		div = 0,
				wdiv = 0;

	dpb_nuts_opts_default(&o);
	CHECK(run_chains(D, normal_logp, &ctx, &o, 101, -2, 2, draws, st, NULL) == DPB_OK,
		  "run");
	for (int k = 0; k < D; k++)
	{
		dpb_summary s;

		column(draws, CHAINS, N, D, k, x);
		dpb_summarize(x, CHAINS, N, &s);
		/* MC-SE of the mean: sd / sqrt(ESS) */
		max_z = fmax(max_z, fabs(s.mean) / (s.sd / sqrt(s.ess_bulk)));
		max_verr = fmax(max_verr, fabs(s.sd * s.sd - 1.0));
		max_rhat = fmax(max_rhat, s.rhat);
		min_ess = fmin(min_ess, s.ess_bulk);
	}
	/* 4.5 MCSE over 10 coordinates: 7e-5 by chance */
	CHECK(max_z < 4.5, "mean: max |mean| / MCSE = %g", max_z);
	/* ESS of x^2 is ~ 1600-2200 here (sd 0.03): 16% is 5 sd */
	CHECK(max_verr < 0.16, "variance: max |var - 1| = %g", max_verr);
	/* observed 1.0017-1.0054 over 11 seeds */
	CHECK(max_rhat < 1.015, "R-hat %g", max_rhat);
	CHECK(min_ess > 1000, "bulk ESS %g", min_ess);
	for (int c = 0; c < CHAINS; c++)
	{
		/* 0.873 +- 0.024 over 11 seeds; > 1 without min(1, .) */
		CHECK(st[c].mean_accept > 0.7 && st[c].mean_accept < 0.99,
			  "chain %d: mean accept %g", c, st[c].mean_accept);
		div += st[c].divergences;
		wdiv += st[c].warmup_divergences;
		leapfrogs += (double) st[c].gradient_evals / (2 * N);
	}
	CHECK(div == 0, "divergences after warmup: %ld", div);
	/* NUTS stops at the U-turn: ~2^2.7 steps here, not 2^max_depth */
	CHECK(leapfrogs / CHAINS < 15, "%g gradients / iteration", leapfrogs / CHAINS);
	printf("  nuts 10-D normal: max|mean|/MCSE %.2f, max|var-1| %.3f, "
		   "R-hat <= %.4f, bulk ESS >= %.0f, accept %.3f, step %.3f, "
		   "depth %.2f, %.1f gradients / iteration, %ld warmup divergences\n",
		   max_z, max_verr, max_rhat, min_ess, st[0].mean_accept,
		   st[0].step_size, st[0].mean_tree_depth, leapfrogs / CHAINS, wdiv);
	free(draws);
}

/* sds from 0.01 to 100: the adapted inverse metric recovers the variances.
 * It is the variance of the 500 draws of the last window (relative sd ~ 8%
 * per chain): each chain within 40%, the mean of the 4 chains within 20%. */
static void
test_scaled(void)
{
	enum { D = 5, N = 1000 };
	const double sd[D] = {0.01, 0.1, 1.0, 10.0, 100.0};
	normal_ctx	ctx = {D, sd, NULL};
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				x[CHAINS * N],
				metric[CHAINS * D],
				max_merr = 0.0,
				max_cerr = 0.0,
				max_verr = 0.0,
				min_ess = INFINITY;

	dpb_nuts_opts_default(&o);
	CHECK(run_chains(D, normal_logp, &ctx, &o, 202, -2, 2, draws, st, metric) == DPB_OK,
		  "run");
	for (int k = 0; k < D; k++)
	{
		double		avg = 0.0;

		column(draws, CHAINS, N, D, k, x);
		for (int c = 0; c < CHAINS; c++)
		{
			double		r = metric[c * D + k] / (sd[k] * sd[k]);

			max_cerr = fmax(max_cerr, fabs(r - 1.0));
			avg += r / CHAINS;
		}
		max_merr = fmax(max_merr, fabs(avg - 1.0));
		max_verr = fmax(max_verr, fabs(variance(x, CHAINS * N) / (sd[k] * sd[k]) - 1.0));
		min_ess = fmin(min_ess, dpb_ess_bulk(x, CHAINS, N));
	}
	/*
	 * The regularised metric is n / (n + 5) var + 1e-3 * 5 / (n + 5) times
	 * the initial one (1 here): 1.089 sd^2 for sd 0.01, a bias of 8.9%
	 * before the window's own noise (a relative sd of ~0.09 per chain,
	 * ~0.045 for the mean of 4).  0.30 and 0.55 sit ~5 sd out; a metric
	 * that is not updated (1 instead of sd^2 = 1e-4) or that adapts the sd
	 * instead of the variance is off by orders of magnitude.
	 */
	CHECK(max_merr < 0.30, "metric, mean of the chains: max relative error %g", max_merr);
	CHECK(max_cerr < 0.55, "metric, each chain: max relative error %g", max_cerr);
	CHECK(max_verr < 0.16, "draws: max relative variance error %g", max_verr);
	CHECK(min_ess > 400, "bulk ESS %g", min_ess);
	printf("  nuts scaled normal: metric max rel. err %.3f (chains' mean), %.3f "
		   "(any chain), draws var err %.3f, ESS >= %.0f, step %.3f\n",
		   max_merr, max_cerr, max_verr, min_ess, st[0].step_size);
	free(draws);
}

/* short warmups: 100 iterations (Stan's 15% / 75% / 10% schedule: one
 * window of 75), below 20 (no metric adaptation), none (step size from the
 * heuristic only); these check the schedule, not the accuracy */
static void
test_short_warmup(void)
{
	enum { D = 3, N = 500 };
	const double sd[D] = {0.1, 1.0, 10.0};
	normal_ctx	ctx = {D, sd, NULL};
	double		init[D] = {0.05, 0.5, 5.0},
				metric[D],
				x[N],
			   *draws = malloc(sizeof(double) * N * D);
	dpb_nuts_opts o;
	dpb_nuts_stats st;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		max_err = 0.0;
	int			ones = 1;

	gsl_rng_set(rng, USEED(808));
	dpb_nuts_opts_default(&o);
	o.draws = N;
	o.warmup = 100;
	CHECK(dpb_nuts_run_metric(D, normal_logp, &ctx, init, &o, rng, draws, &st, metric) == DPB_OK,
		  "warmup 100");
	for (int k = 0; k < D; k++)
		max_err = fmax(max_err, fabs(log(metric[k] / (sd[k] * sd[k]))));
	/* 75 draws right after the start: only roughly (unadapted: 100) */
	CHECK(max_err < log(5.0), "warmup 100: metric off by a factor %g", exp(max_err));
	o.warmup = 19;
	CHECK(dpb_nuts_run_metric(D, normal_logp, &ctx, init, &o, rng, draws, &st, metric) == DPB_OK,
		  "warmup 19");
	for (int k = 0; k < D; k++)
		ones &= metric[k] == 1.0;
	CHECK(ones, "warmup 19: metric adapted");
	o.warmup = 0;
	CHECK(dpb_nuts_run(D, normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_OK,
		  "warmup 0");
	for (int i = 0; i < N; i++)
		x[i] = draws[i * D + 1];
	/* the heuristic moves the step from 1 by factors of 2 until the
	 * acceptance crosses 0.8: it stays at 1 from a start that accepts at 1
	 * and not at 2 (seeds differ), never above 2 with the sd 0.1 coordinate */
	CHECK(st.step_size > 0.0 && st.step_size <= 2.0 && dpb_isfinite(variance(x, N)),
		  "warmup 0: step size %g (heuristic, from 1)", st.step_size);
	printf("  nuts short warmup: 100 -> metric within a factor %.2f; 0 -> step %.3f, "
		   "var %.3f\n", exp(max_err), st.step_size, variance(x, N));
	gsl_rng_free(rng);
	free(draws);
}

/* correlated 2-D normal, rho = 0.95 (4 x 2500: with a diagonal metric the
 * ESS of the variances is only ~ 0.3 per draw) */
static void
test_correlated(void)
{
	enum { D = 2, N = 2500 };
	double		rho = 0.95;
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				m[2] = {0, 0},
				c[3] = {0, 0, 0};
	int			S = CHAINS * N;

	dpb_nuts_opts_default(&o);
	o.draws = N;
	CHECK(run_chains(D, corr_logp, &rho, &o, 303, -2, 2, draws, st, NULL) == DPB_OK,
		  "run");
	for (int i = 0; i < S; i++)
	{
		m[0] += draws[2 * i] / S;
		m[1] += draws[2 * i + 1] / S;
	}
	for (int i = 0; i < S; i++)
	{
		double		a = draws[2 * i] - m[0],
					b = draws[2 * i + 1] - m[1];

		c[0] += a * a / (S - 1);
		c[1] += a * b / (S - 1);
		c[2] += b * b / (S - 1);
	}
	/*
	 * Tolerances of 6 Monte Carlo standard errors, measured: over 40 seeds
	 * (DPB_TEST_SEED_SHIFT=0..39) the estimates spread with sd 0.046 (the
	 * variances and the covariance), 0.0027 (the correlation) and 0.021
	 * (the means), centred on the truth (1.002, 1.000, 0.951, 0.9501,
	 * -0.004, -0.003).  The chains of a diagonal metric on rho = 0.95 mix
	 * slowly along the long axis: fixed tolerances of 0.1 and 0.01 sat 2-3
	 * standard errors out and failed on other seeds (issue 22); ESS and
	 * batch-means estimates from one run understated the spread 2-3 times.
	 * A sampler with a wrong momentum scale or no metric update is off by
	 * far more (the header's broken samplers).
	 */
	CHECK(fabs(c[0] - 1) < 0.28 && fabs(c[2] - 1) < 0.28, "variances %g %g", c[0], c[2]);
	CHECK(fabs(c[1] - rho) < 0.28, "covariance %g", c[1]);
	CHECK(fabs(c[1] / sqrt(c[0] * c[2]) - rho) < 0.016,
		  "correlation %g", c[1] / sqrt(c[0] * c[2]));
	CHECK(fabs(m[0]) < 0.13 && fabs(m[1]) < 0.13, "means %g %g", m[0], m[1]);
	printf("  nuts rho = 0.95: var %.3f %.3f, cov %.3f, corr %.4f, mean %.3f %.3f\n",
		   c[0], c[2], c[1], c[1] / sqrt(c[0] * c[2]), m[0], m[1]);
	free(draws);
}

/* N(0, Sigma) by its precision matrix P (dim x dim, full) */
typedef struct gauss_ctx
{
	int			dim;
	const double *P;
} gauss_ctx;

static double
gauss_logp(const double *x, double *g, void *ctx)
{
	const gauss_ctx *c = ctx;
	double		lp = 0.0;

	dpb_symv(c->P, c->dim, x, g);
	for (int i = 0; i < c->dim; i++)
	{
		lp -= 0.5 * x[i] * g[i];
		g[i] = -g[i];
	}
	return lp;
}

/*
 * The dense metric on a 6-D normal with sds from 0.01 to 100 and
 * correlations 0.98 between neighbours: the draws have the right means,
 * variances and correlations, the adapted metric (its diagonal) the right
 * variances, and the trajectories are far shorter than with the diagonal
 * metric, which cannot undo the correlations (a broken dense estimate, a
 * momentum not drawn from N(0, M) or a position update by the diagonal
 * fails one of these).
 */
static void
test_dense(void)
{
	enum { D = 6, N = 1000 };
	const double sd[D] = {0.01, 0.1, 1.0, 10.0, 100.0, 1.0};
	double		Sig[D * D], P[D * D], metric[CHAINS * D];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				x[CHAINS * N],
				grads[2] = {0, 0},
				max_z = 0.0,
				max_verr = 0.0,
				max_cerr = 0.0,
				max_merr = 0.0,
				min_ess = INFINITY;
	gauss_ctx	ctx = {D, P};
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	long		div = 0;

	for (int i = 0; i < D; i++)
		for (int j = 0; j < D; j++)
			Sig[i * D + j] = pow(0.98, abs(i - j)) * sd[i] * sd[j];
	memcpy(P, Sig, sizeof(P));
	CHECK(dpb_chol(P, D, NULL) == DPB_OK, "chol");
	dpb_chol_inverse(P, D, P);
	for (int dense = 0; dense < 2; dense++)
	{
		dpb_nuts_opts_default(&o);
		o.dense = dense;
		o.curvature_init = 1;
		CHECK(run_chains(D, gauss_logp, &ctx, &o, 909, -0.01, 0.01, draws, st,
						 metric) == DPB_OK, "run (dense %d)", dense);
		for (int c = 0; c < CHAINS; c++)
			grads[dense] += (double) (st[c].gradient_evals - st[c].warmup_gradient_evals) /
				(CHAINS * N);
	}
	/* the dense run's draws */
	for (int k = 0; k < D; k++)
	{
		dpb_summary s;
		double		avg = 0.0;

		column(draws, CHAINS, N, D, k, x);
		dpb_summarize(x, CHAINS, N, &s);
		max_z = fmax(max_z, fabs(s.mean) / (s.sd / sqrt(s.ess_bulk)));
		max_verr = fmax(max_verr, fabs(s.sd * s.sd / (sd[k] * sd[k]) - 1.0));
		min_ess = fmin(min_ess, s.ess_bulk);
		for (int c = 0; c < CHAINS; c++)
			avg += metric[c * D + k] / (sd[k] * sd[k]) / CHAINS;
		max_merr = fmax(max_merr, fabs(avg - 1.0));
		if (k > 0)
		{
			double		cov = 0.0, v0 = 0.0, v1 = 0.0, m0 = 0.0, m1 = 0.0;

			for (int i = 0; i < CHAINS * N; i++)
			{
				m0 += draws[(size_t) i * D + k - 1] / (CHAINS * N);
				m1 += draws[(size_t) i * D + k] / (CHAINS * N);
			}
			for (int i = 0; i < CHAINS * N; i++)
			{
				double		a = draws[(size_t) i * D + k - 1] - m0,
							b = draws[(size_t) i * D + k] - m1;

				cov += a * b;
				v0 += a * a;
				v1 += b * b;
			}
			max_cerr = fmax(max_cerr, fabs(cov / sqrt(v0 * v1) - 0.98));
		}
	}
	for (int c = 0; c < CHAINS; c++)
		div += st[c].divergences;
	CHECK(max_z < 4.5, "dense: max |mean| / MCSE = %g", max_z);
	CHECK(max_verr < 0.15, "dense: max relative variance error %g", max_verr);
	CHECK(max_cerr < 0.005, "dense: max correlation error %g", max_cerr);
	CHECK(max_merr < 0.25, "dense: metric diagonal, max relative error %g", max_merr);
	CHECK(min_ess > 1000, "dense: bulk ESS %g", min_ess);
	CHECK(div == 0, "dense: %ld divergences", div);
	/* whitened: ~2^2 steps (as the 10-D standard normal); the diagonal
	 * metric needs ~ 2^5 here */
	/* the ratio was 3.24-3.66 over 8 seeds: > 2 is 12 sd away */
	CHECK(grads[1] < 10 && grads[0] > 2 * grads[1],
		  "gradients / iteration: dense %g, diagonal %g", grads[1], grads[0]);
	printf("  nuts dense metric, 6-D, corr 0.98, sd 0.01..100: max|mean|/MCSE %.2f, "
		   "var err %.3f, corr err %.4f, metric err %.3f, ESS >= %.0f; "
		   "gradients / iteration %.1f (diagonal %.1f)\n", max_z, max_verr,
		   max_cerr, max_merr, min_ess, grads[1], grads[0]);
	free(draws);
}

/* half-normal: x0 < 0 is invalid (log density -inf) */
static void
test_invalid_region(void)
{
	enum { D = 2, N = 1000 };
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				x[CHAINS * N],
				want = sqrt(2.0 / M_PI);
	dpb_summary s;
	long		invalid = 0;
	int			bad = 0;

	dpb_nuts_opts_default(&o);
	CHECK(run_chains(D, halfnormal_logp, NULL, &o, 404, 0.1, 2, draws, st, NULL) == DPB_OK,
		  "run");
	column(draws, CHAINS, N, D, 0, x);
	for (int i = 0; i < CHAINS * N; i++)
		bad += !(x[i] >= 0.0);
	for (int c = 0; c < CHAINS; c++)
		invalid += st[c].invalid;
	dpb_summarize(x, CHAINS, N, &s);
	CHECK(bad == 0, "%d draws in the invalid region", bad);
	CHECK(invalid > 0, "invalid evaluations counted: %ld", invalid);
	CHECK(fabs(s.mean - want) < 4.0 * s.sd / sqrt(s.ess_bulk),
		  "mean %g, want %g (MCSE %g)", s.mean, want, s.sd / sqrt(s.ess_bulk));
	CHECK(fabs(s.sd * s.sd - (1 - 2 / M_PI)) < 0.25 * (1 - 2 / M_PI),
		  "variance %g, want %g", s.sd * s.sd, 1 - 2 / M_PI);
	printf("  nuts half-normal: mean %.4f (want %.4f, MCSE %.4f), var %.4f, "
		   "invalid %ld, divergences %ld\n", s.mean, want,
		   s.sd / sqrt(s.ess_bulk), s.sd * s.sd, invalid, st[0].divergences);
	free(draws);
}

/* Neal's funnel in 10-D: divergences are reported, the run completes.
 * (The neck is rarely visited: ~5 divergences per 1000 draws, very
 * unevenly; 4 x 2000 draws make zero unlikely.) */
static void
test_funnel(void)
{
	enum { D = 10, N = 2000 };
	int			dim = D;
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D);
	long		div = 0,
				wdiv = 0;
	int			finite = 1;

	dpb_nuts_opts_default(&o);
	o.draws = N;
	CHECK(run_chains(D, funnel_logp, &dim, &o, 505, -1, 1, draws, st, NULL) == DPB_OK,
		  "run");
	for (int c = 0; c < CHAINS; c++)
	{
		div += st[c].divergences;
		wdiv += st[c].warmup_divergences;
	}
	for (int i = 0; i < CHAINS * N * D; i++)
		finite &= dpb_isfinite(draws[i]);
	/* 7-54 after warmup over 8 seeds; with the warmup's, never 0 */
	CHECK(div + wdiv > 0, "divergences: %ld after warmup, %ld in warmup", div, wdiv);
	CHECK(finite, "non-finite draws");
	printf("  nuts funnel: %ld divergences after warmup (%ld in warmup) in %d "
		   "iterations\n", div, wdiv, CHAINS * N);
	free(draws);
}

/* improper: flat */
static double
flat_logp(const double *x, double *g, void *ctx)
{
	g[0] = 0.0;
	return 0.0;
}

/* finite log density, NaN gradient */
static double
nan_grad_logp(const double *x, double *g, void *ctx)
{
	g[0] = NAN;
	return 0.0;
}

static int	interrupt_calls;

static int
interrupt_after_150(void)
{
	return ++interrupt_calls > 150;
}

/* interruption during warmup and during sampling; error paths */
static void
test_interrupt(void)
{
	normal_ctx	ctx = {3, NULL, NULL};
	double		init[3] = {1, 2, 3},
				draws[100 * 3];
	dpb_nuts_opts o;
	dpb_nuts_stats st;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	dpb_nuts_opts_default(&o);
	o.interrupt = interrupt_after_150;
	interrupt_calls = 0;
	CHECK(dpb_nuts_run(3, normal_logp, &ctx, init, &o, rng, NULL, &st) == DPB_EINVAL,
		  "NULL draws");
	o.draws = 100;
	CHECK(dpb_nuts_run(3, normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINTR,
		  "interrupt in warmup");
	CHECK(interrupt_calls == 151, "interrupt calls %d", interrupt_calls);
	o.warmup = 100;
	interrupt_calls = 0;
	CHECK(dpb_nuts_run(3, normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINTR,
		  "interrupt while sampling");
	o.interrupt = NULL;
	CHECK(dpb_nuts_run(3, normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_OK,
		  "no interrupt");
	init[0] = -1.0;
	CHECK(dpb_nuts_run(2, halfnormal_logp, NULL, init, &o, rng, draws, &st) == DPB_EINVAL,
		  "invalid init");
	CHECK(dpb_nuts_run(1, nan_grad_logp, NULL, init, &o, rng, draws, &st) == DPB_EINVAL,
		  "NaN gradient at init");
	CHECK(dpb_nuts_run(1, flat_logp, NULL, init, &o, rng, draws, &st) == DPB_ENUMERIC,
		  "improper density");
	o.target_accept = 1.0;
	CHECK(dpb_nuts_run(3, normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINVAL,
		  "target_accept 1");
	gsl_rng_free(rng);
}

/* counts the density evaluations */
static int	counted_calls;

static double
counted_normal_logp(const double *x, double *g, void *ctx)
{
	counted_calls++;
	return normal_logp(x, g, ctx);
}

static int
interrupt_after_10(void)
{
	return ++interrupt_calls > 10;
}

/* The interrupt is polled before every density evaluation: inside the
 * curvature initialisation (2 dim evaluations) and the step-size search,
 * which polled nothing before (issue 12: minutes at d = 32 without a poll). */
static void
test_interrupt_inner(void)
{
	enum
	{
	NDIM = 50};
	normal_ctx	ctx = {NDIM, NULL, NULL};
	double		init[NDIM] = {0},
				draws[10 * NDIM];
	dpb_nuts_opts o;
	dpb_nuts_stats st;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	dpb_nuts_opts_default(&o);
	o.warmup = 10;
	o.draws = 10;
	o.curvature_init = 1;
	o.interrupt = interrupt_after_10;
	interrupt_calls = counted_calls = 0;
	CHECK(dpb_nuts_run(NDIM, counted_normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINTR,
		  "interrupt in the curvature initialisation");
	CHECK(counted_calls == 10 && interrupt_calls == 11,
		  "%d evaluations, %d polls (curvature init: 100 evaluations)", counted_calls, interrupt_calls);
	/* in the step-size search: the curvature takes 1 + 100 evaluations */
	o.curvature_init = 1;
	interrupt_calls = -95;
	counted_calls = 0;
	CHECK(dpb_nuts_run(NDIM, counted_normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINTR,
		  "interrupt in the curvature initialisation (late)");
	CHECK(counted_calls == 105, "%d evaluations", counted_calls);
	interrupt_calls = -(1 + 100 + 3);
	counted_calls = 0;
	CHECK(dpb_nuts_run(NDIM, counted_normal_logp, &ctx, init, &o, rng, draws, &st) == DPB_EINTR,
		  "interrupt in the step-size search");
	/* stopped at the 115th poll: at most 114 evaluations, past the 101 of
	 * the start and the curvature */
	CHECK(counted_calls > 101 && counted_calls <= 114, "%d evaluations", counted_calls);
	gsl_rng_free(rng);
}

/* a chain whose draws never change is reported (every proposal rejected) */
static void
test_stuck_chain(void)
{
	dpb_draws	dr;
	int			iters = DPB_STUCK_MIN_DRAWS;

	CHECK(dpb_draws_alloc(&dr, 2, iters, 3) == DPB_OK, "alloc");
	for (int i = 0; i < 2 * iters * 3; i++)
		dr.v[i] = 0.25 * (i % 3);	/* both chains constant */
	CHECK(dpb_draws_stuck_chain(&dr) == 1, "constant chains: %d", dpb_draws_stuck_chain(&dr));
	CHECK(dpb_draws_stuck_chains(&dr) == 2, "two stuck chains: %d", dpb_draws_stuck_chains(&dr));
	dr.v[3 * 5 + 1] = 1.0;		/* chain 1 moves once */
	CHECK(dpb_draws_stuck_chain(&dr) == 2, "chain 2 stuck: %d", dpb_draws_stuck_chain(&dr));
	CHECK(dpb_draws_stuck_chains(&dr) == 1, "one stuck chain: %d", dpb_draws_stuck_chains(&dr));
	dr.v[3 * (iters + 7) + 2] = -1.0;	/* chain 2 too */
	CHECK(dpb_draws_stuck_chain(&dr) == 0, "both moved: %d", dpb_draws_stuck_chain(&dr));
	CHECK(dpb_draws_stuck_chains(&dr) == 0, "none stuck: %d", dpb_draws_stuck_chains(&dr));
	dpb_draws_free(&dr);
	CHECK(dpb_draws_alloc(&dr, 1, iters - 1, 1) == DPB_OK, "alloc");
	for (int i = 0; i < iters - 1; i++)
		dr.v[i] = 1.0;
	CHECK(dpb_draws_stuck_chain(&dr) == 0, "too few draws to tell");
	dpb_draws_free(&dr);
}

/* a density that is -inf everywhere: no starting point, and the error says
 * that the prior has no mass where the likelihood is (issue 22) */
static double
logp_nowhere(const double *x, double *g, void *ctx)
{
	g[0] = 0;
	return -INFINITY;
}

static void
init_zero(void *ctx, gsl_rng *rng, double *phi)
{
	phi[0] = gsl_rng_uniform(rng);
}

static void
record_one(void *ctx, const double *phi, double *out)
{
	out[0] = phi[0];
}

static void
test_no_mass(void)
{
	dpb_nuts_model m = {0};
	dpb_infer_opts o;
	dpb_release r;
	dpb_draws	dr;
	dpb_err		err;
	dpb_status	st;

	memset(&r, 0, sizeof(r));
	r.d = 1;
	r.model = DPB_MODEL_LOGISTIC;
	dpb_infer_opts_default(&o, &r);
	o.chains = 1;
	o.draws = 10;
	o.warmup = 10;
	m.dim = 1;
	m.logp = logp_nowhere;
	m.init = init_zero;
	m.record = record_one;
	m.prior_options = "theta_scale";
	CHECK(dpb_draws_alloc(&dr, 1, 10, 1) == DPB_OK, "alloc");
	st = dpb_nuts_chains(&m, &o, 1, &dr, &err);
	CHECK(st == DPB_ENUMERIC && strstr(err.msg, "no mass where the likelihood") != NULL &&
		  strstr(err.detail, "theta_scale") != NULL,
		  "no starting point: status %d, %s / %s", st, err.msg, err.detail);
	dpb_draws_free(&dr);
}

/* Newton mode and Laplace covariance of the logistic posterior (d = 2) */
static void
logit_laplace(const logit_ctx *c, double *mode, double *cov)
{
	double		g[2];

	mode[0] = mode[1] = 0.0;
	for (int it = 0; it < 50; it++)
	{
		double		H[3] = {1.0 / 25, 0.0, 1.0 / 25},	/* minus Hessian */
					det;

		logit_logp(mode, g, (void *) c);
		for (int i = 0; i < c->n; i++)
		{
			const double *x = c->X + 2 * i;
			double		p = 1.0 / (1.0 + exp(-(x[0] * mode[0] + x[1] * mode[1]))),
						w = p * (1 - p);

			H[0] += w * x[0] * x[0];
			H[1] += w * x[0] * x[1];
			H[2] += w * x[1] * x[1];
		}
		det = H[0] * H[2] - H[1] * H[1];
		cov[0] = H[2] / det;
		cov[1] = -H[1] / det;
		cov[2] = H[0] / det;
		mode[0] += cov[0] * g[0] + cov[1] * g[1];
		mode[1] += cov[1] * g[0] + cov[2] * g[1];
	}
}

/* Bayesian logistic regression: NUTS against self-normalised importance
 * sampling from a t_4 around the Laplace approximation */
static void
test_logistic(void)
{
	enum { NOBS = 200, N = 1000, NIS = 200000 };
	double		X[NOBS * 2],
				mode[2],
				cov[3],
				ref[2] = {0, 0},
				ref2[2] = {0, 0},
				sw = 0.0,
				g[2],
				lmax = -INFINITY,
				L[3];
	int			y[NOBS];
	logit_ctx	c = {NOBS, 2, X, y};
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * 2),
				x[CHAINS * N],
			   *lw = malloc(sizeof(double) * NIS),
			   *th = malloc(sizeof(double) * NIS * 2);

	gsl_rng_set(rng, USEED(606));
	for (int i = 0; i < NOBS; i++)
	{
		X[2 * i] = 1.0;
		X[2 * i + 1] = gsl_ran_ugaussian(rng);
		y[i] = gsl_rng_uniform(rng) < 1.0 / (1.0 + exp(-(-0.5 + 1.5 * X[2 * i + 1])));
	}
	logit_laplace(&c, mode, cov);

	/* reference: importance sampling, proposal mode + L t_4 */
	L[0] = sqrt(cov[0]);
	L[1] = cov[1] / L[0];
	L[2] = sqrt(cov[2] - L[1] * L[1]);
	for (int s = 0; s < NIS; s++)
	{
		double		z0 = gsl_ran_ugaussian(rng),
					z1 = gsl_ran_ugaussian(rng),
					w = gsl_ran_chisq(rng, 4.0) / 4.0,
					q;

		z0 /= sqrt(w);
		z1 /= sqrt(w);
		th[2 * s] = mode[0] + L[0] * z0;
		th[2 * s + 1] = mode[1] + L[1] * z0 + L[2] * z1;
		q = -3.0 * log1p((z0 * z0 + z1 * z1) / 4.0);	/* t_4 in 2-D */
		lw[s] = logit_logp(th + 2 * s, g, &c) - q;
		lmax = fmax(lmax, lw[s]);
	}
	for (int s = 0; s < NIS; s++)
	{
		double		w = exp(lw[s] - lmax);

		sw += w;
		for (int k = 0; k < 2; k++)
		{
			ref[k] += w * th[2 * s + k];
			ref2[k] += w * th[2 * s + k] * th[2 * s + k];
		}
	}
	for (int k = 0; k < 2; k++)
	{
		ref[k] /= sw;
		ref2[k] = ref2[k] / sw - ref[k] * ref[k];
	}

	dpb_nuts_opts_default(&o);
	CHECK(run_chains(2, logit_logp, &c, &o, 607, -2, 2, draws, st, NULL) == DPB_OK,
		  "run");
	for (int k = 0; k < 2; k++)
	{
		dpb_summary s;
		double		mcse;

		column(draws, CHAINS, N, 2, k, x);
		dpb_summarize(x, CHAINS, N, &s);
		mcse = s.sd / sqrt(s.ess_bulk);
		CHECK(fabs(s.mean - ref[k]) < 4.0 * mcse,
			  "beta%d: mean %g, reference %g, MCSE %g", k, s.mean, ref[k], mcse);
		CHECK(fabs(s.sd / sqrt(ref2[k]) - 1) < 0.1,
			  "beta%d: sd %g, reference %g", k, s.sd, sqrt(ref2[k]));
		CHECK(s.rhat < 1.01, "beta%d: R-hat %g", k, s.rhat);
		printf("  nuts logistic beta%d: mean %.4f (IS %.4f, mode %.4f, MCSE %.4f), "
			   "sd %.4f (IS %.4f, Laplace %.4f), ESS %.0f\n", k, s.mean, ref[k],
			   mode[k], mcse, s.sd, sqrt(ref2[k]), sqrt(cov[2 * k]), s.ess_bulk);
	}
	gsl_rng_free(rng);
	free(draws);
	free(lw);
	free(th);
}

/* mu ~ N(0, I_2), y_i ~ N(mu, I_2), i = 1..ny: log prior + log likelihood */
typedef struct conj_ctx
{
	int			ny;
	const double *y;			/* ny x 2 */
} conj_ctx;

static double
conj_logp(const double *mu, double *g, void *ctx)
{
	const conj_ctx *c = ctx;
	double		lp = -0.5 * (mu[0] * mu[0] + mu[1] * mu[1]);

	g[0] = -mu[0];
	g[1] = -mu[1];
	for (int i = 0; i < c->ny; i++)
		for (int k = 0; k < 2; k++)
		{
			double		r = c->y[2 * i + k] - mu[k];

			lp -= 0.5 * r * r;
			g[k] += r;
		}
	return lp;
}

/* SBC (Talts et al. 2018): mu ~ N(0, I_2), y_1..5 ~ N(mu, I_2); the rank
 * of the true mu_k among 99 draws (every 2nd of 198) must be uniform */
static void
test_sbc(void)
{
	enum { REPS = 100, NY = 5, L = 99, THIN = 2 };
	int			ranks[2][REPS];
	double		draws[L * THIN * 2],
				y[NY * 2],
				init[2] = {0, 0},
				p[2];
	conj_ctx	ctx = {NY, y};
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_nuts_opts o;
	int			fails = 0;

	gsl_rng_set(rng, USEED(707));
	dpb_nuts_opts_default(&o);
	o.warmup = 200;
	o.draws = L * THIN;
	for (int r = 0; r < REPS; r++)
	{
		double		mu[2];

		for (int k = 0; k < 2; k++)
		{
			mu[k] = gsl_ran_ugaussian(rng);
			for (int i = 0; i < NY; i++)
				y[2 * i + k] = mu[k] + gsl_ran_ugaussian(rng);
		}
		fails += dpb_nuts_run(2, conj_logp, &ctx, init, &o, rng, draws, NULL) != DPB_OK;
		for (int k = 0; k < 2; k++)
		{
			ranks[k][r] = 0;
			for (int i = 0; i < L; i++)
				ranks[k][r] += draws[(i * THIN + THIN - 1) * 2 + k] < mu[k];
		}
	}
	CHECK(fails == 0, "%d runs failed", fails);
	for (int k = 0; k < 2; k++)
	{
		p[k] = sim_rank_pvalue(ranks[k], REPS, L, rng);
		CHECK(p[k] > UNIT_P_MIN / 2, "SBC mu%d: KS p = %g", k, p[k]);
	}
	printf("  nuts SBC (100 replications): KS p = %.3f, %.3f\n", p[0], p[1]);
	gsl_rng_free(rng);
}

/* curvature_init: the starting inverse metric is 1 / the curvature at init
 * (exact for a normal: sd^2; 1 along a flat direction), and with sds from
 * 0.001 to 100 it saves most of the warmup's gradients (the identity makes
 * the first window run at a step fit for sd 0.001) with the same draws; the
 * adapted metric is regularised towards 1e-3 min(1, it), not 1e-3 */
/* exp(-x^4 / 4), one dimension */
static double
quartic_logp(const double *x, double *g, void *ctx)
{
	g[0] = -x[0] * x[0] * x[0];
	return -0.25 * x[0] * x[0] * x[0] * x[0];
}

/* normal_logp on the first dim - 1 coordinates, flat in the last */
static double
flat_last_logp(const double *x, double *g, void *ctx)
{
	const normal_ctx *c = ctx;
	normal_ctx	head = {c->dim - 1, c->sd, NULL};
	double		lp = normal_logp(x, g, &head);

	g[c->dim - 1] = 0.0;
	return lp;
}

static void
test_curvature_init(void)
{
	enum { D = 5, N = 1000 };
	const double sd[D] = {0.001, 0.1, 1.0, 10.0, 100.0};
	normal_ctx	ctx = {D, sd, NULL};
	dpb_nuts_opts o;
	dpb_nuts_stats st[CHAINS];
	double	   *draws = malloc(sizeof(double) * CHAINS * N * D),
				x[CHAINS * N],
				init[D] = {0.002, -0.1, 0.5, 3.0, -50.0},
				metric[CHAINS * D],
				max_err = 0.0,
				max_verr = 0.0,
				max_merr = 0.0,
				q4err,
				warm[2] = {0.0, 0.0};
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	/* no warmup: the metric is the curvature's */
	dpb_nuts_opts_default(&o);
	o.curvature_init = 1;
	o.warmup = 0;
	o.draws = 1;
	CHECK(dpb_nuts_run_metric(D, normal_logp, &ctx, init, &o, rng, draws, &st[0],
							  metric) == DPB_OK, "run");
	for (int k = 0; k < D; k++)
		max_err = fmax(max_err, fabs(metric[k] / (sd[k] * sd[k]) - 1.0));
	CHECK(max_err < 1e-6, "curvature metric: max relative error %g", max_err);
	CHECK(st[0].gradient_evals >= 2 * D, "%ld gradients", st[0].gradient_evals);
	CHECK(dpb_nuts_run_metric(D, flat_last_logp, &ctx, init, &o, rng, draws, &st[0],
							  metric) == DPB_OK, "run (flat)");
	CHECK(metric[D - 1] == 1.0 && fabs(metric[0] / 1e-6 - 1.0) < 1e-6,
		  "flat direction: metric %g, %g", metric[D - 1], metric[0]);
	/* curvatures beyond 1e12 too (the number of records of a logistic
	 * release at N = 1e6, epsilon = 10 has a posterior variance of ~1e-12 in
	 * its log; when the curvature was capped at 1e12 its metric stayed at
	 * 1, and every tree ran to the maximal depth) */
	{
		const double tiny[D] = {1e-8, 1e-3, 1.0, 1e3, 1e5};
		normal_ctx	tctx = {D, tiny, NULL};
		double		tinit[D] = {1e-8, 0.0, 0.5, 3.0, -50.0},
					terr = 0.0;

		CHECK(dpb_nuts_run_metric(D, normal_logp, &tctx, tinit, &o, rng, draws, &st[0],
								  metric) == DPB_OK, "run (tiny)");
		for (int k = 0; k < D; k++)
			terr = fmax(terr, fabs(metric[k] / (tiny[k] * tiny[k]) - 1.0));
		CHECK(terr < 1e-6, "curvature metric, sd 1e-8 .. 1e5: max relative error %g", terr);
	}
	gsl_rng_free(rng);

	/* full runs without and with */
	dpb_nuts_opts_default(&o);
	for (int ci = 0; ci < 2; ci++)
	{
		o.curvature_init = ci;
		CHECK(run_chains(D, normal_logp, &ctx, &o, 909, -0.001, 0.001, draws, st,
						 metric) == DPB_OK, "run");
		for (int c = 0; c < CHAINS; c++)
			warm[ci] += (double) st[c].warmup_gradient_evals / (CHAINS * o.warmup);
	}
	for (int k = 0; k < D; k++)
	{
		column(draws, CHAINS, N, D, k, x);
		max_verr = fmax(max_verr, fabs(variance(x, CHAINS * N) / (sd[k] * sd[k]) - 1.0));
		for (int c = 0; c < CHAINS; c++)
			max_merr = fmax(max_merr, fabs(metric[c * D + k] / (sd[k] * sd[k]) - 1.0));
	}
	CHECK(max_verr < 0.16, "draws: max relative variance error %g", max_verr);
	/* the regulariser is relative to the initial metric: sd 0.001 is not
	 * floored at Stan's 1e-3 * 5 / 505 ~ 1e-5 */
	CHECK(max_merr < 0.40, "adapted metric, each chain: max relative error %g", max_merr);

	/* p(x) ~ exp(-x^4 / 4) from x = 1e-5: curvature 3e-10 at init, so the
	 * initial metric is 3e9; the regulariser is capped at Stan's 1e-3, so
	 * the adapted metric is the variance Gamma(3/4) / Gamma(1/4) * 2 */
	{
		double		x0 = 1e-5,
					v4 = 2.0 * tgamma(0.75) / tgamma(0.25);

		dpb_nuts_opts_default(&o);
		o.curvature_init = 1;
		rng = gsl_rng_alloc(gsl_rng_mt19937);
		CHECK(dpb_nuts_run_metric(1, quartic_logp, NULL, &x0, &o, rng, draws,
								  &st[0], metric) == DPB_OK, "run (quartic)");
		gsl_rng_free(rng);
		q4err = fabs(metric[0] / v4 - 1.0);
		CHECK(q4err < 0.3, "quartic: adapted metric %g, variance %g", metric[0], v4);
	}
	CHECK(warm[1] < 0.5 * warm[0], "warmup gradients / iteration: %g with, %g without",
		  warm[1], warm[0]);
	printf("  nuts curvature init: metric rel. err %.1e, warmup %.1f gradients / "
		   "iteration (identity: %.1f), draws var err %.3f, adapted metric err %.3f, "
		   "quartic %.3f\n", max_err, warm[1], warm[0], max_verr, max_merr, q4err);
	free(draws);
}

/*
 * The change of coordinates in warmup (recoord): x ~ N(0, 1), y ~ N(0,
 * 100^2) sampled as y = k x1, k = 1 until the end of the second slow
 * window, where recoord switches to k = 100 (x1 then unit-scale) and a
 * dense metric.  Called once, with the 75 draws of the two windows; the
 * draws after warmup are in the new coordinates, with the right variances.
 */
typedef struct recoord_ctx
{
	double		k;
	int			calls,
				n;
} recoord_ctx;

static double
recoord_logp(const double *x, double *grad, void *vctx)
{
	recoord_ctx *c = vctx;
	double		y = c->k * x[1];

	grad[0] = -x[0];
	grad[1] = -c->k * y / 1e4;
	return -0.5 * x[0] * x[0] - 0.5 * y * y / 1e4 + log(c->k);
}

static int
recoord_map(int n, double *draws, double *q, void *vctx)
{
	recoord_ctx *c = vctx;

	c->calls++;
	c->n = n;
	for (int i = 0; i < n; i++)
		draws[2 * i + 1] /= 100;
	q[1] /= 100;
	c->k = 100;
	return DPB_RECOORD_MAPPED | DPB_RECOORD_DENSE;
}

static void
test_recoord(void)
{
	recoord_ctx c = {1, 0, 0};
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_nuts_opts o;
	dpb_nuts_stats st;
	double		init[2] = {0.5, 20},
			   *draws = malloc(sizeof(double) * 2 * 4000),
				v[2] = {0, 0};

	gsl_rng_set(rng, USEED(41));
	dpb_nuts_opts_default(&o);
	o.draws = 4000;
	o.curvature_init = 1;
	o.recoord_window = 2;
	o.recoord = recoord_map;
	CHECK(dpb_nuts_run(2, recoord_logp, &c, init, &o, rng, draws, &st) == DPB_OK, "run");
	CHECK(c.calls == 1 && c.n == 75, "recoord called %d times, with %d draws", c.calls, c.n);
	for (int i = 0; i < o.draws; i++)
		for (int j = 0; j < 2; j++)
			v[j] += draws[2 * i + j] * draws[2 * i + j] / o.draws;
	/* one chain of 4000: the ESS of x^2 is ~1000-1500, a standard error of
	 * ~0.04 */
	CHECK(fabs(v[0] - 1) < 0.2 && fabs(v[1] - 1) < 0.2,
		  "variances after the change of coordinates %.3f %.3f (1, 1)", v[0], v[1]);
	CHECK(st.divergences == 0, "%ld divergences", st.divergences);
	free(draws);
	gsl_rng_free(rng);
}

void
test_nuts(void)
{
	test_std_normal();
	test_scaled();
	test_curvature_init();
	test_short_warmup();
	test_correlated();
	test_dense();
	test_recoord();
	test_invalid_region();
	test_funnel();
	test_interrupt();
	test_interrupt_inner();
	test_stuck_chain();
	test_no_mass();
	test_logistic();
	test_sbc();
}
