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

int
sim_release(dpb_model model, const dpb_params *p, int d,
			const double *X, const double *Y, int N,
			gsl_rng *noise, dpb_release *r, int *clipped)
{
	dpb_layout	L;
	dpb_clipper c;
	dpb_err		err;
	double		z[DPB_MAX_D];
	int			i;

	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = model;
	r->d = d;
	r->n = N;
	r->p = *p;
	r->p.d = d;
	if (dpb_params_check_model(&r->p, model, d, &err) != DPB_OK)
		return -1;
	dpb_release_layout(r, &L);	/* with the moment blocks of x_moments */
	dpb_clipper_init(&c, &r->p, model, d);
	r->stats = calloc(L.nstats, sizeof(double));
	*clipped = 0;
	for (i = 0; i < N; i++)
	{
		double		y = dpb_clip_y(&c, Y[i]);
		int			cl = dpb_clip_x(&c, X + (size_t) i * d, z);

		if (cl || y != Y[i])
			(*clipped)++;
		dpb_accum_add(&L, z, y, r->stats);
	}
	if (dpb_release_calibrate(r, &err) != DPB_OK)
		return -1;
	if (noise != NULL && dpb_release_add_noise(r, noise, &err) != DPB_OK)
		return -1;
	return 0;
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
sim_rank_histogram(const int *ranks, int reps, int ndraws, int j)
{
	int			h[10] = {0},
				i;

	for (i = 0; i < reps; i++)
		h[ranks[i] * 10 / (ndraws + 1)]++;
	printf("  rank histogram %d:", j);
	for (i = 0; i < 10; i++)
		printf(" %d", h[i]);
	printf("\n");
}
