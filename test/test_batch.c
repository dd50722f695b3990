/*
 * test_batch.c — the batched accumulator (dpb_acc, BLAS rank-k updates)
 * gives the same statistics as the plain per-record accumulation, for every
 * model, with and without intercept, with and without the moments of x
 * (linear), across batch boundaries and merges.
 */
#include "unit.h"

#include "accum.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

void
test_batch(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			m,
				ic,
				d,
				xm;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (d = 1; d <= 6; d += 5)
				for (xm = 0; xm <= 2 * (m == DPB_MODEL_LINEAR) + 1; xm++)
			{
				/* xm bit 0: the count block of add/remove; bit 1: x moments */
				int			cnt = xm & 1;
				dpb_layout	L;
				dpb_acc		a,
							b;
				void	   *ma = malloc(dpb_acc_size(d, m == DPB_MODEL_POISSON, xm >> 1));
				void	   *mb = malloc(dpb_acc_size(d, m == DPB_MODEL_POISSON, xm >> 1));
				double		ref[512],
							got[512],
							z[8];
				int			i,
							j,
							k,
							n = 3 * DPB_ACC_BATCH + 17,
							bad = 0;

				dpb_layout_init(&L, (dpb_model) m, d, ic);
				if (cnt)
					dpb_layout_add_count(&L);
				if (xm >> 1)
					dpb_layout_add_xmoments(&L);
				CHECK(L.nstats <= 512, "layout fits the test's arrays");
				memset(ref, 0, sizeof(ref));
				dpb_acc_init(&a, ma, d, m == DPB_MODEL_POISSON, xm >> 1);
				dpb_acc_init(&b, mb, d, m == DPB_MODEL_POISSON, xm >> 1);
				for (i = 0; i < n; i++)
				{
					double		y = m == DPB_MODEL_LOGISTIC ? (i % 3 ? 1 : -1) :
						m == DPB_MODEL_POISSON ? (double) (i % 7) : gsl_ran_ugaussian(rng);

					for (j = 0; j < d; j++)
						z[j] = gsl_ran_ugaussian(rng) / d;
					dpb_accum_add(&L, z, y, ref);
					/* split the records between two accumulators, then merge */
					dpb_acc_add(i % 2 ? &a : &b, z, y);
				}
				dpb_acc_merge(&a, &b);
				dpb_acc_stats(&a, &L, got);
				for (k = 0; k < L.nstats; k++)
					if (fabs(got[k] - ref[k]) > 1e-10 * fmax(1, fabs(ref[k])))
						bad++;
				CHECK(bad == 0, "model %d ic %d d %d xm %d: %d statistics differ",
					  m, ic, d, xm, bad);
				if (cnt)
					CHECK(got[dpb_layout_count_index(&L)] == n,
						  "model %d ic %d d %d xm %d: the count is the number of records", m, ic, d, xm);
				free(ma);
				free(mb);
			}
	gsl_rng_free(rng);
}
