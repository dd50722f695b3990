/*
 * test_betad_sample.c — the betaD mechanism (betad_sample.h):
 *  - exact-draw audit: released draws against the exact betaD posterior
 *    computed by quadrature (logistic, one coefficient; Gaussian regression,
 *    one coefficient and the variance), KS p > UNIT_P_MIN;
 *  - all randomness comes from the bit source: the same (insecure, test)
 *    seed gives the same draw, another seed another draw;
 *  - a failed source is reported.
 */
#include "unit.h"

#include "betad/betad_sample.h"
#include "ks.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NROW 30
#ifndef NDRAW
#define NDRAW 300				/* bench/betad_audit.sh: 2000 */
#endif
#define GRID 2801

/* KS p-value of draws against a CDF tabulated on an even grid */
static double
ks_against_grid(double *x, int n, const double *grid, const double *cdf, int ng)
{
	double		dmax = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		double		F;
		int			j;

		/* linear interpolation of the CDF */
		double		t = (x[i] - grid[0]) / (grid[1] - grid[0]);

		j = (int) floor(t);
		if (j < 0)
			F = 0;
		else if (j >= ng - 1)
			F = 1;
		else
			F = cdf[j] + (t - j) * (cdf[j + 1] - cdf[j]);
		x[i] = F;
	}
	/* the KS distance of the F(x) values to the uniform */
	dmax = dpb_ks_uniform_stat(x, n);
	return dpb_ks_pvalue(dmax, n);
}

static void
audit(int gaussian)
{
	double		X[NROW],
				y[NROW],
				work[2 * NROW],
				grid[GRID],
				cdf[GRID],
				dens[GRID],
				draws[NDRAW],
				theta[4],
				lo = -14,			/* 7 prior sd: the loss is bounded, */
				hi = 14,			/* so the tails are the prior's */
				p;
	dpb_betad_model m = {gaussian, 1, 0, gaussian ? 1.5 : 3.0, 2.0, 0.25, 2.0, 1.0,
	NROW, X, y, work, 0, 0, NULL, NULL};
	dpb_betad_schedule s;		/* the default, what a release runs */
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(gaussian ? 7 : 8));
	dpb_err		err;
	int			i,
				j,
				ok = 1;

	dpb_betad_schedule_default(&s);
	gsl_rng_set(r, USEED(5));
	for (i = 0; i < NROW; i++)
	{
		X[i] = gsl_ran_ugaussian(r);
		y[i] = gaussian ? 1.0 * X[i] + 0.7 * gsl_ran_ugaussian(r) :
			(gsl_rng_uniform(r) < 1 / (1 + exp(-1.2 * X[i])) ? 1 : -1);
	}
	/* the exact marginal density of the coefficient by quadrature (the
	 * Gaussian model's eta integrated on a grid) */
	for (j = 0; j < GRID; j++)
	{
		double		par[2];

		grid[j] = lo + (hi - lo) * j / (GRID - 1);
		par[0] = grid[j];
		if (!gaussian)
			dens[j] = dpb_betad_logpost(&m, par, NULL);
		else
		{
			double		mx = -INFINITY,
						acc = 0,
						lv[401];
			int			k;

			for (k = 0; k < 401; k++)
			{
				par[1] = -12 + 16.0 * k / 400;
				lv[k] = dpb_betad_logpost(&m, par, NULL);
				mx = fmax(mx, lv[k]);
			}
			for (k = 0; k < 401; k++)
				acc += exp(lv[k] - mx);
			dens[j] = mx + log(acc);
		}
	}
	{
		double		mx = -INFINITY,
					acc = 0;

		for (j = 0; j < GRID; j++)
			mx = fmax(mx, dens[j]);
		cdf[0] = 0;
		for (j = 1; j < GRID; j++)
		{
			acc += 0.5 * (exp(dens[j - 1] - mx) + exp(dens[j] - mx));
			cdf[j] = acc;
		}
		for (j = 0; j < GRID; j++)
			cdf[j] /= acc;
		/* the grid holds the posterior: no mass at its ends */
		CHECK(exp(dens[0] - mx) < 1e-8 && exp(dens[GRID - 1] - mx) < 1e-8,
			  "gaussian %d: quadrature grid too narrow", gaussian);
	}
	for (i = 0; i < NDRAW && ok; i++)
	{
		ok = dpb_betad_draw(&m, &s, rb, NULL, theta, &err) == DPB_OK;
		draws[i] = theta[0];
	}
	CHECK(ok, "gaussian %d: draw failed: %s", gaussian, err.msg);
	p = ks_against_grid(draws, NDRAW, grid, cdf, GRID);
	printf("  betaD exact-draw audit (%s, beta %.2f, %d draws, each of %d chains x %d after %d warmup): KS p = %.3g\n",
		   gaussian ? "gaussian" : "logistic", m.beta, NDRAW, s.chains, s.iters, s.warmup, p);
	CHECK(p > UNIT_P_MIN / 2, "gaussian %d: released draws vs the exact betaD posterior: KS p = %.3g", gaussian, p);
	dpb_rbits_free(rb);
	gsl_rng_free(r);
}

static int
zero_fill(void *ctx, void *buf, size_t len)
{
	(void) ctx;
	memset(buf, 0, len);
	return 0;
}

static void
check_randomness(void)
{
	double		X[NROW],
				y[NROW],
				work[2 * NROW],
				a[2],
				b[2],
				c[2];
	dpb_betad_model m = {0, 1, 1, 3.0, 2.0, 0, 0, 0, NROW, X, y, work, 0, 0, NULL, NULL};
	dpb_betad_schedule s = {2, 50, 50};
	dpb_rbits  *r1 = dpb_rbits_new_insecure_seeded(1),
			   *r2 = dpb_rbits_new_insecure_seeded(1),
			   *r3 = dpb_rbits_new_insecure_seeded(2),
			   *bad = dpb_rbits_new(zero_fill, NULL);
	dpb_err		err;
	int			i;

	for (i = 0; i < NROW; i++)
	{
		X[i] = (i % 7) / 3.0 - 1;
		y[i] = i % 3 ? 1 : -1;
	}
	CHECK(dpb_betad_draw(&m, &s, r1, NULL, a, &err) == DPB_OK &&
		  dpb_betad_draw(&m, &s, r2, NULL, b, &err) == DPB_OK &&
		  dpb_betad_draw(&m, &s, r3, NULL, c, &err) == DPB_OK, "draws");
	CHECK(a[0] == b[0] && a[1] == b[1], "the same seed gave different draws: randomness outside the source");
	CHECK(a[0] != c[0] || a[1] != c[1], "two seeds gave the same draw");
	CHECK(dpb_betad_draw(&m, &s, bad, NULL, a, &err) == DPB_ERNG, "a failing source is not reported");
	dpb_rbits_free(r1);
	dpb_rbits_free(r2);
	dpb_rbits_free(r3);
	dpb_rbits_free(bad);
}

void
test_betad_sample(void)
{
	audit(0);
	audit(1);
	check_randomness();
}
