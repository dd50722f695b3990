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
#include "linear_model.h"
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
	double		pvalue[5];		/* theta0, theta1, theta2, sigma (, n) */
	double		clipped_frac;
} sbc_result;

/*
 * An unknown number of records (an add/remove release): N ~ U(lo, hi), the
 * table has round(N) rows, and the release holds its noisy count.  The
 * sampler gets the same prior, and the count's noise sd times sd_factor
 * (1; other values only to show the test's power).
 */
typedef struct sbc_unknown_n
{
	double		lo,
				hi,
				sd_factor;
	double		mean_sd;		/* out: the mean noise sd of the counts */
} sbc_unknown_n;

/* DPB_SBC_NWINDOW=k (bench/sbc_n_window.sh, issue 26 item 3): the
 * sampler's prior of an unknown N is also cut to n_hat -+ k s (s the count's
 * noise scale: Laplace b = sd / sqrt 2, Gaussian sd), the window
 * dpb_n_prior_suggest proposes; sbc_window_out counts the replications whose
 * true N fell outside it */
static double sbc_nwindow = 0;
static int	sbc_window_out;

/* x_moments share for the "noisy" moments variant (0: the default NIW
 * update); set by DPB_SBC_NOISY for the measurement in bench/ */
static double sbc_noisy_share = 0;

/* the sampler under test: Gibbs-SS here (its thinning below), NUTS on the
 * marginal likelihood in test_linear_nuts_sbc and with DPB_SBC_SAMPLER=nuts
 * (bench/sbc_linear_nuts.sh) */
static dpb_sampler sbc_sampler = DPB_SAMPLER_GIBBS;
static int	sbc_latent;			/* Laplace replications in the latent form */
static double sbc_yclamped_frac;	/* the share of records with y clamped */

void		openblas_set_num_threads(int n);
int			openblas_get_num_threads(void);

/* the SBC prior of the features' moments: Sigma ~ IW(20, 0.68 I) (via
 * Sigma^{-1} ~ W(20, Psi^{-1})), Lc its Cholesky factor, mu | Sigma ~
 * N(0, Sigma / 10) */
static void
sbc_draw_x_moments(gsl_rng *rng, double *Sig, double *Lc, double *mu)
{
	double		Li[4] = {1.0 / sqrt(0.68), 0, 0, 1.0 / sqrt(0.68)},
				W[4],
				wk[4];
	gsl_matrix_view Lv = gsl_matrix_view_array(Li, 2, 2),
				Wv = gsl_matrix_view_array(W, 2, 2),
				Kv = gsl_matrix_view_array(wk, 2, 2);

	gsl_ran_wishart(rng, 20, &Lv.matrix, &Wv.matrix, &Kv.matrix);
	dpb_chol(W, 2, NULL);
	dpb_chol_inverse(W, 2, Sig);
	memcpy(Lc, Sig, sizeof(double) * 4);
	dpb_chol(Lc, 2, NULL);
	mu[0] = gsl_ran_ugaussian(rng) / sqrt(10.0);
	mu[1] = gsl_ran_ugaussian(rng) / sqrt(10.0);
	dpb_tri_mul(Lc, 2, mu);
}

static void
run_sbc(dpb_method method, dpb_mechanism mech, int reps, int N, double eps,
		sbc_unknown_n *un, sbc_result *res)
{
	const int	d = 2,
				keep = 100;
	/* Gibbs-SS mixes slowly when the noise dominates the statistics (the
	 * latent s and theta are strongly coupled): thin enough that the kept
	 * draws are nearly independent; naive draws are iid */
	const int	thin = method == DPB_METHOD_NAIVE ? 1 :
		(getenv("DPB_SBC_THIN") ? atoi(getenv("DPB_SBC_THIN")) :
		 sbc_sampler == DPB_SAMPLER_NUTS ? 1 : 25);
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng    *noise = gsl_rng_alloc(gsl_rng_mt19937);
	const int	nv = un ? 5 : 4;
	const int	Nmax = un ? (int) ceil(un->hi) : N;
	int		   *ranks = calloc(nv * reps, sizeof(int));
	double	   *X = malloc(sizeof(double) * Nmax * d),
			   *Y = malloc(sizeof(double) * Nmax);
	long		clipped = 0,
				yclamped = 0,
				records = 0;
	int			rep,
				j;

	gsl_rng_set(rng, USEED(20261122));
	gsl_rng_set(noise, USEED(777));
	for (rep = 0; rep < reps; rep++)
	{
		dpb_params	p;
		dpb_release r;
		dpb_infer_opts o;
		dpb_draws	dr;
		dpb_err		err;
		double		theta[3],
					sigma2 = 0,
					mu[2],
					Sig[4],
					Lc[4],
					truth[5],
					Ntrue = N;
		int			cl,
					i;
		long		ycl = 0;

		dpb_params_default(&p);
		p.epsilon = eps;
		p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-5 : 0;
		p.mechanism = mech;
		p.clip = 1;
		/* DPB_SBC_Y_BOUND (bench): y_bound (default 2: about 1 record in
		 * 10^4 has y clamped; 1.1: about 1-2%) */
		p.y_bound = getenv("DPB_SBC_Y_BOUND") ? atof(getenv("DPB_SBC_Y_BOUND")) : 2;
		p.x_moments = sbc_noisy_share;
		/* DPB_SBC_YCLAMPED=s (bench): the release's own count of clamped
		 * records (block y_clamped, share s), which the default clamp reads */
		if (getenv("DPB_SBC_YCLAMPED") && *getenv("DPB_SBC_YCLAMPED"))
			p.y_clamped = atof(getenv("DPB_SBC_YCLAMPED"));
		/* prior (NIG): sigma2 ~ IG(20, 0.76), theta | sigma2 ~ N(0, sigma2 /
		 * 0.25), Sigma ~ IW(20, 0.04 * 17 I), mu | Sigma ~ N(0, Sigma / 10);
		 * the R^2 prior of NUTS below */
		memset(&r, 0, sizeof(r));
		r.d = d;
		r.p = p;
		r.model = DPB_MODEL_LINEAR;
		dpb_infer_opts_default(&o, &r);
		o.method = method;
		o.sampler = sbc_sampler;
		/* DPB_SBC_LAPLACE_NOISE=latent, latent_mixed, latent_chol or omega (bench): that
		 * form; otherwise the default, "auto" (dpb_lin_use_latent) */
		if (getenv("DPB_SBC_LAPLACE_NOISE") && strcmp(getenv("DPB_SBC_LAPLACE_NOISE"), "latent") == 0)
			o.lin.laplace_latent = 2;
		if (getenv("DPB_SBC_LAPLACE_NOISE") && strcmp(getenv("DPB_SBC_LAPLACE_NOISE"), "latent_chol") == 0)
			o.lin.laplace_latent = 1;
		if (getenv("DPB_SBC_LAPLACE_NOISE") && strcmp(getenv("DPB_SBC_LAPLACE_NOISE"), "omega") == 0)
			o.lin.laplace_latent = 0;
		if (getenv("DPB_SBC_LAPLACE_NOISE") && strcmp(getenv("DPB_SBC_LAPLACE_NOISE"), "latent_mixed") == 0)
			o.lin.laplace_latent = DPB_LIN_LATENT_MIXED;
		/* DPB_SBC_POLAR=0|1 (bench): options polar; otherwise the default */
		if (getenv("DPB_SBC_POLAR") && *getenv("DPB_SBC_POLAR"))
			o.lin.polar = atoi(getenv("DPB_SBC_POLAR"));
		/* DPB_SBC_CLAMP=0 (bench): y's clamping not modelled (the power
		 * check of o->lin.clamp) */
		if (getenv("DPB_SBC_CLAMP") && *getenv("DPB_SBC_CLAMP"))
			o.lin.clamp = atoi(getenv("DPB_SBC_CLAMP"));
		o.chains = 1;
		o.warmup = 500;
		o.draws = keep * thin;
		o.seed = USEED(1000 + rep);
		o.lin.sigma2_shape = 20;
		o.lin.sigma2_scale = 0.76;
		for (j = 0; j < 3; j++)
			o.lin.theta_precision[j] = 0.25;
		o.lin.x_kappa = 10;
		o.lin.x_df = 20;
		memset(o.lin.x_scale, 0, sizeof(o.lin.x_scale));
		o.lin.x_scale[0] = o.lin.x_scale[3] = 0.04 * 17;
		if (sbc_noisy_share > 0)
			o.lin.xmoments = DPB_XMOM_NOISY;
		p.neighbours = un ? DPB_NB_ADD_REMOVE : DPB_NB_REPLACE;
		if (un)
		{
			o.count.n_lo = un->lo;
			o.count.n_hi = un->hi;
			Ntrue = un->lo + (un->hi - un->lo) * gsl_rng_uniform(rng);
			N = (int) floor(Ntrue + 0.5);
		}

		/*
		 * The sampler's own prior on (theta, sigma^2): NIG for Gibbs-SS
		 * (and NUTS with DPB_SBC_PRIOR=nig), else the weak prior of NUTS
		 * (posterior.h) with scales of the NIG's size: theta_j ~ N(0,
		 * 0.4^2), sigma^2 ~ Exponential(mean 0.04)
		 */
		if (sbc_sampler == DPB_SAMPLER_NUTS &&
			!(getenv("DPB_SBC_PRIOR") && strcmp(getenv("DPB_SBC_PRIOR"), "nig") == 0))
		{
			o.lin.prior = DPB_LIN_PRIOR_WEAK;
			for (j = 0; j < 3; j++)
				o.lin.theta_sd[j] = 0.4;
			o.lin.intercept_sd = 0.4;
			o.lin.sigma2_mean = 0.04;
			sigma2 = gsl_ran_exponential(rng, o.lin.sigma2_mean);
			for (j = 0; j < 3; j++)
				theta[j] = 0.4 * gsl_ran_ugaussian(rng);
		}
		else
		{
			o.lin.prior = DPB_LIN_PRIOR_NIG;
			sigma2 = 1.0 / gsl_ran_gamma(rng, o.lin.sigma2_shape, 1.0 / o.lin.sigma2_scale);
			for (j = 0; j < 3; j++)
				theta[j] = sqrt(sigma2 / 0.25) * gsl_ran_ugaussian(rng);
		}
		sbc_draw_x_moments(rng, Sig, Lc, mu);
		for (i = 0; i < N; i++)
		{
			double	   *x = X + i * d;

			x[0] = gsl_ran_ugaussian(rng);
			x[1] = gsl_ran_ugaussian(rng);
			dpb_tri_mul(Lc, 2, x);
			x[0] += mu[0];
			x[1] += mu[1];
			Y[i] = theta[0] + theta[1] * x[0] + theta[2] * x[1] + sqrt(sigma2) * gsl_ran_ugaussian(rng);
			ycl += fabs(Y[i]) > p.y_bound;
		}
		yclamped += ycl;
		if (sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, noise, &r, &cl) != 0)
		{
			CHECK(0, "sim_release failed");
			break;
		}
		clipped += cl;
		records += N;
		/* DPB_SBC_CCOUNT=s (bench): a noisy count of the records with y
		 * clamped, of budget share s (Gaussian: sd sigma0 / (Delta sqrt(s));
		 * Laplace: scale 1 / (s eps)), for the clamp's count-scaled model
		 * (dpb_lin_clamp_scale) */
		if (getenv("DPB_SBC_CCOUNT") && atof(getenv("DPB_SBC_CCOUNT")) > 0)
		{
			double		sc = atof(getenv("DPB_SBC_CCOUNT")),
						csd = mech == DPB_MECH_GAUSSIAN ?
				r.noise_scale / r.sensitivity / sqrt(sc) : M_SQRT2 / (sc * eps);

			o.lin.clamp_count = (double) ycl + csd * gsl_ran_ugaussian(noise);
			o.lin.clamp_count_sd = csd;
		}
		/* the number of records as the release has it: exact, or a
		 * noisy count */
		dpb_release_count(&r, &o.count.n_hat, &o.count.n_sd, &o.count.n_known);
		if (un)
		{
			CHECK(!o.count.n_known && o.count.n_sd > 0, "an add/remove release has a noisy count");
			un->mean_sd += o.count.n_sd / reps;
			o.count.n_sd *= un->sd_factor;
			if (sbc_nwindow > 0)
			{
				double		w = sbc_nwindow * (o.count.n_laplace ? o.count.n_sd / M_SQRT2 : o.count.n_sd);

				o.count.n_lo = fmax(un->lo, o.count.n_hat - w);
				o.count.n_hi = fmin(un->hi, o.count.n_hat + w);
				if (!(o.count.n_lo < o.count.n_hi))
				{
					/* the count is more than k scales outside the prior's
					 * range: the window is empty; keep its nearest
					 * record-wide piece of the range */
					o.count.n_lo = o.count.n_hat < un->lo ? un->lo : un->hi - 1;
					o.count.n_hi = o.count.n_lo + 1;
				}
				sbc_window_out += !(Ntrue > o.count.n_lo && Ntrue < o.count.n_hi);
			}
		}
		if (mech == DPB_MECH_LAPLACE && sbc_sampler == DPB_SAMPLER_NUTS &&
			method == DPB_METHOD_NOISE_AWARE)
			sbc_latent += dpb_lin_use_latent(&r, &o) > 0;
		if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
		{
			CHECK(0, "posterior failed: %s %s", err.msg, err.detail);
			dpb_release_free_stats(&r);
			break;
		}
		CHECK(dr.nvars == nv, "%d variables, want %d", dr.nvars, nv);
		truth[0] = theta[0];
		truth[1] = theta[1];
		truth[2] = theta[2];
		truth[3] = sqrt(sigma2);
		truth[4] = Ntrue;
		for (j = 0; j < nv; j++)
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
		sim_rank_histograms(ranks, nv, reps, keep);
	for (j = 0; j < nv; j++)
		res->pvalue[j] = sim_rank_pvalue(ranks + j * reps, reps, keep, rng);
	res->clipped_frac = (double) clipped / (double) records;
	sbc_yclamped_frac = (double) yclamped / (double) records;
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
					getenv("DPB_SBC_EPS") ? atof(getenv("DPB_SBC_EPS")) : 0.5, NULL, &na);
			printf("  SBC linear noisy moments (share %g), %s, %d replications: p = %.3g %.3g %.3g %.3g\n",
				   sbc_noisy_share, j ? "laplace" : "gaussian", reps,
				   na.pvalue[0], na.pvalue[1], na.pvalue[2], na.pvalue[3]);
		}
		return;
	}

	if (getenv("DPB_SBC_SAMPLER") && strcmp(getenv("DPB_SBC_SAMPLER"), "nuts") == 0)
	{
		/* measurement (bench/sbc_linear_nuts.sh): the default sampler at
		 * DPB_SBC_N, DPB_SBC_EPS; DPB_SBC_UNKNOWN=1: add/remove, N unknown */
		int			N = getenv("DPB_SBC_N") ? atoi(getenv("DPB_SBC_N")) : 100;
		double		eps = getenv("DPB_SBC_EPS") ? atof(getenv("DPB_SBC_EPS")) : 0.5;

		sbc_sampler = DPB_SAMPLER_NUTS;
		openblas_set_num_threads(1);
		if (getenv("DPB_SBC_UN_HI"))
		{
			/* add/remove releases, N ~ U(DPB_SBC_UN_LO, DPB_SBC_UN_HI)
			 * unknown, the sampler given that prior, cut to the window
			 * n_hat -+ DPB_SBC_NWINDOW scales when set (bench/sbc_n_window.sh) */
			sbc_unknown_n un = {getenv("DPB_SBC_UN_LO") ? atof(getenv("DPB_SBC_UN_LO")) : 0.5,
			atof(getenv("DPB_SBC_UN_HI")), 1, 0};

			sbc_nwindow = getenv("DPB_SBC_NWINDOW") ? atof(getenv("DPB_SBC_NWINDOW")) : 0;
			sbc_window_out = 0;
			for (j = getenv("DPB_SBC_MECHS") && strcmp(getenv("DPB_SBC_MECHS"), "laplace") == 0; j < 2; j++)
			{
				un.mean_sd = 0;
				run_sbc(DPB_METHOD_NOISE_AWARE, j ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN,
						reps, N, eps, &un, &na);
				printf("SBC nuts unknown N ~ U(%g, %g) eps=%g %s reps=%d window k=%g (true N outside: %d) "
					   "count sd %.3g clipped=%.4f%% p: %.4g %.4g %.4g %.4g N %.4g\n",
					   un.lo, un.hi, eps, j ? "laplace" : "gaussian", reps, sbc_nwindow, sbc_window_out,
					   un.mean_sd, 100 * na.clipped_frac, na.pvalue[0], na.pvalue[1], na.pvalue[2],
					   na.pvalue[3], na.pvalue[4]);
				sbc_window_out = 0;
			}
			sbc_nwindow = 0;
			sbc_sampler = DPB_SAMPLER_GIBBS;
			return;
		}
		/* DPB_SBC_MECHS=laplace: the Laplace releases only */
		for (j = getenv("DPB_SBC_MECHS") && strcmp(getenv("DPB_SBC_MECHS"), "laplace") == 0; j < 2; j++)
		{
			sbc_latent = 0;
			run_sbc(DPB_METHOD_NOISE_AWARE, j ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN,
					reps, N, eps, NULL, &na);
			/* latent=K: the latent form ran in K of the replications */
			printf("SBC nuts N=%d eps=%g %s reps=%d clipped=%.4f%% y_clamped=%.3f%% latent=%d p: %.4g %.4g %.4g %.4g\n",
				   N, eps, j ? "laplace" : "gaussian", reps, 100 * na.clipped_frac,
				   100 * sbc_yclamped_frac, sbc_latent,
				   na.pvalue[0], na.pvalue[1], na.pvalue[2], na.pvalue[3]);
		}
		sbc_sampler = DPB_SAMPLER_GIBBS;
		return;
	}
	if (reps < 50)
		reps = 50;
	run_sbc(DPB_METHOD_NOISE_AWARE, DPB_MECH_GAUSSIAN, reps, 100, 0.5, NULL, &na);
	run_sbc(DPB_METHOD_NAIVE, DPB_MECH_GAUSSIAN, reps, 100, 0.5, NULL, &nv);
	run_sbc(DPB_METHOD_NOISE_AWARE, DPB_MECH_LAPLACE, reps, 100, 0.5, NULL, &lp);
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
	CHECK(minp_na > UNIT_P_MIN / 4, "noise-aware (gaussian) ranks not uniform: min p = %g", minp_na);
	CHECK(minp_lp > UNIT_P_MIN / 4, "noise-aware (laplace) ranks not uniform: min p = %g", minp_lp);
	/* the power: the naive posterior (the noise ignored) gives p ~ 1e-30 */
	CHECK(minp_nv < UNIT_P_MIN / 4, "naive passed SBC (the test has no power): min p = %g", minp_nv);
}

/*
 * SBC with an unknown number of records (issue 8: at N = 50): add/remove
 * releases of round(N) records, N ~ U(29.5, 70.5) (the discrete uniform on
 * 30..70, made continuous), epsilon 0.5, Gaussian and Laplace releases;
 * ranks of theta, sigma and N.  The count's noise comes from the release
 * (sd ~14 Gaussian, ~11 Laplace: N's uncertainty matters).  DPB_SBC_REPS sets
 * the replications (bench/sbc_unknown_n.sh: 400).  DPB_SBC_POWER=1 runs
 * only the power check, at DPB_SBC_REPS replications (its measurement).
 */
void
test_linear_unknown_n(void)
{
	sbc_unknown_n un = {29.5, 70.5, 1, 0},
				wrong = {29.5, 70.5, 0.25, 0};
	sbc_result	res;
	int			reps = getenv("DPB_SBC_REPS") ? atoi(getenv("DPB_SBC_REPS")) : 200;
	int			m,
				j,
				power_only = getenv("DPB_SBC_POWER") != NULL;

	for (m = power_only ? 2 : 0; m < 2; m++)
	{
		double		minp = 1;

		un.mean_sd = 0;
		run_sbc(DPB_METHOD_NOISE_AWARE, m ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN, reps,
				50, 0.5, &un, &res);
		for (j = 0; j < 5; j++)
			minp = fmin(minp, res.pvalue[j]);
		printf("  SBC linear, add/remove, N ~ U(%g, %g), %s (count sd %.3g), %d replications, eps=0.5 "
			   "(clipped %.4f%%): p = %.3g %.3g %.3g %.3g, N %.3g\n",
			   un.lo, un.hi, m ? "laplace" : "gaussian", un.mean_sd, reps, 100 * res.clipped_frac,
			   res.pvalue[0], res.pvalue[1], res.pvalue[2], res.pvalue[3], res.pvalue[4]);
		CHECK(res.clipped_frac < 0.01, "clipping is not rare: %g", res.clipped_frac);
		CHECK(minp > UNIT_P_MIN / 5, "unknown N (%s): ranks not uniform: min p = %g",
			  m ? "laplace" : "gaussian", minp);
	}
	/*
	 * The test has power: a sampler told a quarter of the count's noise sd
	 * fails the check above.  (Half the sd gave p = 0.008-0.035 over 5 seeds
	 * at 100 replications: no power at UNIT_P_MIN.  A quarter gave
	 * log10 p = -8.9 +- 2.1 over 11 seeds at 100 replications, and
	 * p = 2e-18 to 3e-13 over 6 seeds at 200.)
	 */
	run_sbc(DPB_METHOD_NOISE_AWARE, DPB_MECH_GAUSSIAN, power_only ? reps : 200, 50, 0.5,
			&wrong, &res);
	printf("  SBC linear, add/remove, sampler told a quarter of the count sd: N p = %.3g\n",
		   res.pvalue[4]);
	CHECK(res.pvalue[4] < UNIT_P_MIN / 5, "a wrong count sd passed SBC (the test has no power): p = %g",
		  res.pvalue[4]);
}

/*
 * SBC of the default sampler (NUTS on the marginal likelihood, Laplace with
 * the omega augmentation) at N = 100, epsilon = 0.5 and with an unknown N
 * (the settings of test_linear and test_linear_unknown_n); 100 kept
 * draws, no thinning.  DPB_SBC_REPS sets the replications (default 100);
 * bench/sbc_linear_nuts.sh runs 400 at N = 100 and 1e4, epsilon 0.5 and 1.
 */
void
test_linear_nuts_sbc(void)
{
	sbc_unknown_n un = {29.5, 70.5, 1, 0};
	sbc_result	res;
	int			reps = getenv("DPB_SBC_REPS") ? atoi(getenv("DPB_SBC_REPS")) : 100;

	/* one OpenBLAS thread, as in the server (module.c): the matrices are
	 * small, and threads only spin on a shared machine */
	int			threads = openblas_get_num_threads();

	openblas_set_num_threads(1);
	sbc_sampler = DPB_SAMPLER_NUTS;
	for (int m = 0; m < 4; m++)
	{
		double		minp = 1;
		int			nv = m >= 2 ? 5 : 4;

		un.mean_sd = 0;
		run_sbc(DPB_METHOD_NOISE_AWARE, m % 2 ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN, reps,
				m >= 2 ? 50 : 100, 0.5, m >= 2 ? &un : NULL, &res);
		for (int j = 0; j < nv; j++)
			minp = fmin(minp, res.pvalue[j]);
		printf("  SBC linear nuts, %s, %s, %d replications, eps=0.5: p = %.3g %.3g %.3g %.3g%s%.3g\n",
			   m % 2 ? "laplace" : "gaussian", m >= 2 ? "N ~ U(29.5, 70.5) unknown" : "N = 100",
			   reps, res.pvalue[0], res.pvalue[1], res.pvalue[2], res.pvalue[3],
			   m >= 2 ? ", N " : "", m >= 2 ? res.pvalue[4] : 0.0);
		CHECK(minp > UNIT_P_MIN / nv, "nuts SBC (%s, %s): ranks not uniform: min p = %g",
			  m % 2 ? "laplace" : "gaussian", m >= 2 ? "N unknown" : "N known", minp);
	}
	sbc_sampler = DPB_SAMPLER_GIBBS;
	openblas_set_num_threads(threads);
}
