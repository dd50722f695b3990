/*
 * glm_profile.c — where the time of the noise-aware logistic NUTS goes:
 * the cost of one log-density + gradient evaluation, and per chain the
 * step size, tree depth and gradient evaluations per iteration in warmup
 * and sampling, and how correlated the posterior is in the sampler's
 * unconstrained coordinates (condition number of the draws' correlation
 * matrix, which a diagonal metric cannot remove).
 *
 *   bench/tools/glm_profile D N [CHAINS [EVALS [SEED]]]   (glm_profile.sh)
 *
 * The release is bench_release()'s (bench/bench_util.c), the options the
 * defaults with seed 7 (as in bench/glm_speed.c) unless SEED is given.
 * The chains run dpb_nuts_run_metric directly, so without the warmup's
 * choice of the slopes' coordinates that dpb_glm_run makes (glm_model.c,
 * run_recoord): measure that with bench/posterior_grid.c.
 */
#include "bench_util.h"
#include "glm_model.h"
#include "linalg.h"
#include "nuts.h"
#include "posterior.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* condition number of the correlation matrix of n draws of dim values */
static double
corr_condition(const double *x, int n, int dim)
{
	double	   *C = calloc((size_t) dim * dim * 2 + 2 * dim, sizeof(double)),
			   *E = C + (size_t) dim * dim,
			   *mean = E + (size_t) dim * dim,
			   *w = mean + dim,
				cond;
	int			i,
				j,
				k;

	for (k = 0; k < n; k++)
		for (i = 0; i < dim; i++)
			mean[i] += x[(size_t) k * dim + i] / n;
	for (k = 0; k < n; k++)
		for (i = 0; i < dim; i++)
			for (j = 0; j < dim; j++)
				C[i * dim + j] += (x[(size_t) k * dim + i] - mean[i]) *
					(x[(size_t) k * dim + j] - mean[j]);
	for (i = 0; i < dim; i++)
		w[i] = sqrt(C[i * dim + i]);
	for (i = 0; i < dim; i++)
		for (j = 0; j < dim; j++)
			C[i * dim + j] /= w[i] * w[j];
	if (dpb_sym_eigen(C, dim, w, E) != DPB_OK)
		cond = NAN;
	else
		cond = w[dim - 1] / w[0];
	free(C);
	return cond;
}

int
main(int argc, char **argv)
{
	int			d = argc > 1 ? atoi(argv[1]) : 8;
	long		N = argc > 2 ? atol(argv[2]) : 1000;
	int			chains = argc > 3 ? atoi(argv[3]) : 1;
	int			evals = argc > 4 ? atoi(argv[4]) : 2000;
	uint64_t	seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 7;
	dpb_release r;
	dpb_infer_opts o;
	dpb_glm_ctx *c;
	dpb_nuts_opts no;
	double	   *phi,
			   *grad,
			   *draws,
				t0,
				lp = 0;
	int			dim,
				ci,
				i;

	gsl_set_error_handler_off();
	bench_release_grid(getenv("PROFILE_POISSON") ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC, d, N, getenv("PROFILE_EPS") ? atof(getenv("PROFILE_EPS")) : 1.0,
					   DPB_MECH_GAUSSIAN, &r);
	dpb_infer_opts_default(&o, &r);
	o.seed = seed;
	c = dpb_glm_ctx_new(&r, &o);
	dim = dpb_glm_ctx_dim(c);
	phi = malloc(sizeof(double) * dim * 2);
	grad = phi + dim;
	draws = malloc(sizeof(double) * dim * o.draws);
	{
		gsl_rng    *g = dpb_chain_rng(o.seed, 0);

		dpb_glm_init(c, g, phi);
		gsl_rng_free(g);
	}
	t0 = bench_now();
	for (i = 0; i < evals; i++)
		lp += dpb_glm_logp(phi, grad, c);
	printf("d=%d N=%ld: %d statistics, %d unconstrained parameters; "
		   "log density + gradient %.1f us (%d evaluations, logp %.3g)\n",
		   d, N, r.nstats, dim, 1e6 * (bench_now() - t0) / evals, evals, lp / evals);
	dpb_nuts_opts_default(&no);
	no.warmup = o.warmup;
	no.draws = o.draws;
	no.target_accept = o.nuts.target_accept;
	no.max_depth = o.nuts.max_depth;
	no.curvature_init = getenv("PROFILE_UNIT_METRIC") == NULL;
	no.dense = getenv("PROFILE_DENSE") != NULL;
	no.init_max_depth = getenv("PROFILE_INIT_DEPTH") ? atoi(getenv("PROFILE_INIT_DEPTH")) : 0;
	printf("| chain | wall s | step | depth | grads/iter warmup | grads/iter sampling | us/grad | "
		   "divergences | inv metric min..max | corr cond |\n|---|---|---|---|---|---|---|---|---|---|\n");
	for (ci = 0; ci < chains; ci++)
	{
		gsl_rng    *g = dpb_chain_rng(o.seed, ci);
		dpb_nuts_stats ns;
		double		minv[DPB_MAX_D * DPB_MAX_D],
					lo = INFINITY,
					hi = 0,
					t;

		dpb_glm_init(c, g, phi);
		t0 = bench_now();
		if (dpb_nuts_run_metric(dim, dpb_glm_logp, c, phi, &no, g, draws, &ns,
								minv) != DPB_OK)
		{
			fprintf(stderr, "sampler failed\n");
			return 1;
		}
		t = bench_now() - t0;
		for (i = 0; i < dim; i++)
		{
			lo = fmin(lo, minv[i]);
			hi = fmax(hi, minv[i]);
		}
		printf("| %d | %.1f | %.3g | %.2f | %.1f | %.1f | %.1f | %ld | %.2g..%.2g | %.0f |\n",
			   ci, t, ns.step_size, ns.mean_tree_depth,
			   (double) ns.warmup_gradient_evals / no.warmup,
			   (double) (ns.gradient_evals - ns.warmup_gradient_evals) / no.draws,
			   1e6 * t / ns.gradient_evals, ns.divergences, lo, hi,
			   corr_condition(draws, no.draws, dim));
		if (getenv("PROFILE_METRIC"))
			for (i = 0; i < dim; i++)
				printf("  minv[%d] = %.3g\n", i, minv[i]);
		fflush(stdout);
		gsl_rng_free(g);
	}
	free(draws);
	free(phi);
	dpb_glm_ctx_free(c);
	dpb_release_free_stats(&r);
	return 0;
}
