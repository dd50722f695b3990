/*
 * test_attack.c — attacks on the release mechanism, as an adversary who
 * knows every row but one would try them (issue 8, finding 1).
 *
 * Two neighbouring 20-row tables D0 and D1; 2000 releases of each, for the
 * Gaussian and the Laplace mechanism.  The adversary knows both candidate
 * tables exactly (so the exact sums S0, S1 and the noise grid) and guesses
 * which table a release came from with:
 *   lattice  "released - S_c is a value the sampler can produce" (the attack
 *            that identified every table of the floating-point sampler);
 *   parity   the low bit of the released value in grid units against the
 *            low bit of round(S_c / g);
 *   LR       the likelihood-ratio (Neyman-Pearson optimal) test, at several
 *            thresholds.
 * For every attack and threshold, (eps, delta)-DP bounds the true and false
 * positive rates: TPR <= e^eps FPR + delta and (1 - FPR) <= e^eps (1 - TPR)
 * + delta.  With 2000 + 2000 trials we compute a 99.9% Clopper-Pearson lower
 * bound on the eps the attack demonstrates, and require it not to exceed the
 * stated eps.  A negative control (the grid rounding of S left out: noise
 * on the grid added to an off-grid sum) must be caught by the same harness.
 */
#include "unit.h"

#include "release.h"
#include "sim.h"
#include "audit_stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

#define NROWS 20
#define NREL 2000
#define D 2

typedef struct attack_data
{
	int			nstats;
	double		g[64];			/* grid step of each entry */
	double		scale[64];		/* noise scale (sigma or b) */
	double		m0[64];			/* round(S0 / g): the adversary's centres */
	double		m1[64];
	double		s0[64];			/* the exact sums */
	double		s1[64];
} attack_data;

/* one release of table t: the product path, or (control) the bug of adding
 * grid noise to the unrounded sum */
static void
release_of(const dpb_params *p, const double *X, const double *Y, int n,
		   dpb_rbits *rb, int buggy, const attack_data *ad, int t, double *out)
{
	dpb_release r;
	dpb_err		err;
	int			k;

	if (!buggy)
	{
		CHECK(dpb_release_from_rows(&r, DPB_MODEL_LINEAR, p, D, X, Y, n, rb, NULL, &err) == DPB_OK,
			  "release: %s", err.msg);
		memcpy(out, r.stats, sizeof(double) * r.nstats);
		dpb_release_free_stats(&r);
		return;
	}
	for (k = 0; k < ad->nstats; k++)
	{
		int64_t		y;

		if (p->mechanism == DPB_MECH_GAUSSIAN)
			dpb_dgauss(rb, (uint64_t) ceil((ad->scale[k] / ad->g[k]) * (ad->scale[k] / ad->g[k])), &y);
		else
			dpb_dlaplace(rb, (uint64_t) ceil(ad->scale[k] / ad->g[k]), &y);
		out[k] = (t ? ad->s1[k] : ad->s0[k]) + ad->g[k] * (double) y;
	}
}

/* log-likelihood ratio log p(o | D1) / p(o | D0) */
static double
llr(const attack_data *ad, int gaussian, const double *o)
{
	double		l = 0;
	int			k;

	for (k = 0; k < ad->nstats; k++)
	{
		double		a = (o[k] - ad->g[k] * ad->m0[k]) / ad->scale[k],
					b = (o[k] - ad->g[k] * ad->m1[k]) / ad->scale[k];

		l += gaussian ? 0.5 * (a * a - b * b) : fabs(a) - fabs(b);
	}
	return l;
}

static int
on_lattice(const attack_data *ad, const double *o, const double *centre_sum, int rounded)
{
	int			k;

	for (k = 0; k < ad->nstats; k++)
	{
		double		c = rounded ? ad->g[k] * nearbyint(centre_sum[k] / ad->g[k]) : centre_sum[k],
					u = (o[k] - c) / ad->g[k];

		/* the released double carries the rounding of the sum: allow it */
		if (fabs(u - nearbyint(u)) > 1e-6)
			return 0;
	}
	return 1;
}

/* runs every attack on one mechanism; returns the largest eps lower bound */
static double
run_attacks(dpb_mechanism mech, dpb_neighbours nb, int buggy, gsl_rng *grng, const char *what)
{
	dpb_params	p;
	dpb_release r0;
	dpb_err		err;
	dpb_layout	L;
	attack_data ad;
	dpb_rbits  *rb = sim_bits(grng);
	double		X[(NROWS + 1) * D],
				Y[NROWS + 1],
				X1[(NROWS + 1) * D],
				Y1[NROWS + 1],
			   *llr0 = malloc(sizeof(double) * NREL),
			   *llr1 = malloc(sizeof(double) * NREL),
				worst = 0,
				o[64];
	int			i,
				k,
				t,
				lat[2] = {0, 0},
				par[2] = {0, 0},
				n1;

	dpb_params_default(&p);
	p.epsilon = 1;
	p.mechanism = mech;
	p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-5 : 0;
	p.y_bound = 2;
	p.clip = 1;
	p.neighbours = nb;
	for (i = 0; i < NROWS; i++)
	{
		X[i * D] = gsl_ran_flat(grng, -0.5, 0.5);
		X[i * D + 1] = gsl_ran_flat(grng, -0.5, 0.5);
		Y[i] = gsl_ran_flat(grng, -1, 1);
	}
	/* D1: under replace-one neighbours D0 with its last row replaced by a
	 * row at the other end of the domain; under add/remove (the default) D0
	 * with that row added (the count then differs too) */
	memcpy(X1, X, sizeof(X));
	memcpy(Y1, Y, sizeof(Y));
	n1 = nb == DPB_NB_REPLACE ? NROWS : NROWS + 1;
	X1[(n1 - 1) * D] = 0.7;
	X1[(n1 - 1) * D + 1] = -0.7;
	Y1[n1 - 1] = -2;

	/* what the adversary knows: the exact sums and the mechanism */
	CHECK(dpb_release_from_rows(&r0, DPB_MODEL_LINEAR, &p, D, X, Y, NROWS, NULL, NULL, &err) == DPB_OK,
		  "%s: exact sums: %s", what, err.msg);
	memcpy(ad.s0, r0.stats, sizeof(double) * r0.nstats);
	ad.nstats = r0.nstats;
	dpb_release_noise_scale(&r0, ad.scale);
	dpb_release_layout(&r0, &L);
	for (k = 0; k < ad.nstats; k++)
	{
		dpb_entry	en;

		dpb_layout_entry(&L, k, &en);
		ad.g[k] = ldexp(1.0, r0.grid_exp[en.block]);
		ad.m0[k] = nearbyint(ad.s0[k] / ad.g[k]);
	}
	dpb_release_free_stats(&r0);
	CHECK(dpb_release_from_rows(&r0, DPB_MODEL_LINEAR, &p, D, X1, Y1, n1, NULL, NULL, &err) == DPB_OK,
		  "%s: exact sums: %s", what, err.msg);
	memcpy(ad.s1, r0.stats, sizeof(double) * r0.nstats);
	for (k = 0; k < ad.nstats; k++)
		ad.m1[k] = nearbyint(ad.s1[k] / ad.g[k]);
	dpb_release_free_stats(&r0);

	for (t = 0; t <= 1; t++)
		for (i = 0; i < NREL; i++)
		{
			int			p0,
						p1;

			release_of(&p, t ? X1 : X, t ? Y1 : Y, t ? n1 : NROWS, rb, buggy, &ad, t, o);
			/* lattice: guess D1 when only S1 explains the value; when both
			 * (or neither) do, guess at random */
			p0 = on_lattice(&ad, o, ad.s0, !buggy);
			p1 = on_lattice(&ad, o, ad.s1, !buggy);
			if (p1 && !p0)
				lat[t]++;
			else if (p1 == p0 && gsl_rng_uniform(grng) < 0.5)
				lat[t]++;
			/* parity of the first entry whose centres differ in parity */
			for (k = 0; k < ad.nstats; k++)
				if (fmod(fabs(ad.m0[k] - ad.m1[k]), 2.0) == 1.0)
					break;
			if (k < ad.nstats)
			{
				double		u = nearbyint(o[k] / ad.g[k]);

				if (fmod(fabs(u - ad.m1[k]), 2.0) == 0.0)
					par[t]++;
			}
			else if (gsl_rng_uniform(grng) < 0.5)
				par[t]++;
			(t ? llr1 : llr0)[i] = llr(&ad, mech == DPB_MECH_GAUSSIAN, o);
		}
	worst = fmax(worst, audit_eps_lower_bound(lat[1], lat[0], NREL, p.delta, 5e-4));
	worst = fmax(worst, audit_eps_lower_bound(par[1], par[0], NREL, p.delta, 5e-4));
	/* the LR test at thresholds spread over the observed range */
	for (k = -8; k <= 8; k++)
	{
		double		thr = 0.25 * k;
		int			tp = 0,
					fp = 0;

		for (i = 0; i < NREL; i++)
		{
			tp += llr1[i] > thr;
			fp += llr0[i] > thr;
		}
		/* 17 thresholds: Bonferroni on the confidence */
		worst = fmax(worst, audit_eps_lower_bound(tp, fp, NREL, p.delta, 5e-4 / 17));
	}
	if (!buggy)
		printf("  %s: lattice %d/%d vs %d/%d, parity %d vs %d, max eps lower bound %.3f (stated %.3g)\n",
			   what, lat[1], NREL, lat[0], NREL, par[1], par[0], worst, p.epsilon);
	free(llr0);
	free(llr1);
	dpb_rbits_free(rb);
	return worst;
}

void
test_attack(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		e;
	int			nb;

	gsl_rng_set(rng, USEED(20261123));
	for (nb = DPB_NB_ADD_REMOVE; nb <= DPB_NB_REPLACE; nb++)
	{
		const char *rel = nb == DPB_NB_REPLACE ? "replace" : "add/remove";
		char		what[64];

		snprintf(what, sizeof(what), "gaussian, %s", rel);
		e = run_attacks(DPB_MECH_GAUSSIAN, (dpb_neighbours) nb, 0, rng, what);
		CHECK(e <= 1.0, "%s releases: an attack demonstrates eps >= %.3f > 1", what, e);
		snprintf(what, sizeof(what), "laplace, %s", rel);
		e = run_attacks(DPB_MECH_LAPLACE, (dpb_neighbours) nb, 0, rng, what);
		CHECK(e <= 1.0, "%s releases: an attack demonstrates eps >= %.3f > 1", what, e);
	}
	/* negative controls: the harness catches a mechanism that leaks */
	e = run_attacks(DPB_MECH_GAUSSIAN, DPB_NB_ADD_REMOVE, 1, rng, "gaussian, unrounded sum");
	CHECK(e > 3.0, "the attacks miss the unrounded-sum bug (eps lower bound %.3f)", e);
	e = run_attacks(DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, rng, "laplace, unrounded sum");
	CHECK(e > 3.0, "the attacks miss the unrounded-sum bug (eps lower bound %.3f)", e);
	gsl_rng_free(rng);
}

/*
 * The grid's range: sums of many records at the bounds are released
 * unclamped at any epsilon and clip (the grid is at least 2^-16 of one
 * record's largest monomial, so 2^36 records fit in 2^52 steps; the bound
 * itself is checked against one record in test_grid_cost).
 */
void		test_grid_range(void);

void
test_grid_range(void)
{
	static const double clips[] = {1, 1e-4, 1e-8};
	int			n = 300000,
				i,
				k,
				ci,
				mech;
	double	   *X = malloc(sizeof(double) * 2 * n),
			   *Y = malloc(sizeof(double) * n);
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);

	for (i = 0; i < n; i++)
	{
		X[2 * i] = 0.6;
		X[2 * i + 1] = -0.8;
		Y[i] = 2;
	}
	for (mech = DPB_MECH_GAUSSIAN; mech <= DPB_MECH_LAPLACE; mech++)
		for (ci = 0; ci < 3; ci++)
		{
			double		eps;

			for (eps = 1; eps <= 1e12; eps *= 1e4)
			{
				dpb_params	p;
				dpb_release r,
							ex;
				dpb_err		err;
				dpb_rbits  *rb = sim_bits(g);
				double		sd[64];
				int			bad = 0;

				dpb_params_default(&p);
				p.epsilon = eps;
				p.mechanism = (dpb_mechanism) mech;
				p.delta = mech == DPB_MECH_GAUSSIAN ? 1e-6 : 0;
				p.y_bound = 2;
				p.clip = clips[ci];
				CHECK(dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, 2, X, Y, n, rb, NULL, &err) == DPB_OK &&
					  dpb_release_from_rows(&ex, DPB_MODEL_LINEAR, &p, 2, X, Y, n, NULL, NULL, &err) == DPB_OK,
					  "release of %d rows at eps %g, clip %g: %s", n, eps, clips[ci], err.msg);
				dpb_release_noise_sd(&r, sd);
				for (k = 0; k < r.nstats; k++)
					bad += fabs(r.stats[k] - ex.stats[k]) > 8 * sd[k] + 1e-9 * fabs(ex.stats[k]);
				CHECK(bad == 0 && dpb_release_on_grid(&r, NULL),
					  "%s eps %g, clip %g: %d of %d statistics clamped or off the grid",
					  mech == DPB_MECH_GAUSSIAN ? "gaussian" : "laplace", eps, clips[ci],
					  bad, r.nstats);
				dpb_release_free_stats(&r);
				dpb_release_free_stats(&ex);
				dpb_rbits_free(rb);
			}
		}
	gsl_rng_free(g);
	free(X);
	free(Y);
}
