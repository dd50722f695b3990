/*
 * test_batch.c — the exact fixed-point accumulator (dpb_acc, accum.h):
 *  - its statistics equal the plain per-record double accumulation up to
 *    the documented quantisation, for every model, with and without
 *    intercept and x moments, across chunk boundaries and merges;
 *  - the sums are exact integers: independent of the order of the records
 *    and of how they are split between merged accumulators;
 *  - every quantised record lies in the clipped domain exactly (ball and
 *    coordinate bounds, in integer arithmetic), also for records on the
 *    ball's boundary and at every clip radius from 1e-12 to 1e6;
 *  - records at the bounds, many times over, never overflow.
 */
#include "unit.h"

#include "accum.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

typedef struct accbox
{
	void	   *raw;
	dpb_acc		acc;
} accbox;

static void
box_init(accbox *b, const dpb_acc_bounds *ab)
{
	b->raw = malloc(dpb_acc_size(ab->d, ab->model == DPB_MODEL_POISSON, ab->xmom) + 16);
	dpb_acc_init(&b->acc, (void *) (((uintptr_t) b->raw + 15) & ~(uintptr_t) 15), ab);
}

/* a record inside the ball of radius R with |z_j| <= B */
static void
draw_record(gsl_rng *rng, const dpb_acc_bounds *ab, int i, double *z, double *y)
{
	double		ss = 0;
	int			j;

	for (j = 0; j < ab->d; j++)
	{
		z[j] = gsl_ran_ugaussian(rng) * ab->R / ab->d;
		if (z[j] > ab->B)
			z[j] = ab->B;
		if (z[j] < -ab->B)
			z[j] = -ab->B;
		ss += z[j] * z[j];
	}
	if (ss > ab->R * ab->R)
		for (j = 0; j < ab->d; j++)
			z[j] *= ab->R / sqrt(ss);
	/* every few records exactly on the ball's boundary (up to rounding) */
	if (i % 5 == 0 && ss > 0)
		for (j = 0; j < ab->d; j++)
			z[j] *= ab->R / sqrt(ss) * (ab->B < ab->R ? 0.999 : 1.0);
	if (ab->model == DPB_MODEL_LOGISTIC)
		*y = i % 3 ? 1 : -1;
	else if (ab->model == DPB_MODEL_POISSON)
		*y = fmin((double) (i % 7), ab->Ry);
	else
		*y = fmax(-ab->Ry, fmin(ab->Ry, gsl_ran_ugaussian(rng) * ab->Ry / 2));
}

static void
check_against_doubles(gsl_rng *rng)
{
	int			m,
				ic,
				d,
				xm;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (d = 1; d <= 6; d += 5)
				for (xm = 0; xm <= 2 * (m == DPB_MODEL_LINEAR) + 1; xm++)
				{
					/* xm bit 0: the count block of add/remove; bit 1: x
					 * moments */
					int			cnt = xm & 1;
					dpb_layout	L;
					dpb_acc_bounds ab = {(dpb_model) m, d, xm >> 1, 2.0, 2.0, 3.0};
					accbox		a,
								b,
								c;
					double		ref[512],
								got[512],
								q,
								M;
					dpb_i128	I1[512],
								I2[512];
					int			e1[512],
								e2[512],
								i,
								k,
								n = 2 * DPB_ACC_CHUNK + 17,
								bad = 0,
								deg;
					double	   *Z = malloc(sizeof(double) * n * d),
							   *Y = malloc(sizeof(double) * n);

					dpb_layout_init(&L, (dpb_model) m, d, ic);
					if (cnt)
						dpb_layout_add_count(&L);
					if (xm >> 1)
						dpb_layout_add_xmoments(&L);
					CHECK(L.nstats <= 512, "layout fits the test's arrays");
					memset(ref, 0, sizeof(ref));
					box_init(&a, &ab);
					box_init(&b, &ab);
					box_init(&c, &ab);
					for (i = 0; i < n; i++)
					{
						draw_record(rng, &ab, i, Z + (size_t) i * d, &Y[i]);
						dpb_accum_add(&L, Z + (size_t) i * d, Y[i], ref);
						/* split between two accumulators, then merge */
						dpb_acc_add(i % 2 ? &a.acc : &b.acc, Z + (size_t) i * d, Y[i]);
					}
					/* the same records in reverse order, in one accumulator */
					for (i = n - 1; i >= 0; i--)
						dpb_acc_add(&c.acc, Z + (size_t) i * d, Y[i]);
					dpb_acc_merge(&a.acc, &b.acc);
					dpb_acc_stats(&a.acc, &L, got);
					dpb_acc_fixed(&a.acc, &L, I1, e1);
					dpb_acc_fixed(&c.acc, &L, I2, e2);
					/* quantisation: per coordinate at most half a step of
					 * 2^-kz (2^-ky); a monomial of degree deg in values
					 * bounded by M moves by at most deg M^(deg-1) q / 2 */
					q = fmax(ldexp(1.0, -a.acc.kz), m == DPB_MODEL_LOGISTIC ? 0 : ldexp(1.0, -a.acc.ky));
					M = 3.0;
					deg = (xm >> 1) ? 4 : m == DPB_MODEL_POISSON ? 3 : 2;
					for (k = 0; k < L.nstats; k++)
						if (fabs(got[k] - ref[k]) > n * deg * pow(M, deg - 1) * q / 2 + 1e-9 * fabs(ref[k]))
							bad++;
					CHECK(bad == 0, "model %d ic %d d %d xm %d: %d statistics off by more than the quantisation",
						  m, ic, d, xm, bad);
					bad = 0;
					for (k = 0; k < L.nstats; k++)
						bad += I1[k] != I2[k] || e1[k] != e2[k];
					CHECK(bad == 0, "model %d ic %d d %d xm %d: sums depend on the order (%d)",
						  m, ic, d, xm, bad);
					/* G(0, 0) is the number of records, exactly */
					CHECK(a.acc.G[0] == (dpb_i128) n, "model %d: count %d", m, n);
					if (cnt)
						CHECK(I1[L.start[L.nmodel_blocks - 1]] == (dpb_i128) n &&
							  e1[L.start[L.nmodel_blocks - 1]] == 0,
							  "model %d: the count statistic is not n", m);
					free(a.raw);
					free(b.raw);
					free(c.raw);
					free(Z);
					free(Y);
				}
}

/* the quantised record lies in the domain, exactly, at every radius */
static void
check_domain(gsl_rng *rng)
{
	double		R;
	int			bad = 0,
				tried = 0,
				scaling;

	for (R = 1e-12; R <= 1e6; R *= 7.3)
		for (scaling = 0; scaling <= 1; scaling++)
		{
			int			d = 1 + (int) gsl_rng_uniform_int(rng, 12);
			dpb_acc_bounds ab = {DPB_MODEL_LINEAR, d, 0, R, scaling ? R / sqrt(d) : R, 2.5 * R};
			accbox		a;
			double		z[16],
						y;
			int			i,
						j;

			box_init(&a, &ab);
			for (i = 0; i < 400; i++)
			{
				int64_t		ss = 0;

				draw_record(rng, &ab, i, z, &y);
				if (i % 7 == 0)
					for (j = 0; j < d; j++)	/* corners of the box, projected */
						z[j] = (j % 2 ? -1 : 1) * ab.B * (1 + 4e-16);
				dpb_acc_quantise(&a.acc, z, y);
				for (j = 0; j < d; j++)
				{
					ss += a.acc.u[1 + j] * a.acc.u[1 + j];
					bad += llabs(a.acc.u[1 + j]) > a.acc.bq;
				}
				/* the ball, exactly: rq = floor(R 2^kz) */
				bad += ss > a.acc.rq * a.acc.rq;
				bad += ldexp((double) a.acc.rq, -a.acc.kz) > R;
				bad += ldexp((double) a.acc.bq, -a.acc.kz) > ab.B;
				bad += llabs(a.acc.u[d + 1]) > a.acc.yhi || ldexp((double) a.acc.yhi, -a.acc.ky) > ab.Ry;
				/* enough resolution: at least 2^25 steps across the radius */
				bad += a.acc.rq < ((int64_t) 1 << 25);
				tried++;
			}
			free(a.raw);
		}
	CHECK(bad == 0, "%d of %d quantised records outside the clipped domain", bad, tried);
}

/* n records at the bounds: the sums are n times one record, no overflow */
static void
check_extremes(void)
{
	int			m,
				xm;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (xm = 0; xm <= (m == DPB_MODEL_LINEAR); xm++)
		{
			int			d = xm ? 16 : 64,
						n = 3 * DPB_ACC_CHUNK + 5,
						i,
						k,
						bad = 0;
			dpb_acc_bounds ab = {(dpb_model) m, d, xm, 1.0, 1.0, 1e3};
			accbox		a,
						one;
			double		z[64],
						y = m == DPB_MODEL_LOGISTIC ? 1 : 1e3;
			dpb_layout	L;
			dpb_i128   *I = malloc(sizeof(dpb_i128) * 80000),
					   *I1 = malloc(sizeof(dpb_i128) * 80000);
			int		   *e = malloc(sizeof(int) * 80000);

			dpb_layout_init(&L, (dpb_model) m, d, 1);
			if (xm)
				dpb_layout_add_xmoments(&L);
			for (k = 0; k < d; k++)
				z[k] = (k % 2 ? -1.0 : 1.0) / sqrt((double) d);
			box_init(&a, &ab);
			box_init(&one, &ab);
			dpb_acc_add(&one.acc, z, y);
			for (i = 0; i < n; i++)
				dpb_acc_add(&a.acc, z, y);
			dpb_acc_fixed(&a.acc, &L, I, e);
			dpb_acc_fixed(&one.acc, &L, I1, e);
			for (k = 0; k < L.nstats; k++)
				bad += I[k] != (dpb_i128) n * I1[k];
			CHECK(bad == 0, "model %d xm %d: %d sums of records at the bounds are not exact", m, xm, bad);
			free(a.raw);
			free(one.raw);
			free(I);
			free(I1);
			free(e);
		}
}

void
test_batch(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	check_against_doubles(rng);
	check_domain(rng);
	check_extremes();
	gsl_rng_free(rng);
}
