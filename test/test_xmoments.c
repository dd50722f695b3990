/*
 * test_xmoments.c — the "noisy" moments of the features (x_moments):
 * calibration of the budget split, packing, the moments read back from a
 * release, the statistic moments they imply (equal to the Gaussian
 * Isserlis ones when the moments are Gaussian), and Gibbs-SS with them.
 */
#include "unit.h"

#include "clip.h"
#include "gibbs_linear.h"
#include "posterior.h"
#include "sensitivity.h"
#include "sim.h"
#include "xmoments.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <stdlib.h>
#include <string.h>

static void
random_spd(gsl_rng *rng, int d, double *S)
{
	double		A[16];
	int			i,
				j,
				k;

	for (i = 0; i < d * d; i++)
		A[i] = 0.3 * gsl_ran_ugaussian(rng);
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			S[i * d + j] = i == j ? 0.05 : 0.0;
			for (k = 0; k < d; k++)
				S[i * d + j] += A[i * d + k] * A[j * d + k];
		}
}

/* Gaussian moments through the eta path == the Isserlis path */
static void
test_gaussian_identity(gsl_rng *rng)
{
	int			ic,
				d;

	for (ic = 0; ic <= 1; ic++)
		for (d = 1; d <= 4; d += 3)
		{
			dpb_layout	L;
			dpb_xmom	x;
			double		theta[5],
						mu[4],
						S[16],
						m1[64],
						m2[64],
						V1[64 * 64],
						V2[64 * 64],
						worst = 0.0,
						scale = 0.0;
			int			k,
						n;

			dpb_layout_init(&L, DPB_MODEL_LINEAR, d, ic);
			n = L.nmodel;
			for (k = 0; k < d + ic; k++)
				theta[k] = gsl_ran_ugaussian(rng);
			for (k = 0; k < d; k++)
				mu[k] = 0.4 * gsl_ran_ugaussian(rng);
			random_spd(rng, d, S);
			CHECK(dpb_xmom_alloc(&x, d, ic) == DPB_OK, "alloc");
			dpb_xmom_gaussian(&x, ic, mu, S);
			dpb_xmom_stat_moments(&L, &x, theta, 0.7, m1, V1);
			dpb_linear_stat_moments(&L, theta, 0.7, ic ? mu : (double[4]) {0}, S, m2, V2);
			if (!ic)
			{
				/* without an intercept the Gibbs sampler's mu is 0 */
				memset(mu, 0, sizeof(mu));
				dpb_xmom_gaussian(&x, ic, mu, S);
				dpb_xmom_stat_moments(&L, &x, theta, 0.7, m1, V1);
			}
			for (k = 0; k < n * n; k++)
				scale = fmax(scale, fabs(V2[k]));
			for (k = 0; k < n; k++)
				worst = fmax(worst, fabs(m1[k] - m2[k]) / fmax(1.0, fabs(m2[k])));
			for (k = 0; k < n * n; k++)
				worst = fmax(worst, fabs(V1[k] - V2[k]) / scale);
			CHECK(worst < 1e-12, "ic %d d %d: eta path vs Isserlis: %.3g", ic, d, worst);
			dpb_xmom_free(&x);
		}
}

static void
make_params(dpb_params *p, int d, double eps, double share, dpb_mechanism mech)
{
	int			j;

	dpb_params_default(p);
	p->epsilon = eps;
	p->mechanism = mech;
	p->delta = mech == DPB_MECH_GAUSSIAN ? 1e-6 : 0.0;
	p->y_bound = 3.0;
	p->d = d;
	p->has_bounds = 1;
	for (j = 0; j < d; j++)
	{
		p->lower[j] = -1.0;
		p->upper[j] = 1.0;
	}
	p->x_moments = share;
}

/* the moments read back from an exact release == direct averages */
static void
test_from_release(gsl_rng *rng)
{
	int			ic;

	for (ic = 0; ic <= 1; ic++)
	{
		enum
		{
		d = 3, N = 400};
		double		X[N * d],
					Y[N],
					z[d],
					w[d + 1],
					*direct;
		dpb_params	p;
		dpb_release r;
		dpb_xmom	x;
		dpb_clipper c;
		dpb_err		err;
		int			i,
					j,
					k,
					clipped,
					P = d + ic;
		double		worst = 0.0;

		make_params(&p, d, 1.0, 0.5, DPB_MECH_NONE);
		p.intercept = ic;
		for (i = 0; i < N * d; i++)
			X[i] = 2.0 * gsl_rng_uniform(rng) - 1.0;	/* not Gaussian */
		for (i = 0; i < N; i++)
			Y[i] = X[i * d] - X[i * d + 1] + 0.3 * gsl_ran_ugaussian(rng);
		CHECK(sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, NULL, &r, &clipped) == 0,
			  "exact release with x moments");
		{
			double		nc,
						nsd;
			int			known;

			/* exact (mechanism none): N, or the exact count of add/remove */
			dpb_release_count(&r, &nc, &nsd, &known);
			CHECK(known && nc == N, "the count of an exact release: %g", nc);
			CHECK(dpb_xmom_from_release(&r, nc, &x, &err) == DPB_OK, "moments from release");
		}
		direct = calloc((size_t) P * P * P * P, sizeof(double));
		dpb_clipper_init(&c, &r.p, DPB_MODEL_LINEAR, d);
		for (i = 0; i < N; i++)
		{
			int			a,
						b,
						e;

			dpb_clip_x(&c, X + i * d, z);
			if (ic)
				w[0] = 1.0;
			for (j = 0; j < d; j++)
				w[j + ic] = z[j];
			for (a = 0; a < P; a++)
				for (b = 0; b < P; b++)
					for (e = 0; e < P; e++)
						for (k = 0; k < P; k++)
							direct[((a * P + b) * P + e) * P + k] += w[a] * w[b] * w[e] * w[k] / N;
		}
		for (k = 0; k < P * P * P * P; k++)
			worst = fmax(worst, fabs(direct[k] - x.eta4[k]));
		/* the release sums the records quantised to 22 bits (accum.h):
		 * a product of four coordinates moves by at most 4 * 2^-22 R^4 */
		CHECK(worst < 4 * ldexp(1.0, -22) * 16, "ic %d: eta4 from the release vs direct: %.3g", ic, worst);
		free(direct);
		{
			/* an unknown N: rescaling to another N equals reading the
			 * release with it */
			dpb_xmom	x2;

			dpb_xmom_set_n(&x, ic, 1.7 * N, 1);
			CHECK(dpb_xmom_from_release(&r, 1.7 * N, &x2, &err) == DPB_OK, "moments at 1.7 N");
			worst = 0;
			for (k = 0; k < P * P * P * P; k++)
				worst = fmax(worst, fabs(x2.eta4[k] - x.eta4[k]));
			for (k = 0; k < P * P; k++)
				worst = fmax(worst, fabs(x2.eta2[k] - x.eta2[k]));
			for (k = 0; k < d * d; k++)
				worst = fmax(worst, fabs(x2.Sigma[k] - x.Sigma[k]));
			for (k = 0; k < d; k++)
				worst = fmax(worst, fabs(x2.mu[k] - x.mu[k]));
			CHECK(worst < 1e-14, "ic %d: moments rescaled to 1.7 N vs read at 1.7 N: %.3g", ic, worst);
			CHECK(!ic || (x.eta2[0] == 1 && x.eta4[0] == 1), "E[1] stays 1");
			dpb_xmom_free(&x2);
		}
		dpb_xmom_free(&x);
		dpb_release_free_stats(&r);
	}
}

/* the share of the budget, and packing */
static void
test_calibration(void)
{
	double		shares[] = {0.1, 0.5, 0.8};
	int			i,
				b;

	for (i = 0; i < 6; i++)
	{
		dpb_release r,
					r0,
					u;
		dpb_layout	L,
					M;
		dpb_err		err;
		double		nw[DPB_MAX_BLOCKS],
					dmain;
		unsigned char *buf;

		memset(&r, 0, sizeof(r));
		r.version = DPB_RELEASE_VERSION;
		r.model = DPB_MODEL_LINEAR;
		r.d = 3;
		make_params(&r.p, 3, 2.0, shares[i % 3], DPB_MECH_LAPLACE);
		/* both relations; N is recorded only under replace */
		r.p.neighbours = i < 3 ? DPB_NB_ADD_REMOVE : DPB_NB_REPLACE;
		r.n = i < 3 ? 0 : 100;
		r0 = r;
		r0.p.x_moments = 0;
		r0.p.epsilon = 2.0 * (1.0 - shares[i % 3]);
		CHECK(dpb_release_calibrate(&r, &err) == DPB_OK, "laplace calibrate");
		CHECK(dpb_release_calibrate(&r0, &err) == DPB_OK, "laplace calibrate, no moments");
		/* the model's blocks get the noise of (1 - s) epsilon, up to the
		 * grid's rounding term K 2^-20 of epsilon (release.c) */
		for (b = 0; b < r0.nblocks; b++)
			CHECK_REL(r.block_weight[b] * r.noise_scale,
					  r0.block_weight[b] * r0.noise_scale, 2e-3, "laplace split");
		/* epsilon less the grid's rounding: K 2^-20 and the range grids'
		 * steps (release.c, calibrate_laplace) */
		CHECK(r.sensitivity / r.noise_scale < 2.0 - r.nstats * ldexp(1.0, -20) &&
			  r.sensitivity / r.noise_scale > 2.0 * (1 - 1e-3),
			  "laplace epsilon %.12g", r.sensitivity / r.noise_scale);

		r.p.mechanism = DPB_MECH_GAUSSIAN;
		r.p.delta = 1e-6;
		CHECK(dpb_release_calibrate(&r, &err) == DPB_OK, "gaussian calibrate");
		dpb_release_layout(&r, &L);
		M = L;
		M.nblocks = L.nmodel_blocks;
		M.nstats = L.nmodel;
		M.xmoments = 0;
		memcpy(nw, r.block_weight, sizeof(nw));
		CHECK(dpb_sens_l2(&M, r.p.clip, r.p.y_bound, nw, &dmain, &err) == DPB_OK, "main");
		/* the moments take the share s of Delta^2 */
		CHECK_REL(dmain * dmain / (r.sensitivity * r.sensitivity), 1.0 - shares[i % 3], 1e-9,
				  "gaussian split");

		/* pack and unpack */
		r.stats = calloc(L.nstats, sizeof(double));
		for (b = 0; b < L.nstats; b++)
			r.stats[b] = b * 0.5;
		buf = malloc(dpb_release_packed_size(&r));
		dpb_release_pack(&r, buf);
		CHECK(dpb_release_unpack(buf, dpb_release_packed_size(&r), &u, &err) == DPB_OK,
			  "unpack: %s", err.msg);
		CHECK(u.stats != NULL && u.p.x_moments == shares[i % 3] && u.nstats == L.nstats &&
			  u.stats[L.nstats - 1] == r.stats[L.nstats - 1], "round trip");
		dpb_release_free_stats(&u);
		/* a forged share is caught by the recomputed calibration */
		r.p.x_moments = shares[i % 3] * 0.9;
		dpb_release_pack(&r, buf);
		CHECK(dpb_release_unpack(buf, dpb_release_packed_size(&r), &u, &err) == DPB_ECORRUPT,
			  "forged share rejected");
		free(buf);
		free(r.stats);
	}
}

/* Gibbs-SS with the noisy moments on a large non-Gaussian table agrees
 * with the NIW update variant, and covers the truth */
static void
test_gibbs_noisy(gsl_rng *rng)
{
	enum
	{
	d = 2, N = 40000};
	double	   *X = malloc(sizeof(double) * N * d),
			   *Y = malloc(sizeof(double) * N);
	double		truth[3] = {0.5, 1.0, -0.8};	/* user units */
	dpb_params	p;
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dn,
				du;
	dpb_err		err;
	int			i,
				k,
				clipped,
				st;

	make_params(&p, d, 1.0, 0.5, DPB_MECH_GAUSSIAN);
	for (i = 0; i < N; i++)
	{
		/* skewed, bounded features */
		X[i * d] = 2.0 * pow(gsl_rng_uniform(rng), 2.0) - 1.0;
		X[i * d + 1] = 2.0 * gsl_rng_uniform(rng) - 1.0;
		Y[i] = truth[0] + truth[1] * X[i * d] + truth[2] * X[i * d + 1]
			+ 0.4 * gsl_ran_ugaussian(rng);
	}
	CHECK(sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, rng, &r, &clipped) == 0,
		  "noisy release with x moments");
	dpb_infer_opts_default(&o, &r);
	o.seed = USEED(11);
	o.chains = 2;
	o.draws = 1000;
	o.warmup = 500;
	o.lin.xmoments = DPB_XMOM_NOISY;
	st = dpb_posterior_run(&r, &o, &dn, &err);
	CHECK(st == DPB_OK, "noisy run: %s", err.msg);
	o.lin.xmoments = DPB_XMOM_UPDATE;
	CHECK(dpb_posterior_run(&r, &o, &du, &err) == DPB_OK, "update run");
	if (st == DPB_OK)
		for (k = 0; k < 3; k++)
		{
			double		mn = 0,
						mu = 0,
						vu = 0,
						lo,
						hi;
			int			n = dn.chains * dn.iters;
			double	   *col = malloc(sizeof(double) * n);

			for (i = 0; i < n; i++)
			{
				col[i] = dn.v[(size_t) i * dn.nvars + k];
				mn += col[i] / n;
				mu += du.v[(size_t) i * du.nvars + k] / n;
			}
			for (i = 0; i < n; i++)
				vu += pow(du.v[(size_t) i * du.nvars + k] - mu, 2) / (n - 1);
			gsl_sort(col, 1, n);
			lo = col[(int) (0.005 * n)];
			hi = col[(int) (0.995 * n)];
			printf("  noisy moments theta[%d]: mean %.4f (update %.4f, sd %.4f), 99%% [%.4f, %.4f], truth %.2f\n",
					   k, mn, mu, sqrt(vu), lo, hi, truth[k]);
			CHECK(fabs(mn - mu) < 1.0 * sqrt(vu), "theta[%d]: noisy %.4f vs update %.4f (sd %.4f)",
				  k, mn, mu, sqrt(vu));
			/*
			 * The truth within 5 posterior sd of the mean (a calibrated
			 * posterior misses its 99% interval one time in 100 per
			 * coefficient, and the interval's ends from 2000 correlated
			 * draws wobble by ~0.2 sd: that check failed ~3% of seeds).
			 * Clipping or a moments bug moves the mean by many sd at
			 * N = 4e4.
			 */
			{
				double		vn = 0;

				for (i = 0; i < n; i++)
					vn += (col[i] - mn) * (col[i] - mn) / (n - 1);
				CHECK(fabs(mn - truth[k]) < 5 * sqrt(vn),
					  "theta[%d]: truth %.3f, posterior mean %.4f sd %.4f (99%% [%.4f, %.4f])",
					  k, truth[k], mn, sqrt(vn), lo, hi);
			}
			free(col);
		}
	if (st == DPB_OK)
		dpb_draws_free(&dn);
	dpb_draws_free(&du);
	dpb_release_free_stats(&r);

	/* a release without moments */
	p.x_moments = 0;
	sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, 100, rng, &r, &clipped);
	o.lin.xmoments = DPB_XMOM_NOISY;
	CHECK(dpb_posterior_run(&r, &o, &dn, &err) == DPB_EINVAL, "noisy needs x moments");
	dpb_release_free_stats(&r);
	free(X);
	free(Y);
}

void
test_xmoments(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, USEED(20261122));
	test_gaussian_identity(rng);
	test_from_release(rng);
	test_calibration();
	test_gibbs_noisy(rng);
	gsl_rng_free(rng);
}
