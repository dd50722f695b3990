/*
 * betad_utility.c — utility of a betaD draw against the noise-aware
 * posterior mean of a moment release, on Pima (logistic: age, pregnant,
 * pedigree, insulin) and Boston (linear: rm, lstat, ptratio; medv on the
 * public scale y_scale 10, floor 16 = residual sd 4 in medv units).
 *
 * Error: the root mean square, over the slope coefficients, of (estimate -
 * non-private estimate) x h_j, with h_j the public half-range of feature j
 * (the coefficient of the feature scaled to [-1, 1]); linear: divided by
 * y_scale.  Non-private estimate: the maximum-likelihood fit (logistic by
 * Newton, linear by least squares) on the same rows.  betaD: one draw
 * (epsilon, 0), the default schedule 4 x (200 + 50); moment release: Gaussian
 * mechanism at (epsilon, 1e-6), replace neighbours, noise-aware posterior
 * mean (2 chains x (300 + 300)).  Output: one markdown row per data set
 * and epsilon: the median error over REPS runs of each method.
 */
#include "betad/betad_release.h"
#include "posterior.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 1000

static double X[MAXN * 4],
			Y[MAXN];
static long N;

static int
load(const char *path, int linear)
{
	FILE	   *f = fopen(path, "r");
	char		line[1024];

	if (!f)
		return 0;
	N = 0;
	if (!fgets(line, sizeof line, f))
		return 0;
	while (fgets(line, sizeof line, f) && N < MAXN)
	{
		double		v[14];
		char	   *p = line;
		int			k;

		for (k = 0; k < 14 && p; k++)
		{
			while (*p == '"')
				p++;
			v[k] = strcmp(p, "pos\"\n") == 0 || strncmp(p, "pos", 3) == 0 ? 1 : atof(p);
			p = strchr(p, ',');
			if (p)
				p++;
		}
		if (linear)
		{
			/* rm 5, lstat 12, ptratio 10; medv 13 */
			X[N * 3] = v[5];
			X[N * 3 + 1] = v[12];
			X[N * 3 + 2] = v[10];
			Y[N] = v[13];
		}
		else
		{
			/* age 7, pregnant 0, pedigree 6, insulin 4; diabetes 8 */
			X[N * 4] = v[7];
			X[N * 4 + 1] = v[0];
			X[N * 4 + 2] = v[6];
			X[N * 4 + 3] = v[4];
			Y[N] = v[8] == 1 ? 1 : -1;
		}
		N++;
	}
	fclose(f);
	return 1;
}

/* non-private fit: coefficients [intercept, slopes] in original units */
static void
fit(int linear, int d, double *beta)
{
	int			p = d + 1,
				it,
				j,
				k;
	long		i;
	gsl_matrix *H = gsl_matrix_alloc(p, p);
	gsl_vector *gv = gsl_vector_alloc(p),
			   *step = gsl_vector_alloc(p);
	gsl_permutation *perm = gsl_permutation_alloc(p);

	memset(beta, 0, sizeof(double) * p);
	for (it = 0; it < (linear ? 1 : 50); it++)
	{
		gsl_matrix_set_zero(H);
		gsl_vector_set_zero(gv);
		for (i = 0; i < N; i++)
		{
			double		xb[5] = {1},
						u = beta[0],
						w,
						r;

			for (j = 0; j < d; j++)
			{
				xb[j + 1] = X[i * d + j];
				u += beta[j + 1] * xb[j + 1];
			}
			if (linear)
			{
				w = 1;
				r = Y[i] - u;
			}
			else
			{
				double		pr = 1 / (1 + exp(-u));

				w = pr * (1 - pr);
				r = (Y[i] > 0) - pr;
			}
			for (j = 0; j < p; j++)
			{
				gsl_vector_set(gv, j, gsl_vector_get(gv, j) + r * xb[j]);
				for (k = 0; k < p; k++)
					gsl_matrix_set(H, j, k, gsl_matrix_get(H, j, k) + w * xb[j] * xb[k]);
			}
		}
		gsl_linalg_LU_decomp(H, perm, &k);
		gsl_linalg_LU_solve(H, perm, gv, step);
		for (j = 0; j < p; j++)
			beta[j] += gsl_vector_get(step, j);
	}
	gsl_matrix_free(H);
	gsl_vector_free(gv);
	gsl_vector_free(step);
	gsl_permutation_free(perm);
}

static double
err_of(const double *est, const double *ref, const double *lo, const double *hi, int d,
	   double yscale)
{
	double		s = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		e = (est[j + 1] - ref[j + 1]) * 0.5 * (hi[j] - lo[j]) / yscale;

		s += e * e;
	}
	return sqrt(s / d);
}

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static void
run(int linear, int reps)
{
	static const double eps[5] = {0.5, 1, 2, 5, 10};
	double		lo_l[4] = {21, 0, 0.078, 0},
				hi_l[4] = {81, 17, 2.42, 846},
				lo_g[3] = {3, 1, 12},
				hi_g[3] = {9, 38, 23};
	double	   *lo = linear ? lo_g : lo_l,
			   *hi = linear ? hi_g : hi_l,
				ref[5],
				yscale = linear ? 10 : 1;
	int			d = linear ? 3 : 4,
				e,
				k,
				j;
	uint64_t	seed = 1;

	fit(linear, d, ref);
	for (e = 0; e < 5; e++)
	{
		double		eb[64],
					em[64];

		for (k = 0; k < reps; k++)
		{
			dpb_betad_spec s;
			dpb_betad_release r;
			dpb_release rel;
			dpb_params p;
			dpb_infer_opts o;
			dpb_draws dr;
			dpb_err		err;
			double	   *Xc = malloc(sizeof(double) * N * d),
					   *Yc = malloc(sizeof(double) * N),
					   *work = malloc(sizeof(double) * 2 * N),
						mean[8] = {0};
			dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(seed++);
			long		i;

			/* betaD */
			dpb_betad_spec_default(&s, linear);
			s.epsilon = eps[e];
			if (linear)
			{
				s.sigma2_floor = 16;
				s.y_scale = 10;
			}
			s.fx.d = d;
			s.fx.has_bounds = 1;
			memcpy(s.fx.lower, lo, sizeof(double) * d);
			memcpy(s.fx.upper, hi, sizeof(double) * d);
			memcpy(Xc, X, sizeof(double) * N * d);
			memcpy(Yc, Y, sizeof(double) * N);
			if (dpb_betad_run(&s, N, Xc, Yc, work, rb, NULL, &r, &err) != DPB_OK)
			{
				fprintf(stderr, "betad: %s %s\n", err.msg, err.detail);
				exit(1);
			}
			eb[k] = err_of(r.draws, ref, lo, hi, d, yscale);
			dpb_betad_release_free(&r);

			/* moment release + noise-aware posterior mean */
			dpb_params_default(&p);
			p.epsilon = eps[e];
			p.delta = 1e-6;
			p.neighbours = DPB_NB_REPLACE;
			p.has_bounds = 1;
			p.d = d;
			memcpy(p.lower, lo, sizeof(double) * d);
			memcpy(p.upper, hi, sizeof(double) * d);
			if (linear)
				p.y_bound = 50;
			for (i = 0; i < N; i++)
				Yc[i] = linear ? Y[i] : (Y[i] > 0 ? 1 : -1);
			if (dpb_release_from_rows(&rel, linear ? DPB_MODEL_LINEAR : DPB_MODEL_LOGISTIC, &p, d,
									  X, Yc, N, rb, NULL, &err) != DPB_OK)
			{
				fprintf(stderr, "release: %s %s\n", err.msg, err.detail);
				exit(1);
			}
			dpb_infer_opts_default(&o, &rel);
			o.chains = 2;
			o.warmup = 300;
			o.draws = 300;
			o.seed = seed;
			if (dpb_posterior_run(&rel, &o, &dr, &err) != DPB_OK)
			{
				fprintf(stderr, "posterior: %s %s\n", err.msg, err.detail);
				exit(1);
			}
			for (i = 0; i < (long) dr.chains * dr.iters; i++)
				for (j = 0; j <= d; j++)
					mean[j] += dr.v[i * dr.nvars + j] / ((double) dr.chains * dr.iters);
			em[k] = err_of(mean, ref, lo, hi, d, yscale);
			dpb_draws_free(&dr);
			dpb_release_free_stats(&rel);
			dpb_rbits_free(rb);
			free(Xc);
			free(Yc);
			free(work);
		}
		qsort(eb, reps, sizeof(double), cmp);
		qsort(em, reps, sizeof(double), cmp);
		printf("| %s | %g | %.4f | %.4f | %s |\n", linear ? "boston (linear)" : "pima (logistic)",
			   eps[e], eb[reps / 2], em[reps / 2], eb[reps / 2] < em[reps / 2] ? "betaD" : "moment release");
		fflush(stdout);
	}
}

int
main(int argc, char **argv)
{
	int			reps = argc > 1 ? atoi(argv[1]) : 5;

	printf("| data | epsilon | betaD draw: median error | noise-aware posterior mean: median error | better |\n|---|---|---|---|---|\n");
	if (!load("data/pima_indians_diabetes.csv", 0))
		return 1;
	run(0, reps);
	if (!load("data/boston_housing.csv", 1))
		return 1;
	run(1, reps);
	return 0;
}
