/*
 * test_betad_mlp.c — the betaD posterior of a one-hidden-layer network
 * (betad_mlp.c, issue 28):
 *   - the data part against a naive per-row evaluation (dpb_betad_mlp_output
 *     and the loss formulas written out here), past block boundaries;
 *   - the gradient against central finite differences at random points,
 *     tanh and ReLU, classification and regression, beta from 1.01 to 5.
 *     ReLU is checked at points whose pre-activations are all at least 1e-3
 *     away from the kink (the difference step moves them by < 1e-4), so
 *     the same tolerance holds for both;
 *   - beta -> 1: the gradient approaches that of the ordinary log posterior
 *     (log-likelihood of the network + the same priors), differentiated
 *     numerically from an independent implementation;
 *   - invariances that a wrong index fails: permuting the hidden units,
 *     flipping the sign of a tanh unit (W_h, c_h -> -W_h, -c_h), and
 *     rescaling a ReLU unit (W_h, c_h -> a W_h, c_h / a) leave the data part
 *     unchanged; and an interrupt makes the evaluation NaN.
 */
#include "unit.h"

#include "betad/betad_model.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 700
#define DD 3
#define HH 4
#define DIMMAX (HH * (DD + 1) + HH + 2)

typedef struct fixture
{
	dpb_betad_model m;
	double		X[NMAX * DD],
				y[NMAX],
				work[2 * NMAX],
				nwork[3 * DPB_BETAD_MLP_BLOCK * HH];
} fixture;

static void
setup(fixture *f, gsl_rng *r, int gaussian, int act_kind, int n, double beta)
{
	int			i,
				j;

	memset(&f->m, 0, sizeof(f->m));
	for (i = 0; i < n; i++)
	{
		double		u = 0.2;

		for (j = 0; j < DD; j++)
		{
			f->X[i * DD + j] = gsl_ran_ugaussian(r);
			u += (j % 2 ? -0.9 : 0.6) * f->X[i * DD + j];
		}
		u = tanh(u) + 0.3 * u * u;
		if (gaussian)
			f->y[i] = u + 0.5 * gsl_ran_ugaussian(r);
		else
			f->y[i] = gsl_rng_uniform(r) < 1 / (1 + exp(-2 * u)) ? 1 : -1;
	}
	f->m.gaussian = gaussian;
	f->m.d = DD;
	f->m.intercept = 1;
	f->m.beta = beta;
	f->m.prior_sd = 1.0;
	f->m.s2 = gaussian ? 0.05 : 0;
	f->m.ig_a = gaussian ? 1.0 : 0;
	f->m.ig_b = gaussian ? 1.0 : 0;
	f->m.n = n;
	f->m.X = f->X;
	f->m.y = f->y;
	f->m.work = f->work;
	f->m.hidden = HH;
	f->m.activation = act_kind;
	f->m.nwork = f->nwork;
}

/* smallest |pre-activation| over rows and units at par */
static double
min_preact(const fixture *f, const double *par)
{
	double		mn = INFINITY;
	int64_t		i;
	int			h,
				j;

	for (i = 0; i < f->m.n; i++)
		for (h = 0; h < HH; h++)
		{
			double		a = par[h * (DD + 1)];

			for (j = 0; j < DD; j++)
				a += par[h * (DD + 1) + 1 + j] * f->X[i * DD + j];
			mn = fmin(mn, fabs(a));
		}
	return mn;
}

static void
random_point(const fixture *f, gsl_rng *r, double *par)
{
	int			dim = dpb_betad_dim(&f->m),
				k,
				tries;

	for (tries = 0; tries < 1000; tries++)
	{
		for (k = 0; k < dim; k++)
			par[k] = gsl_ran_gaussian(r, 0.8);
		if (f->m.gaussian)
			par[dim - 1] = gsl_ran_gaussian(r, 0.5) - 1.0;
		if (f->m.activation != DPB_BETAD_ACT_RELU || min_preact(f, par) > 1e-3)
			return;
	}
}

/* the data part written out row by row */
static double
naive_data(const fixture *f, const double *par, double s2)
{
	double		s = 0,
				b = f->m.beta - 1.0,
				beta = f->m.beta;
	int64_t		i;

	for (i = 0; i < f->m.n; i++)
	{
		double		u = dpb_betad_mlp_output(DD, HH, f->m.activation, par, f->X + i * DD);

		if (!f->m.gaussian)
		{
			double		p = 1 / (1 + exp(-u)),
						q = f->y[i] > 0 ? p : 1 - p;

			s += pow(q, b) / b - (pow(p, beta) + pow(1 - p, beta)) / beta;
		}
		else
		{
			double		r = f->y[i] - u,
						fd = exp(-0.5 * r * r / s2) / sqrt(2 * M_PI * s2);

			s += pow(fd, b) / b - pow(2 * M_PI * s2, -0.5 * b) * pow(beta, -1.5);
		}
	}
	return s;
}

/* the ordinary log posterior (beta = 1): log-likelihood + the priors */
static double
naive_logpost1(const fixture *f, const double *par)
{
	int			dim = dpb_betad_dim(&f->m),
				p = dim - f->m.gaussian,
				k;
	double		lp = 0,
				s2 = 0;
	int64_t		i;

	for (k = 0; k < p; k++)
		lp -= 0.5 * par[k] * par[k];
	if (f->m.gaussian)
	{
		s2 = f->m.s2 + exp(par[p]);
		lp += -2.0 * log(s2) - 1.0 / s2 + par[p];
	}
	for (i = 0; i < f->m.n; i++)
	{
		double		u = dpb_betad_mlp_output(DD, HH, f->m.activation, par, f->X + i * DD);

		if (!f->m.gaussian)
			lp -= log1p(exp(-f->y[i] * u));
		else
			lp += -0.5 * log(2 * M_PI * s2) - 0.5 * (f->y[i] - u) * (f->y[i] - u) / s2;
	}
	return lp;
}

static void
check_naive_and_gradient(gsl_rng *r)
{
	double		betas[] = {1.01, 1.5, 5.0};
	int			gaussian,
				ak,
				bi,
				rep,
				bad_fd = 0,
				bad_naive = 0,
				tried = 0;
	fixture    *f = malloc(sizeof(fixture));

	for (gaussian = 0; gaussian <= 1; gaussian++)
		for (ak = 0; ak <= 1; ak++)
			for (bi = 0; bi < 3; bi++)
				for (rep = 0; rep < 2; rep++)
				{
					/* past two block boundaries once per setting, the last
					 * block of odd length (the vector loops' tails) */
					int			n = rep == 0 ? 603 : 90,
								dim,
								k;
					double		par[DIMMAX],
								g[DIMMAX],
								lp,
								s2;

					setup(f, r, gaussian, ak, n, betas[bi]);
					dim = dpb_betad_dim(&f->m);
					random_point(f, r, par);
					lp = dpb_betad_logpost(&f->m, par, g);
					s2 = gaussian ? f->m.s2 + exp(par[dim - 1]) : 0;
					{
						double		a = dpb_betad_negloss(&f->m, par, s2),
									w = naive_data(f, par, s2);

						if (!(fabs(a - w) <= 1e-9 * fmax(1.0, fabs(w))))
						{
							bad_naive++;
							printf("  naive: gaussian %d act %d beta %g: %.12g vs %.12g\n",
								   gaussian, ak, betas[bi], a, w);
						}
					}
					for (k = 0; k < dim; k++)
					{
						double		h = 1e-5,
									pp[DIMMAX],
									up,
									dn,
									fd;

						memcpy(pp, par, sizeof(double) * dim);
						pp[k] += h;
						up = dpb_betad_logpost(&f->m, pp, NULL);
						pp[k] -= 2 * h;
						dn = dpb_betad_logpost(&f->m, pp, NULL);
						fd = (up - dn) / (2 * h);
						tried++;
						if (!(fabs(fd - g[k]) <= 1e-5 * fmax(1.0, fabs(g[k]))) || !isfinite(lp))
						{
							bad_fd++;
							printf("  fd: gaussian %d act %d beta %g coord %d: %.10g vs %.10g\n",
								   gaussian, ak, betas[bi], k, g[k], fd);
						}
					}
				}
	CHECK(bad_naive == 0, "%d data parts differ from the row-by-row evaluation", bad_naive);
	CHECK(bad_fd == 0 && tried > 0, "%d of %d gradient coordinates differ from finite differences",
		  bad_fd, tried);
	free(f);
}

static void
check_beta_limit(gsl_rng *r)
{
	int			gaussian,
				ak,
				bad = 0,
				tried = 0;
	fixture    *f = malloc(sizeof(fixture));

	for (gaussian = 0; gaussian <= 1; gaussian++)
		for (ak = 0; ak <= 1; ak++)
		{
			int			dim,
						k;
			double		par[DIMMAX],
						g[DIMMAX];

			setup(f, r, gaussian, ak, 200, 1.0 + 1e-7);
			dim = dpb_betad_dim(&f->m);
			random_point(f, r, par);
			(void) dpb_betad_logpost(&f->m, par, g);
			for (k = 0; k < dim; k++)
			{
				double		h = 1e-5,
							pp[DIMMAX],
							fd;

				memcpy(pp, par, sizeof(double) * dim);
				pp[k] += h;
				fd = naive_logpost1(f, pp);
				pp[k] -= 2 * h;
				fd = (fd - naive_logpost1(f, pp)) / (2 * h);
				tried++;
				if (!(fabs(fd - g[k]) <= 1e-4 * fmax(1.0, fabs(fd))))
				{
					bad++;
					printf("  beta->1: gaussian %d act %d coord %d: %.10g vs %.10g\n",
						   gaussian, ak, k, g[k], fd);
				}
			}
		}
	CHECK(bad == 0 && tried > 0, "%d of %d coordinates differ from the log posterior's gradient",
		  bad, tried);
	free(f);
}

static int	stop_now = 0;

static int
stop_fn(void)
{
	return stop_now;
}

static void
check_invariances(gsl_rng *r)
{
	int			gaussian,
				ak,
				bad = 0,
				h,
				j,
				ld = DD + 1;
	fixture    *f = malloc(sizeof(fixture));

	for (gaussian = 0; gaussian <= 1; gaussian++)
		for (ak = 0; ak <= 1; ak++)
		{
			int			dim;
			double		par[DIMMAX],
						q[DIMMAX],
						s2,
						a0,
						a1;

			setup(f, r, gaussian, ak, 300, 2.0);
			dim = dpb_betad_dim(&f->m);
			random_point(f, r, par);
			s2 = gaussian ? 0.3 : 0;
			a0 = dpb_betad_negloss(&f->m, par, s2);
			/* the units in reverse order */
			memcpy(q, par, sizeof(double) * dim);
			for (h = 0; h < HH; h++)
			{
				memcpy(q + h * ld, par + (HH - 1 - h) * ld, sizeof(double) * ld);
				q[HH * ld + 1 + h] = par[HH * ld + 1 + (HH - 1 - h)];
			}
			a1 = dpb_betad_negloss(&f->m, q, s2);
			if (!(fabs(a1 - a0) <= 1e-10 * fmax(1, fabs(a0))))
			{
				bad++;
				printf("  permutation: gaussian %d act %d: %.14g vs %.14g\n", gaussian, ak, a1, a0);
			}
			/* the full log density too (the prior is symmetric) */
			if (!(fabs(dpb_betad_logpost(&f->m, q, NULL) - dpb_betad_logpost(&f->m, par, NULL)) <=
				  1e-10 * fmax(1, fabs(a0))))
			{
				bad++;
				printf("  permutation (log density): gaussian %d act %d\n", gaussian, ak);
			}
			/* unit 1: a sign flip (tanh) or a rescaling by 2.5 (ReLU) */
			memcpy(q, par, sizeof(double) * dim);
			for (j = 0; j < ld; j++)
				q[ld + j] *= ak == DPB_BETAD_ACT_TANH ? -1.0 : 2.5;
			q[HH * ld + 2] /= ak == DPB_BETAD_ACT_TANH ? -1.0 : 2.5;
			a1 = dpb_betad_negloss(&f->m, q, s2);
			if (!(fabs(a1 - a0) <= 1e-10 * fmax(1, fabs(a0))))
			{
				bad++;
				printf("  %s: gaussian %d: %.14g vs %.14g\n",
					   ak == DPB_BETAD_ACT_TANH ? "sign flip" : "rescaling", gaussian, a1, a0);
			}
			/* and a change that is not an invariance must change it (the
			 * check can fail): the rescaling applied to tanh, a flip to ReLU */
			memcpy(q, par, sizeof(double) * dim);
			for (j = 0; j < ld; j++)
				q[ld + j] *= ak == DPB_BETAD_ACT_TANH ? 2.5 : -1.0;
			q[HH * ld + 2] /= ak == DPB_BETAD_ACT_TANH ? 2.5 : -1.0;
			a1 = dpb_betad_negloss(&f->m, q, s2);
			if (!(fabs(a1 - a0) > 1e-6 * fmax(1, fabs(a0))))
			{
				bad++;
				printf("  a non-invariance left the loss unchanged: gaussian %d act %d\n", gaussian, ak);
			}
		}
	CHECK(bad == 0, "%d invariance checks failed", bad);
	/* an interrupt inside the row loop */
	setup(f, r, 0, DPB_BETAD_ACT_RELU, 600, 2.0);
	f->m.interrupt = stop_fn;
	{
		double		par[DIMMAX],
					g[DIMMAX];

		random_point(f, r, par);
		stop_now = 0;
		CHECK(isfinite(dpb_betad_logpost(&f->m, par, g)), "finite without an interrupt");
		stop_now = 1;
		CHECK(isnan(dpb_betad_logpost(&f->m, par, g)), "NaN after an interrupt");
		stop_now = 0;
	}
	free(f);
}

void
test_betad_mlp(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, USEED(2801));
	check_naive_and_gradient(r);
	check_beta_limit(r);
	check_invariances(r);
	gsl_rng_free(r);
}

/* ---- the release of a network (betad_release.c) ---- */

#include "betad/betad_release.h"

#define RN 150

static void
net_spec(dpb_betad_spec *s, int gaussian, int act_kind, double lo, double hi)
{
	dpb_betad_spec_default(s, gaussian);
	s->hidden = 3;
	s->activation = act_kind;
	s->prior_sd = 1.0;
	s->epsilon = 2.0;
	if (gaussian)
	{
		s->sigma2_floor = 0.05;
		s->y_scale = 1.0;
	}
	s->fx.d = 2;
	s->fx.has_bounds = 1;
	s->fx.lower[0] = s->fx.lower[1] = lo;
	s->fx.upper[0] = s->fx.upper[1] = hi;
	s->sched.chains = 1;
	s->sched.warmup = 20;
	s->sched.iters = 2;
}

static void
net_data(gsl_rng *r, int gaussian, double *X, double *y)
{
	int			i;

	for (i = 0; i < RN; i++)
	{
		double		a = gsl_rng_uniform(r) * 2 - 1,
					b = gsl_rng_uniform(r) * 2 - 1,
					u = 2 * tanh(2 * a) - b * b;

		/* multiples of 2^-10: exact after the affine maps of check_units */
		X[2 * i] = round(a * 1024) / 1024;
		X[2 * i + 1] = round(b * 1024) / 1024;
		y[i] = gaussian ? round((u + 0.3 * gsl_ran_ugaussian(r)) * 1024) / 1024 :
			(gsl_rng_uniform(r) < 1 / (1 + exp(-2 * u)) ? 1 : -1);
	}
}

/*
 * The draws are released in the original units: the same scaled problem
 * (features x on [-1, 1] with bounds [-1, 1], against 2x + 3 with bounds
 * [1, 5]; regression: y against 4 y with y_scale 4 and the floor times 16;
 * the data are dyadic, so the scaled rows are the same bits) with the same
 * seeded generator gives the same scaled chain, so the released networks
 * must predict the same at corresponding points (times 4 for the mean of
 * y), up to the conversion's rounding.  A wrong conversion of the weights fails it.
 */
static void
check_units(gsl_rng *r)
{
	int			gaussian,
				ak,
				bad = 0;

	for (gaussian = 0; gaussian <= 1; gaussian++)
		for (ak = 0; ak <= 1; ak++)
		{
			dpb_betad_spec s1,
						s2;
			double		X1[RN * 2],
						y1[RN],
						X2[RN * 2],
						y2[RN],
						work[2 * RN],
						d1[2 * 17],
						d2[2 * 17];
			dpb_nuts_stats st[1];
			dpb_err		err;
			gsl_rng    *g1 = gsl_rng_alloc(gsl_rng_mt19937),
					   *g2 = gsl_rng_alloc(gsl_rng_mt19937);
			dpb_betad_release rel1,
						rel2;
			int			i,
						k;

			net_spec(&s1, gaussian, ak, -1, 1);
			net_spec(&s2, gaussian, ak, 1, 5);
			if (gaussian)
			{
				s2.y_scale = 4;
				s2.sigma2_floor = 0.05 * 16;
			}
			net_data(r, gaussian, X1, y1);
			for (i = 0; i < RN * 2; i++)
				X2[i] = 2 * X1[i] + 3;
			for (i = 0; i < RN; i++)
				y2[i] = gaussian ? 4 * y1[i] : y1[i];
			gsl_rng_set(g1, 77);
			gsl_rng_set(g2, 77);
			if (dpb_betad_tune(&s1, RN, X1, y1, work, g1, NULL, d1, st, &err) != DPB_OK ||
				dpb_betad_tune(&s2, RN, X2, y2, work, g2, NULL, d2, st, &err) != DPB_OK)
			{
				bad++;
				printf("  tune failed: %s\n", err.msg);
				continue;
			}
			memset(&rel1, 0, sizeof(rel1));
			memset(&rel2, 0, sizeof(rel2));
			rel1.s = s1;
			rel2.s = s2;
			for (k = 0; k < 2; k++)
			{
				rel1.draws = d1;
				rel2.draws = d2;
				for (i = 0; i < 5; i++)
				{
					double		x[2] = {gsl_rng_uniform(r) * 2 - 1, gsl_rng_uniform(r) * 2 - 1},
								xx[2] = {2 * x[0] + 3, 2 * x[1] + 3},
								p1 = dpb_betad_predict(&rel1, k, x),
								p2 = dpb_betad_predict(&rel2, k, xx);

					if (gaussian)
						p1 *= 4;
					if (!(fabs(p1 - p2) <= 1e-9 * fmax(1, fabs(p1))))
					{
						bad++;
						printf("  units: gaussian %d act %d: %.10g vs %.10g\n", gaussian, ak, p1, p2);
					}
				}
				if (gaussian)
				{
					int			nv = dpb_betad_nvar(&s1);

					if (!(fabs(16 * d1[k * nv + nv - 1] - d2[k * nv + nv - 1]) <=
						  1e-9 * d2[k * nv + nv - 1]))
					{
						bad++;
						printf("  sigma2 units\n");
					}
				}
			}
			gsl_rng_free(g1);
			gsl_rng_free(g2);
		}
	CHECK(bad == 0, "%d checks of the released units failed", bad);
}

static void
check_release(gsl_rng *r)
{
	int			gaussian;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(28));

	for (gaussian = 0; gaussian <= 1; gaussian++)
	{
		dpb_betad_spec s;
		dpb_betad_release rel,
					back;
		double		X[RN * 2],
					y[RN],
					work[2 * RN];
		dpb_err		err;
		dpb_buf		js;
		unsigned char *buf,
				   *buf2;
		size_t		len;
		int			ok,
					i;

		net_spec(&s, gaussian, DPB_BETAD_ACT_RELU, -1, 1);
		net_data(r, gaussian, X, y);
		ok = dpb_betad_run(&s, RN, X, y, work, rb, NULL, &rel, &err) == DPB_OK;
		CHECK(ok, "network release: %s", ok ? "" : err.msg);
		if (!ok)
			continue;
		CHECK(dpb_betad_nvar(&rel.s) == 3 * 3 + 4 + gaussian, "nvar of a 3-unit network");
		CHECK(dpb_betad_release_validate(&rel, &err) == DPB_OK, "valid");
		len = dpb_betad_packed_size(&rel);
		buf = malloc(len);
		dpb_betad_pack(&rel, buf);
		{
			const unsigned char *p = buf + 4;
			uint64_t	u = 0;
			double		v;
			int			b;

			for (b = 0; b < 8; b++)
				u |= (uint64_t) p[b] << (8 * b);
			memcpy(&v, &u, 8);
			CHECK(v == 4, "a network is packed as version 4 (got %g)", v);
		}
		ok = dpb_betad_unpack(buf, len, &back, &err) == DPB_OK;
		CHECK(ok, "unpack: %s", ok ? "" : err.msg);
		if (ok)
		{
			buf2 = malloc(len);
			CHECK(dpb_betad_packed_size(&back) == len, "same size");
			dpb_betad_pack(&back, buf2);
			CHECK(memcmp(buf, buf2, len) == 0, "pack, unpack, pack: same bytes");
			CHECK(back.s.hidden == 3 && back.s.activation == DPB_BETAD_ACT_RELU &&
				  back.s.gaussian == gaussian, "the architecture survives packing");
			free(buf2);
			dpb_betad_release_free(&back);
		}
		/* a version-4 header claiming no hidden units is corrupt */
		{
			unsigned char *c = malloc(len);
			double		zero = 0;
			uint64_t	u;
			int			b;

			memcpy(c, buf, len);
			memcpy(&u, &zero, 8);
			for (b = 0; b < 8; b++)
				c[4 + 8 * 28 + b] = (unsigned char) (u >> (8 * b));
			CHECK(dpb_betad_unpack(c, len, &back, &err) == DPB_ECORRUPT,
				  "version 4 without hidden units is refused");
			free(c);
		}
		free(buf);
		dpb_buf_init(&js);
		CHECK(dpb_betad_to_json(&rel, &js) == DPB_OK, "json");
		CHECK(js.data && strstr(js.data, gaussian ? "\"model\": \"mlp_regression\"" :
								"\"model\": \"mlp_classifier\"") &&
			  strstr(js.data, "\"network\": {\"hidden\": 3, \"activation\": \"relu\"}") &&
			  strstr(js.data, "\"version\": 4") && strstr(js.data, "\"h2.x1\"") &&
			  strstr(js.data, "\"out.h3\""), "json names the model, the network and the weights");
		dpb_buf_free(&js);
		for (i = 0; i < 20; i++)
		{
			double		x[2] = {gsl_rng_uniform(r) * 2 - 1, gsl_rng_uniform(r) * 2 - 1},
						p = dpb_betad_predict(&rel, 0, x);

			CHECK(gaussian ? isfinite(p) : (p >= 0 && p <= 1), "prediction in range: %g", p);
		}
		dpb_betad_release_free(&rel);
	}
	/* a logistic release is still version 3 */
	{
		dpb_betad_spec s;
		dpb_betad_release rel;
		double		X[RN * 2],
					y[RN],
					work[2 * RN];
		dpb_err		err;

		net_spec(&s, 0, 0, -1, 1);
		s.hidden = 0;
		net_data(r, 0, X, y);
		if (dpb_betad_run(&s, RN, X, y, work, rb, NULL, &rel, &err) == DPB_OK)
		{
			size_t		len = dpb_betad_packed_size(&rel);
			unsigned char *buf = malloc(len);
			dpb_betad_release back;

			dpb_betad_pack(&rel, buf);
			CHECK(buf[4 + 6] == 0x08 && buf[4 + 7] == 0x40, "logistic: version 3 (3.0 = 0x4008...)");
			CHECK(dpb_betad_unpack(buf, len, &back, &err) == DPB_OK && back.s.hidden == 0,
				  "version 3 reads as no network");
			dpb_betad_release_free(&back);
			free(buf);
			dpb_betad_release_free(&rel);
		}
		else
			CHECK(0, "logistic release: %s", err.msg);
	}
	/* refusals */
	{
		dpb_betad_spec s;
		dpb_err		err;

		net_spec(&s, 0, 0, -1, 1);
		s.tier = DPB_BETAD_EXACT;
		s.delta_prime = 1e-9;
		s.neighbours = DPB_NB_REPLACE;
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "no exact tier for a network");
		net_spec(&s, 0, 0, -1, 1);
		s.fx.intercept = 0;
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "a network has biases");
		net_spec(&s, 0, 0, -1, 1);
		s.hidden = 65;
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "hidden <= 64");
		net_spec(&s, 0, 0, -1, 1);
		s.activation = 2;
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "known activation");
		net_spec(&s, 0, 0, -1, 1);
		s.hidden = 0;
		s.activation = 1;
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "activation needs a network");
		net_spec(&s, 0, 0, -1, 1);
		CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK && fabs(s.beta - 1.5) < 1e-12,
			  "beta as for logistic (add/remove: epsilon 2 -> beta 1 + 1/2), got %g", s.beta);
	}
	dpb_rbits_free(rb);
}

void
test_betad_mlp_release(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, USEED(2802));
	check_units(r);
	check_release(r);
	gsl_rng_free(r);
}

/* ---- the membership audit on a network at tiny N (test_betad_audit.c) ---- */

#include "betad/betad_calib.h"
#include "betad/betad_sample.h"

#include "audit_stats.h"

#define AROUNDS 1000
#define AH 2

/*
 * Add/remove neighbours (the default): D = {(x = 1, y = 1), (x = 0, y = -1)}
 * against D less its first record; a network of AH tanh (act 1) or ReLU
 * (act 0) units, N(0, 1) priors, beta from epsilon = 1 / b, one draw per
 * round with the networks' default schedule.  The adversary's statistic is
 * the released network's output at x = 1 (invariant to the weights'
 * symmetries, and the record's whole pull), thresholded at 41 values.
 * deterministic: the posterior mode by gradient ascent from a fixed start,
 * a deterministic release the audit must catch.
 */
static double
net_audit(double eps, int act_kind, int deterministic, dpb_rbits *rb)
{
	double		XD[2] = {1, 0},
				XR[1] = {0},
				yD[2] = {1, -1},
				yR[1] = {-1},
				work[4],
				nwork[3 * DPB_BETAD_MLP_BLOCK * AH],
			   *dr = malloc(sizeof(double) * 2 * AROUNDS),
				worst = 0,
				beta,
				one = 1;
	dpb_betad_schedule s;
	dpb_err		err;
	int			t,
				i,
				k;

	dpb_betad_mlp_schedule_default(&s);
	CHECK(dpb_betad_beta(0, 2 * eps, 0, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_OK, "beta");
	for (t = 0; t < 2; t++)
	{
		dpb_betad_model m;

		memset(&m, 0, sizeof(m));
		m.d = 1;
		m.intercept = 1;
		m.beta = beta;
		m.prior_sd = 1.0;
		m.n = t ? 1 : 2;
		m.X = t ? XR : XD;
		m.y = t ? yR : yD;
		m.work = work;
		m.hidden = AH;
		m.activation = act_kind;
		m.nwork = nwork;
		for (i = 0; i < AROUNDS; i++)
		{
			double		th[3 * AH + 1];

			if (deterministic)
			{
				int			it,
							j;
				double		g[3 * AH + 1];

				for (j = 0; j < 3 * AH + 1; j++)
					th[j] = 0.3 * (j + 1) * (j % 2 ? -1 : 1);
				for (it = 0; it < 2000; it++)
				{
					(void) dpb_betad_logpost(&m, th, g);
					for (j = 0; j < 3 * AH + 1; j++)
						th[j] += 0.05 * g[j];
				}
			}
			else
				CHECK(dpb_betad_draw(&m, &s, rb, NULL, th, &err) == DPB_OK, "draw: %s", err.msg);
			dr[t * AROUNDS + i] = dpb_betad_mlp_output(1, AH, act_kind, th, &one);
		}
	}
	for (k = -20; k <= 20; k++)
	{
		double		thr = 0.15 * k;
		int			tp = 0,
					fp = 0;

		for (i = 0; i < AROUNDS; i++)
		{
			tp += dr[i] > thr;
			fp += dr[AROUNDS + i] > thr;
		}
		worst = fmax(worst, audit_eps_lower_bound(tp, fp, AROUNDS, 0, 1e-3 / 41));
	}
	free(dr);
	return worst;
}

void
test_betad_mlp_audit(void)
{
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(2828));
	double		t1 = net_audit(1.0, DPB_BETAD_ACT_TANH, 0, rb),
				t5 = net_audit(5.0, DPB_BETAD_ACT_TANH, 0, rb),
				r1 = net_audit(1.0, DPB_BETAD_ACT_RELU, 0, rb),
				r5 = net_audit(5.0, DPB_BETAD_ACT_RELU, 0, rb),
				td = net_audit(5.0, DPB_BETAD_ACT_TANH, 1, rb),
				rd = net_audit(5.0, DPB_BETAD_ACT_RELU, 1, rb);

	printf("  betaD network membership audit (add/remove, %d units, %d rounds each, 99.9%% CP over 41 thresholds): "
		   "tanh eps lower bound %.3f at eps 1, %.3f at eps 5; relu %.3f at eps 1, %.3f at eps 5; "
		   "deterministic mode: tanh %.3f, relu %.3f\n", AH, AROUNDS, t1, t5, r1, r5, td, rd);
	CHECK(t1 <= 1.0 && r1 <= 1.0, "an attack demonstrates eps > 1: tanh %.3f, relu %.3f", t1, r1);
	CHECK(t5 <= 5.0 && r5 <= 5.0, "an attack demonstrates eps > 5: tanh %.3f, relu %.3f", t5, r5);
	CHECK(td > 4.0 && rd > 4.0, "the audit misses a deterministic release: tanh %.3f, relu %.3f", td, rd);
	dpb_rbits_free(rb);
}
