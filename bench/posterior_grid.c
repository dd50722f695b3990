/*
 * posterior_grid.c — does the default posterior converge?  Runs
 * dpb_posterior_run with the default options (seed 7) on simulated
 * releases (bench_release_grid, reproducible insecure noise) over a grid
 * and prints one markdown row per cell: the largest R-hat, the smallest
 * bulk and tail ESS over the reported variables, the divergences, the wall
 * time, the sampler steps per iteration (NUTS: gradient evaluations, warmup
 * included; Gibbs: 1) and PASS when R-hat <= 1.01 and both ESS >= 400.
 *
 *   bench/posterior_grid MODEL
 *
 * MODEL: linear (N 100, 1e4, 1e6 x eps 0.1, 1, 10 x d 2, 5, 10 x gaussian,
 * laplace), logistic or poisson (same N and eps, d 2, 4, 8, gaussian).
 * Environment (optional, comma-separated lists) NS, EPS, DS, MECHS
 * (gaussian, laplace) restrict or replace the grid; SEED (default 7) is the
 * sampler's seed (the releases stay the same); LAPLACE_NOISE (omega,
 * latent, latent_chol, auto) the option laplace_noise of Laplace releases.  Run by
 * bench/posterior_grid.sh.
 */
#include "bench_util.h"
#include "linear_model.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXL 8

/* a comma-separated list of numbers from the environment, else the default */
static int
list(const char *env, const double *dflt, int ndflt, double *out)
{
	const char *s = getenv(env);
	int			n = 0;

	if (s == NULL || *s == '\0')
	{
		memcpy(out, dflt, sizeof(double) * ndflt);
		return ndflt;
	}
	while (*s && n < MAXL)
	{
		char	   *end;

		out[n] = strtod(s, &end);
		if (end == s)
			break;
		n++;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int
main(int argc, char **argv)
{
	const char *model = argc > 1 ? argv[1] : "logistic";
	dpb_model	m;
	int			linear;
	const double dN[] = {100, 1e4, 1e6},
				dE[] = {0.1, 1, 10},
				dDl[] = {2, 5, 10},
				dDg[] = {2, 4, 8};
	double		Ns[MAXL],
				Es[MAXL],
				Ds[MAXL];
	int			nN,
				nE,
				nD,
				mechs[2],
				nM = 0,
				a,
				b,
				c,
				k;
	const char *ms = getenv("MECHS");

	gsl_set_error_handler_off();
	if (strcmp(model, "linear") == 0)
		m = DPB_MODEL_LINEAR;
	else if (strcmp(model, "logistic") == 0)
		m = DPB_MODEL_LOGISTIC;
	else if (strcmp(model, "poisson") == 0)
		m = DPB_MODEL_POISSON;
	else
	{
		fprintf(stderr, "usage: posterior_grid linear|logistic|poisson\n");
		return 2;
	}
	linear = m == DPB_MODEL_LINEAR;
	nN = list("NS", dN, 3, Ns);
	nE = list("EPS", dE, 3, Es);
	nD = list("DS", linear ? dDl : dDg, 3, Ds);
	if (ms == NULL || *ms == '\0')
		ms = linear ? "gaussian,laplace" : "gaussian";
	if (strstr(ms, "gaussian"))
		mechs[nM++] = DPB_MECH_GAUSSIAN;
	if (strstr(ms, "laplace"))
		mechs[nM++] = DPB_MECH_LAPLACE;

	for (k = 0; k < nM; k++)
		for (c = 0; c < nD; c++)
			for (a = 0; a < nN; a++)
				for (b = 0; b < nE; b++)
				{
					dpb_release r;
					dpb_infer_opts o;
					dpb_draws	dr;
					dpb_err		err;
					double		t0,
								t,
								rhat = 0,
								bulk = INFINITY,
								tail = INFINITY,
							   *x;
					int			d = (int) Ds[c],
								v,
								pass;
					dpb_status	st;

					bench_release_grid(m, d, (long) Ns[a], Es[b], mechs[k], &r);
					dpb_infer_opts_default(&o, &r);
					o.seed = getenv("SEED") ? strtoull(getenv("SEED"), NULL, 10) : 7;
					/* LAPLACE_NOISE=omega|latent|latent_mixed|latent_chol|auto: options laplace_noise
					 * (default: the default, "auto") */
					if (getenv("LAPLACE_NOISE") && *getenv("LAPLACE_NOISE"))
						o.lin.laplace_latent = strcmp(getenv("LAPLACE_NOISE"), "latent") == 0 ? 2 :
							strcmp(getenv("LAPLACE_NOISE"), "latent_chol") == 0 ? 1 :
							strcmp(getenv("LAPLACE_NOISE"), "latent_mixed") == 0 ? DPB_LIN_LATENT_MIXED :
							strcmp(getenv("LAPLACE_NOISE"), "omega") == 0 ? 0 : -1;
					/* POLAR=0|1: the linear NUTS coordinates (options polar) */
					if (getenv("POLAR") && *getenv("POLAR"))
						o.lin.polar = atoi(getenv("POLAR"));
					t0 = bench_now();
					st = dpb_posterior_run(&r, &o, &dr, &err);
					t = bench_now() - t0;
					printf("| %s | %s | %d | %ld | %g | ", model,
						   mechs[k] == DPB_MECH_LAPLACE ? "laplace" : "gaussian",
						   d, (long) Ns[a], Es[b]);
					if (st != DPB_OK)
					{
						printf("— | — | — | — | — | — | %.1f | FAIL (%s) |\n", t, err.msg);
						fflush(stdout);
						dpb_release_free_stats(&r);
						continue;
					}
					x = malloc(sizeof(double) * dr.chains * dr.iters);
					for (v = 0; v < dr.nvars; v++)
					{
						dpb_summary s;

						bench_summarize_var(&dr, v, x, &s);
						/* NaN (a constant variable) counts as a failure */
						rhat = s.rhat > rhat || s.rhat != s.rhat ? s.rhat : rhat;
						bulk = s.ess_bulk < bulk || s.ess_bulk != s.ess_bulk ? s.ess_bulk : bulk;
						tail = s.ess_tail < tail || s.ess_tail != s.ess_tail ? s.ess_tail : tail;
					}
					pass = rhat <= 1.01 && bulk >= 400 && tail >= 400;
					printf("%d | %.4f | %.0f | %.0f | %ld | %.1f | %.1f | %s |\n", dr.nvars,
						   rhat, bulk, tail, dr.divergences,
						   (double) dr.proposals / ((double) dr.chains * (o.warmup + (double) o.draws * o.thin)),
						   t, pass ? "PASS" : "FAIL");
					fflush(stdout);
					free(x);
					dpb_draws_free(&dr);
					dpb_release_free_stats(&r);
				}
	return 0;
}
