/*
 * ldp_models.c — benchmarks of the local-DP posteriors (ldp_models.h):
 *
 *   ldp_models sbc MODEL EPS REPS N     simulation-based calibration
 *   ldp_models fig3 N REPS              the paper's Fig. 3 setting
 *   ldp_models speed MODEL N EPS        wall time of one posterior run
 *
 * MODEL: gaussian, exponential, histogram, linear, logistic.  The noise of
 * the regression models follows the protocols of the digest (R7, R8): one
 * Gaussian mechanism (AGM, delta 1e-5) on [x, y] with Delta^2 = 4R^2 + 4R_y^2
 * (R = R_y = 1) for linear; for logistic, eps/2 to randomized response on
 * the label and eps/2 to a Gaussian mechanism on x with Delta = 2R.
 */
#include "agm.h"
#include "bench_util.h"
#include "diag.h"
#include "ks.h"
#include "ldp.h"
#include "ldp_models.h"
#include "ldp_sim.h"
#include "posterior.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define now bench_now

/* LDP_BIN_TOL: the scalar models' binning tolerance (dpb_ldpm_run_opts;
 * unset: the default; -1: the ungrouped path) */
static double
bin_tol(void)
{
	return getenv("LDP_BIN_TOL") ? atof(getenv("LDP_BIN_TOL")) : 0;
}

static dpb_ldpm_model
model_of(const char *s)
{
	for (int m = 1; m <= DPB_LDPM_MODEL_MAX; m++)
		if (strcmp(s, dpb_ldpm_model_name(m)) == 0)
			return m;
	fprintf(stderr, "unknown model %s\n", s);
	exit(2);
}

/* The model's public setting at eps (no data yet). */
static void
setting(dpb_ldpm_model m, double eps, int d, dpb_ldpm_data *dt)
{
	dpb_err		err;
	double		s;

	memset(dt, 0, sizeof(*dt));
	dt->model = m;
	switch (m)
	{
		case DPB_LDPM_GAUSSIAN:
			dt->a = -5, dt->b = 5, dt->lambda = eps / 10;
			break;
		case DPB_LDPM_EXPONENTIAL:
			dt->a = 0, dt->b = 5, dt->lambda = eps / 5;
			break;
		case DPB_LDPM_HISTOGRAM:
			dt->K = 3, dt->eps = eps;
			break;
		case DPB_LDPM_LINEAR:
			dt->d = d;
			dpb_agm_sigma(eps, 1e-5, sqrt(8.0), &s, &err);
			for (int j = 0; j < d; j++)
				dt->sd_x[j] = s;
			dt->sd_y = s;
			break;
		case DPB_LDPM_LOGISTIC:
			dt->d = d;
			dpb_agm_sigma(eps / 2, 1e-5, 2.0, &s, &err);
			for (int j = 0; j < d; j++)
				dt->sd_x[j] = s;
			dt->rr_keep = exp(eps / 2) / (1 + exp(eps / 2));
			break;
		case DPB_LDPM_GAUSSIAN_GN:
			{
				/* the noise sd of scalar_gaussian at eps, delta 1e-6 */
				char		json[160];
				dpb_ldp_protocol p;
				dpb_ldp_calib c;

				snprintf(json, sizeof(json), "{\"mechanism\":\"scalar_gaussian\",\"epsilon\":%.17g,"
						 "\"delta\":1e-6,\"lower\":-5,\"upper\":5}", eps);
				if (dpb_ldp_protocol_parse(json, &p, &err) != DPB_OK
					|| dpb_ldp_calibrate(&p, &c, &err) != DPB_OK)
				{
					fprintf(stderr, "protocol: %s\n", err.msg);
					exit(1);
				}
				dt->a = -5, dt->b = 5;
				dt->tau = ldexp(sqrt((double) c.gauss_sigma2), c.grid_exp);
				break;
			}
		case DPB_LDPM_PROPORTION:
			dt->groups = 1;
			dt->g_keep[0] = exp(eps) / (1 + exp(eps));
			break;
	}
}

static int
sbc(dpb_ldpm_model m, double eps, int reps, long N)
{
	dpb_ldpm_data dt0;
	dpb_ldpm_prior pr;
	int			dim,
				nv,
				L = 100,
				thin = getenv("LDP_SBC_THIN") ? atoi(getenv("LDP_SBC_THIN")) : 2,
				warm = getenv("LDP_SBC_WARMUP") ? atoi(getenv("LDP_SBC_WARMUP")) : 200,
				fails = 0;
	double	   *ranks,
				phi[256],
				truth[256];
	long		div = 0;
	double		terms = 0,
				reports = 0;
	int			binned = 0;
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	char		(*names)[DPB_VAR_NAME_LEN];
	double		t0 = now();

	setting(m, eps, 1, &dt0);
	dpb_ldpm_prior_default(&dt0, &pr);
	dim = dpb_ldpm_dim(&dt0);
	nv = dpb_ldpm_nvars(&dt0);
	names = calloc(nv, DPB_VAR_NAME_LEN);
	dpb_ldpm_names(&dt0, names);
	ranks = calloc((size_t) reps * nv, sizeof(double));
	/* LDP_SBC_SEED: an independent set of replications */
	gsl_rng_set(r, 1000 + (unsigned long) (eps * 100) + 17 * m +
				(getenv("LDP_SBC_SEED") ? 100000UL * strtoul(getenv("LDP_SBC_SEED"), NULL, 10) : 0));
	for (int rep = 0; rep < reps; rep++)
	{
		ldp_sim		s;
		dpb_ldpm_run_opts o = {1, warm, L * thin, 1 + rep, 0.8, 10, NULL, bin_tol()};
		dpb_draws	dr;
		dpb_err		err;

		ldp_sim_prior_draw(&dt0, &pr, r, phi);
		dpb_ldpm_constrain(&dt0, phi, truth);
		ldp_sim_from_phi(&s, &dt0, r, N, phi);
		/* the setting's noise parameters */
		s.dt.lambda = dt0.lambda;
		if (dpb_ldpm_run(&s.dt, &pr, &o, &dr, &err) != DPB_OK)
		{
			fails++;
			/* a failed run counts as rank 0 (it would show) */
			ldp_sim_free(&s);
			continue;
		}
		div += dr.divergences;
		if (m == DPB_LDPM_GAUSSIAN || m == DPB_LDPM_EXPONENTIAL)
		{
			/* how the run's likelihood was summed (stderr) */
			dpb_ldpm_groups g;

			if (bin_tol() >= 0
				&& dpb_ldpm_group(&s.dt, bin_tol() > 0 ? bin_tol() : DPB_LDPM_BIN_TOL,
								  DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g) == DPB_OK)
			{
				binned += g.k > 0;
				terms += g.k > 0 ? g.k : s.dt.n_in;
				dpb_ldpm_groups_free(&g);
			}
			else
				terms += s.dt.n_in;
			reports += s.dt.n_in;
		}
		for (int k = 0; k < nv; k++)
		{
			int			rk = 0;

			for (int i = 0; i < L; i++)
				rk += dr.v[(size_t) (i * thin) * nv + k] < truth[k];
			/* rank in 0..L, jittered to a continuous uniform on (0, 1) */
			ranks[(size_t) k * reps + rep] = (rk + gsl_rng_uniform(r)) / (L + 1);
		}
		dpb_draws_free(&dr);
		ldp_sim_free(&s);
	}
	printf("| %s | %g | %ld | %d |", dpb_ldpm_model_name(m), eps, N, reps);
	{
		double		pmin = 1;

		for (int k = 0; k < nv; k++)
		{
			double		D = dpb_ks_uniform_stat(ranks + (size_t) k * reps, reps),
						p = dpb_ks_pvalue(D, reps);

			printf(" %s %.3f", names[k], p);
			pmin = fmin(pmin, p);
			if (getenv("LDP_SBC_HIST"))
			{
				/* rank histogram in 10 bins (ranks are sorted by the KS) */
				int			h[10] = {0};

				for (int i = 0; i < reps; i++)
					h[(int) fmin(9, floor(10 * ranks[(size_t) k * reps + i]))]++;
				printf(" [");
				for (int b = 0; b < 10; b++)
					printf("%s%d", b ? " " : "", h[b]);
				printf("]");
			}
		}
		printf(" | %.3f | %d | %ld | %.0f s |\n", pmin, fails, div, now() - t0);
	}
	fflush(stdout);
	if (reports > 0)
		fprintf(stderr, "%s eps %g N %ld: %d of %d runs grouped or binned; terms %.0f per run for %.0f in-range reports\n",
				dpb_ldpm_model_name(m), eps, N, binned, reps - fails, terms / (reps - fails),
				reports / (reps - fails));
	free(ranks);
	free(names);
	gsl_rng_free(r);
	(void) dim;
	return 0;
}

/* Fig. 3: K = 3, theta = (0.7, 0.2, 0.1), eps = 0.5: RMSE of the posterior
 * mean (Dirichlet(1) prior) and of the projected OUE estimate */
static int
fig3(long N, int reps)
{
	double		th[3] = {0.7, 0.2, 0.1},
				se_b = 0,
				se_o = 0,
				se_r = 0;
	int			wins = 0;
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, 3000 + N);
	for (int rep = 0; rep < reps; rep++)
	{
		ldp_sim		s;
		dpb_ldpm_prior pr;
		dpb_ldpm_run_opts o = {2, 500, 500, 1 + rep, 0.8, 10, NULL, bin_tol()};
		dpb_draws	dr;
		dpb_err		err;
		double		f[3],
					fr[3],
					pm[3] = {0, 0, 0},
					eb = 0,
					eo = 0;

		ldp_sim_histogram(&s, r, N, 3, th, 0.5);
		dpb_ldpm_prior_default(&s.dt, &pr);
		dpb_ldpm_oue_estimate(&s.dt, 1, f);
		dpb_ldpm_oue_estimate(&s.dt, 0, fr);
		if (dpb_ldpm_run(&s.dt, &pr, &o, &dr, &err) != DPB_OK)
		{
			fprintf(stderr, "run failed\n");
			return 1;
		}
		for (int i = 0; i < dr.chains * dr.iters; i++)
			for (int k = 0; k < 3; k++)
				pm[k] += dr.v[(size_t) i * 3 + k] / (dr.chains * dr.iters);
		for (int k = 0; k < 3; k++)
		{
			eb += (pm[k] - th[k]) * (pm[k] - th[k]);
			eo += (f[k] - th[k]) * (f[k] - th[k]);
			se_r += (fr[k] - th[k]) * (fr[k] - th[k]);
		}
		se_b += eb;
		se_o += eo;
		wins += eb < eo;
		dpb_draws_free(&dr);
		ldp_sim_free(&s);
	}
	/* RMSE per component: sqrt(mean over reps and the 3 components) */
	printf("| %ld | %d | %.4f | %.4f | %.4f | %.1f%% | %d/%d |\n", N, reps,
		   sqrt(se_b / (3 * reps)), sqrt(se_o / (3 * reps)), sqrt(se_r / (3 * reps)),
		   100 * (1 - sqrt(se_b / se_o)), wins, reps);
	gsl_rng_free(r);
	return 0;
}

static int
speed(dpb_ldpm_model m, long N, double eps)
{
	dpb_ldpm_data dt0;
	dpb_ldpm_prior pr;
	ldp_sim		s;
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	double		phi[256],
				g[256],
				t0,
				t1,
				te;
	/* LDP_SPEED_ITERS: warmup and draws (default 500 each) */
	int			it = getenv("LDP_SPEED_ITERS") ? atoi(getenv("LDP_SPEED_ITERS")) : 500;
	dpb_ldpm_run_opts o = {1, it, it, 1, 0.8, 10, NULL, bin_tol()};
	dpb_draws	dr;
	dpb_err		err;
	int			dim,
				ne = 20;
	dpb_ldpm_ctx ctx;

	setting(m, eps, 2, &dt0);
	dpb_ldpm_prior_default(&dt0, &pr);
	dim = dpb_ldpm_dim(&dt0);
	gsl_rng_set(r, 5);
	for (int j = 0; j < dim; j++)
		phi[j] = 0;
	if (m == DPB_LDPM_GAUSSIAN)
		phi[0] = 1, phi[1] = log(1.5);
	else if (m == DPB_LDPM_EXPONENTIAL)
		phi[0] = log(0.7);
	else if (m == DPB_LDPM_LOGISTIC || m == DPB_LDPM_LINEAR)
	{
		phi[0] = -0.3, phi[1] = 1, phi[2] = -1;
		if (m == DPB_LDPM_LINEAR)
			phi[3] = log(0.5);
	}
	else
		phi[0] = log(0.7 / 0.1), phi[1] = log(0.2 / 0.1);
	ldp_sim_from_phi(&s, &dt0, r, N, phi);
	s.dt.lambda = dt0.lambda;
	ctx.dt = &s.dt;
	ctx.pr = &pr;
	t0 = now();
	for (int i = 0; i < ne; i++)
		dpb_ldpm_logp(phi, g, &ctx);
	te = (now() - t0) / ne;
	if (it == 0)
	{
		printf("| %s | %ld | %g | %ld | %.3g ms | - | - |\n", dpb_ldpm_model_name(m), N, eps,
			   m <= DPB_LDPM_EXPONENTIAL ? s.dt.n_in : (m == DPB_LDPM_HISTOGRAM ? s.dt.npat : N),
			   1e3 * te);
		ldp_sim_free(&s);
		gsl_rng_free(r);
		return 0;
	}
	t0 = now();
	if (dpb_ldpm_run(&s.dt, &pr, &o, &dr, &err) != DPB_OK)
	{
		fprintf(stderr, "run failed\n");
		return 1;
	}
	t1 = now();
	printf("| %s | %ld | %g | %ld | %.3g ms | %ld | %.1f s |\n", dpb_ldpm_model_name(m), N, eps,
		   m <= DPB_LDPM_EXPONENTIAL ? s.dt.n_in : (m == DPB_LDPM_HISTOGRAM ? s.dt.npat : N),
		   1e3 * te, dr.proposals, t1 - t0);
	dpb_draws_free(&dr);
	ldp_sim_free(&s);
	gsl_rng_free(r);
	return 0;
}

int
main(int argc, char **argv)
{
	gsl_set_error_handler_off();
	if (argc == 6 && strcmp(argv[1], "sbc") == 0)
		return sbc(model_of(argv[2]), atof(argv[3]), atoi(argv[4]), atol(argv[5]));
	if (argc == 4 && strcmp(argv[1], "fig3") == 0)
		return fig3(atol(argv[2]), atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "speed") == 0)
		return speed(model_of(argv[2]), atol(argv[3]), atof(argv[4]));
	fprintf(stderr, "usage: ldp_models sbc MODEL EPS REPS N | fig3 N REPS | speed MODEL N EPS\n");
	return 2;
}
