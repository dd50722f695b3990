/*
 * test_dnoise.c — the exact discrete samplers and the zCDP calibration
 * (dnoise.h).
 *
 * Every statistical test uses the insecure seeded source with a fixed seed
 * and accepts at p > 1e-6: a correct sampler fails with probability 1e-6
 * per test, and each test is paired with a negative control (a wrong
 * parameter or a wrong transformation of the samples) that the same
 * harness must reject at p < 1e-6.
 *
 *  - chi-square goodness of fit against the exact pmf (long double) for
 *    dgauss sigma2 in {1, 2, 10, 1000} and dlaplace t in {1, 3, 100},
 *    20000 draws each; control: sigma2 = 11 (t = 11) tested against the pmf
 *    of sigma2 = 10 (t = 10), 40000 draws;
 *  - large scale (sigma2 = 2^40, t = 2^20): KS of 5000 draws against the
 *    continuous normal / Laplace CDF, z-tests of mean and variance on 20000
 *    draws, and chi-square uniformity of the low 8 bits (25600 draws);
 *    controls: samples multiplied by 2 fail the low-bit test; KS with the
 *    CDF of scale 1.5x fails;
 *  - Bernoulli(n/d) and Bernoulli(exp(-n/d)) frequencies (binomial z-test)
 *    including 128-bit denominators; uniform integers;
 *  - reproducibility of the seeded stream, failing sources, argument
 *    checks;
 *  - zcdp_delta / zcdp_rho against test/ref/zcdp_ref.py (an independent
 *    50-digit Python computation), monotonicity, round trips, and sigma/Delta
 *    against the analytic Gaussian mechanism (dpb_agm_sigma).
 */
#include "unit.h"
#include "agm.h"
#include "dnoise.h"
#include "ks.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>

#define P_MIN 1e-6
#define Z_MAX 4.89				/* two-sided normal tail 1e-6 */

typedef long double (*pmf_fn) (int64_t y, const void *par);

typedef struct
{
	long double sigma2;
	long double norm;
} gauss_par;

typedef struct
{
	long double t;
} lap_par;

static long double
pmf_gauss(int64_t y, const void *vp)
{
	const gauss_par *p = vp;

	return expl(-(long double) y * y / (2 * p->sigma2)) / p->norm;
}

static gauss_par
gauss_par_make(uint64_t sigma2)
{
	gauss_par	p;
	long double s = 1;
	int64_t		y,
				ymax = 40 * (int64_t) sqrt((double) sigma2) + 40;

	p.sigma2 = sigma2;
	for (y = 1; y <= ymax; y++)
		s += 2 * expl(-(long double) y * y / (2 * p.sigma2));
	p.norm = s;
	return p;
}

/* (1 - q) / (1 + q) q^|y|, q = e^{-1/t} */
static long double
pmf_lap(int64_t y, const void *vp)
{
	const lap_par *p = vp;
	long double om = -expm1l(-1 / p->t);	/* 1 - q */

	return om / (2 - om) * expl(-(long double) llabs(y) / p->t);
}

/*
 * Chi-square p-value of samples (symmetric pmf): one cell per y with
 * |y| < L, and the cell |y| >= L, where L is the smallest y >= 0 with
 * expected count n pmf(L) < 5 (so each cell expects >= 5).
 */
static double
chisq_pvalue(const int64_t *s, int n, pmf_fn pmf, const void *par)
{
	int64_t		L = 0,
				y;
	long double tail = 1,
				stat = 0;
	long	   *cnt;
	int			i,
				cells;

	while (n * pmf(L, par) >= 5 && L < 1000000)
		L++;
	if (L == 0)
		return 0;
	cnt = calloc(2 * L, sizeof(long));	/* y + L - 1 for |y| < L; last */
	for (i = 0; i < n; i++)
	{
		if (s[i] > -L && s[i] < L)
			cnt[s[i] + L - 1]++;
		else
			cnt[2 * L - 1]++;
	}
	for (y = -L + 1; y < L; y++)
	{
		long double e = n * pmf(y, par),
					d = cnt[y + L - 1] - e;

		stat += d * d / e;
		tail -= pmf(y, par);
	}
	{
		long double e = n * tail,
					d = cnt[2 * L - 1] - e;

		if (e > 0)
			stat += d * d / e;
	}
	cells = (int) (2 * L);
	free(cnt);
	return gsl_cdf_chisq_Q((double) stat, cells - 1);
}

typedef dpb_status (*sampler_fn) (dpb_rbits *, uint64_t, int64_t *);

/* n draws of f(rb, param, .), malloc'ed */
static int64_t *
draw(sampler_fn f, const char *name, dpb_rbits *rb, uint64_t param, int n)
{
	int64_t    *s = malloc(n * sizeof(int64_t));
	int			i,
				bad = 0;

	for (i = 0; i < n; i++)
		bad += f(rb, param, &s[i]) != DPB_OK;
	CHECK(bad == 0, "%s(%llu): %d draws failed", name,
		  (unsigned long long) param, bad);
	return s;
}

#define draw_dgauss(rb, sigma2, n) draw(dpb_dgauss, "dgauss", rb, sigma2, n)
#define draw_dlaplace(rb, t, n) draw(dpb_dlaplace, "dlaplace", rb, t, n)

/* ---- exact pmf, small parameters ---- */

static void
test_small_pmf(void)
{
	static const uint64_t sig2[] = {1, 2, 10, 1000};
	static const uint64_t ts[] = {1, 3, 100};
	const int	n = 20000;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(20201));
	size_t		i;

	for (i = 0; i < sizeof(sig2) / sizeof(sig2[0]); i++)
	{
		int64_t    *s = draw_dgauss(rb, sig2[i], n);
		gauss_par	p = gauss_par_make(sig2[i]);
		double		pv = chisq_pvalue(s, n, pmf_gauss, &p);

		CHECK(pv > P_MIN, "dgauss sigma2=%llu chi-square p = %.3g",
			  (unsigned long long) sig2[i], pv);
		free(s);
	}
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
	{
		int64_t    *s = draw_dlaplace(rb, ts[i], n);
		lap_par		p = {ts[i]};
		double		pv = chisq_pvalue(s, n, pmf_lap, &p);

		CHECK(pv > P_MIN, "dlaplace t=%llu chi-square p = %.3g",
			  (unsigned long long) ts[i], pv);
		free(s);
	}
	dpb_rbits_free(rb);
}

/* the harness rejects a sampler whose scale is off by 10% */
static void
test_wrong_sampler_rejected(void)
{
	const int	n = 40000;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(777));
	int64_t    *s;
	gauss_par	gp = gauss_par_make(10);
	lap_par		lp = {10};
	double		pv;

	s = draw_dgauss(rb, 11, n);
	pv = chisq_pvalue(s, n, pmf_gauss, &gp);
	CHECK(pv < P_MIN, "dgauss(11) against the pmf of sigma2 = 10: p = %.3g", pv);
	free(s);
	s = draw_dgauss(rb, 10, n);
	pv = chisq_pvalue(s, n, pmf_gauss, &gp);
	CHECK(pv > P_MIN, "dgauss(10) against its pmf, 40000 draws: p = %.3g", pv);
	free(s);
	s = draw_dlaplace(rb, 11, n);
	pv = chisq_pvalue(s, n, pmf_lap, &lp);
	CHECK(pv < P_MIN, "dlaplace(11) against the pmf of t = 10: p = %.3g", pv);
	free(s);
	dpb_rbits_free(rb);
}

/* ---- large parameters ---- */

static double
ks_p(const int64_t *s, int n, double (*cdf) (double, double), double scale)
{
	double	   *u = malloc(n * sizeof(double));
	double		D;
	int			i;

	for (i = 0; i < n; i++)
		u[i] = cdf((double) s[i], scale);
	D = dpb_ks_uniform_stat(u, n);
	free(u);
	return dpb_ks_pvalue(D, n);
}

static double
cdf_normal(double x, double sd)
{
	return gsl_cdf_gaussian_P(x, sd);
}

static double
cdf_laplace(double x, double b)
{
	return gsl_cdf_laplace_P(x, b);
}

/* low 8 bits (two's complement) uniform on 0..255 */
static double
lowbits_p(const int64_t *s, int n, int mult)
{
	long		cnt[256] = {0};
	double		stat = 0,
				e = n / 256.0;
	int			i;

	for (i = 0; i < n; i++)
		cnt[(uint64_t) (s[i] * mult) & 255]++;
	for (i = 0; i < 256; i++)
		stat += (cnt[i] - e) * (cnt[i] - e) / e;
	return gsl_cdf_chisq_Q(stat, 255);
}

static void
moments_z(const int64_t *s, int n, double var, double kurt, double *zm,
		  double *zv)
{
	long double m = 0,
				v = 0;
	int			i;

	for (i = 0; i < n; i++)
		m += s[i];
	m /= n;
	for (i = 0; i < n; i++)
		v += (s[i] - m) * (s[i] - m);
	v /= n - 1;
	*zm = (double) (m / sqrtl(var / n));
	/* sd of the sample variance: sqrt((kurt - 1) / n) var */
	*zv = (double) ((v - var) / (sqrtl((kurt - 1) / n) * var));
}

static void
test_large_scale(void)
{
	const uint64_t sig2 = UINT64_C(1) << 40;
	const uint64_t t = UINT64_C(1) << 20;
	const int	nks = 5000,
				nmom = 20000,
				nbits = 25600;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(4242));
	int64_t    *s;
	double		pv,
				zm,
				zv,
				sd = 1048576.0;

	/* discrete Gaussian, sd 2^20 */
	s = draw_dgauss(rb, sig2, nmom);
	pv = ks_p(s, nks, cdf_normal, sd);
	CHECK(pv > P_MIN, "dgauss 2^40: KS p = %.3g", pv);
	pv = ks_p(s, nks, cdf_normal, 1.5 * sd);
	CHECK(pv < P_MIN, "dgauss 2^40 against sd x 1.5: KS p = %.3g", pv);
	moments_z(s, nmom, (double) sig2, 3, &zm, &zv);
	CHECK(fabs(zm) < Z_MAX && fabs(zv) < Z_MAX,
		  "dgauss 2^40: mean z = %.2f, variance z = %.2f", zm, zv);
	free(s);
	s = draw_dgauss(rb, sig2, nbits);
	pv = lowbits_p(s, nbits, 1);
	CHECK(pv > P_MIN, "dgauss 2^40: low 8 bits chi-square p = %.3g", pv);
	pv = lowbits_p(s, nbits, 2);
	CHECK(pv < P_MIN, "dgauss 2^40 doubled: low 8 bits p = %.3g", pv);
	free(s);

	/* discrete Laplace, scale 2^20: variance 2q/(1-q)^2 ~ 2 t^2 */
	s = draw_dlaplace(rb, t, nmom);
	pv = ks_p(s, nks, cdf_laplace, (double) t);
	CHECK(pv > P_MIN, "dlaplace 2^20: KS p = %.3g", pv);
	pv = ks_p(s, nks, cdf_laplace, 1.5 * (double) t);
	CHECK(pv < P_MIN, "dlaplace 2^20 against scale x 1.5: KS p = %.3g", pv);
	moments_z(s, nmom, 2.0 * (double) t * (double) t, 6, &zm, &zv);
	CHECK(fabs(zm) < Z_MAX && fabs(zv) < Z_MAX,
		  "dlaplace 2^20: mean z = %.2f, variance z = %.2f", zm, zv);
	free(s);
	s = draw_dlaplace(rb, t, nbits);
	pv = lowbits_p(s, nbits, 1);
	CHECK(pv > P_MIN, "dlaplace 2^20: low 8 bits chi-square p = %.3g", pv);
	free(s);

	/* the largest supported parameters work and have the right scale */
	s = draw_dgauss(rb, DPB_DGAUSS_MAX_SIGMA2, nks);
	pv = ks_p(s, nks, cdf_normal, 33554432.0);
	CHECK(pv > P_MIN, "dgauss 2^50: KS p = %.3g", pv);
	free(s);
	s = draw_dlaplace(rb, DPB_DLAPLACE_MAX_T, nks);
	pv = ks_p(s, nks, cdf_laplace, (double) DPB_DLAPLACE_MAX_T);
	CHECK(pv > P_MIN, "dlaplace 2^40: KS p = %.3g", pv);
	free(s);
	dpb_rbits_free(rb);
}

/* ---- Bernoulli and uniform ---- */

static double
binom_z(long k, long n, double p)
{
	return (k - n * p) / sqrt(n * p * (1 - p));
}

static void
test_bernoulli(void)
{
	const long	n = 200000;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(99));
	const dpb_u128 big = ((dpb_u128) 1) << 127;
	struct
	{
		dpb_u128	num,
					den;
		double		p;
	}			bc[] = {
		{1, 3, 1.0 / 3},
		{7, 10, 0.7},
		{big / 3, big, 1.0 / 3},	/* 128-bit denominator */
		{(dpb_u128) 5 << 100, (dpb_u128) 8 << 100, 0.625},
	},
				ec[] = {
		{0, 1, 1.0},
		{1, 2, 0.0},			/* p filled below */
		{1, 1, 0.0},
		{7, 3, 0.0},
		{25, 10, 0.0},
		{big / 2 + 12345, big, 0.0},	/* ~ 1/2, 2^127 denominator */
		{(dpb_u128) 3 << 90, (dpb_u128) 1 << 90, 0.0},
	};
	size_t		i;
	long		j,
				k;
	int			b;

	for (i = 0; i < sizeof(bc) / sizeof(bc[0]); i++)
	{
		for (j = 0, k = 0; j < n; j++)
		{
			if (dpb_bernoulli(rb, bc[i].num, bc[i].den, &b) != DPB_OK)
				break;
			k += b;
		}
		CHECK(j == n && fabs(binom_z(k, n, bc[i].p)) < Z_MAX,
			  "bernoulli case %zu: %ld of %ld, p %.4f", i, k, n, bc[i].p);
	}
	for (i = 0; i < sizeof(ec) / sizeof(ec[0]); i++)
	{
		double		x = (double) ec[i].num / (double) ec[i].den;
		double		p = exp(-x);

		for (j = 0, k = 0; j < n; j++)
		{
			if (dpb_bernoulli_exp(rb, ec[i].num, ec[i].den, &b) != DPB_OK)
				break;
			k += b;
		}
		CHECK(j == n, "bernoulli_exp case %zu: a draw failed", i);
		if (p == 1)
			CHECK(k == n, "bernoulli_exp(0): %ld of %ld", k, n);
		else
			CHECK(fabs(binom_z(k, n, p)) < Z_MAX,
				  "bernoulli_exp case %zu: %ld of %ld, p %.5f", i, k, n, p);
	}
	/* a 10% error in the probability is detected at this n */
	for (j = 0, k = 0; j < n; j++)
	{
		dpb_bernoulli_exp(rb, 11, 10, &b);
		k += b;
	}
	CHECK(fabs(binom_z(k, n, exp(-1.0))) > Z_MAX,
		  "bernoulli_exp(1.1) not distinguished from exp(-1)");
	/* argument checks */
	CHECK(dpb_bernoulli(rb, 1, 0, &b) == DPB_EINVAL, "bernoulli d = 0");
	CHECK(dpb_bernoulli(rb, 1, big + 1, &b) == DPB_EINVAL, "bernoulli d > 2^127");
	CHECK(dpb_bernoulli_exp(rb, 1, 0, &b) == DPB_EINVAL, "bernoulli_exp d = 0");
	CHECK(dpb_bernoulli(rb, 5, 5, &b) == DPB_OK && b == 1, "bernoulli(1)");
	CHECK(dpb_bernoulli(rb, 0, 5, &b) == DPB_OK && b == 0, "bernoulli(0)");
	dpb_rbits_free(rb);
}

static void
test_uniform(void)
{
	const int	n = 60000;
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(5));
	long		cnt[6] = {0},
				cnt3[3] = {0};
	double		stat = 0;
	uint64_t	v,
				maxv = 0;
	dpb_u128	m128 = (dpb_u128) 3 << 100,
				w;
	int			i,
				ok = 1;

	for (i = 0; i < n; i++)
	{
		dpb_uniform_u64(rb, 6, &v);
		ok &= v < 6;
		cnt[v % 6]++;
	}
	for (i = 0; i < 6; i++)
		stat += (cnt[i] - n / 6.0) * (cnt[i] - n / 6.0) / (n / 6.0);
	CHECK(ok && gsl_cdf_chisq_Q(stat, 5) > P_MIN, "uniform(6): chi-square %.2f", stat);
	for (i = 0, ok = 1; i < n; i++)
	{
		dpb_uniform_u128(rb, m128, &w);
		ok &= w < m128;
		cnt3[(int) (w >> 100) % 3]++;
	}
	for (i = 0, stat = 0; i < 3; i++)
		stat += (cnt3[i] - n / 3.0) * (cnt3[i] - n / 3.0) / (n / 3.0);
	CHECK(ok && gsl_cdf_chisq_Q(stat, 2) > P_MIN,
		  "uniform(3 * 2^100): chi-square %.2f", stat);
	/* m = 0 means 2^64: the top bit is set about half of the time */
	for (i = 0, ok = 0; i < 1000; i++)
	{
		dpb_uniform_u64(rb, 0, &v);
		ok += (int) (v >> 63);
		maxv = v > maxv ? v : maxv;
	}
	CHECK(ok > 400 && ok < 600, "uniform(2^64): top bit set %d of 1000", ok);
	dpb_uniform_u64(rb, 1, &v);
	CHECK(v == 0, "uniform(1)");
	/* m = 2^64 + 1 in the 128-bit version: values above 2^64 - 1 are
	 * possible only as 2^64 */
	for (i = 0, ok = 1; i < 1000; i++)
	{
		dpb_uniform_u128(rb, ((dpb_u128) 1 << 64) + 1, &w);
		ok &= w <= ((dpb_u128) 1 << 64);
	}
	CHECK(ok, "uniform(2^64 + 1) out of range");
	dpb_rbits_free(rb);
}

static void
test_isqrt(void)
{
	static const uint64_t cases[] = {
		0, 1, 2, 3, 4, 15, 16, 17, 99, 100, 101,
		(UINT64_C(1) << 50) - 1, UINT64_C(1) << 50, (UINT64_C(1) << 50) + 1,
		UINT64_C(4294967295) * UINT64_C(4294967295),
		UINT64_C(4294967295) * UINT64_C(4294967295) - 1,
		UINT64_C(18446744073709551615),
	};
	size_t		i;
	int			bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint64_t	n = cases[i],
					r = dpb_isqrt_u64(n);
		dpb_u128	r2 = (dpb_u128) r * r,
					r12 = (dpb_u128) (r + 1) * (r + 1);

		bad += !(r2 <= n && r12 > n);
	}
	for (i = 0; i < 100000; i++)
	{
		uint64_t	r = dpb_isqrt_u64(i);

		bad += !(r * r <= i && (r + 1) * (r + 1) > i);
	}
	CHECK(bad == 0, "isqrt: %d wrong", bad);
}

/* ---- the source ---- */

typedef struct
{
	int			calls;
	int			fail_after;
} fail_ctx;

static int
failing_fill(void *vctx, void *buf, size_t len)
{
	fail_ctx   *c = vctx;

	if (c->calls++ >= c->fail_after)
		return 0;
	memset(buf, 0x5a, len);
	return 1;
}

static void
test_source(void)
{
	dpb_rbits  *a = dpb_rbits_new_insecure_seeded(123),
			   *b = dpb_rbits_new_insecure_seeded(123),
			   *c = dpb_rbits_new_insecure_seeded(124);
	int			i,
				same_ab = 1,
				same_ac = 1,
				k;
	int64_t		x,
				y,
				z;
	fail_ctx	fc;
	dpb_rbits  *f;

	CHECK(dpb_rbits_insecure(a), "seeded source not flagged insecure");
	for (i = 0; i < 1000; i++)
	{
		dpb_dgauss(a, 1000000, &x);
		dpb_dgauss(b, 1000000, &y);
		dpb_dgauss(c, 1000000, &z);
		same_ab &= x == y;
		same_ac &= x == z;
	}
	CHECK(same_ab, "same seed, different streams");
	CHECK(!same_ac, "different seeds, same stream");
	CHECK(!dpb_rbits_failed(a), "seeded source failed");
	/* bit accounting: 1000 draws at sigma2 = 10^6 use some bits */
	CHECK(dpb_rbits_consumed(a) > 1000 * 20, "consumed %llu bits",
		  (unsigned long long) dpb_rbits_consumed(a));
	dpb_rbits_free(a);
	dpb_rbits_free(b);
	dpb_rbits_free(c);

	/* a source that fails at once, and one that fails later: every sampler
	 * returns DPB_ERNG and terminates */
	for (k = 0; k < 3; k++)
	{
		fc.calls = 0;
		fc.fail_after = k;
		f = dpb_rbits_new(failing_fill, &fc);
		{
			dpb_status st = DPB_OK;
			int			guard = 0,
						bb;
			uint64_t	u;

			while (st == DPB_OK && guard++ < 1000000)
				st = dpb_dgauss(f, UINT64_C(1) << 41, &x);
			CHECK(st == DPB_ERNG && x == 0, "dgauss on a failing source (%d): %d", k, st);
			CHECK(dpb_rbits_failed(f), "failed flag not set (%d)", k);
			CHECK(dpb_dlaplace(f, 1 << 20, &x) == DPB_ERNG, "dlaplace after failure");
			CHECK(dpb_dgauss(f, 1, &x) == DPB_ERNG, "dgauss(1) after failure");
			CHECK(dpb_dlaplace(f, 1, &x) == DPB_ERNG, "dlaplace(1) after failure");
			CHECK(dpb_bernoulli_exp(f, 1, 1, &bb) == DPB_ERNG, "bernoulli_exp after failure");
			CHECK(dpb_uniform_u64(f, 1000, &u) == DPB_ERNG, "uniform after failure");
		}
		dpb_rbits_free(f);
	}

	/* argument ranges */
	f = dpb_rbits_new_insecure_seeded(1);
	CHECK(dpb_dgauss(f, 0, &x) == DPB_EINVAL, "dgauss(0)");
	CHECK(dpb_dgauss(f, DPB_DGAUSS_MAX_SIGMA2 + 1, &x) == DPB_EINVAL, "dgauss too large");
	CHECK(dpb_dgauss(f, DPB_DGAUSS_MAX_SIGMA2, &x) == DPB_OK, "dgauss at the maximum");
	CHECK(dpb_dlaplace(f, 0, &x) == DPB_EINVAL, "dlaplace(0)");
	CHECK(dpb_dlaplace(f, DPB_DLAPLACE_MAX_T + 1, &x) == DPB_EINVAL, "dlaplace too large");
	CHECK(dpb_dlaplace(f, DPB_DLAPLACE_MAX_T, &x) == DPB_OK, "dlaplace at the maximum");
	dpb_rbits_free(f);
}

/* ---- zCDP calibration ---- */

/* from test/ref/zcdp_ref.py (independent computation, 50 digits) */
static const double ref_delta[][3] = {
	{0.025, 1.0, 1.3361319064032232e-06},
	{0.5, 1.0, 0.24684633078294449},
	{0.01, 0.1, 0.038593622766875613},
	{1.0, 8.0, 4.3453415166484504e-07},
	{2.0, 1.0, 0.77052929513189361},
	{0.0001, 0.05, 2.8062773826311535e-06},
	{0.1, 3.0, 1.7944352083338353e-11},
	{5.0, 20.0, 2.3875492159453937e-06},
	{1e-10, 1e-10, 8.5775781969342358e-06},
	{50.0, 100.0, 1.4258715184220672e-06},
};

static const double ref_rho[][3] = {
	{0.1, 1e-05, 0.00043299372940180957},
	{0.1, 1e-06, 0.00032104769034574013},
	{0.1, 1e-09, 0.00017713844718502089},
	{0.5, 1e-05, 0.0085055305911819114},
	{0.5, 1e-06, 0.0066415243566605017},
	{0.5, 1e-09, 0.0039531911412178976},
	{1, 1e-05, 0.030556595197639567},
	{1, 1e-06, 0.024355970359538372},
	{1, 1e-09, 0.014973057673588527},
	{2, 1e-05, 0.10825636382305726},
	{2, 1e-06, 0.088152688379946262},
	{2, 1e-09, 0.056130501796519822},
	{8, 1e-05, 1.2297145257614313},
	{8, 1e-06, 1.0523580045569889},
	{8, 1e-09, 0.73283328738245346},
};

static void
test_zcdp(void)
{
	size_t		i;
	double		rho,
				sigma,
				agm,
				prev;
	dpb_err		err;
	int			mono = 1;

	for (i = 0; i < sizeof(ref_delta) / sizeof(ref_delta[0]); i++)
	{
		double		d = dpb_zcdp_delta(ref_delta[i][0], ref_delta[i][1]);

		/* never below the infimum (the reference is exact to ~1e-17), and
		 * within 1e-10 of it */
		CHECK(d >= ref_delta[i][2] * (1 - 2e-16) && d <= ref_delta[i][2] * (1 + 1e-10),
			  "zcdp_delta(%g, %g) = %.17g, reference %.17g",
			  ref_delta[i][0], ref_delta[i][1], d, ref_delta[i][2]);
	}
	for (i = 0; i < sizeof(ref_rho) / sizeof(ref_rho[0]); i++)
	{
		CHECK(dpb_zcdp_rho(ref_rho[i][0], ref_rho[i][1], &rho, &err) == DPB_OK,
			  "zcdp_rho(%g, %g) failed", ref_rho[i][0], ref_rho[i][1]);
		/* never above the exact largest rho, and within 1e-10 of it */
		CHECK(rho <= ref_rho[i][2] * (1 + 2e-16) && rho >= ref_rho[i][2] * (1 - 1e-10),
			  "zcdp_rho(%g, %g) = %.17g, reference %.17g",
			  ref_rho[i][0], ref_rho[i][1], rho, ref_rho[i][2]);
		/* round trip: the rho returned is on the safe side */
		CHECK(dpb_zcdp_delta(rho, ref_rho[i][0]) <= ref_rho[i][1],
			  "zcdp_delta(zcdp_rho(%g, %g)) too large", ref_rho[i][0], ref_rho[i][1]);
		CHECK(dpb_zcdp_delta(rho * (1 + 1e-9), ref_rho[i][0]) > ref_rho[i][1],
			  "zcdp_rho(%g, %g) not the largest", ref_rho[i][0], ref_rho[i][1]);
	}
	/* monotone: increasing in rho, decreasing in eps */
	prev = 0;
	for (rho = 1e-6; rho < 100; rho *= 1.1)
	{
		double		d = dpb_zcdp_delta(rho, 1.0);

		mono &= d >= prev;
		prev = d;
	}
	CHECK(mono, "zcdp_delta not increasing in rho");
	prev = 1;
	for (mono = 1, sigma = 0; sigma < 30; sigma += 0.05)
	{
		double		d = dpb_zcdp_delta(0.1, sigma);

		mono &= d <= prev;
		prev = d;
	}
	CHECK(mono, "zcdp_delta not decreasing in eps");
	/* the standard bound exp(-(eps-rho)^2/(4 rho)) (Bun & Steinke 2016) is
	 * never better, and the bound is at most 1 */
	CHECK(dpb_zcdp_delta(0.025, 1) <= exp(-(1 - 0.025) * (1 - 0.025) / (4 * 0.025)),
		  "worse than the standard conversion");
	CHECK(dpb_zcdp_delta(50, 1) <= 1 && dpb_zcdp_delta(0, 1) == 0, "limits");
	CHECK(isnan(dpb_zcdp_delta(-1, 1)) && isnan(dpb_zcdp_delta(1, NAN)), "NaN on bad input");
	/* errors */
	CHECK(dpb_zcdp_rho(0, 1e-5, &rho, &err) == DPB_EINVAL, "eps = 0");
	CHECK(dpb_zcdp_rho(-1, 1e-5, &rho, &err) == DPB_EINVAL, "eps < 0");
	CHECK(dpb_zcdp_rho(INFINITY, 1e-5, &rho, &err) == DPB_EINVAL, "eps = inf");
	CHECK(dpb_zcdp_rho(1, 0, &rho, &err) == DPB_EINVAL, "delta = 0");
	CHECK(dpb_zcdp_rho(1, 1, &rho, &err) == DPB_EINVAL, "delta = 1");
	CHECK(dpb_zcdp_rho(1, NAN, &rho, &err) == DPB_EINVAL, "delta = NaN");
	CHECK(dpb_zcdp_sigma(1, 1e-5, 0, &sigma, &err) == DPB_EINVAL, "sens = 0");
	/* sigma / Delta: 4.045 for (1, 1e-5), vs 3.7306 for the analytic
	 * Gaussian mechanism; zCDP always needs more, by less than 25% here */
	CHECK(dpb_zcdp_sigma(1, 1e-5, 1, &sigma, &err) == DPB_OK, "zcdp_sigma");
	CHECK_REL(sigma, 4.0451, 1e-4, "zcdp sigma/Delta at (1, 1e-5)");
	CHECK(dpb_agm_sigma(1, 1e-5, 1, &agm, &err) == DPB_OK, "agm");
	CHECK_REL(agm, 3.7306, 1e-4, "agm sigma/Delta at (1, 1e-5)");
	for (i = 0; i < sizeof(ref_rho) / sizeof(ref_rho[0]); i++)
	{
		double		e = ref_rho[i][0],
					dl = ref_rho[i][1];

		dpb_zcdp_sigma(e, dl, 2.5, &sigma, &err);
		dpb_agm_sigma(e, dl, 2.5, &agm, &err);
		CHECK(sigma >= agm && sigma <= 1.25 * agm,
			  "zcdp/agm ratio %.4f at (%g, %g)", sigma / agm, e, dl);
		/* the discrete Gaussian at the zCDP sigma also satisfies the
		 * continuous AGM inequality: a consistency check of the bound */
		CHECK(dpb_agm_delta(e, 2.5, sigma) <= dl, "agm_delta at zcdp sigma");
	}
}

/*
 * The fact behind the zCDP guarantee (CKS, one-dimensional result; the
 * vector form follows by additivity over independent coordinates): for an
 * integer shift D, the Renyi divergence of order alpha between N_Z(0, s2)
 * and N_Z(D, s2) is at most alpha D^2 / (2 s2).  Computed here by direct
 * summation in long double; it is also nearly tight.
 */
static void
test_renyi_bound(void)
{
	static const uint64_t s2s[] = {1, 2, 10};
	static const int shifts[] = {1, 3};
	static const double alphas[] = {1.5, 2, 4, 10};
	size_t		i,
				j,
				k;
	int			bad = 0;

	for (i = 0; i < 3; i++)
	{
		gauss_par	p = gauss_par_make(s2s[i]);

		for (j = 0; j < 2; j++)
			for (k = 0; k < 4; k++)
			{
				long double a = alphas[k],
							sum = 0,
							D;
				double		bound = a * shifts[j] * shifts[j] / (2.0 * s2s[i]);
				int64_t		y;

				for (y = -200; y <= 200; y++)
				{
					/* p(y)^a q(y)^(1-a) = exp(...) / Z */
					long double d = y - shifts[j];

					sum += expl(-(a * y * y + (1 - a) * d * d) / (2 * p.sigma2));
				}
				sum /= p.norm;
				D = logl(sum) / (a - 1);
				if (!(D <= bound * (1 + 1e-12) && D >= bound * (1 - 1e-6)))
				{
					bad++;
					printf("renyi s2=%llu shift=%d alpha=%g: %.12Lg vs %.12g\n",
						   (unsigned long long) s2s[i], shifts[j], alphas[k], D, bound);
				}
			}
	}
	CHECK(bad == 0, "Renyi divergence of discrete Gaussians: %d cases off", bad);
}

static void
test_grid_params(void)
{
	uint64_t	v;
	dpb_err		err;

	/* sigma = 3 * 2^20 on grid 2^0: 9 * 2^40; on grid 2^10: 9 * 2^20 */
	CHECK(dpb_dgauss_sigma2_on_grid(3 * 1048576.0, 0, &v, &err) == DPB_OK
		  && v == 9 * (UINT64_C(1) << 40), "sigma2 exact square: %llu", (unsigned long long) v);
	CHECK(dpb_dgauss_sigma2_on_grid(3 * 1048576.0, 10, &v, &err) == DPB_OK
		  && v == 9 * (UINT64_C(1) << 20), "sigma2 on 2^10");
	/* never below the exact value: (1.1 / 2^-4)^2 = 309.76 -> 310 */
	CHECK(dpb_dgauss_sigma2_on_grid(1.1, -4, &v, &err) == DPB_OK && v == 310,
		  "sigma2 rounding up: %llu", (unsigned long long) v);
	CHECK(dpb_dgauss_sigma2_on_grid(1e-9, 0, &v, &err) == DPB_OK && v == 1,
		  "sigma2 at least 1");
	/* the exact square of the double counts: (1 + 2^-52)^2 > 1, and
	 * sqrt(2) in double squares to 2.00000000000000044 */
	CHECK(dpb_dgauss_sigma2_on_grid(1 + DBL_EPSILON, 0, &v, &err) == DPB_OK && v == 2,
		  "sigma2 just above 1: %llu", (unsigned long long) v);
	CHECK(dpb_dgauss_sigma2_on_grid(sqrt(2.0), 0, &v, &err) == DPB_OK && v == 3,
		  "sigma2 of sqrt(2) (double): %llu", (unsigned long long) v);
	/* (94906267 / 4)^2 = 562949969742205.5625 (checked with Python
	 * fractions) */
	CHECK(dpb_dgauss_sigma2_on_grid(94906267.0, 2, &v, &err) == DPB_OK
		  && v == 562949969742206, "sigma2 of 94906267/4: %llu", (unsigned long long) v);
	CHECK(dpb_dgauss_sigma2_on_grid(1.0, -26, &v, &err) == DPB_ERANGE,
		  "sigma2 2^52 out of range");
	CHECK(dpb_dgauss_sigma2_on_grid(1.0, -25, &v, &err) == DPB_OK
		  && v == DPB_DGAUSS_MAX_SIGMA2, "sigma2 2^50 in range");
	CHECK(dpb_dgauss_sigma2_on_grid(0, 0, &v, &err) == DPB_EINVAL
		  && dpb_dgauss_sigma2_on_grid(NAN, 0, &v, &err) == DPB_EINVAL,
		  "sigma2 bad scale");
	CHECK(dpb_dlaplace_t_on_grid(1000.5, 0, &v, &err) == DPB_OK && v == 1001,
		  "t rounding up");
	CHECK(dpb_dlaplace_t_on_grid(1024, 10, &v, &err) == DPB_OK && v == 1, "t exact");
	CHECK(dpb_dlaplace_t_on_grid(1.0, -41, &v, &err) == DPB_ERANGE, "t out of range");
	CHECK(dpb_dlaplace_t_on_grid(-1, 0, &v, &err) == DPB_EINVAL, "t bad scale");
}

void
test_dnoise(void)
{
	test_isqrt();
	test_uniform();
	test_bernoulli();
	test_source();
	test_small_pmf();
	test_wrong_sampler_rejected();
	test_large_scale();
	test_grid_params();
	test_renyi_bound();
	test_zcdp();
}
