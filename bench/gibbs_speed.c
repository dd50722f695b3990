/*
 * gibbs_speed.c — speed of the Gibbs-SS sampler (noise-aware linear
 * regression) at d = 2, 5, 10, and its independence of N.
 *
 * Builds a release of simulated data with the core library (as the
 * aggregate does), then times one chain of ITERS iterations (no warmup,
 * all draws kept) with clock_gettime(CLOCK_MONOTONIC), REPS times, and
 * prints the median and min/max iterations per second.  Run by
 * bench/gibbs_speed.sh; no server needed.
 */
#include "gibbs_linear.h"
#include "accum.h"
#include "clip.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static void
make_release(int d, long N, dpb_release *r)
{
	dpb_params	p;
	dpb_layout	L;
	dpb_clipper c;
	dpb_err		err;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	double		x[DPB_MAX_D],
				z[DPB_MAX_D];
	long		i;
	int			j;

	dpb_params_default(&p);
	p.epsilon = 1;
	p.delta = 1e-5;
	p.y_bound = 4;
	p.d = d;
	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = DPB_MODEL_LINEAR;
	r->d = d;
	r->n = N;
	r->p = p;
	dpb_layout_init(&L, DPB_MODEL_LINEAR, d, 1);
	dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, d);
	r->stats = calloc(L.nstats, sizeof(double));
	for (i = 0; i < N; i++)
	{
		double		y = 0.5;

		for (j = 0; j < d; j++)
		{
			x[j] = 0.25 * gsl_ran_ugaussian(g);
			y += (j % 2 ? -1 : 1) * x[j];
		}
		y += 0.5 * gsl_ran_ugaussian(g);
		dpb_clip_x(&c, x, z);
		dpb_accum_add(&L, z, dpb_clip_y(&c, y), r->stats);
	}
	dpb_release_calibrate(r, &err);
	dpb_release_add_noise(r, g, &err);
	gsl_rng_free(g);
}

int
main(int argc, char **argv)
{
	int			iters = argc > 1 ? atoi(argv[1]) : 20000;
	int			reps = argc > 2 ? atoi(argv[2]) : 5;
	int			ds[] = {2, 5, 10};
	long		Ns[] = {1000, 1000000};
	int			a,
				b,
				k;

	gsl_set_error_handler_off();
	printf("| d | N | statistics | iterations | median s | min s | max s | iterations/s (median) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
		{
			dpb_release r;
			dpb_infer_opts o;
			dpb_draws	dr;
			dpb_err		err;
			double		t[64];

			make_release(ds[a], Ns[b], &r);
			dpb_infer_opts_default(&o, &r);
			o.chains = 1;
			o.warmup = 1;
			o.draws = iters;
			for (k = 0; k < reps && k < 64; k++)
			{
				double		t0;

				o.seed = k + 1;
				t0 = now();
				if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
				{
					fprintf(stderr, "sampler failed: %s\n", err.msg);
					return 1;
				}
				t[k] = now() - t0;
				dpb_draws_free(&dr);
			}
			qsort(t, reps, sizeof(double), cmp);
			printf("| %d | %ld | %d | %d | %.3f | %.3f | %.3f | %.0f |\n",
				   ds[a], Ns[b], r.nstats, iters, t[reps / 2], t[0], t[reps - 1],
				   iters / t[reps / 2]);
			fflush(stdout);
			dpb_release_free_stats(&r);
		}
	return 0;
}
