/*
 * test_accum.c — dpb_accum_add / dpb_accum_record against an independent
 * computation of every entry from dpb_layout_entry: the monomial
 * y^ypow * w_i * w_j with w = [1, z] (intercept) or w = z.
 */
#include "unit.h"
#include "accum.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#define NREC 7					/* records summed per layout */
#define GUARD 8					/* sentinel entries after the sums */
#define SENTINEL 12345.678

/* entry k of one record, computed from the layout description alone */
static double
ref_entry(const dpb_layout *L, int k, const double *z, double y)
{
	dpb_entry	e;
	double		w[DPB_MAX_D + 1];
	double		v = 1.0;
	int			i;

	for (i = 0; i < L->p; i++)
		w[i] = (L->intercept && i == 0) ? 1.0 : z[i - L->intercept];
	dpb_layout_entry(L, k, &e);
	for (i = 0; i < e.ypow; i++)
		v *= y;
	if (e.i >= 0)
		v *= w[e.i];
	if (e.j >= 0)
		v *= w[e.j];
	return v;
}

static int
close_abs(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

static void
check_layout(gsl_rng *rng, dpb_model model, int d, int ic)
{
	dpb_layout	L;
	double		z[NREC][DPB_MAX_D],
				y[NREC];
	double	   *sums,
			   *ref,
			   *one;
	int			r,
				j,
				k,
				nbad = 0,
				nbad1 = 0,
				guard_ok = 1;

	if (dpb_layout_init(&L, model, d, ic) != DPB_OK)
	{
		CHECK(0, "layout %s d=%d ic=%d", dpb_model_name(model), d, ic);
		return;
	}
	sums = malloc(sizeof(double) * (L.nstats + GUARD));
	ref = malloc(sizeof(double) * L.nstats);
	one = malloc(sizeof(double) * (L.nstats + GUARD));

	for (r = 0; r < NREC; r++)
	{
		for (j = 0; j < d; j++)
			z[r][j] = 2.0 * gsl_rng_uniform(rng) - 1.0;
		switch (model)
		{
			case DPB_MODEL_LOGISTIC:
				y[r] = gsl_rng_uniform(rng) < 0.5 ? -1.0 : 1.0;
				break;
			case DPB_MODEL_POISSON:
				y[r] = 3.0 * gsl_rng_uniform(rng);
				break;
			default:
				y[r] = 4.0 * gsl_rng_uniform(rng) - 2.0;
		}
	}
	/* a non-trivial starting point: dpb_accum_add must add, not assign */
	for (k = 0; k < L.nstats; k++)
		ref[k] = sums[k] = 0.25 * k - 1.0;
	for (k = 0; k < GUARD; k++)
		sums[L.nstats + k] = SENTINEL;

	for (r = 0; r < NREC; r++)
	{
		dpb_accum_add(&L, z[r], y[r], sums);
		for (k = 0; k < L.nstats; k++)
			ref[k] += ref_entry(&L, k, z[r], y[r]);

		/* dpb_accum_record: one record's monomials on a dirty buffer */
		for (k = 0; k < L.nstats + GUARD; k++)
			one[k] = SENTINEL;
		dpb_accum_record(&L, z[r], y[r], one);
		for (k = 0; k < L.nstats; k++)
			if (!close_abs(one[k], ref_entry(&L, k, z[r], y[r])))
			{
				if (nbad1++ < 3)
					CHECK(0, "record %s d=%d ic=%d rec %d entry %d: %g vs %g",
						  dpb_model_name(model), d, ic, r, k, one[k],
						  ref_entry(&L, k, z[r], y[r]));
			}
		for (k = 0; k < GUARD; k++)
			if (one[L.nstats + k] != SENTINEL)
				guard_ok = 0;
	}
	for (k = 0; k < L.nstats; k++)
		if (!close_abs(sums[k], ref[k]))
		{
			if (nbad++ < 3)
				CHECK(0, "sum %s d=%d ic=%d entry %d: %.15g vs %.15g",
					  dpb_model_name(model), d, ic, k, sums[k], ref[k]);
		}
	for (k = 0; k < GUARD; k++)
		if (sums[L.nstats + k] != SENTINEL)
			guard_ok = 0;
	CHECK(nbad == 0, "%s d=%d ic=%d: %d sums wrong", dpb_model_name(model), d, ic, nbad);
	CHECK(nbad1 == 0, "%s d=%d ic=%d: %d record entries wrong",
		  dpb_model_name(model), d, ic, nbad1);
	CHECK(guard_ok, "%s d=%d ic=%d: write past nstats", dpb_model_name(model), d, ic);
	free(sums);
	free(ref);
	free(one);
}

void
test_accum(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_layout	L;
	double		z[3],
				out[64];
	int			m,
				d,
				ic;

	gsl_rng_set(rng, USEED(20261122));
	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
		{
			for (d = 1; d <= 5; d++)
				check_layout(rng, (dpb_model) m, d, ic);
			check_layout(rng, (dpb_model) m, DPB_MAX_D, ic);
		}

	/* hand-checked values: linear, d = 2, intercept, z = (2, 3), y = 5:
	 * t2 without the constant: x1, x2, x1^2, x1 x2, x2^2; y [1, x1, x2]; y^2 */
	{
		const double want[] = {2, 3, 4, 6, 9, 5, 10, 15, 25};
		int			k,
					ok = 1;

		z[0] = 2;
		z[1] = 3;
		dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
		CHECK(L.nstats == 9, "linear d=2 nstats %d", L.nstats);
		dpb_accum_record(&L, z, 5.0, out);
		for (k = 0; k < 9; k++)
			ok &= out[k] == want[k];
		CHECK(ok, "linear d=2 hand values");
	}
	/* poisson, no intercept, d = 1, z = 3, y = 2: t1 3; t2 9; y*t1 6; y*t2 18 */
	{
		const double want[] = {3, 9, 6, 18};
		int			k,
					ok = 1;

		z[0] = 3;
		dpb_layout_init(&L, DPB_MODEL_POISSON, 1, 0);
		CHECK(L.nstats == 4, "poisson d=1 nstats %d", L.nstats);
		dpb_accum_record(&L, z, 2.0, out);
		for (k = 0; k < 4; k++)
			ok &= out[k] == want[k];
		CHECK(ok, "poisson d=1 no intercept hand values");
	}
	/* logistic, intercept, d = 1, z = 0.5, y = -1: y [1, x1] = -1, -0.5;
	 * t2 without constant: x1 = 0.5, x1^2 = 0.25 */
	{
		const double want[] = {-1, -0.5, 0.5, 0.25};
		int			k,
					ok = 1;

		z[0] = 0.5;
		dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 1, 1);
		CHECK(L.nstats == 4, "logistic d=1 nstats %d", L.nstats);
		dpb_accum_record(&L, z, -1.0, out);
		for (k = 0; k < 4; k++)
			ok &= out[k] == want[k];
		CHECK(ok, "logistic d=1 intercept hand values");
	}
	gsl_rng_free(rng);
}
