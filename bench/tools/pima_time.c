/*
 * pima_time.c — wall time of the noise-aware logistic posterior on the Pima
 * data without a server: features age, pregnant, pedigree, insulin with the
 * public bounds of bench/pima_logistic.sh (box scaling, clip 1, intercept),
 * epsilon = 1, delta = 1e-5, default options (4 chains x 1000 draws after
 * 1000 warmup).  Releases 1 .. RELEASES (default 4) are made with the test
 * noise stream (test/sim.c) seeded k; release k is analysed with seed k.
 *
 *   bench/tools/pima_time.sh [RELEASES]
 */
#include "posterior.h"
#include "sim.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

int
main(int argc, char **argv)
{
	int			releases = argc > 1 ? atoi(argv[1]) : 4;
	FILE	   *f = fopen("data/pima_indians_diabetes.csv", "r");
	char		line[512];
	static double X[800 * 4],
				Y[800];
	double		lo[4] = {21, 0, 0.078, 0},
				hi[4] = {81, 17, 2.42, 846};
	int			N = 0,
				k;
	dpb_params	p;
	gsl_rng    *g;

	if (f == NULL || fgets(line, sizeof(line), f) == NULL)
	{
		fprintf(stderr, "run from the repository root (data/pima_indians_diabetes.csv)\n");
		return 1;
	}
	while (N < 800 && fgets(line, sizeof(line), f))
	{
		int			preg,
					glu,
					pr,
					tri,
					ins,
					age;
		double		mass,
					ped;
		char		dia[16];

		if (sscanf(line, "%d,%d,%d,%d,%d,%lf,%lf,%d,%15s", &preg, &glu, &pr, &tri,
				   &ins, &mass, &ped, &age, dia) != 9)
			continue;
		X[N * 4] = age;
		X[N * 4 + 1] = preg;
		X[N * 4 + 2] = ped;
		X[N * 4 + 3] = ins;
		Y[N] = strncmp(dia, "\"pos", 4) == 0 ? 1 : -1;
		N++;
	}
	fclose(f);
	gsl_set_error_handler_off();
	dpb_params_default(&p);
	p.epsilon = 1;
	p.delta = 1e-5;
	p.d = 4;
	p.has_bounds = 1;
	memcpy(p.lower, lo, sizeof(lo));
	memcpy(p.upper, hi, sizeof(hi));
	g = gsl_rng_alloc(gsl_rng_mt19937);
	for (k = 1; k <= releases; k++)
	{
		dpb_release r;
		dpb_infer_opts o;
		dpb_draws	d;
		dpb_err		e;
		int			cl,
					st;
		double		t0;

		gsl_rng_set(g, k);
		if (sim_release(DPB_MODEL_LOGISTIC, &p, 4, X, Y, N, g, &r, &cl) != 0)
		{
			fprintf(stderr, "sim_release failed\n");
			return 1;
		}
		dpb_infer_opts_default(&o, &r);
		o.seed = k;
		t0 = now();
		st = dpb_posterior_run(&r, &o, &d, &e);
		printf("N=%d release %d: %.1f s status %d divergences %ld\n", N, k,
			   now() - t0, st, st == DPB_OK ? d.divergences : -1L);
		fflush(stdout);
		if (st == DPB_OK)
			dpb_draws_free(&d);
		dpb_release_free_stats(&r);
	}
	gsl_rng_free(g);
	return 0;
}
