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
 *       regression network (floor 0.05, beta 1.5) instead.
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
	nref = (long) RC * rs.iters;
	refd = malloc(sizeof(double) * nref * dim);
	reff = malloc(sizeof(double) * nref * NX);
	st = calloc(RC > C ? RC : C, sizeof(dpb_nuts_stats));
	gsl_rng_set(g, 99);
	if (dpb_betad_chains(&m, &rs, g, NULL, refd, st) != DPB_OK)
		return 1;
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
		printf("| %d %s%s | %ld | %d x (%d + %d) | %d | %.0f | x%d | %.3f | %.2f |\n", H,
			   act ? "tanh" : "relu", gauss ? " regression" : "", N, C, W, I, R, (double) gsum / R, j + 1, p, z2);
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
