/*
 * test_yclamp.c — the count of clamped responses (the YCLAMP block,
 * layout.h; docs/privacy.md §17): its place in the layout, its sensitivity
 * against brute force over raw records (the indicator 1{|y_raw| > Ry}
 * together with the clamped record's monomials), the budget shares, the
 * exact count in a release made from rows, the binary form (version 4, and
 * versions 2 and 3 still read), and the partial state that carries it.
 */
#include "unit.h"
#include "release.h"
#include "rstate.h"
#include "clip.h"
#include "sensitivity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t yc_rng = 0x2545F4914F6CDD1DULL;

static double
urand(void)
{
	return unit_xorshift_uniform(&yc_rng);
}

static double
sq(double v)
{
	return v * v;
}

/* ---- the layout ---- */

static void
check_layout(void)
{
	dpb_layout	L;
	char		buf[64];
	int			ic,
				ar,
				xm;

	for (ic = 0; ic <= 1; ic++)
		for (ar = 0; ar <= 1; ar++)
			for (xm = 0; xm <= 1; xm++)
			{
				int			nb,
							nm,
							nmb;

				dpb_layout_init(&L, DPB_MODEL_LINEAR, 3, ic);
				if (ar)
					dpb_layout_add_count(&L);
				if (xm)
					dpb_layout_add_xmoments(&L);
				nb = L.nblocks;
				nm = L.nmodel;
				nmb = L.nmodel_blocks;
				CHECK(dpb_layout_yclamp_index(&L) == -1, "no yclamp index before");
				CHECK(dpb_layout_add_yclamp(&L) == DPB_OK, "add yclamp");
				CHECK(L.nblocks == nb + 1 && L.nmodel == nm && L.nmodel_blocks == nmb,
					  "yclamp is not a model block");
				CHECK(L.kind[L.nblocks - 1] == DPB_BLK_YCLAMP && L.len[L.nblocks - 1] == 1,
					  "yclamp is the last block, one entry");
				CHECK(dpb_layout_yclamp_index(&L) == L.nstats - 1, "yclamp index");
				CHECK(ar ? dpb_layout_count_index(&L) == L.nmodel - 1 : dpb_layout_count_index(&L) == -1,
					  "the count index is unchanged");
				dpb_layout_label(&L, L.nstats - 1, NULL, buf, sizeof(buf));
				CHECK(strcmp(buf, "n_y_clamped") == 0, "label %s", buf);
				CHECK(strcmp(dpb_block_kind_name(DPB_BLK_YCLAMP), "y_clamped") == 0, "kind name");
				/* nothing may follow it, and it comes once */
				CHECK(dpb_layout_add_yclamp(&L) == DPB_EINVAL, "yclamp twice refused");
				CHECK(dpb_layout_add_xmoments(&L) == DPB_EINVAL || xm, "x moments after yclamp refused");
				CHECK(dpb_layout_add_count(&L) == DPB_EINVAL, "count after yclamp refused");
			}
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 3, 1);
	CHECK(dpb_layout_add_yclamp(&L) == DPB_EINVAL, "logistic refuses yclamp");
	dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 1);
	CHECK(dpb_layout_add_yclamp(&L) == DPB_EINVAL, "poisson refuses yclamp");
}

/* ---- sensitivity: brute force over raw records ---- */

/* A raw record: z in the ball of radius R (adversarial: on the sphere,
 * along an axis or the diagonal), y_raw in [-2 Ry, 2 Ry]. */
static void
raw_record(int d, double R, int rep, double *z, double *yraw, double Ry)
{
	double		n = 0.0;
	int			j,
				adv = rep % 2 == 0;

	for (j = 0; j < d; j++)
	{
		z[j] = adv && rep % 4 == 0 ? (j == (rep / 4) % d ? 1.0 : 0.0) :
			adv ? ((j + rep / 4) % 2 ? -1.0 : 1.0) : 2.0 * urand() - 1.0;
		n += z[j] * z[j];
	}
	for (j = 0; j < d; j++)
		z[j] *= (adv ? R : R * sqrt(urand())) / sqrt(n);
	/* a third at the bound, a third beyond it (clamped), a third inside */
	switch (rep % 3)
	{
		case 0:
			*yraw = (urand() < 0.5 ? -1 : 1) * Ry;
			break;
		case 1:
			*yraw = (urand() < 0.5 ? -1 : 1) * Ry * (1.0 + urand());
			break;
		default:
			*yraw = Ry * (2.0 * urand() - 1.0);
			break;
	}
}

/* The weighted contribution vector of a raw record, from the layout's
 * entries: the monomials of (z, clamp(y_raw)) and, for YCLAMP, the
 * indicator |y_raw| > Ry, each divided by its block's noise weight and
 * multiplied by its entry weight. */
static void
contribution(const dpb_layout *L, const double *nw, const double *z, double yraw,
			 double Ry, double *out)
{
	double		y = yraw < -Ry ? -Ry : yraw > Ry ? Ry : yraw;
	int			k;

	for (k = 0; k < L->nstats; k++)
	{
		dpb_entry	e;
		double		v;

		dpb_layout_entry(L, k, &e);
		if (L->kind[e.block] == DPB_BLK_YCLAMP)
			v = fabs(yraw) > Ry ? 1.0 : 0.0;
		else
		{
			v = e.weight * pow(y, e.ypow);
			if (e.i >= 0)
				v *= e.i < L->intercept ? 1.0 : z[e.i - L->intercept];
			if (e.j >= 0)
				v *= e.j < L->intercept ? 1.0 : z[e.j - L->intercept];
			if (e.k >= 0)
				v *= z[e.k - L->intercept];
			if (e.l >= 0)
				v *= z[e.l - L->intercept];
		}
		out[k] = v / nw[e.block];
	}
}

/*
 * Gaussian: the joint L2 sensitivity with the block is the old one plus
 * c_C = 1 / w_C^2 (exact under add/remove, an upper bound under replace);
 * over raw records (add/remove) and pairs (replace) the weighted change
 * never exceeds it, and under add/remove a clamped record on the sphere
 * reaches it.  Without the indicator (a record at |y| = Ry, not clamped)
 * the old sensitivity is reached but not the new one: the indicator is
 * what the c_C pays for.
 */
static void
check_sens_l2(void)
{
	static const double Rs[] = {1e-3, 0.5, 1.0, 4.0};
	static const double Rys[] = {0.3, 1.0, 7.0};
	int			ic,
				ar,
				xm,
				ir,
				iy;
	double		worst_gap = 0.0;

	for (ic = 0; ic <= 1; ic++)
		for (ar = 0; ar <= 1; ar++)
			for (xm = 0; xm <= 1; xm++)
				for (ir = 0; ir < 4; ir++)
					for (iy = 0; iy < 3; iy++)
					{
						const int	d = 3;
						dpb_layout	L,
									O;
						double		nw[DPB_MAX_BLOCKS],
									R = Rs[ir],
									Ry = Rys[iy],
									dnew,
									dold,
									best = 0.0,
									best_unclamped = 0.0;
						double	   *u,
								   *v;
						dpb_err		err;
						char		what[128];
						int			b,
									rep,
									k;

						dpb_layout_init(&L, DPB_MODEL_LINEAR, d, ic);
						if (ar)
							dpb_layout_add_count(&L);
						if (xm)
							dpb_layout_add_xmoments(&L);
						O = L;
						dpb_layout_add_yclamp(&L);
						for (b = 0; b < L.nblocks; b++)
							nw[b] = exp(3.0 * urand() - 1.5);
						snprintf(what, sizeof(what), "ic=%d ar=%d xm=%d R=%g Ry=%g", ic, ar, xm, R, Ry);
						CHECK(dpb_sens_l2(&L, R, Ry, nw, &dnew, &err) == DPB_OK, "%s: %s", what, err.msg);
						CHECK(dpb_sens_l2(&O, R, Ry, nw, &dold, &err) == DPB_OK, "%s: %s", what, err.msg);
						CHECK_REL(sq(dnew), sq(dold) + 1.0 / sq(nw[L.nblocks - 1]), 1e-9,
								  "Delta^2 = Delta_old^2 + c_C");
						CHECK_REL(dpb_sens_l2_block(&L, L.nblocks - 1, R, Ry), 1.0, 1e-9,
								  "the block alone: 1");
						u = malloc(sizeof(double) * L.nstats);
						v = malloc(sizeof(double) * L.nstats);
						for (rep = 0; rep < 600; rep++)
						{
							double		z[3],
										z2[3],
										y,
										y2,
										s = 0.0;

							raw_record(d, R, rep, z, &y, Ry);
							contribution(&L, nw, z, y, Ry, u);
							if (ar)
							{
								for (k = 0; k < L.nstats; k++)
									s += u[k] * u[k];
							}
							else
							{
								raw_record(d, R, rep + 7, z2, &y2, Ry);
								if (rep % 5 == 0)
								{
									/* antipodal, opposite responses */
									for (k = 0; k < d; k++)
										z2[k] = -z[k];
									y2 = -y;
									if (rep % 10 == 0)
										y2 = -(fabs(y) > Ry ? Ry : y);	/* unclamped */
								}
								contribution(&L, nw, z2, y2, Ry, v);
								for (k = 0; k < L.nstats; k++)
									s += sq(u[k] - v[k]);
							}
							CHECK(s <= sq(dnew), "%s: a change above Delta (%.17g > %.17g)",
								  what, s, sq(dnew));
							if (!(s <= sq(dnew)))
								break;
							best = fmax(best, s);
							if (fabs(y) <= Ry)
								best_unclamped = fmax(best_unclamped, s);
						}
						if (ar)
						{
							/* attained by a clamped record on the sphere */
							CHECK(best >= sq(dnew) * (1.0 - 1e-9), "%s: Delta not attained (%.17g vs %.17g)",
								  what, best, sq(dnew));
							CHECK(best_unclamped <= sq(dold) * (1.0 + 1e-9),
								  "%s: an unclamped record above the old Delta", what);
							worst_gap = fmax(worst_gap, 1.0 - best / sq(dnew));
						}
						free(u);
						free(v);
					}
	(void) worst_gap;
}

/*
 * Laplace: the L1 sensitivity of the block is 1 under both relations; over
 * raw records and pairs the indicator moves by at most 1.
 */
static void
check_sens_l1(void)
{
	int			ar;

	for (ar = 0; ar <= 1; ar++)
	{
		dpb_layout	L;
		int			rep,
					hit = 0;

		dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
		if (ar)
			dpb_layout_add_count(&L);
		dpb_layout_add_yclamp(&L);
		CHECK_REL(dpb_sens_l1_block(&L, L.nblocks - 1, 0.7, 1.0, 2.0), 1.0, 1e-9,
				  "yclamp L1 block");
		for (rep = 0; rep < 300; rep++)
		{
			double		z[2],
						y,
						z2[2],
						y2,
						one[DPB_MAX_BLOCKS],
						u[64],
						v[64],
						ch;
			int			b;

			for (b = 0; b < L.nblocks; b++)
				one[b] = 1.0;
			raw_record(2, 1.0, rep, z, &y, 2.0);
			raw_record(2, 1.0, rep + 1, z2, &y2, 2.0);
			contribution(&L, one, z, y, 2.0, u);
			contribution(&L, one, z2, y2, 2.0, v);
			ch = ar ? fabs(u[L.nstats - 1]) : fabs(u[L.nstats - 1] - v[L.nstats - 1]);
			CHECK(ch <= dpb_sens_l1_block(&L, L.nblocks - 1, 0.7, 1.0, 2.0), "L1 change");
			hit |= ch == 1.0;
		}
		CHECK(hit, "the L1 bound is reached");
	}
}

/* ---- calibration: the shares ---- */

static void
base_release(dpb_release *r, dpb_mechanism mech, dpb_neighbours nb, double sx, double sc)
{
	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = DPB_MODEL_LINEAR;
	r->d = 3;
	r->n = nb == DPB_NB_REPLACE ? 100 : 0;
	dpb_params_default(&r->p);
	r->p.d = 3;
	r->p.clip = 1.3;
	r->p.y_bound = 2.5;
	r->p.mechanism = mech;
	r->p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-6 : 0.0;
	r->p.neighbours = nb;
	r->p.x_moments = sx;
	r->p.y_clamped = sc;
}

/*
 * The count takes the share s_c of the total (gaussian: of Delta^2, as
 * rho adds up; laplace: of the L1 sensitivity, i.e. of epsilon); the
 * moments keep their share s_x of the same total; the model's blocks keep
 * their relative weights.  The count's noise sd is then about
 * 1 / sqrt(2 rho s_c) (gaussian).
 */
static void
check_shares(void)
{
	static const double sxs[] = {0.0, 0.3};
	static const double scs[] = {0.02, 0.2, 0.6};
	int			mech,
				nb,
				ix,
				is;

	for (mech = DPB_MECH_GAUSSIAN; mech <= DPB_MECH_LAPLACE; mech++)
		for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
			for (ix = 0; ix < 2; ix++)
				for (is = 0; is < 3; is++)
				{
					dpb_release r,
								r0;
					dpb_layout	L;
					dpb_err		err;
					double		sx = sxs[ix],
								sc = scs[is],
								part,
								total,
								mom = 0.0;
					int			b,
								yb;
					char		what[128];

					snprintf(what, sizeof(what), "%s %s sx=%g sc=%g", dpb_mechanism_name((dpb_mechanism) mech),
							 dpb_neighbours_name((dpb_neighbours) nb), sx, sc);
					base_release(&r, (dpb_mechanism) mech, (dpb_neighbours) nb, sx, sc);
					base_release(&r0, (dpb_mechanism) mech, (dpb_neighbours) nb, sx, 0.0);
					CHECK(dpb_release_calibrate(&r, &err) == DPB_OK, "%s: %s", what, err.msg);
					CHECK(dpb_release_calibrate(&r0, &err) == DPB_OK, "%s: %s", what, err.msg);
					dpb_release_layout(&r, &L);
					yb = L.nblocks - 1;
					CHECK(L.yclamp && r.nblocks == r0.nblocks + 1 && r.nstats == r0.nstats + 1,
						  "%s: one more block", what);
					CHECK_REL(r.block_sens[yb], 1.0, 1e-9, "block sensitivity 1");
					if (mech == DPB_MECH_GAUSSIAN)
					{
						part = 1.0 / sq(r.block_weight[yb]);
						total = sq(r.sensitivity);
					}
					else
					{
						part = r.block_sens[yb] / r.block_weight[yb];
						total = r.sensitivity;
					}
					CHECK_REL(part / total, sc, 1e-6, what);
					/* the model's blocks: the same relative weights */
					for (b = 1; b < L.nmodel_blocks; b++)
						CHECK_REL(r.block_weight[b] / r.block_weight[0],
								  r0.block_weight[b] / r0.block_weight[0], 1e-12, "model weights");
					/* the moments keep the share s_x of the total */
					if (sx > 0)
					{
						for (b = L.nmodel_blocks; b < yb; b++)
							mom += mech == DPB_MECH_GAUSSIAN ? 0.0 : r.block_sens[b] / r.block_weight[b];
						if (mech == DPB_MECH_GAUSSIAN)
						{
							dpb_layout	X = L;
							double		dx,
										dm;

							X.nblocks = yb;
							X.nstats--;
							X.yclamp = 0;
							dpb_sens_l2(&X, r.p.clip, r.p.y_bound, r.block_weight, &dx, &err);
							X.nblocks = X.nmodel_blocks;
							X.nstats = X.nmodel;
							X.xmoments = 0;
							dpb_sens_l2(&X, r.p.clip, r.p.y_bound, r.block_weight, &dm, &err);
							mom = sq(dx) - sq(dm);
						}
						CHECK_REL(mom / total, sx, 1e-6, "moments' share");
					}
					if (mech == DPB_MECH_GAUSSIAN)
					{
						double	   *sd = malloc(sizeof(double) * r.nstats);

						dpb_release_noise_sd(&r, sd);
						/* rounding to the grid costs a hair (calibrate_gaussian) */
						CHECK(sd[r.nstats - 1] >= 1.0 / sqrt(2.0 * r.rho * sc) * (1 - 1e-9) &&
							  sd[r.nstats - 1] <= 1.02 / sqrt(2.0 * r.rho * sc),
							  "%s: count sd %g vs 1/sqrt(2 rho s_c) %g", what, sd[r.nstats - 1],
							  1.0 / sqrt(2.0 * r.rho * sc));
						free(sd);
					}
				}
}

/* every radius (the range of check_ar_calibration in test_sensitivity.c)
 * calibrates with the default share, under both relations and mechanisms,
 * with and without moments, and a release of zeros on the grid validates */
static void
check_radii(void)
{
	static const double radii[] = {1e-12, 1e-6, 1e-3, 1.0, 10.0, 1e3, 1e6};
	int			ir,
				mech,
				nb,
				xm;

	for (ir = 0; ir < 7; ir++)
		for (mech = DPB_MECH_GAUSSIAN; mech <= DPB_MECH_LAPLACE; mech++)
			for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
				for (xm = 0; xm <= 1; xm++)
				{
					dpb_release r;
					dpb_err		err;
					dpb_status	st;

					base_release(&r, (dpb_mechanism) mech, (dpb_neighbours) nb, xm ? 0.3 : 0.0,
								 DPB_Y_CLAMPED_DEFAULT);
					r.p.clip = radii[ir];
					st = dpb_release_calibrate(&r, &err);
					CHECK(st == DPB_OK, "calibrate R=%g mech %d nb %d xm %d: %s", radii[ir], mech, nb, xm,
						  st == DPB_OK ? "" : err.msg);
					if (st != DPB_OK)
						continue;
					r.stats = calloc(r.nstats, sizeof(double));
					CHECK(dpb_release_validate(&r, &err) == DPB_OK, "validate R=%g: %s", radii[ir], err.detail);
					free(r.stats);
				}
}

/* ---- the parameters ---- */

static void
check_params(void)
{
	dpb_params	p;
	dpb_err		err;
	static const double bad[] = {-0.1, 1.0, 1.5, NAN, INFINITY};
	int			i;

	dpb_params_default(&p);
	p.y_bound = 2.0;
	for (i = 0; i < 5; i++)
	{
		p.y_clamped = bad[i];
		CHECK(dpb_params_check_model(&p, DPB_MODEL_LINEAR, 3, &err) == DPB_EINVAL &&
			  strstr(err.msg, "y_clamped") != NULL, "y_clamped %g refused: %s", bad[i], err.msg);
	}
	p.y_clamped = 0.4;
	p.x_moments = 0.6;
	CHECK(dpb_params_check_model(&p, DPB_MODEL_LINEAR, 3, &err) == DPB_EINVAL,
		  "x_moments + y_clamped = 1 refused");
	p.x_moments = 0.5;
	CHECK(dpb_params_check_model(&p, DPB_MODEL_LINEAR, 3, &err) == DPB_OK, "0.5 + 0.4 ok");
	p.x_moments = 0;
	p.y_clamped = 0.02;
	CHECK(dpb_params_check_model(&p, DPB_MODEL_POISSON, 3, &err) == DPB_EINVAL &&
		  strstr(err.msg, "only available for linear") != NULL, "poisson refused");
	p.y_bound = 0;
	CHECK(dpb_params_check_model(&p, DPB_MODEL_LOGISTIC, 3, &err) == DPB_EINVAL &&
		  strstr(err.msg, "only available for linear") != NULL, "logistic refused");
	/* the default share */
	dpb_params_default(&p);
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_LINEAR) == DPB_Y_CLAMPED_DEFAULT, "default linear");
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_LOGISTIC) == 0, "default logistic");
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_POISSON) == 0, "default poisson");
	p.mechanism = DPB_MECH_LAPLACE;
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_LINEAR) == DPB_Y_CLAMPED_DEFAULT, "default laplace");
	p.mechanism = DPB_MECH_LDP_GAUSSIAN;
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_LINEAR) == 0, "default ldp");
	p.mechanism = DPB_MECH_GAUSSIAN;
	p.x_moments = 0.99;
	CHECK(dpb_params_default_y_clamped(&p, DPB_MODEL_LINEAR) == 0, "no room left by x_moments");
}

/* ---- a release from rows ---- */

static void
make_rows(int n, int d, double Ry, double *X, double *Y, int *nclamped)
{
	int			i,
				j;

	*nclamped = 0;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < d; j++)
			X[i * d + j] = 2.0 * urand() - 1.0;
		/* a few beyond the bound, some exactly at it (not clamped) */
		Y[i] = i % 17 == 0 ? (i % 2 ? -1 : 1) * Ry * (1.0 + urand()) :
			i % 13 == 0 ? (i % 2 ? -Ry : Ry) : Ry * (2.0 * urand() - 1.0);
		*nclamped += fabs(Y[i]) > Ry;
	}
}

static void
check_from_rows(void)
{
	const int	n = 1000,
				d = 2;
	double		X[2000],
				Y[1000],
				Ry = 1.5;
	dpb_params	p;
	dpb_release r,
				r2,
				rnone;
	dpb_err		err;
	dpb_layout	L;
	int			nclamped,
				nb,
				k,
				i;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(77);

	make_rows(n, d, Ry, X, Y, &nclamped);
	CHECK(nclamped > 40, "some rows are clamped (%d)", nclamped);
	for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
	{
		dpb_params_default(&p);
		p.y_bound = Ry;
		p.neighbours = (dpb_neighbours) nb;
		p.y_clamped = 0.05;
		p.has_bounds = 1;
		p.d = d;
		for (k = 0; k < d; k++)
		{
			p.lower[k] = -1;
			p.upper[k] = 1;
		}
		/* the exact path: the count is the number of |y| > y_bound */
		CHECK(dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err) == DPB_OK,
			  "from rows: %s", err.msg);
		dpb_release_layout(&r, &L);
		k = dpb_layout_yclamp_index(&L);
		CHECK(k == r.nstats - 1 && r.stats[k] == nclamped, "exact count %g, want %d",
			  k >= 0 ? r.stats[k] : -1.0, nclamped);
		/* the model's statistics are those of the release without it */
		p.y_clamped = 0;
		CHECK(dpb_release_from_rows(&r2, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err) == DPB_OK,
			  "from rows: %s", err.msg);
		CHECK(r2.nstats == r.nstats - 1, "one more statistic");
		for (i = 0; i < r2.nstats; i++)
			CHECK(r2.stats[i] == r.stats[i], "statistic %d unchanged", i);
		dpb_release_free_stats(&r2);
		dpb_release_free_stats(&r);
		/* mechanism none: the exact count too */
		p.y_clamped = 0.05;
		p.mechanism = DPB_MECH_NONE;
		p.delta = 0;
		CHECK(dpb_release_from_rows(&rnone, DPB_MODEL_LINEAR, &p, d, X, Y, n, rb, NULL, &err) == DPB_OK,
			  "none: %s", err.msg);
		CHECK(rnone.stats[rnone.nstats - 1] == nclamped, "mechanism none: exact count");
		{
			double		yc,
						ysd;

			CHECK(dpb_release_yclamp(&rnone, &yc, &ysd) == 1 && yc == nclamped && ysd == 0,
				  "dpb_release_yclamp, mechanism none");
		}
		dpb_release_free_stats(&rnone);
		/* with noise: the count is on its grid, near the truth (within 6
		 * sd: fails with probability 2e-9) and the release round-trips */
		p.mechanism = DPB_MECH_GAUSSIAN;
		p.delta = 1e-6;
		CHECK(dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, d, X, Y, n, rb, NULL, &err) == DPB_OK,
			  "noisy: %s", err.msg);
		{
			double		sd[64];
			size_t		sz = dpb_release_packed_size(&r);
			unsigned char *buf = malloc(sz);

			dpb_release_noise_sd(&r, sd);
			CHECK(fabs(r.stats[r.nstats - 1] - nclamped) <= 6 * sd[r.nstats - 1],
				  "noisy count %g near %d (sd %g)", r.stats[r.nstats - 1], nclamped, sd[r.nstats - 1]);
			{
				double		yc,
							ysd;

				CHECK(dpb_release_yclamp(&r, &yc, &ysd) == 1 && yc == r.stats[r.nstats - 1] &&
					  ysd == sd[r.nstats - 1] && ysd > 0, "dpb_release_yclamp");
			}
			CHECK(dpb_release_validate(&r, &err) == DPB_OK, "validate: %s", err.msg);
			dpb_release_pack(&r, buf);
			CHECK(dpb_release_unpack(buf, sz, &r2, &err) == DPB_OK, "unpack: %s", err.msg);
			CHECK(r2.version == 4 && r2.p.y_clamped == 0.05 && r2.nstats == r.nstats &&
				  r2.stats[r.nstats - 1] == r.stats[r.nstats - 1], "round trip");
			dpb_release_free_stats(&r2);
			/* an unknown bit in the second flags byte */
			{
				unsigned char *b2 = malloc(sz);
				size_t		off = 4 + 2 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 8 + 6 * 8;

				memcpy(b2, buf, sz);
				CHECK(b2[off] == 1, "the second flags byte holds FLAG2_YCLAMP");
				b2[off] |= 2;
				CHECK(dpb_release_unpack(b2, sz, &r2, &err) == DPB_ECORRUPT, "unknown flags2 bit refused");
				/* the share must be positive */
				memcpy(b2, buf, sz);
				memset(b2 + off + 1, 0, 8);
				CHECK(dpb_release_unpack(b2, sz, &r2, &err) == DPB_ECORRUPT, "share 0 with the flag refused");
				/* the same bytes as version 3: the byte is reserved, the
				 * share and the block are not read, so it is inconsistent */
				memcpy(b2, buf, sz);
				b2[4] = 3;
				CHECK(dpb_release_unpack(b2, sz, &r2, &err) == DPB_ECORRUPT, "v3 with a y_clamped block refused");
				free(b2);
			}
			/* JSON: the share and the block */
			{
				dpb_buf		jb;

				dpb_buf_init(&jb);
				CHECK(dpb_release_to_json(&r, &jb) == DPB_OK, "json");
				CHECK(strstr(jb.data, "\"y_clamped\": 0.050000000000000003") != NULL, "json share");
				CHECK(strstr(jb.data, "{\"kind\": \"y_clamped\"") != NULL, "json block");
				CHECK(strstr(jb.data, "[\"n_y_clamped\"]") != NULL, "json entry");
				CHECK(strstr(jb.data, "\"version\": 4") != NULL, "json version");
				dpb_buf_free(&jb);
			}
			free(buf);
			/* a version-3 release in memory with y_clamped is invalid */
			r.version = 3;
			CHECK(dpb_release_validate(&r, &err) == DPB_ECORRUPT, "v3 + y_clamped invalid");
			dpb_release_free_stats(&r);
		}
		/* versions 2 and 3 without the block are still read */
		p.y_clamped = 0;
		for (i = 2; i <= 3; i++)
		{
			CHECK(dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err) == DPB_OK,
				  "exact: %s", err.msg);
			dpb_release_free_stats(&r);
			/* made as version i: calibrate with its grid, then noise */
			memset(&r, 0, sizeof(r));
			r.version = i;
			r.model = DPB_MODEL_LINEAR;
			r.d = d;
			r.p = p;
			r.n = nb == DPB_NB_REPLACE ? n : 0;
			CHECK(dpb_release_calibrate(&r, &err) == DPB_OK, "calibrate v%d", i);
			r.stats = calloc(r.nstats, sizeof(double));
			CHECK(dpb_release_add_noise(&r, NULL, NULL, rb, &err) == DPB_OK, "noise v%d", i);
			{
				size_t		sz = dpb_release_packed_size(&r);
				unsigned char *buf = malloc(sz);

				dpb_release_pack(&r, buf);
				CHECK(dpb_release_unpack(buf, sz, &r2, &err) == DPB_OK && r2.version == i &&
					  r2.p.y_clamped == 0 && r2.nstats == r.nstats, "version %d read: %s", i, err.msg);
				{
					double		yc,
								ysd;

					CHECK(dpb_release_yclamp(&r2, &yc, &ysd) == 0, "version %d: no count", i);
				}
				dpb_release_free_stats(&r2);
				free(buf);
			}
			dpb_release_free_stats(&r);
		}
	}
	dpb_rbits_free(rb);
}

/*
 * Neighbours: two tables that differ by one clamped record (added, or
 * replacing an unclamped one) have exact counts that differ by exactly 1,
 * what the sensitivity pays for; the other statistics move within the
 * model's sensitivity as before.
 */
static void
check_neighbours(void)
{
	const int	n = 400,
				d = 2;
	double		X[802],
				Y[401],
				Ry = 1.0;
	dpb_params	p;
	dpb_release a,
				b;
	dpb_err		err;
	int			nclamped;

	make_rows(n, d, Ry, X, Y, &nclamped);
	dpb_params_default(&p);
	p.y_bound = Ry;
	p.y_clamped = 0.1;
	/* add/remove: one more row, clamped */
	X[2 * n] = 0.3;
	X[2 * n + 1] = -0.2;
	Y[n] = 50.0;
	dpb_release_from_rows(&a, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err);
	dpb_release_from_rows(&b, DPB_MODEL_LINEAR, &p, d, X, Y, n + 1, NULL, NULL, &err);
	CHECK(b.stats[b.nstats - 1] - a.stats[a.nstats - 1] == 1.0, "added clamped row: +1");
	dpb_release_free_stats(&a);
	dpb_release_free_stats(&b);
	/* replace: row 1 (unclamped: 1 % 17, 1 % 13 != 0) becomes clamped */
	p.neighbours = DPB_NB_REPLACE;
	CHECK(fabs(Y[1]) < Ry, "row 1 is not clamped");
	dpb_release_from_rows(&a, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err);
	Y[1] = -3.0;
	dpb_release_from_rows(&b, DPB_MODEL_LINEAR, &p, d, X, Y, n, NULL, NULL, &err);
	CHECK(b.stats[b.nstats - 1] - a.stats[a.nstats - 1] == 1.0, "replaced by a clamped row: +1");
	dpb_release_free_stats(&a);
	dpb_release_free_stats(&b);
}

/* ---- the accumulator and the partial state ---- */

static void
check_state(void)
{
	const int	d = 3;
	dpb_params	p,
				q;
	dpb_acc_bounds ab;
	dpb_clipper c;
	void	   *raw[3];
	dpb_acc		acc[3];
	int			i,
				s,
				nclamped = 0,
				dd;
	size_t		sz;
	unsigned char *buf;
	dpb_model	mm;
	int64_t		nn;
	const unsigned char *tot;
	dpb_err		err;

	dpb_params_default(&p);
	p.y_bound = 1.0;
	p.y_clamped = 0.02;
	p.d = d;
	ab.model = DPB_MODEL_LINEAR;
	ab.d = d;
	ab.xmom = 0;
	ab.R = 1.0;
	ab.B = 1.0;
	ab.Ry = 1.0;
	dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, d);
	for (s = 0; s < 3; s++)
	{
		raw[s] = malloc(dpb_acc_size(d, 0, 0) + 16);
		dpb_acc_init(&acc[s], (void *) (((uintptr_t) raw[s] + 15) & ~(uintptr_t) 15), &ab);
	}
	/* rows into shard 0 or 1, and all of them into 2 */
	for (i = 0; i < 3000; i++)
	{
		double		x[3] = {urand() - 0.5, urand() - 0.5, urand() - 0.5},
					z[3],
					y = 3.0 * urand() - 1.5;

		dpb_clip_x(&c, x, z);
		nclamped += fabs(y) > 1.0;
		for (s = i % 2; s < 3; s += 2 - i % 2)
		{
			dpb_acc_add(&acc[s], z, dpb_clip_y(&c, y));
			if (dpb_clip_y_clamped(&c, y))
				dpb_acc_add_yclamped(&acc[s]);
		}
	}
	CHECK(*acc[2].yc == nclamped, "the accumulator counts the clamped rows");
	CHECK(*acc[0].yc + *acc[1].yc == nclamped, "the shards split them");
	/* the state of shard 0, packed and loaded, merged with shard 1 */
	sz = dpb_state_stats_size(DPB_MODEL_LINEAR, &p, d);
	buf = malloc(sz);
	dpb_state_stats_pack(DPB_MODEL_LINEAR, &p, d, 1500, &acc[0], buf);
	CHECK(buf[4] == DPB_STATE_VERSION && DPB_STATE_VERSION == 2, "state version 2");
	CHECK(dpb_state_stats_unpack(buf, sz, &mm, &q, &dd, &nn, &tot, &err) == DPB_OK,
		  "unpack: %s", err.detail);
	CHECK(q.y_clamped == 0.02, "the share comes back");
	{
		void	   *r2 = malloc(dpb_acc_size(d, 0, 0) + 16);
		dpb_acc		a2;

		dpb_acc_init(&a2, (void *) (((uintptr_t) r2 + 15) & ~(uintptr_t) 15), &ab);
		CHECK(dpb_state_load_totals(&a2, &q, tot, nn, &err) == DPB_OK, "load: %s", err.detail);
		CHECK(*a2.yc == *acc[0].yc, "the count comes back");
		dpb_acc_merge(&a2, &acc[1]);
		CHECK(*a2.yc == nclamped, "merged count");
		/* a count above n is refused */
		dpb_state_put_i128(buf + sz - 16, (dpb_i128) 1501);
		CHECK(dpb_state_load_totals(&a2, &q, tot, nn, &err) == DPB_ECORRUPT, "count > n refused");
		dpb_state_put_i128(buf + sz - 16, (dpb_i128) -1);
		CHECK(dpb_state_load_totals(&a2, &q, tot, nn, &err) == DPB_ECORRUPT, "negative count refused");
		free(r2);
	}
	free(buf);
	/* a version-1 state (dpbayes 0.1.0: no y_clamped field, no count) */
	p.y_clamped = 0;
	sz = dpb_state_stats_size(DPB_MODEL_LINEAR, &p, d);
	buf = malloc(sz);
	dpb_state_stats_pack(DPB_MODEL_LINEAR, &p, d, 1500, &acc[0], buf);
	{
		size_t		sz1 = sz - 8;
		unsigned char *b1 = malloc(sz1);

		memcpy(b1, buf, 60);
		memcpy(b1 + 60, buf + 68, sz - 68);
		b1[4] = 1;
		CHECK(dpb_state_kind(b1, sz1) == DPB_STATE_KIND_STATS, "a version-1 state's kind");
		CHECK(dpb_state_stats_unpack(b1, sz1, &mm, &q, &dd, &nn, &tot, &err) == DPB_OK &&
			  q.y_clamped == 0 && nn == 1500, "a version-1 state reads: %s", err.detail);
		free(b1);
	}
	free(buf);
	for (s = 0; s < 3; s++)
		free(raw[s]);
}

void
test_yclamp(void)
{
	check_layout();
	check_sens_l2();
	check_sens_l1();
	check_shares();
	check_radii();
	check_params();
	check_from_rows();
	check_neighbours();
	check_state();
}
