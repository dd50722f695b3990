/*
 * test_sensitivity.c — the sensitivity closed forms of sensitivity.c
 * against brute force, the polynomial identities against explicit block
 * vectors, and the papers' values (docs/privacy.md).
 *
 * Set DPB_UNIT_VERBOSE=1 to print the observed brute-force margins.
 */
#include "unit.h"
#include "sensitivity.h"
#include "release.h"

#include <stdlib.h>
#include <string.h>

static int	verbose = 0;

/* tiny deterministic PRNG (the tests must be reproducible) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static double
urand(void)
{
	return unit_xorshift_uniform(&rng_state);
}

static double
sq(double v)
{
	return v * v;
}

/* ------------------------------------------------------------------ */
/* brute force over (a, a2, rho, y, y2), t = rho sqrt(a a2)           */
/* ------------------------------------------------------------------ */

typedef struct bf_ctx
{
	const dpb_layout *L;
	const double *nw;
	double		R,
				ylo,
				yhi;
	int			binary;
} bf_ctx;

static void
bf_clamp(const bf_ctx *C, double *x)
{
	x[0] = fmin(fmax(x[0], 0.0), C->R * C->R);
	x[1] = fmin(fmax(x[1], 0.0), C->R * C->R);
	x[2] = fmin(fmax(x[2], -1.0), 1.0);
	x[3] = fmin(fmax(x[3], C->ylo), C->yhi);
	x[4] = fmin(fmax(x[4], C->ylo), C->yhi);
}

static double
bf_eval(const bf_ctx *C, const double *x)
{
	return dpb_sens_pair_sq(C->L, C->nw, x[0], x[1],
							x[2] * sqrt(x[0] * x[1]), x[3], x[4]);
}

/*
 * Pattern search from x over the 5 coordinate directions and the 40
 * pairwise diagonals (these escape saddles such as t = 0, y' = 0, where
 * only a joint move improves); y coordinates stay fixed for a binary
 * response (their step is 0).
 */
static double
bf_refine(const bf_ctx *C, double *x, const double *step0)
{
	double		step[5];
	double		best = bf_eval(C, x);
	int			it;

	memcpy(step, step0, sizeof(step));
	for (it = 0; it < 20000; it++)
	{
		int			improved = 0,
					i,
					j,
					si,
					sj;
		double		maxstep = 0.0;

		for (i = 0; i < 5; i++)
			for (j = i; j < 5; j++)
				for (si = -1; si <= 1; si += 2)
					for (sj = -1; sj <= 1; sj += 2)
					{
						double		y[5],
									v;

						if (step[i] <= 0.0 || step[j] <= 0.0 ||
							(i == j && sj > 0))
							continue;
						memcpy(y, x, sizeof(y));
						y[i] += si * step[i];
						if (j != i)
							y[j] += sj * step[j];
						bf_clamp(C, y);
						v = bf_eval(C, y);
						if (v > best)
						{
							best = v;
							memcpy(x, y, sizeof(y));
							improved = 1;
						}
					}
		if (!improved)
			for (i = 0; i < 5; i++)
				step[i] *= 0.5;
		for (i = 0; i < 5; i++)
			maxstep = fmax(maxstep, step[i]);
		if (maxstep < 1e-11)
			break;
	}
	return best;
}

#define BF_TOP 6

/* The largest pair_sq found: a grid, then compass search from the best
 * grid points. */
static double
brute_max(const dpb_layout *L, const double *nw, double R, double Ry)
{
	bf_ctx		C;
	double		top[BF_TOP][5];
	double		topv[BF_TOP];
	double		x[5],
				step[5],
				best = 0.0;
	int			ia,
				ib,
				ir,
				iy,
				iz,
				ny,
				k;
	const int	na = 5,
				nr = 21;

	C.L = L;
	C.nw = nw;
	C.R = R;
	switch (dpb_model_ydomain(L->model))
	{
		case DPB_Y_BINARY:
			C.ylo = -1.0;
			C.yhi = 1.0;
			C.binary = 1;
			break;
		case DPB_Y_NONNEG:
			C.ylo = 0.0;
			C.yhi = Ry;
			C.binary = 0;
			break;
		default:
			C.ylo = -Ry;
			C.yhi = Ry;
			C.binary = 0;
			break;
	}
	ny = C.binary ? 2 : 9;
	for (k = 0; k < BF_TOP; k++)
		topv[k] = -1.0;

	for (ia = 0; ia < na; ia++)
		for (ib = 0; ib < na; ib++)
			for (ir = 0; ir < nr; ir++)
				for (iy = 0; iy < ny; iy++)
					for (iz = 0; iz < ny; iz++)
					{
						double		v;

						x[0] = R * R * ia / (na - 1);
						x[1] = R * R * ib / (na - 1);
						x[2] = -1.0 + 2.0 * ir / (nr - 1);
						x[3] = C.ylo + (C.yhi - C.ylo) * iy / (ny - 1);
						x[4] = C.ylo + (C.yhi - C.ylo) * iz / (ny - 1);
						v = bf_eval(&C, x);
						/* insert into the top list */
						for (k = 0; k < BF_TOP; k++)
							if (v > topv[k])
							{
								int			m;

								for (m = BF_TOP - 1; m > k; m--)
								{
									topv[m] = topv[m - 1];
									memcpy(top[m], top[m - 1], sizeof(x));
								}
								topv[k] = v;
								memcpy(top[k], x, sizeof(x));
								break;
							}
					}

	step[0] = step[1] = R * R / (na - 1);
	step[2] = 2.0 / (nr - 1);
	step[3] = step[4] = C.binary ? 0.0 : (C.yhi - C.ylo) / (ny - 1);
	for (k = 0; k < BF_TOP; k++)
	{
		if (topv[k] < 0.0)
			continue;
		memcpy(x, top[k], sizeof(x));
		best = fmax(best, bf_refine(&C, x, step));
	}
	/* and from random points */
	for (k = 0; k < 12; k++)
	{
		x[0] = R * R * urand();
		x[1] = R * R * urand();
		x[2] = 2.0 * urand() - 1.0;
		x[3] = C.binary ? (urand() < 0.5 ? -1.0 : 1.0) : C.ylo + (C.yhi - C.ylo) * urand();
		x[4] = C.binary ? (urand() < 0.5 ? -1.0 : 1.0) : C.ylo + (C.yhi - C.ylo) * urand();
		best = fmax(best, bf_refine(&C, x, step));
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* explicit block vectors (d = 3) vs the polynomial identities        */
/* ------------------------------------------------------------------ */

static void
random_record(const dpb_layout *L, double R, double Ry, double *z, double *y)
{
	double		norm = 0.0,
				r;
	int			j;

	for (j = 0; j < L->d; j++)
	{
		z[j] = 2.0 * urand() - 1.0;
		norm += z[j] * z[j];
	}
	r = R * pow(urand(), 0.3);
	for (j = 0; j < L->d; j++)
		z[j] *= r / sqrt(norm);
	switch (dpb_model_ydomain(L->model))
	{
		case DPB_Y_BINARY:
			*y = urand() < 0.5 ? -1.0 : 1.0;
			break;
		case DPB_Y_NONNEG:
			*y = Ry * urand();
			break;
		default:
			*y = Ry * (2.0 * urand() - 1.0);
			break;
	}
}

/* weighted value of entry k for record (z, y) */
static double
entry_value(const dpb_layout *L, int k, const double *z, double y)
{
	dpb_entry	e;
	double		v;

	dpb_layout_entry(L, k, &e);
	v = e.weight * pow(y, e.ypow);
	if (e.i >= 0)
		v *= e.i < L->intercept ? 1.0 : z[e.i - L->intercept];
	if (e.j >= 0)
		v *= e.j < L->intercept ? 1.0 : z[e.j - L->intercept];
	if (e.k >= 0)
		v *= z[e.k - L->intercept];
	if (e.l >= 0)
		v *= z[e.l - L->intercept];
	return v;
}

static void
check_identities(void)
{
	dpb_layout	L;
	const double nw[] = {0.7, 1.9, 1.3, 0.45, 0.8, 1.7};
	int			m,
				ic,
				xm,
				rep;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (xm = 0; xm <= (m == DPB_MODEL_LINEAR); xm++)
		{
			double		worst = 0.0;

			dpb_layout_init(&L, (dpb_model) m, 3, ic);
			if (xm)
				dpb_layout_add_xmoments(&L);
			for (rep = 0; rep < 200; rep++)
			{
				double		z[3],
							z2[3],
							y,
							y2,
							a = 0.0,
							a2 = 0.0,
							t = 0.0,
							direct = 0.0,
							poly;
				int			j,
							k;

				random_record(&L, 1.6, 2.3, z, &y);
				random_record(&L, 1.6, 2.3, z2, &y2);
				if (rep % 4 == 0)
				{
					/* also the extreme x' = -x and x' = x */
					for (j = 0; j < 3; j++)
						z2[j] = rep % 8 == 0 ? -z[j] : z[j];
				}
				for (j = 0; j < 3; j++)
				{
					a += z[j] * z[j];
					a2 += z2[j] * z2[j];
					t += z[j] * z2[j];
				}
				for (k = 0; k < L.nstats; k++)
				{
					dpb_entry	e;

					dpb_layout_entry(&L, k, &e);
					direct += sq(entry_value(&L, k, z, y) -
								 entry_value(&L, k, z2, y2)) / sq(nw[e.block]);
				}
				poly = dpb_sens_pair_sq(&L, nw, a, a2, t, y, y2);
				worst = fmax(worst, fabs(direct - poly) / fmax(1.0, fabs(direct)));
			}
			CHECK(worst < 1e-10, "identity m=%d ic=%d xm=%d: rel err %.3g", m, ic, xm, worst);
		}
}

/* ------------------------------------------------------------------ */
/* joint L2 sensitivity vs brute force                                 */
/* ------------------------------------------------------------------ */

static double worst_under = 0.0;	/* max of brute/closed^2 - 1 */
static double worst_slack = 0.0;	/* max of closed^2/brute - 1 */

static void
check_against_brute(const dpb_layout *L, const double *nw, double R,
					double Ry, const char *what)
{
	double		delta,
				bf;
	dpb_err		err;
	dpb_status	st;

	st = dpb_sens_l2(L, R, Ry, nw, &delta, &err);
	CHECK(st == DPB_OK, "%s: status %d", what, (int) st);
	bf = brute_max(L, nw, R, Ry);
	worst_under = fmax(worst_under, bf / sq(delta) - 1.0);
	worst_slack = fmax(worst_slack, sq(delta) / bf - 1.0);
	CHECK(sq(delta) >= bf * (1.0 - 1e-12),
		  "%s R=%g Ry=%g: closed form %.15g below brute force %.15g",
		  what, R, Ry, sq(delta), bf);
	CHECK(sq(delta) <= bf * (1.0 + 1e-3),
		  "%s R=%g Ry=%g: closed form %.15g not tight (brute %.15g)",
		  what, R, Ry, sq(delta), bf);
}

/* random feasible points never exceed the closed form */
static void
check_random_points(const dpb_layout *L, const double *nw, double R,
					double Ry, const char *what)
{
	double		delta,
				worst = 0.0;
	dpb_err		err;
	int			rep;
	dpb_ydomain dom = dpb_model_ydomain(L->model);

	dpb_sens_l2(L, R, Ry, nw, &delta, &err);
	for (rep = 0; rep < 20000; rep++)
	{
		double		a = R * R * (rep % 3 == 0 ? 1.0 : urand());
		double		a2 = R * R * (rep % 5 == 0 ? 1.0 : urand());
		double		t = (2.0 * urand() - 1.0) * sqrt(a * a2);
		double		y,
					y2;

		if (dom == DPB_Y_BINARY)
		{
			y = urand() < 0.5 ? -1.0 : 1.0;
			y2 = urand() < 0.5 ? -1.0 : 1.0;
		}
		else
		{
			double		lo = dom == DPB_Y_NONNEG ? 0.0 : -Ry;

			y = rep % 2 ? Ry : lo + (Ry - lo) * urand();
			y2 = lo + (Ry - lo) * urand();
		}
		worst = fmax(worst, dpb_sens_pair_sq(L, nw, a, a2, t, y, y2) / sq(delta));
	}
	CHECK(worst <= 1.0, "%s: random point above the closed form (%.15g)",
		  what, worst);
}

static void
check_joint(void)
{
	static const double Rs[] = {0.3, 0.6, 1.0, 1.7};
	static const double Rys[] = {0.5, 2.0};
	static const double nws[][4] = {
		{1.0, 1.0, 1.0, 1.0},
		{1.0, 2.5, 0.7, 1.3},
		{0.4, 1.0, 3.0, 0.8},
		{1.0, 5.0, 5.0, 1.0},
	};
	dpb_layout	L;
	char		what[128];
	int			m,
				ic,
				ir,
				iy,
				iw;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
		{
			dpb_layout_init(&L, (dpb_model) m, 3, ic);
			for (ir = 0; ir < 4; ir++)
				for (iy = 0; iy < 2; iy++)
					for (iw = 0; iw < 4; iw++)
					{
						if (m == DPB_MODEL_LOGISTIC && iy > 0)
							continue;
						snprintf(what, sizeof(what), "%s ic=%d nw#%d",
								 dpb_model_name((dpb_model) m), ic, iw);
						check_against_brute(&L, nws[iw], Rs[ir], Rys[iy], what);
						check_random_points(&L, nws[iw], Rs[ir], Rys[iy], what);
					}
		}
	/* one extreme weight ratio per model */
	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
		{
			static const double ext[] = {0.05, 20.0, 0.1, 8.0};

			dpb_layout_init(&L, (dpb_model) m, 2, ic);
			check_against_brute(&L, ext, 1.2, 0.8, "extreme weights");
		}
	/* the linear model's u = hi piece with an interior maximum (cS and cL
	 * large against cQ): there the maximum is 5% above every piece
	 * boundary */
	{
		static const double w0[3] = {11.86, 0.2189, 0.0897};
		static const double w1[3] = {2.008, 0.1312, 0.4043};

		dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 0);
		check_against_brute(&L, w0, 0.8888, 0.6461, "linear hi piece");
		dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
		check_against_brute(&L, w1, 0.1653, 5.428, "linear hi piece ic");
	}
	/* random configurations: weights log-uniform over [e^-3, e^3] */
	for (iw = 0; iw < 150; iw++)
	{
		double		nw[DPB_MAX_BLOCKS];
		double		R = exp(3.0 * urand() - 2.0),
					Ry = exp(4.0 * urand() - 2.0);
		int			b;

		m = DPB_MODEL_LINEAR + iw % 3;
		ic = (iw / 3) % 2;
		dpb_layout_init(&L, (dpb_model) m, 2, ic);
		for (b = 0; b < L.nblocks; b++)
			nw[b] = exp(6.0 * urand() - 3.0);
		snprintf(what, sizeof(what), "random %s ic=%d #%d",
				 dpb_model_name((dpb_model) m), ic, iw);
		check_against_brute(&L, nw, R, Ry, what);
	}
	if (verbose)
		printf("  joint L2: brute/closed^2 - 1 <= %.3g, closed^2/brute - 1 <= %.3g\n",
			   worst_under, worst_slack);
}

/* ------------------------------------------------------------------ */
/* the moment blocks of x_moments (docs/privacy.md §12)                */
/* ------------------------------------------------------------------ */

/* largest sum over entries of |m(z) - m(z')| over random records and
 * the extreme directions (a lower bound of the L1 sensitivity) */
static double
l1_search(const dpb_layout *L, int b, double B, double R)
{
	double		best = 0.0;
	int			rep;

	for (rep = 0; rep < 4000; rep++)
	{
		double		z[4],
					z2[4],
					y = 0,
					sum = 0.0,
					n = 0.0;
		int			j,
					k;

		for (j = 0; j < L->d; j++)
		{
			z[j] = (2.0 * urand() - 1.0) * B;
			z2[j] = rep % 3 == 0 ? 0.0 : rep % 3 == 1 ? -z[j] : (2.0 * urand() - 1.0) * B;
			if (rep % 7 == 0)
				z[j] = z2[j] = 0.0;
		}
		if (rep % 7 == 0)
		{
			/* all of the norm on a pair of coordinates, with signs */
			z[rep % L->d] = R * M_SQRT1_2;
			z[(rep / 7) % L->d] += R * M_SQRT1_2 * (rep % 2 ? 1 : -1);
			for (j = 0; j < L->d; j++)
				z2[j] = -z[j];
		}
		for (j = 0; j < L->d; j++)
		{
			z[j] = fmax(-B, fmin(B, z[j]));
			z2[j] = fmax(-B, fmin(B, z2[j]));
			n += z[j] * z[j];
		}
		if (n > R * R)
			for (j = 0; j < L->d; j++)
				z[j] *= R / sqrt(n);
		n = 0.0;
		for (j = 0; j < L->d; j++)
			n += z2[j] * z2[j];
		if (n > R * R)
			for (j = 0; j < L->d; j++)
				z2[j] *= R / sqrt(n);
		for (k = L->start[b]; k < L->start[b] + L->len[b]; k++)
		{
			dpb_entry	e;

			dpb_layout_entry(L, k, &e);
			sum += fabs(entry_value(L, k, z, y) - entry_value(L, k, z2, y)) / e.weight;
		}
		best = fmax(best, sum);
	}
	return best;
}

static void
check_xmoments(void)
{
	dpb_layout	L;
	dpb_err		err;
	char		what[128];
	int			ic,
				iw,
				b;

	for (ic = 0; ic <= 1; ic++)
	{
		double		R;

		/* the closed forms of the blocks alone */
		dpb_layout_init(&L, DPB_MODEL_LINEAR, 3, ic);
		CHECK(dpb_layout_add_xmoments(&L) == DPB_OK, "add x moments");
		for (R = 0.5; R < 2.0; R += 0.7)
		{
			b = L.nblocks - 1;
			CHECK_REL(dpb_sens_l2_block(&L, b, R, 1.0), M_SQRT2 * pow(R, 4), 1e-9, "x4 block");
			if (ic)
				CHECK_REL(dpb_sens_l2_block(&L, b - 1, R, 1.0), 2.0 * pow(R, 3), 1e-9, "x3 block");
		}
		/* joint: never below brute force; tight when the model's blocks
		 * carry almost no weight (the moments' part is exact) */
		for (iw = 0; iw < 40; iw++)
		{
			double		nw[DPB_MAX_BLOCKS],
						delta,
						bf;
			double		Ry = exp(3.0 * urand() - 1.5);

			R = exp(2.0 * urand() - 1.0);
			for (b = 0; b < L.nblocks; b++)
				nw[b] = exp(4.0 * urand() - 2.0);
			if (iw % 2)
				for (b = 0; b < L.nmodel_blocks; b++)
					nw[b] = 1e5;
			CHECK(dpb_sens_l2(&L, R, Ry, nw, &delta, &err) == DPB_OK, "x moments sens");
			bf = brute_max(&L, nw, R, Ry);
			snprintf(what, sizeof(what), "x moments ic=%d #%d", ic, iw);
			CHECK(sq(delta) >= bf * (1.0 - 1e-12), "%s: closed %.15g below brute force %.15g",
				  what, sq(delta), bf);
			if (iw % 2)
				CHECK(sq(delta) <= bf * (1.0 + 1e-6), "%s: not tight (%.15g vs %.15g)",
					  what, sq(delta), bf);
			check_random_points(&L, nw, R, Ry, what);
		}
		/* Laplace: the per-entry ranges bound every observed change */
		for (R = 0.4; R < 3.0; R += 1.1)
		{
			double		Bs[2] = {R / sqrt(3.0), R};
			int			ib;

			for (ib = 0; ib < 2; ib++)
				for (b = L.nmodel_blocks; b < L.nblocks; b++)
				{
					double		l1 = dpb_sens_l1_block(&L, b, Bs[ib], R, 1.0);
					double		seen = l1_search(&L, b, Bs[ib], R);

					CHECK(seen <= l1, "x moments l1 block %d R=%g B=%g: %.15g > %.15g",
						  b, R, Bs[ib], seen, l1);
					CHECK(seen >= 0.2 * l1, "x moments l1 block %d R=%g: bound %.3g far above %.3g",
						  b, R, l1, seen);
				}
		}
	}
	/* only linear, only up to DPB_MAX_D_XMOM features */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 3, 1);
	CHECK(dpb_layout_add_xmoments(&L) == DPB_EINVAL, "no x moments for logistic");
	dpb_layout_init(&L, DPB_MODEL_LINEAR, DPB_MAX_D_XMOM + 1, 1);
	CHECK(dpb_layout_add_xmoments(&L) == DPB_EINVAL, "too many features for x moments");
	dpb_layout_init(&L, DPB_MODEL_LINEAR, DPB_MAX_D_XMOM, 1);
	CHECK(dpb_layout_add_xmoments(&L) == DPB_OK &&
		  L.len[L.nblocks - 1] == dpb_multisets(DPB_MAX_D_XMOM, 4) &&
		  L.len[L.nblocks - 2] == dpb_multisets(DPB_MAX_D_XMOM, 3), "x moments at the largest d");
}

/* ------------------------------------------------------------------ */
/* single blocks                                                       */
/* ------------------------------------------------------------------ */

static void
check_blocks(void)
{
	static const double Rs[] = {0.4, 1.0, 1.8};
	dpb_layout	L;
	int			m,
				ic,
				b,
				ir;
	double		worst = 0.0;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
		{
			dpb_layout_init(&L, (dpb_model) m, 2, ic);
			for (b = 0; b < L.nblocks; b++)
				for (ir = 0; ir < 3; ir++)
				{
					double		nw[DPB_MAX_BLOCKS];
					double		R = Rs[ir],
								Ry = 1.7,
								v,
								bf;
					int			j;

					/* the other blocks weigh 1e-18: negligible */
					for (j = 0; j < L.nblocks; j++)
						nw[j] = j == b ? 1.0 : 1e9;
					v = dpb_sens_l2_block(&L, b, R, Ry);
					bf = brute_max(&L, nw, R, Ry);
					worst = fmax(worst, sq(v) / fmax(bf, 1e-300) - 1.0);
					CHECK(sq(v) >= bf * (1.0 - 1e-12) &&
						  sq(v) <= bf * (1.0 + 1e-3) + 1e-12,
						  "block %s/%s ic=%d R=%g: closed %.15g brute %.15g",
						  dpb_model_name((dpb_model) m),
						  dpb_block_kind_name(L.kind[b]), ic, R, sq(v), bf);
				}
		}
	if (verbose)
		printf("  single blocks: closed^2/brute - 1 <= %.3g\n", worst);

	/* simple values: t1 = 2R; t2 without intercept = sqrt2 R^2 */
	dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 0);
	CHECK_REL(dpb_sens_l2_block(&L, 0, 1.5, 1.0), 3.0, 1e-9, "t1 block");
	CHECK_REL(dpb_sens_l2_block(&L, 1, 1.5, 1.0), M_SQRT2 * 2.25, 1e-9, "t2 block");
	CHECK(isnan(dpb_sens_l2_block(&L, 4, 1.0, 1.0)), "bad block index");
	CHECK(isnan(dpb_sens_l2_block(&L, 0, -1.0, 1.0)), "bad R");
}

/* ------------------------------------------------------------------ */
/* the papers                                                          */
/* ------------------------------------------------------------------ */

/* GLM paper Lemma 3.5 (sigma_1 = sigma_0, nw[0] = 1) */
static double
lemma35_sq(double R, double Ry, const double *nw)
{
	double		c2 = 1.0 / sq(nw[1]),
				c3 = sq(Ry) / sq(nw[2]),
				c4 = sq(Ry) / sq(nw[3]);

	return sq(2.0 * (c2 + c4) * R * R + c3 + 1.0) / (2.0 * (c2 + c4));
}

static void
check_papers(void)
{
	dpb_layout	L;
	dpb_err		err;
	double		delta;
	int			i,
				j;

	/* GLM paper Corollary 3.4: logistic, R = 1, equal noise: sqrt(4.5) */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 5, 0);
	CHECK(dpb_sens_l2(&L, 1.0, 0.0, NULL, &delta, &err) == DPB_OK, "logistic");
	CHECK_REL(delta, sqrt(4.5), 1e-9, "Corollary 3.4");

	/* Lemma 3.3: Delta^2 = 2R^2 + 2cR^4 + 1/(2c) when 1/(2c) <= R^2,
	 * otherwise 4R^2; c = sigma_1^2 / sigma_2^2, nw = [1, 1/sqrt(c)] */
	for (i = 0; i < 5; i++)
		for (j = 0; j < 3; j++)
		{
			static const double cs[] = {0.1, 0.25, 0.5, 1.0, 4.0};
			static const double Rs[] = {0.8, 1.0, 1.5};
			double		c = cs[i],
						R = Rs[j];
			double		nw[2] = {1.0, 1.0 / sqrt(c)};
			double		want = 0.5 / c <= R * R
				? 2 * R * R + 2 * c * pow(R, 4) + 0.5 / c
				: 4 * R * R;

			dpb_sens_l2(&L, R, 1.0, nw, &delta, &err);
			CHECK_REL(sq(delta), want, 1e-9, "Lemma 3.3");
		}

	/* LDP paper Lemma 3.1 (linear, no intercept) is an upper bound:
	 * brute force <= ours <= Lemma 3.1 */
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 3, 0);
	for (i = 0; i < 4; i++)
	{
		static const double cfg[][5] = {
			/* R, Ry, nw0, nw1, nw2 */
			{1.0, 1.0, 1.0, 1.0, 1.0},
			{1.0, 3.0, 1.0, 1.0, 1.0},
			{0.7, 1.5, 1.0, 2.0, 0.5},
			{2.0, 0.5, 0.6, 1.0, 4.0},
		};
		double		R = cfg[i][0],
					Ry = cfg[i][1];
		const double *nw = &cfg[i][2];
		double		cQ = 1.0 / sq(nw[0]),
					cL = 1.0 / sq(nw[1]),
					cS = 1.0 / sq(nw[2]);
		double		ldp = sq(cL) * pow(Ry, 4) / (2.0 * cQ) + 2.0 * cQ * pow(R, 4)
			+ 2.0 * cL * sq(Ry) * sq(R) + cS * pow(Ry, 4);
		double		bf = brute_max(&L, nw, R, Ry);

		dpb_sens_l2(&L, R, Ry, nw, &delta, &err);
		CHECK(sq(delta) <= ldp * (1.0 + 1e-9) && bf <= sq(delta),
			  "Lemma 3.1 cfg %d: brute %.10g ours %.10g lemma %.10g",
			  i, bf, sq(delta), ldp);
		if (verbose)
			printf("  linear cfg %d: brute %.10g ours %.10g LDP Lemma 3.1 %.10g\n",
				   i, bf, sq(delta), ldp);
	}
	/* R = 1, Ry = 1, equal noise: ours sqrt(4.5), Corollary 3.1 sqrt(5.5) */
	dpb_sens_l2(&L, 1.0, 1.0, NULL, &delta, &err);
	CHECK_REL(sq(delta), 4.5, 1e-9, "linear R=Ry=1");

	/* GLM paper Lemma 3.5 (Poisson, no intercept) */
	dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 0);
	{
		/* Corollary 3.6: R = 1, equal noise: 4.5 (1 + Ry^2), and there
		 * Lemma 3.5 is exact */
		double		nw1[4] = {1, 1, 1, 1};

		for (i = 0; i < 3; i++)
		{
			double		Ry = 0.5 + i;

			dpb_sens_l2(&L, 1.0, Ry, nw1, &delta, &err);
			CHECK_REL(sq(delta), 4.5 * (1.0 + Ry * Ry), 1e-9, "Corollary 3.6");
			CHECK_REL(sq(delta), lemma35_sq(1.0, Ry, nw1), 1e-9, "Lemma 3.5 equal");
		}
	}
	{
		/* counterexample: sigma_2 = sigma_3 = 5 sigma_1 = 5 sigma_4,
		 * R = Ry = 1.  Lemma 3.5 gives 4.68, but x' = -x, y = 1, y' = 0
		 * reaches 5.04 */
		double		nw2[4] = {1, 5, 5, 1};
		double		paper = lemma35_sq(1.0, 1.0, nw2);
		double		reach = dpb_sens_pair_sq(&L, nw2, 1.0, 1.0, -1.0, 1.0, 0.0);

		CHECK_REL(paper, 4.68, 1e-12, "Lemma 3.5 value");
		CHECK_REL(reach, 5.04, 1e-12, "counterexample value");
		dpb_sens_l2(&L, 1.0, 1.0, nw2, &delta, &err);
		CHECK_REL(sq(delta), 5.04, 1e-9, "ours at the counterexample");
	}
	/* Poisson with intercept, R = 1, equal noise: 2*4 + Ry^2 * max(4, 8) */
	dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 1);
	dpb_sens_l2(&L, 1.0, 2.0, NULL, &delta, &err);
	CHECK_REL(sq(delta), 8.0 + 4.0 * 8.0, 1e-9, "poisson intercept R=1");
}

/* ------------------------------------------------------------------ */
/* Laplace L1                                                          */
/* ------------------------------------------------------------------ */

#define L1_MAXREC 1600
#define L1_MAXSTATS 32

static void
check_l1(void)
{
	static double recz[L1_MAXREC][3];
	static double recy[L1_MAXREC];
	static double val[L1_MAXREC][L1_MAXSTATS];	/* unweighted entries */
	dpb_layout	L;
	int			m,
				ic,
				d,
				sc,
				b;
	double		worst_ratio = 1.0;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (d = 2; d <= 3; d++)
				for (sc = 0; sc < 2; sc++)
				{
					double		R = 1.3,
								Ry = 1.7;
					double		B = sc == 0 ? R / sqrt((double) d) : R;
					double		cv[7],
								yv[3];
					int			ncv = 0,
								nyv,
								n = 0,
								idx[3],
								iy;
					dpb_ydomain dom = dpb_model_ydomain((dpb_model) m);

					/* coordinate values that reach every per-entry extreme */
					cv[ncv++] = 0.0;
					cv[ncv++] = fmin(B, R);
					cv[ncv++] = -fmin(B, R);
					cv[ncv++] = fmin(B, R / M_SQRT2);
					cv[ncv++] = -fmin(B, R / M_SQRT2);
					cv[ncv++] = 0.5 * B;
					cv[ncv++] = -0.5 * B;
					if (dom == DPB_Y_BINARY)
					{
						yv[0] = -1;
						yv[1] = 1;
						nyv = 2;
					}
					else if (dom == DPB_Y_NONNEG)
					{
						yv[0] = 0;
						yv[1] = Ry;
						yv[2] = 0.5 * Ry;
						nyv = 3;
					}
					else
					{
						yv[0] = -Ry;
						yv[1] = 0;
						yv[2] = Ry;
						nyv = 3;
					}
					/* all records with coordinates from cv inside the ball */
					for (idx[0] = 0; idx[0] < ncv; idx[0]++)
						for (idx[1] = 0; idx[1] < ncv; idx[1]++)
							for (idx[2] = 0; idx[2] < (d == 3 ? ncv : 1); idx[2]++)
							{
								double		z[3] = {cv[idx[0]], cv[idx[1]],
								d == 3 ? cv[idx[2]] : 0.0};

								if (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] >
									R * R * (1.0 + 1e-12))
									continue;
								for (iy = 0; iy < nyv && n < L1_MAXREC; iy++)
								{
									memcpy(recz[n], z, sizeof(z));
									recy[n] = yv[iy];
									n++;
								}
							}

					dpb_layout_init(&L, (dpb_model) m, d, ic);
					for (iy = 0; iy < n; iy++)
					{
						int			k;

						for (k = 0; k < L.nstats; k++)
						{
							dpb_entry	e;

							dpb_layout_entry(&L, k, &e);
							val[iy][k] = entry_value(&L, k, recz[iy], recy[iy]) / e.weight;
						}
					}
					for (b = 0; b < L.nblocks; b++)
					{
						double		closed = dpb_sens_l1_block(&L, b, B, R, Ry);
						double		pair = 0.0,
									entries = 0.0;
						int			k,
									r1,
									r2;

						/* per-entry ranges: each must be reached exactly */
						for (k = L.start[b]; k < L.start[b] + L.len[b]; k++)
						{
							double		lo = INFINITY,
										hi = -INFINITY;

							for (r1 = 0; r1 < n; r1++)
							{
								lo = fmin(lo, val[r1][k]);
								hi = fmax(hi, val[r1][k]);
							}
							entries += hi - lo;
						}
						/* the L1 distance itself over all pairs */
						for (r1 = 0; r1 < n; r1++)
							for (r2 = r1 + 1; r2 < n; r2++)
							{
								double		s = 0.0;

								for (k = L.start[b]; k < L.start[b] + L.len[b]; k++)
									s += fabs(val[r1][k] - val[r2][k]);
								pair = fmax(pair, s);
							}
						CHECK_REL(closed, entries, 1e-9, "L1 per-entry sum");
						/* valid, and reasonably close: per-entry sums are
						 * tight per entry but not jointly; with ball scaling
						 * (B = R) they lose up to sqrt(d) on linear entries
						 * and ~d/2 on products (docs/privacy.md §8) */
						CHECK(closed >= pair * (1.0 - 1e-12) &&
							  pair >= (sc == 0 ? 0.6 : 0.35) * closed,
							  "L1 %s ic=%d d=%d sc=%d %s: closed %.10g pairs %.10g",
							  dpb_model_name((dpb_model) m), ic, d, sc,
							  dpb_block_kind_name(L.kind[b]), closed, pair);
						if (closed > 0.0)
							worst_ratio = fmin(worst_ratio, pair / closed);
						/* random pairs inside box and ball never exceed it */
						{
							double		worst = 0.0;
							int			rep;

							for (rep = 0; rep < 3000; rep++)
							{
								double		z[2][3],
											yy[2],
											s = 0.0;
								int			h;

								for (h = 0; h < 2; h++)
								{
									double		nn;

									do
									{
										nn = 0.0;
										for (k = 0; k < 3; k++)
										{
											z[h][k] = k < d ? B * (2.0 * urand() - 1.0) : 0.0;
											nn += z[h][k] * z[h][k];
										}
									} while (nn > R * R);
									yy[h] = dom == DPB_Y_BINARY ? (urand() < 0.5 ? -1.0 : 1.0)
										: dom == DPB_Y_NONNEG ? Ry * urand()
										: Ry * (2.0 * urand() - 1.0);
								}
								for (k = L.start[b]; k < L.start[b] + L.len[b]; k++)
								{
									dpb_entry	e;

									dpb_layout_entry(&L, k, &e);
									s += fabs(entry_value(&L, k, z[0], yy[0]) -
											  entry_value(&L, k, z[1], yy[1])) / e.weight;
								}
								worst = fmax(worst, s / closed);
							}
							CHECK(worst <= 1.0, "L1 random pair above closed form");
						}
					}
				}
	if (verbose)
		printf("  Laplace L1: brute-force pair / closed form >= %.3g\n", worst_ratio);

	/* hand-computed: linear, intercept, d = 2, box scaling B = R/sqrt2:
	 * T2 = [x1, x2, x1^2, x1x2, x2^2] -> 2B + 2B + B^2 + 2B^2 + B^2 */
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	{
		double		R = 2.0,
					B = R / M_SQRT2,
					Ry = 3.0;

		CHECK_REL(dpb_sens_l1_block(&L, 0, B, R, Ry), 4 * B + 4 * B * B, 1e-9, "T2 L1");
		CHECK_REL(dpb_sens_l1_block(&L, 1, B, R, Ry), 2 * Ry + 4 * Ry * B, 1e-9, "YT1 L1");
		CHECK_REL(dpb_sens_l1_block(&L, 2, B, R, Ry), Ry * Ry, 1e-9, "YY L1");
	}
}


/* ------------------------------------------------------------------ */
/* add/remove-one neighbours (docs/privacy.md §13)                     */
/* ------------------------------------------------------------------ */

static const double ar_radii[] = {1e-12, 1e-6, 1e-3, 1.0, 10.0, 1e3, 1e6};
#define AR_NR ((int) (sizeof(ar_radii) / sizeof(ar_radii[0])))

/* the add/remove layout of a model: count block, optionally x moments */
static void
ar_layout(dpb_layout *L, int m, int d, int ic, int xm)
{
	dpb_layout_init(L, (dpb_model) m, d, ic);
	CHECK(dpb_layout_add_count(L) == DPB_OK, "add count");
	if (xm)
		CHECK(dpb_layout_add_xmoments(L) == DPB_OK, "add x moments after the count");
}

/* sum_b ||B_b(r)||^2 / nw_b^2 of one record from its explicit entries */
static double
ar_record_direct(const dpb_layout *L, const double *nw, const double *z, double y)
{
	double		sum = 0.0;
	int			k;

	for (k = 0; k < L->nstats; k++)
	{
		dpb_entry	e;

		dpb_layout_entry(L, k, &e);
		sum += sq(entry_value(L, k, z, y) / nw[e.block]);
	}
	return sum;
}

/* a record: z of norm rad in a direction (random or adversarial), y */
static void
ar_record(int d, double rad, int how, double *z)
{
	double		n = 0.0;
	int			j;

	for (j = 0; j < d; j++)
	{
		switch (how % 4)
		{
			case 0:				/* a coordinate axis, signed */
				z[j] = j == (how / 4) % d ? (how & 4 ? -1.0 : 1.0) : 0.0;
				break;
			case 1:				/* the diagonal, alternating signs */
				z[j] = (j + how / 4) % 2 ? -1.0 : 1.0;
				break;
			default:			/* random */
				z[j] = 2.0 * urand() - 1.0;
				break;
		}
		n += z[j] * z[j];
	}
	for (j = 0; j < d; j++)
		z[j] *= rad / sqrt(n);
}

/*
 * Gaussian: over single records in the clipped domain (||z|| <= R, y in its
 * domain), the weighted squared norm of the record's contribution never
 * exceeds Delta^2 and the adversarial records reach it within 1e-6.
 */
static void
check_ar_l2(void)
{
	static const double Rys[] = {0.5, 3.0};
	dpb_layout	L;
	char		what[160];
	int			m,
				ic,
				xm,
				ir,
				iy,
				iw;
	double		worst_over = 0.0,
				worst_gap = 0.0;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (xm = 0; xm <= (m == DPB_MODEL_LINEAR); xm++)
				for (ir = 0; ir < AR_NR; ir++)
					for (iy = 0; iy < 2; iy++)
						for (iw = 0; iw < 3; iw++)
						{
							double		nw[DPB_MAX_BLOCKS],
										delta,
										best = 0.0,
										R = ar_radii[ir],
										Ry = Rys[iy];
							dpb_err		err;
							dpb_ydomain dom = dpb_model_ydomain((dpb_model) m);
							int			b,
										rep;

							if (m == DPB_MODEL_LOGISTIC && iy > 0)
								continue;
							ar_layout(&L, m, 3, ic, xm);
							for (b = 0; b < L.nblocks; b++)
								nw[b] = iw == 0 ? 1.0 : iw == 1 ? exp(4.0 * urand() - 2.0)
									: dpb_sens_l2_block(&L, b, R, Ry);	/* the default */
							snprintf(what, sizeof(what), "add/remove %s ic=%d xm=%d R=%g Ry=%g nw#%d",
									 dpb_model_name((dpb_model) m), ic, xm, R, Ry, iw);
							CHECK(dpb_sens_l2(&L, R, Ry, nw, &delta, &err) == DPB_OK,
								  "%s: %s", what, err.msg);
							for (rep = 0; rep < 400; rep++)
							{
								double		z[3],
											y,
											v,
											rad;

								/* adversarial: on the sphere, y at a bound; random:
								 * anywhere in the ball, y anywhere */
								int			adv = rep < 200;

								rad = adv ? R : R * pow(urand(), 0.5);
								ar_record(3, rad, adv ? rep : 2, z);
								if (dom == DPB_Y_BINARY)
									y = rep % 2 ? 1.0 : -1.0;
								else if (adv)
									y = dom == DPB_Y_SIGNED && rep % 2 ? -Ry : Ry;
								else
									y = dom == DPB_Y_SIGNED ? Ry * (2.0 * urand() - 1.0)
										: Ry * urand();
								v = ar_record_direct(&L, nw, z, y);
								best = fmax(best, v);
								CHECK(v <= sq(delta), "%s: record above the closed form (%.17g > %.17g)",
									  what, v, sq(delta));
								/* the polynomial agrees with the explicit entries */
								CHECK(fabs(dpb_sens_record_sq(&L, nw, z[0] * z[0] + z[1] * z[1] + z[2] * z[2], y) - v)
									  <= 1e-12 * fmax(v, 1e-300) + 1e-300,
									  "%s: record polynomial", what);
							}
							worst_over = fmax(worst_over, best / sq(delta) - 1.0);
							worst_gap = fmax(worst_gap, 1.0 - best / sq(delta));
							CHECK(best >= sq(delta) * (1.0 - 1e-6),
								  "%s: closed form %.17g not attained (best %.17g)", what, sq(delta), best);
							/* each block alone, likewise */
							for (b = 0; b < L.nblocks; b++)
							{
								double		one[DPB_MAX_BLOCKS],
											z[3],
											y = dom == DPB_Y_BINARY ? 1.0 : Ry,
											sb = dpb_sens_l2_block(&L, b, R, Ry),
											v;
								int			j;

								for (j = 0; j < L.nblocks; j++)
									one[j] = j == b ? 1.0 : INFINITY;
								ar_record(3, R, 2, z);
								v = ar_record_direct(&L, one, z, y);
								CHECK(v <= sq(sb) && v >= sq(sb) * (1.0 - 1e-6),
									  "%s: block %s alone: %.17g vs %.17g", what,
									  dpb_block_kind_name(L.kind[b]), v, sq(sb));
							}
						}
	if (verbose)
		printf("  add/remove L2: best/closed^2 - 1 <= %.3g, 1 - best/closed^2 <= %.3g\n",
			   worst_over, worst_gap);
	/* hand-computed: logistic with intercept, equal weights, R = 1:
	 * count 1 + YT1 (1 + 1) + T2 (2 + 1) = 6 */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 2, 1);
	dpb_layout_add_count(&L);
	{
		double		delta;
		dpb_err		err;

		CHECK(dpb_sens_l2(&L, 1.0, 0.0, NULL, &delta, &err) == DPB_OK, "logistic ar");
		CHECK_REL(sq(delta), 6.0, 1e-9, "logistic add/remove R = 1");
		/* tiny R: nothing cancels in the T2 block, ||t2(w)||^2 - 1 =
		 * R^2 (2 + R^2) */
		CHECK_REL(dpb_sens_l2_block(&L, 1, 1e-9, 0.0), M_SQRT2 * 1e-9, 1e-9,
				  "logistic add/remove T2 block at R = 1e-9");
	}
	/* the count block only after the model's blocks, once, before x moments */
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	dpb_layout_add_xmoments(&L);
	CHECK(dpb_layout_add_count(&L) == DPB_EINVAL, "count after x moments refused");
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	dpb_layout_add_count(&L);
	CHECK(dpb_layout_add_count(&L) == DPB_EINVAL, "count twice refused");
	CHECK(L.nmodel_blocks == 4 && L.nmodel == L.nstats && dpb_layout_count_index(&L) == L.nstats - 1,
		  "count is the last model statistic");
}

/*
 * Laplace: per entry, the largest |monomial| over one record.  The per-entry
 * maxima over an adversarial enumeration (every coordinate from a set that
 * holds each entry's maximiser) sum to the closed form within 1e-6, and
 * random records never exceed it (their L1 norm, entry by entry too).
 */
static void
check_ar_l1(void)
{
	static double recz[4096][3];
	dpb_layout	L;
	char		what[160];
	int			m,
				ic,
				xm,
				ir,
				sc;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (xm = 0; xm <= (m == DPB_MODEL_LINEAR); xm++)
				for (ir = 0; ir < AR_NR; ir++)
					for (sc = 0; sc < 2; sc++)
					{
						const int	d = 3;
						double		R = ar_radii[ir],
									Ry = 1.7,
									B = sc == 0 ? R / sqrt((double) d) : R;
						double		cv[19];
						int			ncv = 0,
									n = 0,
									a,
									bb,
									c,
									b;
						dpb_ydomain dom = dpb_model_ydomain((dpb_model) m);
						double		yv[2] = {dom == DPB_Y_SIGNED ? -Ry : dom == DPB_Y_BINARY ? -1.0 : 0.0,
							dom == DPB_Y_BINARY ? 1.0 : Ry};

						/* the maximisers of |z^m| over box and ball: B, and for
						 * the ball sqrt(m_f / g) R with g <= 4 */
						{
							static const double f[] = {1.0, 0.70710678118654752, 0.5,
								0.86602540378443865, 0.81649658092772603, 0.57735026918962576};
							int			i;

							cv[ncv++] = 0.0;
							cv[ncv++] = B;
							cv[ncv++] = -B;
							for (i = 0; i < 6; i++)
								if (f[i] * R <= B * (1.0 + 1e-15))
								{
									cv[ncv++] = f[i] * R;
									cv[ncv++] = -f[i] * R;
								}
						}
						for (a = 0; a < ncv; a++)
							for (bb = 0; bb < ncv; bb++)
								for (c = 0; c < ncv; c++)
								{
									double		z[3] = {cv[a], cv[bb], cv[c]};

									if (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] > R * R * (1.0 + 1e-12))
										continue;
									memcpy(recz[n++], z, sizeof(z));
								}
						ar_layout(&L, m, d, ic, xm);
						snprintf(what, sizeof(what), "add/remove L1 %s ic=%d xm=%d R=%g %s",
								 dpb_model_name((dpb_model) m), ic, xm, R, sc ? "ball" : "box");
						for (b = 0; b < L.nblocks; b++)
						{
							double		closed = dpb_sens_l1_block(&L, b, B, R, Ry),
										entries = 0.0,
										worst = 0.0;
							int			k,
										r1,
										iy,
										rep;

							for (k = L.start[b]; k < L.start[b] + L.len[b]; k++)
							{
								dpb_entry	e;
								double		hi = 0.0;

								dpb_layout_entry(&L, k, &e);
								for (r1 = 0; r1 < n; r1++)
									for (iy = 0; iy < 2; iy++)
										hi = fmax(hi, fabs(entry_value(&L, k, recz[r1], yv[iy]) / e.weight));
								entries += hi;
							}
							CHECK(closed >= entries && closed <= entries * (1.0 + 1e-6),
								  "%s block %s: closed %.17g, per-entry maxima %.17g", what,
								  dpb_block_kind_name(L.kind[b]), closed, entries);
							for (rep = 0; rep < 300; rep++)
							{
								double		z[3],
											nn,
											y,
											s = 0.0;

								do
								{
									nn = 0.0;
									for (k = 0; k < d; k++)
									{
										z[k] = B * (2.0 * urand() - 1.0);
										nn += z[k] * z[k];
									}
								} while (nn > R * R);
								y = dom == DPB_Y_BINARY ? (urand() < 0.5 ? -1.0 : 1.0)
									: dom == DPB_Y_NONNEG ? Ry * urand() : Ry * (2.0 * urand() - 1.0);
								for (k = L.start[b]; k < L.start[b] + L.len[b]; k++)
								{
									dpb_entry	e;

									dpb_layout_entry(&L, k, &e);
									s += fabs(entry_value(&L, k, z, y)) / e.weight;
								}
								worst = fmax(worst, s / closed);
							}
							CHECK(worst <= 1.0, "%s block %s: a record's L1 norm above the bound (%.17g)",
								  what, dpb_block_kind_name(L.kind[b]), worst);
						}
					}
	/* hand-computed: linear, intercept, d = 2, box B = R / sqrt2:
	 * T2 = [z1, z2, z1^2, z1 z2, z2^2] -> B + B + B^2 + B^2 + B^2 */
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	dpb_layout_add_count(&L);
	{
		double		R = 2.0,
					B = R / M_SQRT2,
					Ry = 3.0;

		CHECK_REL(dpb_sens_l1_block(&L, 0, B, R, Ry), 2 * B + 3 * B * B, 1e-9, "T2 L1 ar");
		CHECK_REL(dpb_sens_l1_block(&L, 1, B, R, Ry), Ry + 2 * Ry * B, 1e-9, "YT1 L1 ar");
		CHECK_REL(dpb_sens_l1_block(&L, 2, B, R, Ry), Ry * Ry, 1e-9, "YY L1 ar");
		CHECK_REL(dpb_sens_l1_block(&L, 3, B, R, Ry), 1.0, 1e-9, "count L1");
	}
}

/* every model calibrates under both relations with the default weights,
 * over the radii; the count block's default weight is its sensitivity 1 */
static void
check_ar_calibration(void)
{
	int			m,
				ic,
				xm,
				ir,
				nb,
				mech;

	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (xm = 0; xm <= (m == DPB_MODEL_LINEAR); xm++)
				for (ir = 0; ir < AR_NR; ir++)
					for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
						for (mech = DPB_MECH_GAUSSIAN; mech <= (m == DPB_MODEL_LINEAR ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN); mech++)
						{
							dpb_release r;
							dpb_layout	L;
							dpb_err		err;
							dpb_status	st;

							memset(&r, 0, sizeof(r));
							r.version = DPB_RELEASE_VERSION;
							r.model = (dpb_model) m;
							r.d = 3;
							r.n = nb == DPB_NB_REPLACE ? 50 : 0;
							dpb_params_default(&r.p);
							r.p.d = 3;
							r.p.intercept = ic;
							r.p.clip = ar_radii[ir];
							r.p.y_bound = m == DPB_MODEL_LOGISTIC ? 0.0 : 2.0;
							r.p.neighbours = (dpb_neighbours) nb;
							r.p.mechanism = (dpb_mechanism) mech;
							r.p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-6 : 0.0;
							r.p.x_moments = xm ? 0.3 : 0.0;
							st = dpb_release_calibrate(&r, &err);
							CHECK(st == DPB_OK && dpb_isfinite(r.noise_scale) && r.noise_scale > 0,
								  "calibrate %s ic=%d xm=%d R=%g %s %s: %s",
								  dpb_model_name((dpb_model) m), ic, xm, ar_radii[ir],
								  dpb_neighbours_name((dpb_neighbours) nb),
								  dpb_mechanism_name((dpb_mechanism) mech), st == DPB_OK ? "" : err.msg);
							dpb_release_layout(&r, &L);
							CHECK(L.add_remove == (nb == DPB_NB_ADD_REMOVE), "layout flag");
							if (L.add_remove && st == DPB_OK)
							{
								double		n,
											sd;
								int			known;

								CHECK_REL(r.block_weight[L.nmodel_blocks - 1], 1.0, 1e-9, "count weight");
								r.stats = calloc(L.nstats, sizeof(double));
								/* a value on the count block's noise grid */
								r.stats[dpb_layout_count_index(&L)] = ldexp(85.0, r.grid_exp[L.nmodel_blocks - 1]);
								CHECK(dpb_release_validate(&r, &err) == DPB_OK, "validate: %s", err.msg);
								dpb_release_count(&r, &n, &sd, &known);
								CHECK(n == ldexp(85.0, r.grid_exp[L.nmodel_blocks - 1]) && !known && sd > 0 &&
									  dpb_isfinite(sd), "release count");
								r.n = 7;
								CHECK(dpb_release_validate(&r, &err) == DPB_ECORRUPT,
									  "an exact n under add_remove is rejected");
								free(r.stats);
							}
						}
}

/* ------------------------------------------------------------------ */

static void
check_errors(void)
{
	dpb_layout	L;
	dpb_err		err;
	double		delta;
	double		bad[3] = {1.0, 0.0, 1.0};

	dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
	CHECK(dpb_sens_l2(&L, 0.0, 1.0, NULL, &delta, &err) == DPB_EINVAL, "R = 0");
	CHECK(dpb_sens_l2(&L, NAN, 1.0, NULL, &delta, &err) == DPB_EINVAL, "R nan");
	CHECK(dpb_sens_l2(&L, 1.0, -1.0, NULL, &delta, &err) == DPB_EINVAL, "Ry < 0");
	CHECK(dpb_sens_l2(&L, 1.0, INFINITY, NULL, &delta, &err) == DPB_EINVAL, "Ry inf");
	CHECK(dpb_sens_l2(&L, 1.0, 1.0, bad, &delta, &err) == DPB_EINVAL &&
		  strstr(err.msg, "noise weights") != NULL, "nw = 0: %s", err.msg);
	CHECK(dpb_sens_l2(&L, 1e200, 1.0, NULL, &delta, &err) == DPB_ERANGE, "overflow");
	L.nblocks = 2;
	CHECK(dpb_sens_l2(&L, 1.0, 1.0, NULL, &delta, &err) == DPB_EINVAL, "bad layout");
	/* logistic ignores Ry */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 2, 1);
	CHECK(dpb_sens_l2(&L, 1.0, 0.0, NULL, &delta, &err) == DPB_OK, "logistic Ry");
}

void
test_sensitivity(void)
{
	verbose = getenv("DPB_UNIT_VERBOSE") != NULL;
	check_identities();
	check_papers();
	check_joint();
	check_xmoments();
	check_blocks();
	check_l1();
	check_ar_l2();
	check_ar_l1();
	check_ar_calibration();
	check_errors();
}
