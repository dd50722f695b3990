/*
 * sim.c — simulated releases for the statistical unit tests (see sim.h).
 */
#include "sim.h"

#include "accum.h"
#include "clip.h"
#include "ks.h"

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
