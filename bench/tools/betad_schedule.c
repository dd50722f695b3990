/*
 * betad_schedule.c — NOT PRIVATE study of the betaD sampler's schedule
 * (bench/tools/betad_schedule.sh): on the synthetic logistic data of
 * bench/betad_speed.c (N rows, d = 10, beta 3), runs R independent
 * replicates of C chains x (W warmup + I kept) with a seeded generator and
 * reports the cost (gradient evaluations, warmup's share, step size, tree
 * depth) and, against a long reference run (4 chains x 2000 after 2000),
 * the quality of what the mechanism releases: the z-scores (draw - mean) /
 * sd, per coordinate, of one uniformly chosen kept draw per replicate.
 * Exact draws give z ~ N(0, 1): their KS p against N(0, 1) and mean z^2 are
 * printed.
 *   betad_schedule N W I C R dense
 * CORR=r: AR(1) features with correlation r between neighbours (default 0).
 */
#include "betad/betad_model.h"
#include "ks.h"
#include "nuts.h"
#include "bench_util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
logp(const double *x, double *grad, void *ctx)
{
	return dpb_betad_logpost((const dpb_betad_model *) ctx, x, grad);
}

/* C chains from prior draws; all kept draws (C x I x dim) into out */
static long
run(dpb_betad_model *m, int W, int I, int C, int dense, gsl_rng *g, double *out,
	double *eps, double *depth, long *wgrad)
{
	int			dim = dpb_betad_dim(m),
				c,
				k;
	long		grads = 0;
	dpb_nuts_opts o;

	dpb_nuts_opts_default(&o);
	o.warmup = W;
	o.draws = I;
	o.curvature_init = 1;
	o.dense = dense;
	*eps = *depth = 0;
	*wgrad = 0;
	for (c = 0; c < C; c++)
	{
		double		init[16];
		dpb_nuts_stats st;

		for (k = 0; k < dim; k++)
			init[k] = gsl_ran_gaussian(g, m->prior_sd);
		if (dpb_nuts_run(dim, logp, m, init, &o, g, out + (size_t) c * I * dim, &st) != DPB_OK)
		{
			fprintf(stderr, "nuts failed\n");
			exit(1);
		}
		grads += st.gradient_evals;
		*wgrad += st.warmup_gradient_evals;
		*eps += st.step_size / C;
		*depth += st.mean_tree_depth / C;
	}
	return grads;
}

int
main(int argc, char **argv)
{
	long		N = atol(argv[1]);
	int			W = atoi(argv[2]),
				I = atoi(argv[3]),
				C = atoi(argv[4]),
				R = atoi(argv[5]),
				dense = atoi(argv[6]),
				d = 10,
				dim = d + 1,
				j,
				k,
				rep;
	double	   *X = malloc(sizeof(double) * N * d),
			   *y = malloc(sizeof(double) * N),
			   *work = malloc(sizeof(double) * 2 * N),
			   *ref = malloc(sizeof(double) * 4 * 2000 * 11),
			   *out = malloc(sizeof(double) * (size_t) C * I * 11),
			   *z = malloc(sizeof(double) * R * 11),
				mean[11] = {0},
				sd[11] = {0},
				eps,
				depth,
				t0,
				tsum = 0,
				z2 = 0;
	long		wg,
				gsum = 0,
				wgsum = 0;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_betad_model m = {0};

	/* the data of bench/betad_speed.c (CORR = 0) */
	double		rho = getenv("CORR") ? atof(getenv("CORR")) : 0.0;

	bench_betad_logistic_data(N, d, rho, X, y);
	m = (dpb_betad_model) {.d = d, .intercept = 1, .beta = 3, .prior_sd = 3, .n = N, .X = X,
		.y = y, .work = work};
	/* reference: 4 x 2000 after 2000, diagonal metric (cached in
	 * REF_CACHE when that names a file) */
	{
		const char *cache = getenv("REF_CACHE");
		FILE	   *f = cache ? fopen(cache, "r") : NULL;
		int			got = 0;

		if (f)
		{
			for (j = 0; j < dim; j++)
				got += fscanf(f, "%lf %lf", &mean[j], &sd[j]) == 2;
			fclose(f);
		}
		if (got != dim)
		{
			gsl_rng_set(g, 99);
			(void) run(&m, 2000, 2000, 4, 0, g, ref, &eps, &depth, &wg);
			for (j = 0; j < dim; j++)
				mean[j] = sd[j] = 0;
			for (k = 0; k < 8000; k++)
				for (j = 0; j < dim; j++)
					mean[j] += ref[k * dim + j] / 8000;
			for (k = 0; k < 8000; k++)
				for (j = 0; j < dim; j++)
					sd[j] += pow(ref[k * dim + j] - mean[j], 2) / 7999;
			for (j = 0; j < dim; j++)
				sd[j] = sqrt(sd[j]);
			if (cache && (f = fopen(cache, "w")) != NULL)
			{
				for (j = 0; j < dim; j++)
					fprintf(f, "%.17g %.17g\n", mean[j], sd[j]);
				fclose(f);
			}
		}
	}
	printf("N %ld, feature correlation %g, schedule %d chains x (%d + %d), %s metric, %d replicates\n",
		   N, rho, C, W, I, dense ? "dense" : "diagonal", R);
	for (rep = 0; rep < R; rep++)
	{
		long		gr;
		int			pick;

		gsl_rng_set(g, 1000 + rep);
		t0 = bench_now();
		gr = run(&m, W, I, C, dense, g, out, &eps, &depth, &wg);
		tsum += bench_now() - t0;
		gsum += gr;
		wgsum += wg;
		pick = (int) gsl_rng_uniform_int(g, (unsigned long) C * I);
		for (j = 0; j < dim; j++)
		{
			z[rep * dim + j] = (out[(size_t) pick * dim + j] - mean[j]) / sd[j];
			z2 += z[rep * dim + j] * z[rep * dim + j];
		}
		if (rep < 3)
			printf("  replicate %d: %ld gradients (%ld in warmup), step size %.3g, depth %.2f\n",
				   rep, gr, wg, eps, depth);
	}
	for (k = 0; k < R * dim; k++)
		z[k] = gsl_cdf_ugaussian_P(z[k]);
	printf("mean gradients %.0f (warmup %.0f), %.1f per iteration; mean %.2f s per replicate\n",
		   (double) gsum / R, (double) wgsum / R, (double) gsum / R / (C * (W + I)), tsum / R);
	printf("released draws: mean z^2 %.3f (1 for exact draws), KS p vs N(0,1) %.3g (%d values)\n",
		   z2 / (R * dim), dpb_ks_pvalue(dpb_ks_uniform_stat(z, R * dim), R * dim), R * dim);
	return 0;
}
