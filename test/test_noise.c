/*
 * test_noise.c — the noise distributions and the secure generator
 * (noise.h).
 *
 * With a seeded gsl_rng_mt19937, n = 200000 draws of dpb_noise_gaussian and
 * dpb_noise_laplace must have the right mean and standard deviation and
 * pass a Kolmogorov-Smirnov test against their CDFs.  The KS threshold is
 * 1.52 / sqrt(n) (Kolmogorov tail probability 2%); on the same samples the
 * test also checks that the CDFs of a scale off by 2% either way are
 * rejected, so that the threshold has the power the test claims.
 *
 * dpb_strong_rng_alloc is driven by fake byte sources (the fill function
 * has no context argument: a static mode selects the source).
 */
#include "unit.h"
#include "noise.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#define NDRAW 200000
#define KS_K 1.52				/* P(sqrt(n) D > 1.52) = 0.02 */

/* ---- fake byte sources ---- */

enum
{
	SRC_COUNTER,				/* splitmix64 of a counter: good bytes */
	SRC_ZEROS,					/* all bytes 0 (a broken source that claims
								 * success) */
	SRC_ONES,					/* all bytes 0xff */
	SRC_FAIL,					/* always fails */
	SRC_FAIL_AFTER				/* counter for fail_after calls, then fails */
};

static int	src_mode = SRC_COUNTER;
static uint64_t src_counter = 0;
static int	src_calls = 0;
static int	src_fail_after = 0;

static uint64_t
splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static int
fake_fill(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t		i;

	src_calls++;
	switch (src_mode)
	{
		case SRC_ZEROS:
			memset(buf, 0, len);
			return 1;
		case SRC_ONES:
			memset(buf, 0xff, len);
			return 1;
		case SRC_FAIL:
			memset(buf, 0x5a, len);
			return 0;
		case SRC_FAIL_AFTER:
			if (src_calls > src_fail_after)
				return 0;
			break;
	}
	for (i = 0; i < len; i += 8)
	{
		uint64_t	v = splitmix64(src_counter++);
		size_t		k;

		for (k = 0; k < 8 && i + k < len; k++)
			p[i + k] = (unsigned char) (v >> (8 * k));
	}
	return 1;
}

/* ---- statistics ---- */

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

typedef double (*cdf_fn) (double x, double scale);

static double
cdf_gauss(double x, double sd)
{
	return gsl_cdf_gaussian_P(x, sd);
}

static double
cdf_laplace(double x, double b)
{
	return x < 0 ? 0.5 * exp(x / b) : 1.0 - 0.5 * exp(-x / b);
}

static double
cdf_unif(double x, double unused)
{
	return x <= 0 ? 0 : x >= 1 ? 1 : x;
}

/* KS statistic of sorted x[0..n-1] against cdf(., scale) */
static double
ks_stat(const double *x, int n, cdf_fn cdf, double scale)
{
	double		D = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		double		F = cdf(x[i], scale),
					a = F - (double) i / n,
					b = (double) (i + 1) / n - F;

		if (a > D)
			D = a;
		if (b > D)
			D = b;
	}
	return D;
}

static void
mean_sd(const double *x, int n, double *mean, double *sd)
{
	double		s = 0,
				ss = 0;
	int			i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*sd = sqrt(ss / (n - 1));
}

/*
 * Checks n draws against a distribution of scale `scale` and standard
 * deviation sd: mean within 4.5 standard errors of 0, sd within sd_tol
 * (relative; ~4 standard errors), KS below the threshold, and the CDFs of
 * scale * 1.02 and scale / 1.02 above it.
 */
static void
check_dist(const char *what, double *x, int n, cdf_fn cdf, double scale,
		   double sd, double sd_tol)
{
	double		m,
				s,
				D,
				Dhi,
				Dlo,
				T = KS_K / sqrt((double) n);

	mean_sd(x, n, &m, &s);
	CHECK(fabs(m) < 4.5 * sd / sqrt((double) n), "%s: mean %g (sd of the mean %g)",
		  what, m, sd / sqrt((double) n));
	CHECK(fabs(s / sd - 1) < sd_tol, "%s: sd %.6g, want %.6g", what, s, sd);
	qsort(x, n, sizeof(double), cmp_double);
	D = ks_stat(x, n, cdf, scale);
	Dhi = ks_stat(x, n, cdf, scale * 1.02);
	Dlo = ks_stat(x, n, cdf, scale / 1.02);
	CHECK(D < T, "%s: KS D = %.5f (sqrt(n) D = %.3f), threshold %.5f",
		  what, D, D * sqrt((double) n), T);
	CHECK(Dhi > T && Dlo > T,
		  "%s: the KS threshold does not reject a 2%% scale error (D %.5f, %.5f)",
		  what, Dhi, Dlo);
}

void
test_noise(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng    *sr;
	double	   *x = malloc(sizeof(double) * NDRAW);
	int			i,
				bad;

	/* ---- seeded generator: Gaussian and Laplace ---- */
	gsl_rng_set(rng, 1);
	for (i = 0; i < NDRAW; i++)
		x[i] = dpb_noise_gaussian(rng, 2.5);
	check_dist("gaussian sd 2.5", x, NDRAW, cdf_gauss, 2.5, 2.5, 0.006);

	for (i = 0; i < NDRAW; i++)
		x[i] = dpb_noise_laplace(rng, 1.7);
	check_dist("laplace b 1.7", x, NDRAW, cdf_laplace, 1.7, 1.7 * M_SQRT2, 0.011);
	{
		/* E|v| = b: a second scale check with small variance (sd b) */
		double		a = 0;

		for (i = 0; i < NDRAW; i++)
			a += fabs(x[i]);
		a /= NDRAW;
		CHECK(fabs(a / 1.7 - 1) < 0.01, "laplace mean |v| %.6g, want 1.7", a);
	}

	/* scale is linear: same seed, sd 1 vs sd 1e-3 / 1e6 */
	{
		double		u[3],
					v[3];

		gsl_rng_set(rng, 99);
		u[0] = dpb_noise_gaussian(rng, 1.0);
		u[1] = dpb_noise_laplace(rng, 1.0);
		u[2] = dpb_noise_gaussian(rng, 1.0);
		gsl_rng_set(rng, 99);
		v[0] = dpb_noise_gaussian(rng, 1e-3);
		v[1] = dpb_noise_laplace(rng, 1e6);
		v[2] = dpb_noise_gaussian(rng, 1e-3);
		CHECK_REL(v[0], 1e-3 * u[0], 1e-12, "gaussian scale 1e-3");
		CHECK_REL(v[1], 1e6 * u[1], 1e-12, "laplace scale 1e6");
		CHECK_REL(v[2], 1e-3 * u[2], 1e-12, "gaussian scale 1e-3 (2nd draw)");
	}

	/* ---- the secure generator with a good fake source ---- */
	src_mode = SRC_COUNTER;
	src_counter = 0;
	sr = dpb_strong_rng_alloc(fake_fill);
	CHECK(sr != NULL, "dpb_strong_rng_alloc");
	if (sr != NULL)
	{
		int			nhi = 0,
					nlo = 0,
					oddhi = 0,
					oddlo = 0,
					bit2 = 0;
		unsigned long gmax = 0;
		double		m,
					s;

		gsl_rng_set(sr, 12345);	/* a secure source ignores seeds */
		bad = 0;
		for (i = 0; i < NDRAW; i++)
		{
			double		u = gsl_rng_uniform(sr);
			double		g = ldexp(u, 53);	/* the 2^-53 grid index */
			double		k = floor(g);

			x[i] = u;
			bad += !(u > 0.0 && u < 1.0);
			/* the lowest grid bit must be random in both halves: 32-bit
			 * uniforms, or k + 0.5 rounded to even, leave it constant */
			if (u >= 0.5)
			{
				nhi++;
				oddhi += fmod(k, 2.0) != 0;
			}
			else
			{
				nlo++;
				oddlo += fmod(k, 2.0) != 0;
			}
			bit2 += fmod(floor(k / 2), 2.0) != 0;
		}
		CHECK(bad == 0, "strong uniforms: %d outside (0, 1)", bad);
		CHECK(fabs((double) oddhi / nhi - 0.5) < 0.01 && fabs((double) oddlo / nlo - 0.5) < 0.01,
			  "strong uniforms: lowest of 53 bits not random (odd %d/%d above 1/2, %d/%d below)",
			  oddhi, nhi, oddlo, nlo);
		CHECK(fabs((double) bit2 / NDRAW - 0.5) < 0.01, "strong uniforms: bit 52 not random");
		mean_sd(x, NDRAW, &m, &s);
		CHECK(fabs(m - 0.5) < 4.5 * sqrt(1.0 / 12 / NDRAW), "strong uniform mean %g", m);
		qsort(x, NDRAW, sizeof(double), cmp_double);
		CHECK(ks_stat(x, NDRAW, cdf_unif, 0) < KS_K / sqrt((double) NDRAW),
			  "strong uniforms: KS D = %g", ks_stat(x, NDRAW, cdf_unif, 0));
		for (i = 0; i < 1000; i++)
		{
			unsigned long g = gsl_rng_get(sr);

			if (g > gmax)
				gmax = g;
		}
		CHECK(gmax <= gsl_rng_max(sr) && gmax > gsl_rng_max(sr) / 2,
			  "strong gsl_rng_get: max %lu of range %lu", gmax, gsl_rng_max(sr));
		CHECK(!dpb_strong_rng_failed(sr), "good source reported as failed");

		/* Gaussian and Laplace noise from the secure generator */
		for (i = 0; i < NDRAW; i++)
			x[i] = dpb_noise_gaussian(sr, 3.0);
		check_dist("strong gaussian sd 3", x, NDRAW, cdf_gauss, 3.0, 3.0, 0.006);
		for (i = 0; i < NDRAW; i++)
			x[i] = dpb_noise_laplace(sr, 0.25);
		check_dist("strong laplace b 0.25", x, NDRAW, cdf_laplace, 0.25, 0.25 * M_SQRT2, 0.011);
		CHECK(!dpb_strong_rng_failed(sr), "good source reported as failed");
		gsl_rng_free(sr);
	}

	/* extreme byte patterns: still strictly inside (0, 1) */
	src_mode = SRC_ONES;
	sr = dpb_strong_rng_alloc(fake_fill);
	for (i = 0, bad = 0; i < 100; i++)
	{
		double		u = gsl_rng_uniform(sr);

		bad += !(u > 0.0 && u < 1.0);
	}
	CHECK(bad == 0, "all-0xff source: uniform not below 1");
	gsl_rng_free(sr);
	src_mode = SRC_ZEROS;
	sr = dpb_strong_rng_alloc(fake_fill);
	for (i = 0, bad = 0; i < 100; i++)
	{
		double		u = gsl_rng_uniform(sr);

		bad += !(u > 0.0 && u < 1.0);
	}
	CHECK(bad == 0, "all-zero source: uniform not above 0");
	CHECK(dpb_noise_laplace(sr, 1.0) == dpb_noise_laplace(sr, 1.0) &&
		  dpb_isfinite(dpb_noise_laplace(sr, 1.0)) &&
		  dpb_isfinite(dpb_noise_gaussian(sr, 1.0)), "all-zero source: finite noise");
	gsl_rng_free(sr);

	/* a failing source sets the flag on the first draw */
	src_mode = SRC_FAIL;
	src_calls = 0;
	sr = dpb_strong_rng_alloc(fake_fill);
	CHECK(!dpb_strong_rng_failed(sr), "failed before any draw");
	(void) gsl_rng_uniform(sr);
	CHECK(dpb_strong_rng_failed(sr), "failing source not reported (uniform)");
	CHECK(src_calls >= 1, "the source was not called");
	CHECK(dpb_isfinite(dpb_noise_gaussian(sr, 1.0)) && dpb_isfinite(dpb_noise_laplace(sr, 1.0)),
		  "failing source: the draws still terminate with finite values");
	gsl_rng_free(sr);
	sr = dpb_strong_rng_alloc(fake_fill);
	(void) gsl_rng_get(sr);
	CHECK(dpb_strong_rng_failed(sr), "failing source not reported (gsl_rng_get)");
	gsl_rng_free(sr);
	sr = dpb_strong_rng_alloc(fake_fill);
	(void) dpb_noise_gaussian(sr, 1.0);
	CHECK(dpb_strong_rng_failed(sr), "failing source not reported (gaussian)");
	gsl_rng_free(sr);
	sr = dpb_strong_rng_alloc(fake_fill);
	(void) dpb_noise_laplace(sr, 1.0);
	CHECK(dpb_strong_rng_failed(sr), "failing source not reported (laplace)");
	gsl_rng_free(sr);

	/* a source that fails later: the flag is set then, and stays set */
	src_mode = SRC_FAIL_AFTER;
	src_calls = 0;
	src_fail_after = 2;
	sr = dpb_strong_rng_alloc(fake_fill);
	{
		int			first_fail = -1;

		for (i = 0; i < 10000; i++)
		{
			(void) gsl_rng_uniform(sr);
			if (first_fail < 0 && dpb_strong_rng_failed(sr))
				first_fail = i;
		}
		CHECK(first_fail > 0 && src_calls > src_fail_after,
			  "late failure: first seen at draw %d after %d calls", first_fail, src_calls);
		src_mode = SRC_COUNTER; /* the source recovers: the flag stays */
		for (i = 0; i < 1000; i++)
			(void) gsl_rng_uniform(sr);
		CHECK(dpb_strong_rng_failed(sr), "the failure flag must be sticky");
	}
	gsl_rng_free(sr);

	/* two secure generators do not share state; a GSL generator is never
	 * "failed" */
	{
		gsl_rng    *a,
				   *b;

		src_mode = SRC_COUNTER;
		src_counter = 0;
		a = dpb_strong_rng_alloc(fake_fill);
		(void) gsl_rng_uniform(a);	/* a takes the first pool */
		b = dpb_strong_rng_alloc(fake_fill);
		CHECK(gsl_rng_uniform(a) != gsl_rng_uniform(b), "two strong generators share state");
		gsl_rng_free(a);
		gsl_rng_free(b);
	}
	CHECK(!dpb_strong_rng_failed(rng), "a seeded GSL generator reported as failed");

	src_mode = SRC_COUNTER;
	free(x);
	gsl_rng_free(rng);
}
