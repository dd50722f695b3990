/*
 * betad_mlp.c — NOT PRIVATE benchmarks of the betaD network (issue 28),
 * calling src/core directly with a seeded generator (bench/betad_mlp.sh):
 *
 *   betad_mlp speed N d H W I C R
 *       R draws of a network classifier of H ReLU units on synthetic data
 *       (N rows, d features, beta 2 = epsilon 1 under add/remove), the
 *       sampler of dpb_betad_draw with C chains x (W warmup + I kept):
 *       wall time per draw, gradient evaluations per draw and per
 *       iteration, mean tree depth, and the cost of one gradient measured
 *       in the same process.
 *
 *   betad_mlp approx N H act W I C R REFC
 *       the approximation of the released draw on a small network (d = 2,
 *       H units, act 0 relu / 1 tanh, N rows, beta 2): a reference of REFC
 *       chains x (4000 warmup + 4000), against R replicates of the schedule
 *       C x (W + I), each releasing one uniformly chosen kept draw, as
 *       dpb_betad_draw does.  The weights are not identified (hidden units
 *       permute, tanh units flip sign), so the comparison is on the
 *       network's output f(x) at 5 fixed inputs, which the symmetries leave
 *       unchanged: per input, the KS p of the R released outputs against
 *       the reference's, and the z-scores (release - mean) / sd (mean z^2
 *       ~ 1 for exact draws).  The reference is itself MCMC (many chains
 *       from prior draws, no tempering): it is the target only as far as
 *       those chains mix between the posterior's modes.  GAUSS=1: the
 *       regression network (floor 0.05, beta 1.5) instead.  REF=pt: the
 *       reference is REFC parallel-tempering runs instead (pt_reference;
 *       classification only), which do not rest on where chains start.
 */
#include "betad/betad_model.h"
#include "betad/betad_sample.h"
#include "ks.h"
#include "nuts.h"
#include "bench_util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* synthetic classification data: features uniform on [-1, 1] (already on
 * the public scale), y from a smooth nonlinear logit */
static void
make_data(gsl_rng *g, long N, int d, int gaussian, double *X, double *y)
{
	long		i;
	int			j;

	for (i = 0; i < N; i++)
	{
		double		u = 0.3;

		for (j = 0; j < d; j++)
		{
			X[i * d + j] = 2 * gsl_rng_uniform(g) - 1;
			u += (j % 2 ? -1.0 : 1.5) * X[i * d + j] / sqrt((double) d);
		}
		u = 2 * tanh(2 * u) - 0.8 * X[i * d] * X[i * d];
		y[i] = gaussian ? u + 0.3 * gsl_ran_ugaussian(g) :
			(gsl_rng_uniform(g) < 1 / (1 + exp(-u)) ? 1 : -1);
	}
}

static void
model_init(dpb_betad_model *m, long N, int d, int H, int act, double *X, double *y)
{
	memset(m, 0, sizeof(*m));
	m->d = d;
	m->intercept = 1;
	m->beta = 2.0;
	m->prior_sd = 1.0;
	m->n = N;
	m->X = X;
	m->y = y;
	m->work = malloc(sizeof(double) * 2 * N);
	m->hidden = H;
	m->activation = act;
	m->nwork = malloc(sizeof(double) * dpb_betad_mlp_nwork(H));
}

static double
logp(const double *x, double *grad, void *ctx)
{
	return dpb_betad_logpost((const dpb_betad_model *) ctx, x, grad);
}

/* dpb_betad_chains with a chosen metric */
static dpb_status
chains_metric(const dpb_betad_model *m, const dpb_betad_schedule *s, int dense, gsl_rng *g,
			  double *draws, dpb_nuts_stats *stats)
{
	int			dim = dpb_betad_dim(m),
				c,
				k;
	double	   *init = malloc(sizeof(double) * dim);
	dpb_nuts_opts o;
	dpb_status	st = DPB_OK;

	dpb_nuts_opts_default(&o);
	o.warmup = s->warmup;
	o.draws = s->iters;
	o.curvature_init = 1;
	o.dense = dense;
	/* INIT_DEPTH=k: the tree depth limit until the first metric update (a
	 * study of warmup's cost) */
	if (getenv("INIT_DEPTH") != NULL)
		o.init_max_depth = atoi(getenv("INIT_DEPTH"));
	for (c = 0; c < s->chains && st == DPB_OK; c++)
	{
		for (k = 0; k < dim; k++)
			init[k] = gsl_ran_gaussian(g, m->prior_sd);
		st = dpb_nuts_run(dim, logp, (void *) m, init, &o, g,
						  draws + (size_t) c * s->iters * dim, &stats[c]);
	}
	free(init);
	return st;
}

static int
speed(int argc, char **argv)
{
	long		N = atol(argv[2]);
	int			d = atoi(argv[3]),
				H = atoi(argv[4]),
				R = atoi(argv[8]),
				rep,
				c,
				dim;
	dpb_betad_schedule s = {0, 0, 0};
	double	   *X = malloc(sizeof(double) * N * d),
			   *y = malloc(sizeof(double) * N),
			   *draws,
			   *par,
			   *grad,
				t0,
				tg;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_betad_model m;
	int			ng = 200;

	/* METRIC=dense or diag: the sampler of dpb_betad_chains with that
	 * metric (a study; the mechanism uses the diagonal one for networks) */
	const char *metric = getenv("METRIC");
	int			dense = metric == NULL ? (getenv("INIT_DEPTH") != NULL ? 0 : -1) :
		strcmp(metric, "dense") == 0;

	(void) argc;
	s.warmup = atoi(argv[5]);
	s.iters = atoi(argv[6]);
	s.chains = atoi(argv[7]);
	gsl_rng_set(g, 1);
	make_data(g, N, d, 0, X, y);
	model_init(&m, N, d, H, DPB_BETAD_ACT_RELU, X, y);
	dim = dpb_betad_dim(&m);
	par = malloc(sizeof(double) * dim);
	grad = malloc(sizeof(double) * dim);
	draws = malloc(sizeof(double) * (size_t) s.chains * s.iters * dim);
	for (c = 0; c < dim; c++)
		par[c] = gsl_ran_gaussian(g, 1.0);
	t0 = bench_now();
	for (c = 0; c < ng; c++)
		(void) dpb_betad_logpost(&m, par, grad);
	tg = (bench_now() - t0) / ng;
	printf("network classifier: N %ld, d %d, H %d ReLU (%d parameters), beta 2; schedule %d chains x (%d + %d), %s metric\n",
		   N, d, H, dim, s.chains, s.warmup, s.iters, dense == 1 ? "dense" : "diagonal");
	printf("one log density + gradient: %.3f ms\n\n", 1e3 * tg);
	printf("| draw | wall time (s) | gradients | of which in warmup | gradients per iteration | mean tree depth (kept) | divergences (kept) |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (rep = 0; rep < R; rep++)
	{
		dpb_nuts_stats *st = calloc(s.chains, sizeof(dpb_nuts_stats));
		long		gr = 0,
					gw = 0,
					dv = 0;
		double		depth = 0;

		gsl_rng_set(g, 100 + rep);
		t0 = bench_now();
		if (dense < 0 ? dpb_betad_chains(&m, &s, g, NULL, draws, st) != DPB_OK :
			chains_metric(&m, &s, dense, g, draws, st) != DPB_OK)
		{
			printf("sampler failed\n");
			return 1;
		}
		t0 = bench_now() - t0;
		for (c = 0; c < s.chains; c++)
		{
			gr += st[c].gradient_evals;
			gw += st[c].warmup_gradient_evals;
			depth += st[c].mean_tree_depth / s.chains;
			dv += st[c].divergences;
		}
		printf("| %d | %.1f | %ld | %ld | %.1f | %.2f | %ld |\n", rep + 1, t0, gr, gw,
			   (double) gr / (s.chains * (s.warmup + s.iters)), depth, dv);
		fflush(stdout);
		free(st);
	}
	return 0;
}

#define NX 5

static void
outputs(const dpb_betad_model *m, const double *th, double *f)
{
	static const double xs[NX][2] = {{0, 0}, {0.8, 0.5}, {-0.7, 0.6}, {0.5, -0.9}, {-0.4, -0.3}};
	int			k;

	for (k = 0; k < NX; k++)
		f[k] = dpb_betad_mlp_output(2, m->hidden, m->activation, th, xs[k]);
}

/*
 * A parallel-tempering reference (REF=pt; classification networks only):
 * NREP independent runs, each of K replicas of prior x exp(t_k data) with
 * t_k = TMIN^((K - 1 - k) / (K - 1)) (t = 1 the betaD posterior), each
 * replica moved by HMC with an identity metric, L uniform on 1..LMAX
 * leapfrog steps and its own step size (adapted in burn-in to acceptance
 * 0.65), then swaps of adjacent replicas (even pairs, then odd pairs,
 * alternately).  The t = 1 replica's state is kept every THIN iterations
 * after BURN.  Swaps carry states up from the prior, where the modes are
 * connected, so the reference does not rest on where chains started.
 * Returns the number of kept draws (in *out, malloc'ed), -1 on failure.
 */
#define PT_K 16
#define PT_TMIN 1e-3
#define PT_LMAX 32

static double
tempered(const dpb_betad_model *m, double t, const double *x, double *grad, double *data)
{
	int			dim = dpb_betad_dim(m),
				j;
	double		v2 = m->prior_sd * m->prior_sd,
				lp = dpb_betad_logpost(m, x, grad),
				pr = 0;

	for (j = 0; j < dim; j++)
	{
		pr -= 0.5 * x[j] * x[j] / v2;
		/* grad = prior' + data'; tempered: prior' + t data' */
		grad[j] = -x[j] / v2 + t * (grad[j] + x[j] / v2);
	}
	*data = lp - pr;
	return pr + t * (lp - pr);
}

static long
pt_reference(const dpb_betad_model *m, int nrep, long burn, long iters, int thin, gsl_rng *g,
			 double **out, double *swap_rate)
{
	int			dim = dpb_betad_dim(m),
				K = PT_K,
				r,
				k,
				j;
	long		it,
				nkept = 0,
				nsw = 0,
				nacc = 0;
	double	   *x = malloc(sizeof(double) * K * dim),
			   *gr = malloc(sizeof(double) * K * dim),
			   *lp = malloc(sizeof(double) * K),
			   *dat = malloc(sizeof(double) * K),
			   *q = malloc(sizeof(double) * dim),
			   *p = malloc(sizeof(double) * dim),
			   *gq = malloc(sizeof(double) * dim),
				t[PT_K],
				leps[PT_K];

	*out = malloc(sizeof(double) * (size_t) nrep * (iters / thin + 1) * dim);
	for (k = 0; k < K; k++)
		t[k] = pow(PT_TMIN, (double) (K - 1 - k) / (K - 1));
	for (r = 0; r < nrep; r++)
	{
		for (k = 0; k < K; k++)
		{
			for (j = 0; j < dim; j++)
				x[k * dim + j] = gsl_ran_gaussian(g, m->prior_sd);
			lp[k] = tempered(m, t[k], x + k * dim, gr + k * dim, &dat[k]);
			leps[k] = log(0.1);
		}
		for (it = 0; it < burn + iters; it++)
		{
			for (k = 0; k < K; k++)
			{
				int			L = 1 + (int) gsl_rng_uniform_int(g, PT_LMAX),
							l;
				double		eps = exp(leps[k]),
							h0 = -lp[k],
							lq,
							dq,
							a;

				memcpy(q, x + k * dim, sizeof(double) * dim);
				memcpy(gq, gr + k * dim, sizeof(double) * dim);
				for (j = 0; j < dim; j++)
				{
					p[j] = gsl_ran_ugaussian(g);
					h0 += 0.5 * p[j] * p[j];
				}
				lq = lp[k];
				for (l = 0; l < L; l++)
				{
					for (j = 0; j < dim; j++)
					{
						p[j] += 0.5 * eps * gq[j];
						q[j] += eps * p[j];
					}
					lq = tempered(m, t[k], q, gq, &dq);
					for (j = 0; j < dim; j++)
						p[j] += 0.5 * eps * gq[j];
				}
				{
					double		h1 = -lq;

					for (j = 0; j < dim; j++)
						h1 += 0.5 * p[j] * p[j];
					a = isfinite(h1) ? fmin(1.0, exp(h0 - h1)) : 0.0;
				}
				if (gsl_rng_uniform(g) < a)
				{
					memcpy(x + k * dim, q, sizeof(double) * dim);
					memcpy(gr + k * dim, gq, sizeof(double) * dim);
					lp[k] = lq;
					dat[k] = dq;
				}
				if (it < burn)
					leps[k] += 0.05 * (a - 0.65) / sqrt(1.0 + it / 100.0);
			}
			for (k = (int) (it % 2); k + 1 < K; k += 2)
			{
				double		la = (t[k] - t[k + 1]) * (dat[k + 1] - dat[k]);

				if (it >= burn)
					nsw++;
				if (log(gsl_rng_uniform_pos(g)) < la)
				{
					double		tmp;

					for (j = 0; j < dim; j++)
					{
						tmp = x[k * dim + j];
						x[k * dim + j] = x[(k + 1) * dim + j];
						x[(k + 1) * dim + j] = tmp;
					}
					tmp = dat[k];
					dat[k] = dat[k + 1];
					dat[k + 1] = tmp;
					/* the log densities and gradients at the new temperatures */
					lp[k] = tempered(m, t[k], x + k * dim, gr + k * dim, &dat[k]);
					lp[k + 1] = tempered(m, t[k + 1], x + (k + 1) * dim, gr + (k + 1) * dim,
										 &dat[k + 1]);
					if (it >= burn)
						nacc++;
				}
			}
			if (it >= burn && (it - burn) % thin == 0)
				memcpy(*out + (size_t) nkept++ * dim, x + (K - 1) * dim, sizeof(double) * dim);
		}
	}
	*swap_rate = nsw > 0 ? (double) nacc / nsw : 0;
	free(x);
	free(gr);
	free(lp);
	free(dat);
	free(q);
	free(p);
	free(gq);
	return nkept;
}

static int
approx(int argc, char **argv)
{
	long		N = atol(argv[2]);
	int			H = atoi(argv[3]),
				act = atoi(argv[4]),
				W = atoi(argv[5]),
				I = atoi(argv[6]),
				C = atoi(argv[7]),
				R = atoi(argv[8]),
				RC = atoi(argv[9]),
				d = 2,
				dim,
				rep,
				c,
				k,
				j;
	double	   *X = malloc(sizeof(double) * N * d),
			   *y = malloc(sizeof(double) * N),
			   *refd,
			   *reff,
			   *rel,
			   *draws,
				mean[NX] = {0},
				sd[NX] = {0};
	long		nref,
				gsum = 0;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_betad_model m;
	dpb_betad_schedule rs = {RC, 4000, 4000},
				s = {C, W, I};
	dpb_nuts_stats *st;

	(void) argc;
	/* GAUSS=1: regression (y continuous, floor s^2 = 0.05, IG(1, 1) above
	 * it, beta 1.5) instead of classification */
	int			gauss = getenv("GAUSS") != NULL && atoi(getenv("GAUSS")) == 1;

	/* REF=pt: the parallel-tempering reference (classification only) */
	int			refpt = getenv("REF") != NULL && strcmp(getenv("REF"), "pt") == 0;
	char		refname[64];

	gsl_rng_set(g, 7);
	make_data(g, N, d, gauss, X, y);
	model_init(&m, N, d, H, act, X, y);
	if (gauss)
	{
		m.gaussian = 1;
		m.beta = 1.5;
		m.s2 = 0.05;
		m.ig_a = 1.0;
		m.ig_b = 1.0;
	}
	dim = dpb_betad_dim(&m);
	st = calloc(RC > C ? RC : C, sizeof(dpb_nuts_stats));
	gsl_rng_set(g, 99);
	if (refpt)
	{
		double		sw;

		/* RC independent tempering runs of 5000 + 50000 iterations, every
		 * 25th t = 1 state kept */
		nref = pt_reference(&m, RC, 5000, 50000, 25, g, &refd, &sw);
		if (nref <= 0)
			return 1;
		snprintf(refname, sizeof(refname), "PT %d x %d replicas", RC, PT_K);
		fprintf(stderr, "reference: %ld kept t = 1 draws, swap acceptance %.2f\n", nref, sw);
		if (gauss)
			return 1;			/* tempered() is the classifier's */
	}
	else
	{
		nref = (long) RC * rs.iters;
		refd = malloc(sizeof(double) * nref * dim);
		if (dpb_betad_chains(&m, &rs, g, NULL, refd, st) != DPB_OK)
			return 1;
		snprintf(refname, sizeof(refname), "%d chains", RC);
	}
	reff = malloc(sizeof(double) * nref * NX);
	for (k = 0; k < nref; k++)
		outputs(&m, refd + (size_t) k * dim, reff + (size_t) k * NX);
	for (j = 0; j < NX; j++)
	{
		for (k = 0; k < nref; k++)
			mean[j] += reff[(size_t) k * NX + j] / nref;
		for (k = 0; k < nref; k++)
			sd[j] += pow(reff[(size_t) k * NX + j] - mean[j], 2) / (nref - 1);
		sd[j] = sqrt(sd[j]);
	}
	rel = malloc(sizeof(double) * R * NX);
	draws = malloc(sizeof(double) * (size_t) C * I * dim);
	for (rep = 0; rep < R; rep++)
	{
		int			pick;

		gsl_rng_set(g, 1000 + rep);
		if (dpb_betad_chains(&m, &s, g, NULL, draws, st) != DPB_OK)
			return 1;
		for (c = 0; c < C; c++)
			gsum += st[c].gradient_evals;
		pick = (int) gsl_rng_uniform_int(g, (unsigned long) C * I);
		outputs(&m, draws + (size_t) pick * dim, rel + (size_t) rep * NX);
	}
	for (j = 0; j < NX; j++)
	{
		double	   *a = malloc(sizeof(double) * R),
				   *b = malloc(sizeof(double) * nref),
					z2 = 0,
					p;

		for (k = 0; k < R; k++)
		{
			a[k] = rel[(size_t) k * NX + j];
			z2 += pow((a[k] - mean[j]) / sd[j], 2) / R;
		}
		for (k = 0; k < nref; k++)
			b[k] = reff[(size_t) k * NX + j];
		/* two-sample KS: the distance, p from the Kolmogorov distribution
		 * at the effective size R nref / (R + nref) */
		p = dpb_ks_pvalue(dpb_ks_two_sample(a, R, b, (int) nref),
						  (int) lround((double) R * nref / (R + nref)));
		printf("| %d %s%s | %ld | %s | %d x (%d + %d) | %d | %.0f | x%d | %.3f | %.2f |\n", H,
			   act ? "tanh" : "relu", gauss ? " regression" : "", N, refname, C, W, I, R,
			   (double) gsum / R, j + 1, p, z2);
		free(a);
		free(b);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 9 && strcmp(argv[1], "speed") == 0)
		return speed(argc, argv);
	if (argc >= 10 && strcmp(argv[1], "approx") == 0)
		return approx(argc, argv);
	fprintf(stderr, "usage: betad_mlp speed N d H W I C R | approx N H act W I C R REFC\n");
	return 2;
}
