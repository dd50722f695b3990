/*
 * test_grid_cost.c — what the noise grid costs in noise (issue "betaD-Bayes
 * and local DP, hardened and complete", item 10; docs/privacy.md §15).
 *
 * The discrete mechanism pays for rounding the sums to the grid: sigma0 =
 * (Delta + c) / (sqrt(2 rho*) - sqrt(K) 2^-20) (gaussian) or b0 = (Delta_1 +
 * c_1) / (epsilon - K 2^-20) (laplace), c (c_1) the range grids' steps in
 * the weighted space, and each entry's integer noise parameter is rounded up
 * on its grid.  Without a grid the same zCDP (resp. pure DP) route would
 * take sigma0 = Delta / sqrt(2 rho*) (resp. b0 = Delta_1 / epsilon).  The
 * noise multiplier of a release is the largest ratio, over its entries, of
 * the scale of the noise actually drawn (dpb_release_noise_scale) to that
 * grid-free scale.
 *
 * The bound asserted, derived.  Block b's range grid is 2^range_b <
 * 2^(f_b - 16) M_b, M_b the power-of-two bound on one record's largest
 * monomial in the block and f_b <= 4 the number of its factors, each rounded
 * up to a power of two (T1 1, T2 YT1 YY 2, YT2 X3 3, X4 4, the count 0).
 * M_b is attained by a record of the domain (z = R e_1, |y| = Ry), and the
 * block's own sensitivity is at least one record's weighted block (weights
 * >= 1), so w_b Delta >= sens_b >= M_b (gaussian), and likewise w_b Delta_1
 * >= l1_b >= M_b (laplace: l1_b sums the entries' ranges).  Hence
 *     gaussian  c / Delta   < 2^-16 sqrt(sum_b 4^f_b sum_{k in b} weight_k^2)
 *     laplace   c_1 / Delta_1 < 2^-16 sum_b 2^f_b K_b,
 * for every choice of noise weights.  sum_{k in b} weight_k^2 is p^2 for t2
 * kinds (p^2 - 1 for T2 with an intercept) and d^k for X_k.  Over the
 * layouts below the largest values are 2.3e-3 (gaussian, linear d = 3 with
 * x_moments; 1.5e-3 poisson d = 10) and 4.7e-3 (laplace, linear d = 10).
 * The room terms add sqrt(K) 2^-20 / sqrt(2 rho*) <= 4.4e-5 (sqrt(2 rho*) =
 * 0.2472 at epsilon 1, delta 1e-5) and K 2^-20 / epsilon <= 7.5e-5, and the
 * integer parameter is at least 2^13 grid steps (2^(16 - f_b) / epsilon,
 * laplace) so rounding it up adds at most 1.2e-4.  Hence 1.005.
 *
 * That holds only when M_b is the block's true largest monomial.  A T2
 * block with an intercept holds z_j and z_i z_j (w_0 w_0 = 1 is dropped):
 * M_b = R max(1, R).  Release format version 2 used max(1, R)^2, a grid of
 * 2^-16 for every R < 1 while the block's sensitivity shrinks like R: its
 * multiplier grows like 1 / R (about 2e-5 / R at d = 3), which the test
 * checks as a negative control.
 */
#include "unit.h"

#include "release.h"
#include "dnoise.h"

#include <stdlib.h>
#include <string.h>

#define NR 13					/* R = 1e-8, 1e-7, ..., 1e4 */
#define MULT_MAX 1.005
#define MAX_STATS 512

/*
 * The noise multiplier of one release calibrated under format version
 * `version`, at epsilon 1 (delta 1e-5); 0 when the calibration fails.
 */
static double
multiplier(int version, dpb_model model, dpb_mechanism mech, int intercept,
		   dpb_neighbours nb, int bounds, int d, double R, double Ry, double xmom)
{
	dpb_release r;
	dpb_layout	L;
	dpb_entry	e;
	dpb_err		err;
	double		sc[MAX_STATS],
				base,
				worst = 0;
	int			j,
				k;

	memset(&r, 0, sizeof(r));
	r.version = version;
	r.model = model;
	r.d = d;
	dpb_params_default(&r.p);
	r.p.d = d;
	r.p.epsilon = 1;
	r.p.mechanism = mech;
	r.p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-5 : 0;
	r.p.clip = R;
	r.p.y_bound = model == DPB_MODEL_LOGISTIC ? 0 : Ry;
	r.p.intercept = intercept;
	r.p.neighbours = nb;
	r.p.x_moments = xmom;
	r.p.has_bounds = bounds;	/* box scaling: |z_j| <= R / sqrt(d) */
	for (j = 0; j < d; j++)
	{
		r.p.lower[j] = -1;
		r.p.upper[j] = 1;
	}
	if (dpb_params_check_model(&r.p, model, d, &err) != DPB_OK ||
		dpb_release_calibrate(&r, &err) != DPB_OK ||
		dpb_release_layout(&r, &L) != DPB_OK || L.nstats > MAX_STATS)
	{
		CHECK(0, "%s R %g: calibration fails: %s", dpb_model_name(model), R, err.msg);
		return 0;
	}
	if (mech == DPB_MECH_GAUSSIAN)
	{
		double		rho;

		if (dpb_zcdp_rho(r.p.epsilon, r.p.delta, &rho, &err) != DPB_OK)
			return 0;
		base = r.sensitivity / sqrt(2 * rho);
	}
	else
		base = r.sensitivity / r.p.epsilon;
	dpb_release_noise_scale(&r, sc);
	for (k = 0; k < L.nstats; k++)
	{
		double		ideal;

		dpb_layout_entry(&L, k, &e);
		ideal = r.block_weight[e.block] * base /
			(mech == DPB_MECH_GAUSSIAN ? e.weight : 1.0);
		worst = fmax(worst, sc[k] / ideal);
	}
	return worst;
}

/*
 * The range bound itself: at epsilon 1e12 the range term sets every grid,
 * so g_b = 2^range_b and 2^(range_b + 16) is the power-of-two bound on one
 * record's monomials in block b.  One record at the bounds (z = (R, 0) or
 * (R, R) / sqrt(2), |y| = Ry) must stay within it (2^36 records then fit
 * in 2^52 grid steps), and reach more than 1/8 of it: the bound is a
 * product of at most three factors, each rounded up to a power of two, so
 * it may overstate the largest monomial by less than 2^3, never by more.
 */
static void
range_bound_tight(void)
{
	static const dpb_model models[] = {DPB_MODEL_LINEAR, DPB_MODEL_LOGISTIC, DPB_MODEL_POISSON};
	int			mi,
				ic,
				nb,
				ir,
				ry,
				rec,
				b,
				k;

	for (mi = 0; mi < 3; mi++)
		for (ic = 0; ic < 2; ic++)
			for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
				for (ir = 0; ir < NR; ir++)
					for (ry = 0; ry < 2; ry++)
					{
						double		R = pow(10.0, ir - 8),
									Ry = ry ? R : 1.0,
									top[DPB_MAX_BLOCKS] = {0};
						dpb_params	p;
						dpb_release r;
						dpb_layout	L;
						dpb_entry	e;
						dpb_err		err;
						int			grid[DPB_MAX_BLOCKS] = {0},
									ok = 1;

						if (models[mi] == DPB_MODEL_LOGISTIC && ry)
							continue;
						dpb_params_default(&p);
						p.epsilon = 1e12;
						p.clip = R;
						p.y_bound = models[mi] == DPB_MODEL_LOGISTIC ? 0 : Ry;
						p.intercept = ic;
						p.neighbours = (dpb_neighbours) nb;
						for (rec = 0; rec < 2 && ok; rec++)
						{
							double		X[2] = {2 * R, rec ? 2 * R : 0},
										Y = models[mi] == DPB_MODEL_LOGISTIC ? 1.0 : Ry;

							/* the exact sums of the one record (rb NULL) */
							ok = dpb_release_from_rows(&r, models[mi], &p, 2, X, &Y, 1,
													   NULL, NULL, &err) == DPB_OK &&
								dpb_release_layout(&r, &L) == DPB_OK;
							CHECK(ok, "%s R %g: %s", dpb_model_name(models[mi]), R, err.msg);
							if (!ok)
								break;
							for (k = 0; k < L.nstats; k++)
							{
								dpb_layout_entry(&L, k, &e);
								top[e.block] = fmax(top[e.block], fabs(r.stats[k]));
								grid[e.block] = r.grid_exp[e.block];
							}
							dpb_release_free_stats(&r);
						}
						if (!ok)
							continue;
						for (b = 0; b < L.nblocks; b++)
						{
							double		bound = ldexp(1.0, grid[b] + 16);

							CHECK(top[b] <= bound && top[b] > 0.125 * bound * (1 - 1e-9),
								  "%s, %s intercept, %s, R %g, y_bound %g, block %d (%s): largest monomial %.6g, grid bound %.6g (want within 2^3 above it)",
								  dpb_model_name(models[mi]), ic ? "with" : "without",
								  nb == DPB_NB_REPLACE ? "replace" : "add_remove", R, Ry,
								  b + 1, dpb_block_kind_name(L.kind[b]), top[b], bound);
						}
					}
}

void		test_grid_cost(void);

void
test_grid_cost(void)
{
	/* the rows of the table: model, mechanism, x_moments */
	static const struct
	{
		dpb_model	model;
		dpb_mechanism mech;
		double		xmom;
		const char *name;
	}			rows[] = {
		{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, 0, "linear gaussian"},
		{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, 0.2, "linear gaussian x_moments"},
		{DPB_MODEL_LINEAR, DPB_MECH_LAPLACE, 0, "linear laplace"},
		{DPB_MODEL_LOGISTIC, DPB_MECH_GAUSSIAN, 0, "logistic gaussian"},
		{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 0, "poisson gaussian"},
	};
	static const int ds[] = {1, 3, 10};
	double		table[2][5][2][NR];
	int			v,
				row,
				ic,
				ir,
				nb,
				bd,
				di,
				ry;

	range_bound_tight();

	/*
	 * Version 3 (v = 0) must stay below MULT_MAX everywhere; version 2 (v =
	 * 1, the old grid, kept for old releases) is the negative control.
	 */
	for (v = 0; v < 2; v++)
		for (row = 0; row < 5; row++)
			for (ic = 0; ic < 2; ic++)
				for (ir = 0; ir < NR; ir++)
				{
					double		R = pow(10.0, ir - 8),
								worst = 0;

					/* y_bound 1 and R; both neighbouring relations; no
					 * bounds and box bounds; d = 1, 3, 10 */
					for (ry = 0; ry < 2; ry++)
						for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
							for (bd = 0; bd < 2; bd++)
								for (di = 0; di < 3; di++)
								{
									double		m;

									if (rows[row].xmom > 0 && ds[di] > 3)
										continue;	/* d <= 3 covers X3 and X4 */
									m = multiplier(v ? DPB_RELEASE_VERSION_GRID_A2 : DPB_RELEASE_VERSION,
												   rows[row].model, rows[row].mech, ic,
												   (dpb_neighbours) nb, bd, ds[di], R,
												   ry ? R : 1.0, rows[row].xmom);
									if (v == 0)
										CHECK(m >= 1.0 && m <= MULT_MAX,
											  "%s, %s intercept, d %d, %s, %s, R %g, y_bound %g: noise multiplier %.6g (want 1 <= m <= %g)",
											  rows[row].name, ic ? "with" : "without", ds[di],
											  nb == DPB_NB_REPLACE ? "replace" : "add_remove",
											  bd ? "box bounds" : "no bounds", R,
											  ry ? R : 1.0, m, MULT_MAX);
									worst = fmax(worst, m);
								}
					table[v][row][ic][ir] = worst;
				}
	/*
	 * The negative control: the version 2 grid fails the bound from R =
	 * 1e-3 down with an intercept; without an intercept and from R = 1 up
	 * the two versions are the same grid.
	 */
	for (row = 0; row < 5; row++)
		for (ic = 0; ic < 2; ic++)
			for (ir = 0; ir < NR; ir++)
			{
				if (ic && ir <= 5)
					CHECK(table[1][row][ic][ir] > MULT_MAX,
						  "version 2 grid, %s, R %g: multiplier %.6g within the bound",
						  rows[row].name, pow(10.0, ir - 8), table[1][row][ic][ir]);
				if (!ic || ir >= 8)
					CHECK(table[1][row][ic][ir] == table[0][row][ic][ir],
						  "%s, %s intercept, R %g: versions 2 and 3 differ (%.9g, %.9g)",
						  rows[row].name, ic ? "with" : "without", pow(10.0, ir - 8),
						  table[1][row][ic][ir], table[0][row][ic][ir]);
			}

	for (v = 0; v < 2; v++)
	{
		printf("  noise multiplier, release format version %d (largest over d = 1, 3, 10, y_bound 1 and R,\n"
			   "  both neighbours, with and without box bounds), epsilon 1, delta 1e-5\n",
			   v ? DPB_RELEASE_VERSION_GRID_A2 : DPB_RELEASE_VERSION);
		printf("  %-34s", "R");
		for (ir = 0; ir < NR; ir++)
			printf(" %8.0e", pow(10.0, ir - 8));
		printf("\n");
		for (row = 0; row < 5; row++)
			for (ic = 1; ic >= 0; ic--)
			{
				printf("  %-25s %-8s", rows[row].name, ic ? "icpt" : "no icpt");
				for (ir = 0; ir < NR; ir++)
					printf(table[v][row][ic][ir] < 10 ? " %8.5f" : " %8.1f",
						   table[v][row][ic][ir]);
				printf("\n");
			}
	}
}
