/*
 * test_betad_release.c — the betaD release (betad_release.h):
 *  - parameters: beta from epsilon and back, k draws by bounded-range zCDP
 *    (epsilon1 larger than epsilon / k, the total recomputed), errors;
 *  - the certified exact tier: its plan (trials, delta'), infeasible for a
 *    large N epsilon, and a KS audit of its draws against the exact betaD
 *    posterior by quadrature (and against the prior, which must fail);
 *  - the mechanism run with public scaling: draws in the original units
 *    (a scaled problem gives the scaled coefficients back);
 *  - pack / unpack round trip, and an edited epsilon, beta or draw count
 *    is rejected.
 */
#include "unit.h"

#include "betad/betad_release.h"
#include "dnoise.h"
#include "ks.h"
#include "ledger.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
check_spec(void)
{
	dpb_betad_spec s;
	dpb_err		err;
	double		rho;

	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	CHECK(s.neighbours == DPB_NB_ADD_REMOVE, "add/remove is the default");
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "logistic spec: %s", err.msg);
	/* add/remove: epsilon = 1 / b (the range of -l), so b = 1 / epsilon */
	CHECK_CLOSE(s.beta, 2.0, 1e-12, "logistic beta at epsilon 1, add/remove");
	CHECK_CLOSE(s.epsilon, 1.0, 1e-12, "total epsilon, one draw");
	CHECK(s.delta_eff == 0, "one draw is pure DP");
	/* replace-one: epsilon = 2 / b (the paper's Theorem 1) */
	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.neighbours = DPB_NB_REPLACE;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "logistic replace spec: %s", err.msg);
	CHECK_CLOSE(s.beta, 3.0, 1e-12, "logistic beta at epsilon 1, replace");
	/* Gaussian: the add/remove epsilon of a beta is half the replace one,
	 * and so is the floor epsilon_min */
	dpb_betad_spec_default(&s, 1);
	s.sigma2_floor = 0.01;
	s.beta = 1.5;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "gaussian beta 1.5: %s", err.msg);
	CHECK_REL(s.eps_draw, 0.5 * dpb_betad_epsilon(1, 1.5, 0.01, 1), 1e-12,
			  "gaussian add/remove epsilon of beta 1.5");
	dpb_betad_spec_default(&s, 1);
	s.sigma2_floor = 0.01;
	s.epsilon = 0.55 * dpb_betad_epsilon_min(0.01, 1);	/* above half the floor */
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "gaussian add/remove below the replace floor: %s",
		  err.msg);
	s.beta = NAN;
	s.epsilon = 0.45 * dpb_betad_epsilon_min(0.01, 1);
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_ERANGE && strstr(err.detail, "add/remove") != NULL,
		  "gaussian add/remove below half the floor: %s", err.detail);
	/* the exact tier needs a public N */
	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.tier = DPB_BETAD_EXACT;
	s.delta_prime = 1e-9;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL && strstr(err.msg, "public number") != NULL,
		  "exact tier under add/remove: %s", err.msg);
	s.neighbours = (dpb_neighbours) 7;
	s.tier = DPB_BETAD_APPROXIMATE;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "unknown neighbours");

	/* k draws: epsilon1 = sqrt(8 rho* / k) beats epsilon / k */
	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.ndraws = 10;
	s.delta = 1e-6;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "k draws: %s", err.msg);
	CHECK(dpb_zcdp_rho(1.0, 1e-6, &rho, &err) == DPB_OK, "rho");
	CHECK_REL(s.eps_draw, sqrt(8 * rho / 10), 1e-9, "epsilon per draw of 10 draws");
	CHECK(s.eps_draw > 0.1 * 1.3, "zCDP composition gains over pure composition (%g)", s.eps_draw);
	CHECK_REL(s.epsilon, 1.0, 1e-9, "total epsilon of 10 draws");
	CHECK(s.delta_eff == 1e-6, "delta of the composition");
	CHECK_REL(dpb_zcdp_delta(10 * s.eps_draw * s.eps_draw / 8, s.epsilon), 1e-6, 1e-6,
			  "the composition's delta at the total epsilon");
	/* two draws at a large epsilon: pure composition is better */
	dpb_betad_spec_default(&s, 0);
	s.beta = 1.5;				/* epsilon1 = 4 */
	s.ndraws = 2;
	s.delta = 1e-6;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK && s.epsilon <= 8 + 1e-12,
		  "two draws of epsilon 4: %g", s.epsilon);

	/* errors */
	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.ndraws = 3;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "k draws without delta");
	dpb_betad_spec_default(&s, 1);
	s.epsilon = 1;
	s.sigma2_floor = 0.01;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_ERANGE, "epsilon below epsilon_min");
	s.y_scale = 0.1;			/* floor 1 on the model's scale */
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "a smaller public y_scale reaches it: %s",
		  err.msg);
	s.epsilon = 2;				/* both given and inconsistent */
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_EINVAL, "epsilon and beta disagree");
}

static void
check_plan(void)
{
	dpb_betad_spec s;
	dpb_err		err;
	int64_t		t;
	double		dp;

	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.tier = DPB_BETAD_EXACT;
	s.delta_prime = 1e-9;
	s.neighbours = DPB_NB_REPLACE;
	CHECK(dpb_betad_spec_check(&s, &err) == DPB_OK, "exact spec");
	CHECK(dpb_betad_exact_plan(&s, 10, &t, &dp, &err) == DPB_OK, "plan at n 10");
	/* acceptance >= e^{-5}: T = ceil(ln(gamma) / ln(1 - e^-5)) */
	CHECK(t == (int64_t) ceil(log(1e-9 / (1 + exp(1.0))) / log1p(-exp(-5.0))),
		  "trials %lld", (long long) t);
	CHECK(dp <= 1e-9 && dp > 0.5e-9, "delta' %g", dp);
	CHECK(dpb_betad_exact_plan(&s, 1000, &t, &dp, &err) == DPB_ERANGE,
		  "N epsilon = 1000 is infeasible");
}

#define NR 10
#define ND 300
#define GRID 2001

static void
exact_audit(void)
{
	dpb_betad_spec s;
	dpb_betad_release r;
	dpb_betad_model m;
	double		X[NR],
				y[NR],
				Xs[NR],
				ys[NR],
				work[2 * NR],
				grid[GRID],
				cdf[GRID],
				u[ND],
				up[ND],
				lo = -12,
				hi = 12,
				acc = 0,
				mx = -INFINITY,
				p,
				pprior;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(11));
	dpb_err		err;
	int			i,
				j,
				k,
				ok = 1;

	for (i = 0; i < NR; i++)
	{
		X[i] = 1.0 + (i % 5) * 0.5;
		y[i] = i % 5 == 0 ? -1 : 1;
	}
	dpb_betad_spec_default(&s, 0);
	s.beta = 1.5;				/* epsilon1 4: N epsilon / 2 = 20 is too large, */
	s.beta = 3;					/* epsilon1 1: N epsilon / 2 = 5 */
	s.fx.d = 1;
	s.fx.intercept = 0;
	s.prior_sd = 2;
	s.tier = DPB_BETAD_EXACT;
	s.neighbours = DPB_NB_REPLACE;
	s.delta_prime = 1e-9;
	s.ndraws = 100;
	s.delta = 1e-6;
	/* the exact posterior of the coefficient by quadrature */
	memset(&m, 0, sizeof(m));
	m.d = 1;
	m.beta = 3;
	m.prior_sd = 2;
	m.n = NR;
	m.X = X;
	m.y = y;
	m.work = work;
	for (j = 0; j < GRID; j++)
	{
		grid[j] = lo + (hi - lo) * j / (GRID - 1);
		cdf[j] = dpb_betad_logpost(&m, &grid[j], NULL);
		mx = fmax(mx, cdf[j]);
	}
	for (j = GRID - 1; j > 0; j--)
		cdf[j] = 0.5 * (exp(cdf[j] - mx) + exp(cdf[j - 1] - mx));
	cdf[0] = 0;
	for (j = 1; j < GRID; j++)
	{
		acc += cdf[j];
		cdf[j] = acc;
	}
	for (j = 0; j < GRID; j++)
		cdf[j] /= acc;
	for (k = 0; k < ND / 100 && ok; k++)
	{
		memcpy(Xs, X, sizeof(X));
		memcpy(ys, y, sizeof(y));
		ok = dpb_betad_run(&s, NR, Xs, ys, work, rb, NULL, &r, &err) == DPB_OK;
		if (!ok)
			break;
		for (i = 0; i < 100; i++)
		{
			double		v = r.draws[i],
						t = (v - lo) / (hi - lo) * (GRID - 1);
			int			jj = (int) floor(t);

			u[k * 100 + i] = jj < 0 ? 0 : jj >= GRID - 1 ? 1 :
				cdf[jj] + (t - jj) * (cdf[jj + 1] - cdf[jj]);
			up[k * 100 + i] = gsl_cdf_gaussian_P(v, 2.0);
		}
		CHECK(dpb_betad_release_validate(&r, &err) == DPB_OK, "exact release validates: %s",
			  err.msg);
		dpb_betad_release_free(&r);
	}
	CHECK(ok, "exact run: %s", err.msg);
	p = dpb_ks_pvalue(dpb_ks_uniform_stat(u, ND), ND);
	pprior = dpb_ks_pvalue(dpb_ks_uniform_stat(up, ND), ND);
	printf("  betaD exact tier (rejection from the prior, N %d, epsilon1 1, %d draws): KS p = %.3g vs the betaD posterior, %.3g vs the prior\n",
		   NR, ND, p, pprior);
	CHECK(p > UNIT_P_MIN, "exact tier vs the exact posterior: KS p = %.3g", p);
	CHECK(pprior < UNIT_P_MIN, "the audit cannot tell the posterior from the prior (p %.3g)", pprior);
	dpb_rbits_free(rb);
}

/*
 * The number of records: none under add/remove (-1), N >= 1 under replace;
 * a version-1 release (dpbayes 0.1.0: replace-one, 26 header values) and a
 * version-2 one (27 header values, no signature flag) still read.  buf
 * holds r (add/remove) packed.
 */
static void
check_n_fields(const dpb_betad_release *r, const unsigned char *buf, size_t len)
{
	dpb_betad_release rr = *r,
				r2;
	dpb_err		err;
	unsigned char *c = malloc(len),
			   *v1;
	double		v;
	dpb_buf		js;

	/* an add/remove release edited to carry an n */
	memcpy(c, buf, len);
	v = 0;
	memcpy(c + 4 + 8 * 21, &v, 8);
	CHECK(dpb_betad_unpack(c, len, &r2, &err) == DPB_ECORRUPT, "add/remove with n 0 accepted");
	v = 57;
	memcpy(c + 4 + 8 * 21, &v, 8);
	CHECK(dpb_betad_unpack(c, len, &r2, &err) == DPB_ECORRUPT, "add/remove with n 57 accepted");
	free(c);

	/* the same draws as a replace-one release of 57 records: the same beta
	 * is twice the epsilon */
	rr.s.neighbours = DPB_NB_REPLACE;
	rr.s.epsilon = NAN;
	CHECK(dpb_betad_spec_check(&rr.s, &err) == DPB_OK, "replace spec: %s", err.msg);
	CHECK_REL(rr.s.eps_draw, 2 * r->s.eps_draw, 1e-12, "replace epsilon of the same beta");
	rr.n = 57;
	c = malloc(dpb_betad_packed_size(&rr));
	dpb_betad_pack(&rr, c);
	CHECK(dpb_betad_unpack(c, dpb_betad_packed_size(&rr), &r2, &err) == DPB_OK && r2.n == 57 &&
		  r2.s.neighbours == DPB_NB_REPLACE, "replace round trip: %s", err.msg);
	dpb_betad_release_free(&r2);
	dpb_buf_init(&js);
	CHECK(dpb_betad_to_json(&rr, &js) == DPB_OK &&
		  strstr(js.data, "\"neighbours\": \"replace\", \"n\": 57") != NULL, "replace json");
	dpb_buf_free(&js);
	/* version 2 (0.2.0 before signatures): the first 27 header values, no
	 * signature flag */
	{
		size_t		l3 = dpb_betad_packed_size(&rr),
					l2 = l3 - 8;
		unsigned char *v2 = malloc(l2);

		memcpy(v2, c, 4 + 8 * 27);
		memcpy(v2 + 4 + 8 * 27, c + 4 + 8 * 28, l3 - (4 + 8 * 28));
		v = 2;
		memcpy(v2 + 4, &v, 8);
		CHECK(dpb_betad_unpack(v2, l2, &r2, &err) == DPB_OK && r2.n == 57 &&
			  r2.s.neighbours == DPB_NB_REPLACE && !r2.sig.present &&
			  memcmp(r2.draws, r->draws, sizeof(double) * dpb_betad_nvar(&r->s)) == 0,
			  "a version-2 release reads: %s", err.msg);
		dpb_betad_release_free(&r2);
		CHECK(dpb_betad_unpack(v2, l2 - 8, &r2, &err) == DPB_ECORRUPT, "version 2 truncated");
		v = 4;
		memcpy(v2 + 4, &v, 8);
		CHECK(dpb_betad_unpack(v2, l2, &r2, &err) == DPB_ECORRUPT, "version 4 accepted");
		free(v2);
	}
	/* version 1: the first 26 header values, version 1, no neighbours */
	{
		size_t		l2 = dpb_betad_packed_size(&rr),
					l1 = l2 - 16;

		v1 = malloc(l1);
		memcpy(v1, c, 4 + 8 * 26);
		memcpy(v1 + 4 + 8 * 26, c + 4 + 8 * 28, l2 - (4 + 8 * 28));
		v = 1;
		memcpy(v1 + 4, &v, 8);
		CHECK(dpb_betad_unpack(v1, l1, &r2, &err) == DPB_OK && r2.n == 57 &&
			  r2.s.neighbours == DPB_NB_REPLACE &&
			  memcmp(r2.draws, r->draws, sizeof(double) * dpb_betad_nvar(&r->s)) == 0,
			  "a version-1 release reads: %s", err.msg);
		dpb_betad_release_free(&r2);
		/* replace with n 0 is corrupt */
		v = 0;
		memcpy(v1 + 4 + 8 * 21, &v, 8);
		CHECK(dpb_betad_unpack(v1, l1, &r2, &err) == DPB_ECORRUPT, "version 1 with n 0 accepted");
		CHECK(dpb_betad_unpack(v1, l1 - 8, &r2, &err) == DPB_ECORRUPT, "version 1 truncated");
		free(v1);
	}
	free(c);
}

/* features on a public box: the draws come back in the original units */
static void
check_units_and_packing(void)
{
	enum
	{
	N = 200};
	double		X[N * 2],
				y[N],
				work[2 * N];
	dpb_betad_spec s;
	dpb_betad_release r,
				r2;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(3));
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_err		err;
	unsigned char *buf;
	size_t		len;
	int			i;
	dpb_buf		js;

	/* y = 5 + 2 x1 - 0.01 x2 + N(0, 0.5^2), x1 in [0, 10], x2 in [100, 300] */
	for (i = 0; i < N; i++)
	{
		X[2 * i] = 10 * gsl_rng_uniform(g);
		X[2 * i + 1] = 100 + 200 * gsl_rng_uniform(g);
		y[i] = 5 + 2 * X[2 * i] - 0.01 * X[2 * i + 1] + 0.5 * gsl_ran_ugaussian(g);
	}
	dpb_betad_spec_default(&s, 1);
	s.epsilon = 5;
	s.sigma2_floor = 0.1;
	s.y_scale = 1.25;			/* floor 0.064 on the model's scale: epsilon_min 2.48 */
	s.fx.d = 2;
	s.fx.has_bounds = 1;
	s.fx.lower[0] = 0;
	s.fx.upper[0] = 10;
	s.fx.lower[1] = 100;
	s.fx.upper[1] = 300;
	s.sched.chains = 2;
	s.sched.warmup = 200;
	s.sched.iters = 200;
	if (dpb_betad_run(&s, N, X, y, work, rb, NULL, &r, &err) != DPB_OK)
	{
		CHECK(0, "linear run: %s", err.msg);
		return;
	}
	printf("  betaD linear draw in original units: intercept %.3f, x1 %.3f, x2 %.4f, sigma2 %.3f (truth 5, 2, -0.01, 0.25)\n",
		   r.draws[0], r.draws[1], r.draws[2], r.draws[3]);
	CHECK(fabs(r.draws[1] - 2) < 0.3 && fabs(r.draws[2] + 0.01) < 0.01 &&
		  fabs(r.draws[0] - 5) < 3 && r.draws[3] >= 0.1 && r.draws[3] < 2,
		  "the draw is not in the original units");
	len = dpb_betad_packed_size(&r);
	buf = malloc(len);
	dpb_betad_pack(&r, buf);
	CHECK(dpb_betad_is_packed(buf, len), "magic");
	CHECK(dpb_betad_unpack(buf, len, &r2, &err) == DPB_OK, "unpack: %s", err.msg);
	CHECK(memcmp(r2.draws, r.draws, sizeof(double) * 4) == 0 && r2.s.beta == r.s.beta &&
		  r2.n == -1 && r2.s.neighbours == DPB_NB_ADD_REMOVE, "round trip");
	dpb_betad_release_free(&r2);
	dpb_buf_init(&js);
	CHECK(dpb_betad_to_json(&r, &js) == DPB_OK && strstr(js.data, "\"kind\": \"betad\"") &&
		  strstr(js.data, "seed") == NULL && strstr(js.data, "step") == NULL &&
		  strstr(js.data, "\"neighbours\": \"add_remove\"") != NULL &&
		  strstr(js.data, "\"n\"") == NULL,
		  "json: add/remove, no n: %s", js.data);
	dpb_buf_free(&js);
	check_n_fields(&r, buf, len);
	/* an edited epsilon (header field 2), beta (4), draw count (18) */
	{
		int			fields[3] = {2, 4, 18},
					f;

		for (f = 0; f < 3; f++)
		{
			unsigned char *c = malloc(len);
			double		v;

			memcpy(c, buf, len);
			memcpy(&v, c + 4 + 8 * fields[f], 8);
			v = fields[f] == 18 ? 2 : v * 0.5;
			memcpy(c + 4 + 8 * fields[f], &v, 8);
			CHECK(dpb_betad_unpack(c, len, &r2, &err) == DPB_ECORRUPT,
				  "edited field %d accepted", fields[f]);
			free(c);
		}
		CHECK(dpb_betad_unpack(buf, len - 1, &r2, &err) == DPB_ECORRUPT, "truncated");
	}
	free(buf);
	dpb_betad_release_free(&r);
	dpb_rbits_free(rb);
	gsl_rng_free(g);
}

void
test_betad_release(void)
{
	check_spec();
	check_plan();
	exact_audit();
	check_units_and_packing();
}
