/*
 * bench/sbc_linear_d.c — simulation-based calibration of the linear NUTS
 * sampler at D features (default 10), in the regime of laplace_noise
 * "auto"'s mixed form: features concentrated within the clip radius, y
 * wide, N = 1e4, epsilon 1, Laplace, replace-one, so that the noise
 * dominates every statistic but sum y^2 (issue 26; test/test_linear.c's
 * run_sbc is d = 2).  Run by bench/sbc_linear_d.sh.
 *
 * Per replication: (theta, sigma^2, mu, Sigma) from the sampler's own prior
 * (weak: theta_j ~ N(0, 1.5^2), theta_0 ~ N(0, 0.5^2), sigma^2 ~
 * Exponential(mean 0.1); Sigma ~ IW(x_df = D + 12, 0.1^2 (x_df - D - 1)
 * I), so E[Sigma] = 0.1^2 I; mu | Sigma ~ N(0, Sigma / 10)), N records x ~
 * N(mu, Sigma), y = theta_0 + theta_x' x + N(0, sigma^2), clip 1, y_bound 4
 * (clipping and clamping are rare: counted), released with seeded
 * (test-only) noise; then one chain of 500 warmup + 100 draws (sampler seed
 * by replication) and the ranks of the truth among the draws.  Prints the
 * KS p of every variable's ranks (theta_0..theta_D, sigma), the forms that
 * "auto" took, and with HIST=1 the rank histograms.
 *
 * Environment: D (10), N (10000), EPS (1), REPS (200), FORM (auto, omega,
 * latent, latent_mixed), POLAR (0|1: options polar; unset: the default),
 * FIRST (the first replication, 0: to split a run over processes; the
 * ranks of each part are printed with RANKS=file and pooled by the
 * script).
 */
#include "bench_util.h"
#include "linalg.h"
#include "linear_model.h"
#include "sim.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
envd(const char *k, double dflt)
{
	const char *s = getenv(k);

	return s && *s ? atof(s) : dflt;
}

int
main(void)
{
	int			d = (int) envd("D", 10),
				N = (int) envd("N", 10000),
				reps = (int) envd("REPS", 200),
				first = (int) envd("FIRST", 0),
				keep = 100,
				nv = d + 2,
				forms[4] = {0},
				cl,
				rep,
				j,
				i;
	double		eps = envd("EPS", 1),
				df = d + 12,
				sx = 0.1;
	const char *form = getenv("FORM") && *getenv("FORM") ? getenv("FORM") : "auto";
	int		   *ranks = calloc((size_t) nv * reps, sizeof(int));
	double	   *X = malloc(sizeof(double) * N * d),
			   *Y = malloc(sizeof(double) * N),
			   *Li = calloc((size_t) d * d, sizeof(double)),
			   *W = malloc(sizeof(double) * d * d),
			   *wk = malloc(sizeof(double) * d * d),
			   *Sig = malloc(sizeof(double) * d * d),
			   *Lc = malloc(sizeof(double) * d * d);
	long		clipped = 0;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937),
			   *noise = gsl_rng_alloc(gsl_rng_mt19937);
	FILE	   *rf = getenv("RANKS") ? fopen(getenv("RANKS"), "w") : NULL;

	gsl_set_error_handler_off();
	if (getenv("POOL"))
	{
		/* POOL=file,file,...: the ranks of the parts (RANKS files), pooled */
		char	   *list = strdup(getenv("POOL")),
				   *f,
				   *save = NULL;
		int			n = 0,
					cap = 1024;
		int		   *all = malloc(sizeof(int) * nv * cap),
				   *col = malloc(sizeof(int) * cap);

		for (f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save))
		{
			FILE	   *in = fopen(f, "r");

			while (in && !feof(in))
			{
				int			ok = 1;

				if (n == cap)
				{
					cap *= 2;
					all = realloc(all, sizeof(int) * nv * cap);
					col = realloc(col, sizeof(int) * cap);
				}
				for (j = 0; j < nv && ok; j++)
					ok = fscanf(in, "%d", &all[n * nv + j]) == 1;
				if (ok)
					n++;
			}
			if (in)
				fclose(in);
		}
		gsl_rng_set(rng, 1);
		printf("pooled reps=%d p:", n);
		for (j = 0; j < nv; j++)
		{
			for (i = 0; i < n; i++)
				col[i] = all[i * nv + j];
			printf(" %.4g", sim_rank_pvalue(col, n, keep, rng));
		}
		printf("\n");
		if (getenv("HIST"))
			for (j = 0; j < nv; j++)
			{
				for (i = 0; i < n; i++)
					col[i] = all[i * nv + j];
				sim_rank_histograms(col, 1, n, keep);
			}
		return 0;
	}
	for (rep = first; rep < first + reps; rep++)
	{
		dpb_params	p;
		dpb_release r;
		dpb_infer_opts o;
		dpb_draws	dr;
		dpb_err		err;
		double		theta[DPB_MAX_D + 1],
					mu[DPB_MAX_D],
					sigma2,
					truth[DPB_MAX_D + 2];
		gsl_matrix_view Lv = gsl_matrix_view_array(Li, d, d),
					Wv = gsl_matrix_view_array(W, d, d),
					Kv = gsl_matrix_view_array(wk, d, d);
		int			k = rep - first;

		gsl_rng_set(rng, 20261127 + (unsigned long) rep);
		gsl_rng_set(noise, 777 + (unsigned long) rep);
		dpb_params_default(&p);
		p.epsilon = eps;
		p.delta = 0;
		p.mechanism = DPB_MECH_LAPLACE;
		p.neighbours = DPB_NB_REPLACE;
		p.d = d;
		p.clip = 1;
		p.y_bound = 4;
		memset(&r, 0, sizeof(r));
		r.d = d;
		r.p = p;
		r.model = DPB_MODEL_LINEAR;
		dpb_infer_opts_default(&o, &r);
		o.lin.laplace_latent = strcmp(form, "latent") == 0 ? 2 :
			strcmp(form, "latent_mixed") == 0 ? DPB_LIN_LATENT_MIXED :
			strcmp(form, "omega") == 0 ? 0 : -1;
		if (getenv("POLAR") && *getenv("POLAR"))
			o.lin.polar = atoi(getenv("POLAR"));
		o.chains = 1;
		o.warmup = 500;
		o.draws = keep;
		o.seed = 1000 + (uint64_t) rep;
		/* the sampler's prior, and the truth from it */
		o.lin.prior = DPB_LIN_PRIOR_WEAK;
		for (j = 0; j <= d; j++)
			o.lin.theta_sd[j] = 1.5;
		o.lin.intercept_sd = 0.5;
		o.lin.sigma2_mean = 0.1;
		o.lin.x_kappa = 10;
		o.lin.x_df = df;
		memset(o.lin.x_scale, 0, sizeof(o.lin.x_scale));
		for (j = 0; j < d; j++)
		{
			o.lin.x_scale[j * d + j] = sx * sx * (df - d - 1);
			o.x_mean[j] = 0;
		}
		sigma2 = gsl_ran_exponential(rng, o.lin.sigma2_mean);
		theta[0] = 0.5 * gsl_ran_ugaussian(rng);
		for (j = 1; j <= d; j++)
			theta[j] = 1.5 * gsl_ran_ugaussian(rng);
		/* Sigma^{-1} ~ W(df, Psi^{-1}), Psi = psi I */
		memset(Li, 0, sizeof(double) * d * d);
		for (j = 0; j < d; j++)
			Li[j * d + j] = 1 / sqrt(o.lin.x_scale[j * d + j]);
		gsl_ran_wishart(rng, df, &Lv.matrix, &Wv.matrix, &Kv.matrix);
		dpb_chol(W, d, NULL);
		dpb_chol_inverse(W, d, Sig);
		memcpy(Lc, Sig, sizeof(double) * d * d);
		dpb_chol(Lc, d, NULL);
		for (j = 0; j < d; j++)
			mu[j] = gsl_ran_ugaussian(rng) / sqrt(o.lin.x_kappa);
		dpb_tri_mul(Lc, d, mu);
		for (i = 0; i < N; i++)
		{
			double	   *x = X + (size_t) i * d,
						u = theta[0];

			for (j = 0; j < d; j++)
				x[j] = gsl_ran_ugaussian(rng);
			dpb_tri_mul(Lc, d, x);
			for (j = 0; j < d; j++)
			{
				x[j] += mu[j];
				u += theta[1 + j] * x[j];
			}
			Y[i] = u + sqrt(sigma2) * gsl_ran_ugaussian(rng);
		}
		if (sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, noise, &r, &cl) != 0)
		{
			fprintf(stderr, "sim_release failed\n");
			return 1;
		}
		clipped += cl;
		dpb_release_count(&r, &o.count.n_hat, &o.count.n_sd, &o.count.n_known);
		{
			int			f = dpb_lin_use_latent(&r, &o);

			forms[f == DPB_LIN_LATENT_MIXED ? 3 : f == 2 ? 2 : f == 1 ? 1 : 0]++;
		}
		if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
		{
			fprintf(stderr, "posterior failed: %s\n", err.msg);
			return 1;
		}
		for (j = 0; j <= d; j++)
			truth[j] = theta[j];
		truth[d + 1] = sqrt(sigma2);
		for (j = 0; j < nv; j++)
		{
			int			rank = 0;

			for (int t = 0; t < keep; t++)
				rank += dr.v[(size_t) t * dr.nvars + j] < truth[j];
			ranks[j * reps + k] = rank;
		}
		if (rf)
		{
			for (j = 0; j < nv; j++)
				fprintf(rf, "%s%d", j ? "\t" : "", ranks[j * reps + k]);
			fprintf(rf, "\n");
			fflush(rf);
		}
		dpb_draws_free(&dr);
		dpb_release_free_stats(&r);
	}
	printf("SBC d=%d N=%d eps=%g laplace replace reps=%d form=%s clipped=%.4f%% forms omega=%d "
		   "latent=%d latent_mixed=%d p:", d, N, eps, reps, form,
		   100.0 * clipped / ((double) N * reps), forms[0], forms[2], forms[3]);
	for (j = 0; j < nv; j++)
		printf(" %.4g", sim_rank_pvalue(ranks + j * reps, reps, keep, rng));
	printf("\n");
	if (getenv("HIST"))
		sim_rank_histograms(ranks, nv, reps, keep);
	if (rf)
		fclose(rf);
	return 0;
}
