/*
 * test_linear.c — noise-aware linear regression (Gibbs-SS): the moments of
 * the statistics against Monte Carlo, the inverse-Gaussian sampler, and
 * simulation-based calibration (Talts et al. 2018) at small N and epsilon,
 * where the noise-naive posterior must fail the same test.
 */
#include "unit.h"

#include "gibbs_linear.h"
#include "accum.h"
#include "linalg.h"
#include "sim.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

static void
test_moments(void)
{
	dpb_layout	L;
	double		theta[3] = {0.3, -1.2, 0.8},
				mu[2] = {0.2, -0.1},
				Sigma[4] = {0.09, 0.03, 0.03, 0.04},
				sigma2 = 0.25;
	double		m[9],
				V[81],
				mc[9] = {0},
				mc2[81] = {0},
				t[9],
				Lc[4];
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			i,
				k,
				l,
				n = 1000000,
				bad = 0;

	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	dpb_linear_stat_moments(&L, theta, sigma2, mu, Sigma, m, V);
	memcpy(Lc, Sigma, sizeof(Lc));
	dpb_chol(Lc, 2, NULL);
	for (i = 0; i < n; i++)
	{
		double		x[2] = {gsl_ran_ugaussian(rng), gsl_ran_ugaussian(rng)};
		double		y;

		dpb_tri_mul(Lc, 2, x);
		x[0] += mu[0];
		x[1] += mu[1];
		y = theta[0] + theta[1] * x[0] + theta[2] * x[1] + 0.5 * gsl_ran_ugaussian(rng);
		dpb_accum_record(&L, x, y, t);
		for (k = 0; k < 9; k++)
		{
			mc[k] += t[k];
			for (l = 0; l < 9; l++)
				mc2[k * 9 + l] += t[k] * t[l];
		}
	}
	for (k = 0; k < 9; k++)
	{
		double		mk = mc[k] / n;
		double		se = sqrt(V[k * 9 + k] / n);

		if (fabs(mk - m[k]) > 5 * se + 1e-12)
			bad++;
		for (l = 0; l < 9; l++)
		{
			double		cov = mc2[k * 9 + l] / n - (mc[k] / n) * (mc[l] / n);

			/* loose: the covariance of a product has its own MC error */
			if (fabs(cov - V[k * 9 + l]) > 0.02 * sqrt(V[k * 9 + k] * V[l * 9 + l]) + 1e-9)
				bad++;
		}
	}
	CHECK(bad == 0, "%d moment entries disagree with Monte Carlo", bad);
	gsl_rng_free(rng);
}

static void
test_invgauss(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		s = 0,
				s2 = 0,
				mean = 2.5,
				shape = 4.0;
	int			i,
				n = 200000;

	for (i = 0; i < n; i++)
	{
		double		v = dpb_ran_invgauss(rng, mean, shape);

		s += v;
		s2 += v * v;
	}
	CHECK_REL(s / n, mean, 0.01, "inverse gaussian mean");
	/* variance mean^3 / shape */
	CHECK_REL(s2 / n - (s / n) * (s / n), mean * mean * mean / shape, 0.03,
			  "inverse gaussian variance");
	gsl_rng_free(rng);
}

/*
 * SBC: parameters from the prior the sampler uses, a table of N records,
 * a release at epsilon, the posterior; the rank of each true parameter
 * among (thinned) draws must be uniform.
 */
typedef struct sbc_result
{
	double		pvalue[4];		/* theta0, theta1, theta2, sigma */
	double		clipped_frac;
} sbc_result;

/* x_moments share for the "noisy" moments variant (0: the default NIW
 * update); set by DPB_SBC_NOISY for the measurement in bench/ */
static double sbc_noisy_share = 0;

static void
run_sbc(dpb_method method, dpb_mechanism mech, int reps, int N, double eps,
		sbc_result *res)
{
	const int	d = 2,
				keep = 100;
	/* Gibbs-SS mixes slowly when the noise dominates the statistics (the
	 * latent s and theta are strongly coupled): thin enough that the kept
	 * draws are nearly independent; naive draws are iid */
	const int	thin = method == DPB_METHOD_NAIVE ? 1 :
		(getenv("DPB_SBC_THIN") ? atoi(getenv("DPB_SBC_THIN")) : 25);
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng    *noise = gsl_rng_alloc(gsl_rng_mt19937);
	int		   *ranks = calloc(4 * reps, sizeof(int));
	double	   *X = malloc(sizeof(double) * N * d),
			   *Y = malloc(sizeof(double) * N);
	long		clipped = 0;
	int			rep,
				j;

	gsl_rng_set(rng, 20261122);
	gsl_rng_set(noise, 777);
	for (rep = 0; rep < reps; rep++)
	{
		dpb_params	p;
		dpb_release r;
		dpb_infer_opts o;
		dpb_draws	dr;
		dpb_err		err;
		double		theta[3],
					sigma2,
					mu[2],
					Sig[4],
					Lc[4],
					truth[4];
		int			cl,
					i;

		dpb_params_default(&p);
		p.epsilon = eps;
		p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-5 : 0;
		p.mechanism = mech;
		p.clip = 1;
		p.y_bound = 2;
		p.x_moments = sbc_noisy_share;
		/* prior: sigma2 ~ IG(20, 0.76), theta | sigma2 ~ N(0, sigma2 / 0.25),
		 * Sigma ~ IW(20, 0.04 * 17 I), mu | Sigma ~ N(0, Sigma / 10) */
		memset(&r, 0, sizeof(r));
		r.d = d;
		r.p = p;
		r.model = DPB_MODEL_LINEAR;
		dpb_infer_opts_default(&o, &r);
		o.method = method;
		o.chains = 1;
		o.warmup = 500;
		o.draws = keep * thin;
		o.seed = 1000 + rep;
		o.sigma2_shape = 20;
		o.sigma2_scale = 0.76;
		for (j = 0; j < 3; j++)
			o.theta_precision[j] = 0.25;
		o.x_kappa = 10;
		o.x_df = 20;
		memset(o.x_scale, 0, sizeof(o.x_scale));
		o.x_scale[0] = o.x_scale[3] = 0.04 * 17;
		if (sbc_noisy_share > 0)
			o.xmoments = DPB_XMOM_NOISY;

		sigma2 = 1.0 / gsl_ran_gamma(rng, o.sigma2_shape, 1.0 / o.sigma2_scale);
		for (j = 0; j < 3; j++)
			theta[j] = sqrt(sigma2 / 0.25) * gsl_ran_ugaussian(rng);
		{
			/* Sigma ~ IW(20, Psi): Sigma^{-1} ~ W(20, Psi^{-1}) */
			double		Li[4] = {1.0 / sqrt(0.68), 0, 0, 1.0 / sqrt(0.68)},
						W[4],
						wk[4];
			gsl_matrix_view Lv = gsl_matrix_view_array(Li, 2, 2),
						Wv = gsl_matrix_view_array(W, 2, 2),
						Kv = gsl_matrix_view_array(wk, 2, 2);

			gsl_ran_wishart(rng, 20, &Lv.matrix, &Wv.matrix, &Kv.matrix);
			dpb_chol(W, 2, NULL);
			dpb_chol_inverse(W, 2, Sig);
		}
		memcpy(Lc, Sig, sizeof(Lc));
		dpb_chol(Lc, 2, NULL);
		mu[0] = gsl_ran_ugaussian(rng) / sqrt(10.0);
		mu[1] = gsl_ran_ugaussian(rng) / sqrt(10.0);
		dpb_tri_mul(Lc, 2, mu);
		for (i = 0; i < N; i++)
		{
			double	   *x = X + i * d;

			x[0] = gsl_ran_ugaussian(rng);
			x[1] = gsl_ran_ugaussian(rng);
			dpb_tri_mul(Lc, 2, x);
			x[0] += mu[0];
			x[1] += mu[1];
			Y[i] = theta[0] + theta[1] * x[0] + theta[2] * x[1] + sqrt(sigma2) * gsl_ran_ugaussian(rng);
		}
		if (sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, noise, &r, &cl) != 0)
		{
			CHECK(0, "sim_release failed");
			break;
		}
		clipped += cl;
		if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
		{
			CHECK(0, "posterior failed: %s %s", err.msg, err.detail);
			dpb_release_free_stats(&r);
			break;
		}
		truth[0] = theta[0];
		truth[1] = theta[1];
		truth[2] = theta[2];
		truth[3] = sqrt(sigma2);
		for (j = 0; j < 4; j++)
		{
			int			rank = 0,
						k;

			for (k = thin - 1; k < o.draws; k += thin)
				rank += dr.v[(size_t) k * dr.nvars + j] < truth[j];
			ranks[j * reps + rep] = rank;
		}
		dpb_draws_free(&dr);
		dpb_release_free_stats(&r);
	}
	if (getenv("DPB_SBC_DEBUG"))
		for (j = 0; j < 4; j++)
			sim_rank_histogram(ranks + j * reps, reps, keep, j);
	for (j = 0; j < 4; j++)
		res->pvalue[j] = sim_rank_pvalue(ranks + j * reps, reps, keep, rng);
	res->clipped_frac = (double) clipped / ((double) reps * N);
	free(ranks);
	free(X);
	free(Y);
	gsl_rng_free(rng);
	gsl_rng_free(noise);
}

void
test_linear(void)
{
	sbc_result	na,
				nv,
				lp;
	int			j;
	double		minp_na = 1,
				minp_nv = 1,
				minp_lp = 1;

	/* the long version (docs/posterior.md): DPB_SBC_REPS=1000 */
	int			reps = getenv("DPB_SBC_REPS") ? atoi(getenv("DPB_SBC_REPS")) : 200;

	test_moments();
	test_invgauss();
	if (getenv("DPB_SBC_NOISY"))
	{
		/* measurement only (bench/sbc_linear.sh): the "noisy" moments
		 * variant, share DPB_SBC_NOISY of the budget on the moments */
		sbc_noisy_share = atof(getenv("DPB_SBC_NOISY"));
		for (j = 0; j < 2; j++)
		{
			run_sbc(DPB_METHOD_NOISE_AWARE, j ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN,
					reps, getenv("DPB_SBC_N") ? atoi(getenv("DPB_SBC_N")) : 100,
					getenv("DPB_SBC_EPS") ? atof(getenv("DPB_SBC_EPS")) : 0.5, &na);
			printf("  SBC linear noisy moments (share %g), %s, %d replications: p = %.3g %.3g %.3g %.3g\n",
				   sbc_noisy_share, j ? "laplace" : "gaussian", reps,
				   na.pvalue[0], na.pvalue[1], na.pvalue[2], na.pvalue[3]);
		}
		return;
	}

	if (reps < 50)
		reps = 50;
	run_sbc(DPB_METHOD_NOISE_AWARE, DPB_MECH_GAUSSIAN, reps, 100, 0.5, &na);
	run_sbc(DPB_METHOD_NAIVE, DPB_MECH_GAUSSIAN, reps, 100, 0.5, &nv);
	run_sbc(DPB_METHOD_NOISE_AWARE, DPB_MECH_LAPLACE, reps, 100, 0.5, &lp);
	for (j = 0; j < 4; j++)
	{
		minp_na = fmin(minp_na, na.pvalue[j]);
		minp_nv = fmin(minp_nv, nv.pvalue[j]);
		minp_lp = fmin(minp_lp, lp.pvalue[j]);
	}
	printf("  SBC linear, %d replications, N=100 eps=0.5 (clipped %.4f%%): noise-aware gaussian p = %.3g %.3g %.3g %.3g; "
		   "laplace p = %.3g %.3g %.3g %.3g; naive p = %.3g %.3g %.3g %.3g\n",
		   reps, 100 * na.clipped_frac,
		   na.pvalue[0], na.pvalue[1], na.pvalue[2], na.pvalue[3],
		   lp.pvalue[0], lp.pvalue[1], lp.pvalue[2], lp.pvalue[3],
		   nv.pvalue[0], nv.pvalue[1], nv.pvalue[2], nv.pvalue[3]);
	CHECK(na.clipped_frac < 0.01, "clipping is not rare: %g", na.clipped_frac);
	CHECK(minp_na > 0.01, "noise-aware (gaussian) ranks not uniform: min p = %g", minp_na);
	CHECK(minp_lp > 0.01, "noise-aware (laplace) ranks not uniform: min p = %g", minp_lp);
	CHECK(minp_nv < 0.01, "naive passed SBC (the test has no power): min p = %g", minp_nv);
}
