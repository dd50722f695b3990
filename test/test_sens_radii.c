/*
 * test_sens_radii.c — the sensitivity closed forms over clip radii from
 * 1e-12 to 1e6 against a brute force in extended precision (issue 8,
 * finding 3; docs/privacy.md §13).
 *
 * The brute force does not use the polynomial identities of
 * dpb_sens_pair_sq: it builds the released entries of two concrete records
 * z = (r1, 0), z' = (r2 cos phi, r2 sin phi) (d = 2) in long double and sums
 * the squared weighted entry differences, then maximises over (r1, r2, phi,
 * y, y') by a grid scan and a pattern search.  Entrywise differences have no
 * catastrophic cancellation (the intercept's constant entry differs by an
 * exact 0), so the brute force stays accurate where (1 + R^2)^2 - (1 - R^2)^2
 * in doubles loses the R^2 term.  Every closed form must be at least the
 * brute force and within 1.5e-10 relative of it (the documented margin is
 * 1e-10).
 *
 * Set DPB_UNIT_VERBOSE=1 to print the largest ratios.
 */
#include "unit.h"
#include "sensitivity.h"
#include "params.h"
#include "clip.h"

#include <stdlib.h>
#include <string.h>

#define NRADII 45
#define D 2

typedef long double ld;

typedef struct pb
{
	const dpb_layout *L;
	ld			c[DPB_MAX_BLOCKS];	/* 1 / nw^2 of the blocks counted, 0
									 * for the others */
	double		R,
				ylo,
				yhi;
	int			binary;
} pb;

/* weighted value of entry k for record (z, y), in long double */
static ld
entry_ld(const dpb_layout *L, int k, const ld *z, ld y)
{
	dpb_entry	e;
	ld			v;
	int			p;

	dpb_layout_entry(L, k, &e);
	v = (ld) e.weight;
	for (p = 0; p < e.ypow; p++)
		v *= y;
	if (e.i >= 0)
		v *= e.i < L->intercept ? 1.0L : z[e.i - L->intercept];
	if (e.j >= 0)
		v *= e.j < L->intercept ? 1.0L : z[e.j - L->intercept];
	if (e.k >= 0)
		v *= z[e.k - L->intercept];
	if (e.l >= 0)
		v *= z[e.l - L->intercept];
	return v;
}

/* x = (r1, r2, phi, y, y') */
static ld
pb_eval(const pb *P, const double *x)
{
	ld			z[D] = {x[0], 0.0L},
				z2[D] = {x[1] * cosl(x[2]), x[1] * sinl(x[2])},
				sum = 0.0L;
	int			b,
				k;

	for (b = 0; b < P->L->nblocks; b++)
	{
		ld			s = 0.0L;

		if (P->c[b] == 0.0L)
			continue;
		for (k = P->L->start[b]; k < P->L->start[b] + P->L->len[b]; k++)
		{
			ld			dv = entry_ld(P->L, k, z, x[3]) - entry_ld(P->L, k, z2, x[4]);

			s += dv * dv;
		}
		sum += P->c[b] * s;
	}
	return sum;
}

static void
pb_clamp(const pb *P, double *x)
{
	x[0] = fmin(fmax(x[0], 0.0), P->R);
	x[1] = fmin(fmax(x[1], 0.0), P->R);
	x[2] = fmin(fmax(x[2], 0.0), M_PI);
	x[3] = fmin(fmax(x[3], P->ylo), P->yhi);
	x[4] = fmin(fmax(x[4], P->ylo), P->yhi);
}

/* pattern search over the coordinates and pairwise diagonals */
static ld
pb_refine(const pb *P, double *x)
{
	double		step[5] = {P->R / 8, P->R / 8, M_PI / 32,
	(P->yhi - P->ylo) / 8, (P->yhi - P->ylo) / 8};
	ld			best = pb_eval(P, x);
	int			it;

	if (P->binary)
		step[3] = step[4] = 0.0;
	for (it = 0; it < 4000; it++)
	{
		int			improved = 0,
					i,
					j,
					si,
					sj,
					more = 0;

		for (i = 0; i < 5; i++)
			for (j = i; j < 5; j++)
				for (si = -1; si <= 1; si += 2)
					for (sj = -1; sj <= 1; sj += 2)
					{
						double		y[5];
						ld			v;

						if (step[i] <= 0.0 || step[j] <= 0.0 || (i == j && sj > 0))
							continue;
						memcpy(y, x, sizeof(y));
						y[i] += si * step[i];
						if (j != i)
							y[j] += sj * step[j];
						pb_clamp(P, y);
						v = pb_eval(P, y);
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
			more |= step[i] > 1e-14 * (i < 2 ? P->R : i == 2 ? 1.0 : P->yhi - P->ylo);
		if (!more)
			break;
	}
	return best;
}

/* the supremum of the weighted squared distance over pairs of records */
static ld
pb_sup(const pb *P)
{
	static const int NPHI = 24,
				NY = 6;
	double		best_x[3][5];
	ld			best_v[3] = {-1, -1, -1},
				sup = 0;
	int			ip,
				iy,
				iy2,
				ir,
				s;

	/* scan: r1 = R, r2 in {R, R/2}, phi on a grid, y and y' on a grid */
	for (ir = 0; ir < 2; ir++)
		for (ip = 0; ip <= NPHI; ip++)
			for (iy = 0; iy <= (P->binary ? 1 : NY); iy++)
				for (iy2 = 0; iy2 <= (P->binary ? 1 : NY); iy2++)
				{
					double		x[5];
					ld			v;
					int			w;

					x[0] = P->R;
					x[1] = ir ? 0.5 * P->R : P->R;
					x[2] = M_PI * ip / NPHI;
					x[3] = P->binary ? (iy ? 1.0 : -1.0) : P->ylo + (P->yhi - P->ylo) * iy / NY;
					x[4] = P->binary ? (iy2 ? 1.0 : -1.0) : P->ylo + (P->yhi - P->ylo) * iy2 / NY;
					v = pb_eval(P, x);
					/* keep the three best starts */
					for (w = 0; w < 3; w++)
						if (v > best_v[w])
						{
							memmove(best_v + w + 1, best_v + w, sizeof(ld) * (2 - w));
							memmove(best_x + w + 1, best_x + w, sizeof(best_x[0]) * (2 - w));
							best_v[w] = v;
							memcpy(best_x[w], x, sizeof(x));
							break;
						}
				}
	for (s = 0; s < 3; s++)
		if (best_v[s] >= 0)
		{
			ld			v = pb_refine(P, best_x[s]);

			if (v > sup)
				sup = v;
		}
	return sup;
}

static void
pb_init(pb *P, const dpb_layout *L, double R, double Ry)
{
	memset(P, 0, sizeof(*P));
	P->L = L;
	P->R = R;
	switch (dpb_model_ydomain(L->model))
	{
		case DPB_Y_BINARY:
			P->binary = 1;
			P->ylo = -1;
			P->yhi = 1;
			break;
		case DPB_Y_NONNEG:
			P->ylo = 0;
			P->yhi = Ry;
			break;
		default:
			P->ylo = -Ry;
			P->yhi = Ry;
			break;
	}
}

static double worst_ratio = 0.0;	/* max of closed / brute - 1 */
static double worst_under = 0.0;	/* max of 1 - closed / brute */

/* closed form delta (a norm, margin included) against the sup of the
 * squared distance */
static void
compare(const char *what, double R, double delta, ld sup)
{
	ld			ratio = ((ld) delta * delta) / sup;
	double		rel = (double) sqrtl(ratio) - 1.0;

	CHECK(sup > 0 && ratio >= 1.0L,
		  "%s, R = %.3g: closed form %.17g below the brute force %.17g (ratio %.6g)",
		  what, R, delta, (double) sqrtl(sup), (double) sqrtl(ratio));
	CHECK(rel <= 1.5e-10,
		  "%s, R = %.3g: closed form %.17g more than 1.5e-10 above the brute force %.17g",
		  what, R, delta, (double) sqrtl(sup));
	if (rel > worst_ratio)
		worst_ratio = rel;
	if (-rel > worst_under)
		worst_under = -rel;
}

/* the joint L2 sensitivity and every block alone, for one layout */
static void
check_l2(const dpb_layout *L, double R, double Ry, const char *name)
{
	double		nw[3][DPB_MAX_BLOCKS],
				delta;
	dpb_err		err;
	char		what[128];
	pb			P;
	int			b,
				set;

	/* the default weights (each block's own sensitivity), all 1, and a
	 * spread of given weights */
	for (b = 0; b < L->nblocks; b++)
	{
		nw[0][b] = dpb_sens_l2_block(L, b, R, Ry);
		nw[1][b] = 1.0;
		nw[2][b] = nw[0][b] * (b % 2 ? 7.0 : 0.2);
	}
	for (set = 0; set < 3; set++)
	{
		ld			sup;

		CHECK(dpb_sens_l2(L, R, Ry, nw[set], &delta, &err) == DPB_OK,
			  "%s: dpb_sens_l2 failed at R = %g", name, R);
		/* the joint release: the model's blocks; the moment blocks are
		 * bounded separately (sum of the suprema, sensitivity.c) */
		pb_init(&P, L, R, Ry);
		for (b = 0; b < L->nmodel_blocks; b++)
			P.c[b] = 1.0L / ((ld) nw[set][b] * nw[set][b]);
		sup = pb_sup(&P);
		if (L->xmoments)
		{
			pb_init(&P, L, R, Ry);
			for (b = L->nmodel_blocks; b < L->nblocks; b++)
				P.c[b] = 1.0L / ((ld) nw[set][b] * nw[set][b]);
			sup += pb_sup(&P);
		}
		snprintf(what, sizeof(what), "%s joint, weights %d", name, set);
		compare(what, R, delta, sup);
	}
	for (b = 0; b < L->nblocks; b++)
	{
		pb_init(&P, L, R, Ry);
		P.c[b] = 1.0L;
		snprintf(what, sizeof(what), "%s block %d", name, b + 1);
		compare(what, R, dpb_sens_l2_block(L, b, R, Ry), pb_sup(&P));
	}
}

/*
 * The Laplace L1 bound: the sum over the block's entries of each entry's
 * range, which the brute force finds by scanning z over a grid of the box
 * |z_j| <= B intersected with the ball ||z|| <= R (the grid holds 0, +-B,
 * +-R sqrt(m / g) for the multiplicities m of monomials of degree g <= 4
 * where they are feasible: the extremes of every released monomial) and y
 * over [ylo, yhi].
 */
static void
check_l1(const dpb_layout *L, double B, double R, double Ry, const char *name)
{
	double		grid[64];
	int			ng = 0,
				b,
				i;

	grid[ng++] = 0.0;
	grid[ng++] = B;
	if (R / sqrt(2.0) <= B)
		grid[ng++] = R / sqrt(2.0);
	if (R <= B)
		grid[ng++] = R;
	/* the moments' extremes on the ball: |z_f| = R sqrt(m_f / g) */
	for (i = 0; i < 5; i++)
	{
		static const double f[5] = {1.0 / 3, 2.0 / 3, 0.25, 0.5, 0.75};

		if (R * sqrt(f[i]) <= B)
			grid[ng++] = R * sqrt(f[i]);
	}
	for (i = 1; i < 20; i++)
		grid[ng++] = B * i / 20.0;
	for (i = ng - 1; i >= 0; i--)
		grid[ng++] = -grid[i];

	for (b = 0; b < L->nblocks; b++)
	{
		ld			total = 0.0L;
		char		what[128];

		for (i = L->start[b]; i < L->start[b] + L->len[b]; i++)
		{
			dpb_entry	e;
			ld			zlo = 1e300L,
						zhi = -1e300L,
						ylo,
						yhi,
						p[4],
						lo,
						hi,
						w;
			int			a,
						c,
						t;

			dpb_layout_entry(L, i, &e);
			w = (ld) e.weight;
			for (a = 0; a < ng; a++)
				for (c = 0; c < ng; c++)
				{
					ld			z[D] = {grid[a], grid[c]},
								v;

					if (z[0] * z[0] + z[1] * z[1] > (ld) R * R * (1.0L + 1e-15L))
						continue;
					v = entry_ld(L, i, z, 1.0L) / w;
					zlo = fminl(zlo, v);
					zhi = fmaxl(zhi, v);
				}
			/* y^ypow over the domain: its range's endpoints */
			if (e.ypow == 0)
				ylo = yhi = 1.0L;
			else if (e.ypow == 1)
			{
				ylo = dpb_model_ydomain(L->model) == DPB_Y_NONNEG ? 0.0L : -(ld) Ry;
				yhi = Ry;
			}
			else
			{
				ylo = 0.0L;
				yhi = (ld) Ry * Ry;
			}
			p[0] = ylo * zlo;
			p[1] = ylo * zhi;
			p[2] = yhi * zlo;
			p[3] = yhi * zhi;
			lo = hi = p[0];
			for (t = 1; t < 4; t++)
			{
				lo = fminl(lo, p[t]);
				hi = fmaxl(hi, p[t]);
			}
			total += hi - lo;
		}
		snprintf(what, sizeof(what), "%s L1 block %d", name, b + 1);
		/* compare() works on squares */
		compare(what, R, dpb_sens_l1_block(L, b, B, R, Ry), total * total);
	}
}

void
test_sens_radii(void)
{
	static const struct
	{
		dpb_model	m;
		int			ic;
		int			xmom;
		double		Ry;
	}			cfg[] = {
		{DPB_MODEL_LINEAR, 0, 0, 1.0},
		{DPB_MODEL_LINEAR, 1, 0, 1.0},
		{DPB_MODEL_LINEAR, 1, 0, 3.0},
		{DPB_MODEL_LINEAR, 0, 1, 2.0},
		{DPB_MODEL_LINEAR, 1, 1, 1.0},
		{DPB_MODEL_LOGISTIC, 0, 0, 1.0},
		{DPB_MODEL_LOGISTIC, 1, 0, 1.0},
		{DPB_MODEL_POISSON, 0, 0, 2.0},
		{DPB_MODEL_POISSON, 1, 0, 2.0},
	};
	int			verbose = getenv("DPB_UNIT_VERBOSE") != NULL,
				c,
				i;

	for (c = 0; c < (int) (sizeof(cfg) / sizeof(cfg[0])); c++)
		for (i = 0; i < NRADII; i++)
		{
			double		R = pow(10.0, -12.0 + 18.0 * i / (NRADII - 1));
			dpb_layout	L;
			char		name[96];

			dpb_layout_init(&L, cfg[c].m, D, cfg[c].ic);
			if (cfg[c].xmom)
				dpb_layout_add_xmoments(&L);
			snprintf(name, sizeof(name), "%s%s%s Ry=%g", dpb_model_name(cfg[c].m),
					 cfg[c].ic ? " +intercept" : "", cfg[c].xmom ? " +x_moments" : "",
					 cfg[c].Ry);
			check_l2(&L, R, cfg[c].Ry, name);
			if (cfg[c].m == DPB_MODEL_LINEAR)
			{
				check_l1(&L, R / sqrt(2.0), R, cfg[c].Ry, name);	/* box */
				check_l1(&L, R, R, cfg[c].Ry, name);	/* ball */
			}
		}
	if (verbose)
		printf("  sens_radii: closed/brute - 1 at most %.3g, at least %.3g\n",
			   worst_ratio, -worst_under);
}
