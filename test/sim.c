/*
 * sim.c — simulated releases for the statistical unit tests (see sim.h).
 */
#include "sim.h"

#include "accum.h"
#include "clip.h"
#include "ks.h"

#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bytes from a seeded GSL generator: INSECURE, for tests only */
static int
gsl_fill(void *ctx, void *buf, size_t len)
{
	unsigned char *b = buf;
	size_t		k;

	for (k = 0; k < len; k++)
		b[k] = (unsigned char) (gsl_rng_get((gsl_rng *) ctx) & 0xff);
	return 1;
}

dpb_rbits *
sim_bits(gsl_rng *g)
{
	return dpb_rbits_new(gsl_fill, g);
}

int
sim_release(dpb_model model, const dpb_params *p, int d,
			const double *X, const double *Y, int N,
			gsl_rng *noise, dpb_release *r, int *clipped)
{
	dpb_err		err;
	dpb_rbits  *rb = noise ? sim_bits(noise) : NULL;
	int64_t		cl = 0;
	dpb_status	st;

	if (noise != NULL && rb == NULL)
		return -1;
	st = dpb_release_from_rows(r, model, p, d, X, Y, N, rb, &cl, &err);
	if (rb)
		dpb_rbits_free(rb);
	*clipped = (int) cl;
	return st == DPB_OK ? 0 : -1;
}

double
sim_rank_pvalue(const int *ranks, int reps, int ndraws, gsl_rng *rng)
{
	double	   *u = malloc(sizeof(double) * reps);
	double		D;
	int			i;

	for (i = 0; i < reps; i++)
		u[i] = (ranks[i] + gsl_rng_uniform(rng)) / (ndraws + 1);
	D = dpb_ks_uniform_stat(u, reps);
	free(u);
	return dpb_ks_pvalue(D, reps);
}

void
sim_rank_histograms(const int *ranks, int nvars, int reps, int ndraws)
{
	int			j,
				i;

	for (j = 0; j < nvars; j++)
	{
		int			h[10] = {0};

		for (i = 0; i < reps; i++)
			h[ranks[j * reps + i] * 10 / (ndraws + 1)]++;
		printf("  rank histogram %d:", j);
		for (i = 0; i < 10; i++)
			printf(" %d", h[i]);
		printf("\n");
	}
}

int
sim_linear_d2(int N, double eps, dpb_mechanism mech, dpb_neighbours nb, int intercept,
			 unsigned long seed, dpb_release *r, double *truth)
{
	const int	d = 2;
	double		theta[3] = {0.4, 0.8, -0.5},
				sigma = 0.5;
	double	   *X = malloc(sizeof(double) * N * d),
			   *Y = malloc(sizeof(double) * N);
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937),
			   *noise = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_params	p;
	int			cl,
				i,
				rc;

	gsl_rng_set(g, seed);
	gsl_rng_set(noise, seed + 1);
	dpb_params_default(&p);
	p.epsilon = eps;
	p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-6 : 0;
	p.mechanism = mech;
	p.neighbours = nb;
	p.intercept = intercept;
	p.clip = 1;
	p.y_bound = 3;
	for (i = 0; i < N; i++)
	{
		double	   *x = X + i * d;

		x[0] = 0.1 + 0.3 * gsl_ran_ugaussian(g);
		x[1] = -0.1 + 0.2 * gsl_ran_ugaussian(g) + 0.1 * x[0];
		Y[i] = (intercept ? theta[0] : 0) + theta[1] * x[0] + theta[2] * x[1] +
			sigma * gsl_ran_ugaussian(g);
	}
	memset(r, 0, sizeof(*r));
	rc = sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, noise, r, &cl);
	if (truth)
	{
		truth[0] = theta[0];
		truth[1] = theta[1];
		truth[2] = theta[2];
		truth[3] = sigma;
	}
	free(X);
	free(Y);
	gsl_rng_free(g);
	gsl_rng_free(noise);
	return rc;
}
