/*
 * linear_coverage.c — fixed-truth coverage of the default linear posterior
 * (issue 26, item 1).  SBC checks calibration when the truth is drawn from
 * the prior; here the truth is fixed, over a grid typical of the public
 * bounds, and we count how often the 90% intervals cover it.
 *
 * Truths: d = 2, features x ~ uniform on the public box [-h, h]^2
 * (h = clip / sqrt(2), clip 1: Sigma = h^2/3 I), y = theta' x (+ theta_0)
 * + N(0, sigma^2), y_bound 1, the total sd of y = y_bound / 3 (y clamped
 * at +-y_bound: 0.3% of records or fewer), split by R^2 = theta' Sigma
 * theta / Var(y) in {0.1, 0.5, 0.9}, slopes' direction (2, -1)/sqrt(5) (the
 * issue's (0.8, -0.4)) or (1, 1)/sqrt(2).  Central releases (default
 * params: intercept, add/remove, Gaussian, delta 1e-6; true intercept
 * 0.1) at N in {1e2, 1e3, 1e4, 1e5} x eps in {0.1, 1, 10}; LDP summed
 * ss_linear releases (no intercept, replace-one, delta 1e-5, N = 5e4) at
 * eps in {1, 4, 8}: the exact sums of the clipped records with one
 * Gaussian draw of the summed noise's variance (n times a report's, as
 * dpb_release_noise_sd of the ldp_gaussian release has it; the N
 * reports' discrete Gaussians summed are Gaussian to within their grid).
 *
 * Per replication: data and noise from seeds (cell, rep), the default
 * posterior with CHAINS x DRAWS after WARMUP (defaults 2 x 500 after 500),
 * sampler seed 7 + rep.  Recorded per variable (theta..., sigma): whether
 * the 5%-95% interval of the draws covers the truth, the z-score
 * (mean - truth) / sd, the posterior sd; per replication the largest
 * R-hat and smallest bulk ESS (converged: R-hat <= 1.02 and ESS >= 100
 * at this length).
 *
 *   bench/linear_coverage [REPS]
 *
 * Environment: CELLS (a substring filter on the cell label, e.g. "ldp",
 * "N=100 "), PRIOR (the options to change, "key=value,...": prior (nig
 * or weak), sigma2_shape, sigma2_scale (in units of y_bound^2),
 * theta_precision, theta_sd (scaled units, per unit of y_bound),
 * intercept_sd (units of y_bound), sigma2_mean (units of y_bound^2),
 * clamp (0 or 1: o->lin.clamp, y's clamping modelled), xfix (1: the features' moments fixed at
 * the truth of the default uniform features, x_moments "prior"), polar (0 or 1:
 * o->lin.polar, the slopes and sigma in polar coordinates)),
 * CHAINS, DRAWS, WARMUP, SDY (the sd of y in units of y_bound, default
 * 1/3: 0.3% of the records clamped at R^2 = 0.1; 1/4: 0.006%), BOUNDS=1
 * (central releases with public bounds [-h, h], as SQL requires: the
 * features' coordinate bound B, which sets the default theta_sd and the
 * prior of Sigma, is then 1/sqrt(2); without bounds, and for the LDP
 * releases, whose protocols have none, it is the clip, 1), XDIST=gauss
 * (features Gaussian with the box's covariance, clip 2), CCOUNT=s (central releases: a noisy
 * count of the records with y clamped, of budget share s, for the clamp's model; default 0:
 * none), YCLAMPED=s (central releases with the block y_clamped of share s: the release's own
 * count, as the SQL aggregates make by default with s = 0.02), NB=ro (central releases under
 * replace-one neighbours, N public), MEDZ=1 (stderr: per cell the mean z-score of the posterior
 * medians).  One markdown row per cell; run by
 * bench/linear_coverage.sh.
 */
#include "bench_util.h"
#include "dnoise.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void		openblas_set_num_threads(int n);

#define NV_MAX 4

typedef struct cell
{
	long		N;
	double		eps;
	int			ldp;
	double		r2;
	int			dir;
} cell;

static int
envi(const char *k, int dflt)
{
	return getenv(k) && *getenv(k) ? atoi(getenv(k)) : dflt;
}

/* PRIOR="key=value,..." onto o (y_bound yb) */
static void
apply_prior(dpb_infer_opts *o, double yb)
{
	const char *s = getenv("PRIOR");
	char		buf[512],
			   *tok,
			   *save;

	if (s == NULL || *s == '\0')
		return;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		char	   *eq = strchr(tok, '=');
		double		v;

		if (eq == NULL)
			continue;
		*eq = '\0';
		v = atof(eq + 1);
		if (strcmp(tok, "sigma2_shape") == 0)
			o->lin.sigma2_shape = v;
		else if (strcmp(tok, "sigma2_scale") == 0)
			o->lin.sigma2_scale = v * yb * yb;
		else if (strcmp(tok, "theta_precision") == 0)
			for (int j = 0; j <= DPB_MAX_D; j++)
				o->lin.theta_precision[j] = v;
		else if (strcmp(tok, "prior") == 0)
			o->lin.prior = strcmp(eq + 1, "nig") == 0 ? DPB_LIN_PRIOR_NIG : DPB_LIN_PRIOR_WEAK;
		else if (strcmp(tok, "theta_sd") == 0)
			for (int j = 0; j <= DPB_MAX_D; j++)
				o->lin.theta_sd[j] = v * yb;
		else if (strcmp(tok, "intercept_sd") == 0)
			o->lin.intercept_sd = v * yb;
		else if (strcmp(tok, "sigma2_mean") == 0)
			o->lin.sigma2_mean = v * yb * yb;
		else if (strcmp(tok, "polar") == 0)
			o->lin.polar = (int) v;
		else if (strcmp(tok, "clamp") == 0)
			o->lin.clamp = (int) v;
		else if (strcmp(tok, "xfix") == 0 && v > 0)
		{
			/* the features' moments fixed at the truth of the uniform
			 * features without bounds (mean 0, Sigma = h^2/3 I, h = 1/sqrt 2;
			 * not for BOUNDS=1 or XDIST=gauss) */
			o->lin.xmoments = DPB_XMOM_PRIOR;
			memset(o->lin.x_cov, 0, sizeof(o->lin.x_cov));
			memset(o->x_mean, 0, sizeof(o->x_mean));
			for (int j = 0; j < 2; j++)
				o->lin.x_cov[j * 2 + j] = 0.5 / 3;
		}
		else
		{
			fprintf(stderr, "unknown PRIOR key %s\n", tok);
			exit(2);
		}
	}
}

/* Wilson 95% interval of k of n */
static void
wilson(int k, int n, double *lo, double *hi)
{
	double		z = 1.959964,
				ph = (double) k / n,
				den = 1 + z * z / n,
				c = (ph + z * z / (2.0 * n)) / den,
				h = z * sqrt(ph * (1 - ph) / n + z * z / (4.0 * n * n)) / den;

	*lo = c - h;
	*hi = c + h;
}

int
main(int argc, char **argv)
{
	const int	reps = argc > 1 ? atoi(argv[1]) : 100;
	const long	Ns[] = {100, 1000, 10000, 100000};
	const double Es[] = {0.1, 1, 10},
				Eldp[] = {1, 4, 8},
				R2s[] = {0.1, 0.5, 0.9},
				dirs[2][2] = {{2 / 2.2360679774997896, -1 / 2.2360679774997896},
				{0.70710678118654752, 0.70710678118654752}};
	const char *filt = getenv("CELLS");
	cell		cells[128];
	int			nc = 0,
				ci;
	const int	d = 2;
	const double yb = 1,
				h = 1 / sqrt(2.0),
				vx = h * h / 3,
				sdy = getenv("SDY") && *getenv("SDY") ? atof(getenv("SDY")) : 1.0 / 3,
				vy = sdy * sdy * yb * yb,
				icpt = 0.1;
	/* XDIST=gauss (a check of the clamp's model, o->lin.clamp): features
	 * Gaussian with the box's covariance, clip 2 (ball-clipped with
	 * probability e^-12) */
	const int	xgauss = getenv("XDIST") && strcmp(getenv("XDIST"), "gauss") == 0;

	gsl_set_error_handler_off();
	openblas_set_num_threads(1);
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 3; k++)
				for (int u = 0; u < 2; u++)
					cells[nc++] = (cell) {Ns[a], Es[b], 0, R2s[k], u};
	for (int b = 0; b < 3; b++)
		for (int k = 0; k < 3; k++)
			for (int u = 0; u < 2; u++)
				cells[nc++] = (cell) {50000, Eldp[b], 1, R2s[k], u};

	for (ci = 0; ci < nc; ci++)
	{
		cell	   *C = &cells[ci];
		char		label[128];
		double		theta[3],
					sigma = sqrt((1 - C->r2) * vy),
					slope = sqrt(C->r2 * vy / vx),
					truth[NV_MAX],
					zsum[NV_MAX] = {0},
					zmed[NV_MAX] = {0},
					zsq[NV_MAX] = {0},
					sdsum[NV_MAX] = {0},
					t0 = bench_now(),
					maxrhat = 0,
					qb[5] = {0};
		int			cover[NV_MAX] = {0},
					nv = 0,
					ok = 0,
					conv = 0,
					ic = !C->ldp;
		long		clipped = 0,
					divs = 0;
		double	   *X = malloc(sizeof(double) * C->N * d),
				   *Y = malloc(sizeof(double) * C->N);

		snprintf(label, sizeof(label), "%s N=%ld eps=%g R2=%g dir=%s", C->ldp ? "ldp" : "central",
				 C->N, C->eps, C->r2, C->dir ? "(1,1)" : "(2,-1)");
		if (filt && *filt && strstr(label, filt) == NULL)
		{
			free(X);
			free(Y);
			continue;
		}
		theta[0] = icpt;
		theta[1] = slope * dirs[C->dir][0];
		theta[2] = slope * dirs[C->dir][1];
		for (int rep = 0; rep < reps; rep++)
		{
			gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
			dpb_params	p;
			dpb_release r;
			dpb_infer_opts o;
			dpb_draws	dr;
			dpb_err		err;
			double	   *x,
						rh = 0,
						eb = INFINITY;
			int64_t		cl = 0;
			dpb_status	st;
			uint64_t	seed = 1000003ULL * (uint64_t) (ci + 1) + (uint64_t) rep;

			gsl_rng_set(g, (unsigned long) seed);
			for (long i = 0; i < C->N; i++)
			{
				double		u = 0;

				for (int j = 0; j < d; j++)
				{
					X[i * d + j] = xgauss ? sqrt(vx) * gsl_ran_ugaussian(g) :
						h * (2 * gsl_rng_uniform(g) - 1);
					u += theta[1 + j] * X[i * d + j];
				}
				Y[i] = (ic ? icpt : 0) + u + sigma * gsl_ran_ugaussian(g);
			}
			dpb_params_default(&p);
			p.epsilon = C->eps;
			p.y_bound = yb;
			p.clip = xgauss ? 2 : 1;
			if (C->ldp)
			{
				p.mechanism = DPB_MECH_LDP_GAUSSIAN;
				p.neighbours = DPB_NB_REPLACE;
				p.intercept = 0;
				p.delta = 1e-5;
				st = dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, d, X, Y, C->N, NULL, &cl, &err);
				if (st == DPB_OK)
				{
					double		sd[64];

					dpb_release_noise_sd(&r, sd);
					for (int k = 0; k < r.nstats; k++)
						r.stats[k] += sd[k] * gsl_ran_ugaussian(g);
				}
			}
			else
			{
				dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(seed);

				/* BOUNDS=1: public bounds [-h, h] on each feature, as the
				 * SQL aggregates require (box scaling maps them onto
				 * [-1/sqrt(2), 1/sqrt(2)]: the same features, but the
				 * coordinate bound B is 1/sqrt(2) instead of the clip, 1) */
				if (envi("BOUNDS", 0))
				{
					p.has_bounds = 1;
					for (int j = 0; j < d; j++)
					{
						p.lower[j] = -h;
						p.upper[j] = h;
					}
				}

				/* YCLAMPED=s: the release's own count of clamped records
				 * (block y_clamped, share s; the SQL aggregates' default is
				 * DPB_Y_CLAMPED_DEFAULT), read by the posterior's clamp */
				p.y_clamped = getenv("YCLAMPED") ? atof(getenv("YCLAMPED")) : 0;
				/* NB=ro: central releases under replace-one neighbours (N
				 * public) instead of the default add/remove */
				if (getenv("NB") && strcmp(getenv("NB"), "ro") == 0)
					p.neighbours = DPB_NB_REPLACE;
				st = dpb_release_from_rows(&r, DPB_MODEL_LINEAR, &p, d, X, Y, C->N, rb, &cl, &err);
				dpb_rbits_free(rb);
			}
			gsl_rng_free(g);
			if (st != DPB_OK)
			{
				fprintf(stderr, "%s rep %d: release failed: %s\n", label, rep, err.msg);
				continue;
			}
			clipped += cl;
			dpb_infer_opts_default(&o, &r);
			/* CCOUNT=s (central releases): the count of records with y
			 * clamped, with the Gaussian noise of a budget share s (sd
			 * sigma0 / (Delta sqrt(s)), as the moment blocks' share; the
			 * model's statistics keep their noise), for the clamp's
			 * dpb_lin_clamp_scale until the release has the block */
			if (!C->ldp && (getenv("CCOUNT") ? atof(getenv("CCOUNT")) : 0) > 0)
			{
				gsl_rng    *gc = gsl_rng_alloc(gsl_rng_mt19937);
				long		nc = 0;
				double		csd = r.noise_scale / r.sensitivity / sqrt((getenv("CCOUNT") ? atof(getenv("CCOUNT")) : 0));

				for (long i = 0; i < C->N; i++)
					nc += fabs(Y[i]) > yb;
				gsl_rng_set(gc, (unsigned long) (seed ^ 0x5bd1e995ULL));
				o.lin.clamp_count = (double) nc + csd * gsl_ran_ugaussian(gc);
				o.lin.clamp_count_sd = csd;
				gsl_rng_free(gc);
			}
			o.chains = envi("CHAINS", 2);
			o.draws = envi("DRAWS", 500);
			o.warmup = envi("WARMUP", 500);
			o.seed = 7 + (uint64_t) rep;
			apply_prior(&o, yb);
			st = dpb_posterior_run(&r, &o, &dr, &err);
			if (st != DPB_OK)
			{
				fprintf(stderr, "%s rep %d: posterior failed: %s\n", label, rep, err.msg);
				dpb_release_free_stats(&r);
				continue;
			}
			nv = ic ? 4 : 3;
			truth[0] = ic ? theta[0] : theta[1];
			truth[1] = ic ? theta[1] : theta[2];
			truth[2] = ic ? theta[2] : sigma;
			truth[3] = sigma;
			x = malloc(sizeof(double) * dr.chains * dr.iters);
			for (int v = 0; v < nv; v++)
			{
				dpb_summary s;

				bench_summarize_var(&dr, v, x, &s);
				cover[v] += s.q5 <= truth[v] && truth[v] <= s.q95;
				zsum[v] += (s.mean - truth[v]) / s.sd;
				zmed[v] += (s.median - truth[v]) / s.sd;
				zsq[v] += (s.mean - truth[v]) * (s.mean - truth[v]) / (s.sd * s.sd);
				sdsum[v] += s.sd;
				rh = s.rhat > rh || s.rhat != s.rhat ? s.rhat : rh;
				eb = s.ess_bulk < eb || s.ess_bulk != s.ess_bulk ? s.ess_bulk : eb;
			}
			free(x);
			/* QBIAS=1: the split of y's variance C = q + sigma^2, q =
			 * theta_x' Sigma theta_x (Sigma the true feature covariance, vx
			 * I): the posterior means of sigma^2, q and C minus the truth,
			 * and tr(Sigma V) (V the slopes' posterior covariance), each in
			 * units of sigma^2's posterior sd, averaged on stderr */
			if (getenv("QBIAS"))
			{
				long		S = (long) dr.chains * dr.iters;
				int			i1 = ic ? 1 : 0,
							is = ic ? 3 : 2;
				double		ms = 0,
							ms2 = 0,
							mq = 0,
							m1 = 0,
							m2 = 0,
							c11 = 0,
							c22 = 0,
							sd2,
							qt = vx * (theta[1] * theta[1] + theta[2] * theta[2]);

				for (long t = 0; t < S; t++)
				{
					const double *w = dr.v + t * dr.nvars;
					double		s2 = w[is] * w[is];

					ms += s2;
					ms2 += s2 * s2;
					mq += vx * (w[i1] * w[i1] + w[i1 + 1] * w[i1 + 1]);
					m1 += w[i1];
					m2 += w[i1 + 1];
					c11 += w[i1] * w[i1];
					c22 += w[i1 + 1] * w[i1 + 1];
				}
				ms /= S;
				mq /= S;
				m1 /= S;
				m2 /= S;
				sd2 = sqrt(fmax(ms2 / S - ms * ms, 1e-300));
				qb[0] += (ms - sigma * sigma) / sd2;
				qb[1] += (mq - qt) / sd2;
				qb[2] += (ms + mq - sigma * sigma - qt) / sd2;
				qb[3] += vx * (c11 / S - m1 * m1 + c22 / S - m2 * m2) / sd2;
				qb[4] += (vx * (m1 * m1 + m2 * m2) - qt) / sd2;
			}
			divs += dr.divergences;
			conv += rh <= 1.02 && eb >= 100;
			maxrhat = rh > maxrhat || rh != rh ? rh : maxrhat;
			ok++;
			dpb_draws_free(&dr);
			dpb_release_free_stats(&r);
		}
		/* | cell | reps | per variable: cover (Wilson lo-hi) | z mean (se) | mean sd | ... */
		printf("| %s | %d | %.2g%% |", label, ok, 100.0 * clipped / ((double) C->N * reps));
		if (nv == 3)
			printf(" — |");
		for (int v = 0; v < nv; v++)
		{
			double		lo,
						hi,
						zm = zsum[v] / ok,
						zse = sqrt(fmax(zsq[v] / ok - zm * zm, 0) / ok);

			wilson(cover[v], ok, &lo, &hi);
			printf(" %d (%.0f–%.0f) %+.2f±%.2f %.3g |", cover[v], 100 * lo, 100 * hi, zm, zse,
				   sdsum[v] / ok);
		}
		printf(" %d | %.3f | %ld | %.0f |\n", conv, maxrhat, divs, bench_now() - t0);
		if (getenv("QBIAS"))
			fprintf(stderr, "%s: in sd(sigma^2): bias sigma^2 %+.2f, q %+.2f, C %+.2f; tr(Sigma V) %.2f; "
					"q at the posterior mean of theta %+.2f\n", label, qb[0] / ok, qb[1] / ok,
					qb[2] / ok, qb[3] / ok, qb[4] / ok);
		/* MEDZ=1: the mean z-score of the posterior median too, on stderr */
		if (getenv("MEDZ"))
		{
			fprintf(stderr, "%s: median z", label);
			for (int v = 0; v < nv; v++)
				fprintf(stderr, " %+.2f", zmed[v] / ok);
			fprintf(stderr, "\n");
		}
		fflush(stdout);
		free(X);
		free(Y);
	}
	return 0;
}
