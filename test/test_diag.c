/*
 * test_diag.c — posterior summaries and convergence diagnostics (diag.c).
 *
 * Reference values:
 *  - small vectors: median, mad, type-7 quantiles and sd worked by hand;
 *  - a 5-draw chain whose rank-normalised split R-hat has a closed form;
 *  - deterministic data sets (an integer LCG driving AR(1) chains, rounded
 *    sines with many ties) against a pure-Python port of posterior's
 *    R/convergence.R (current master: Blom ranks (r - 3/8)/(S + 1/4), O(n^2)
 *    autocovariances instead of FFT, statistics.NormalDist for qnorm); they
 *    agree to ~1e-13.  They cover Geyer's monotone fix, truncation at the
 *    last lag, ties, odd n and the R quirk 1:max_t with max_t = 0 (S / 2).
 *  - not in this file (the data belong to posterior): on posterior's
 *    example_draws("eight_schools") (4 chains x 100) dpb_summarize gives
 *    every column of summarise_draws() in posterior's README to the printed
 *    digits, e.g. mu: 4.18 4.16 3.40 3.57 -0.854 9.39, rhat 1.0219,
 *    ess_bulk 558.02, ess_tail 322.10; tau: rhat 1.0147, ess 246.37, 202.02.
 *  - statistical checks on simulated chains (gsl mt19937, fixed seeds).  The
 *    spreads over other seeds are quoted next to each check; e.g. for iid
 *    4 x 1000 over 1000 seeds ess_bulk is 3950 +- 176, ess_tail 3852 +- 163,
 *    and 2 of 1000 seeds put ess_bulk below the 0.8 S threshold.
 */
#include "unit.h"
#include "diag.h"

#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* AR(1) chains driven by an integer LCG: the same numbers in C and Python */
static void
lcg_ar(double *x, int chains, int n, double phi, uint64_t seed)
{
	uint64_t	s = seed;

	for (int c = 0; c < chains; c++)
	{
		double		v = 0.0;

		for (int i = 0; i < n; i++)
		{
			s = (s * 1103515245u + 12345u) % 2147483648u;
			v = phi * v + ((double) s / 2147483648.0 - 0.5);
			x[c * n + i] = v;
		}
	}
}

/* stationary Gaussian AR(1) chains */
static void
gauss_ar(gsl_rng *r, double *x, int chains, int n, double phi)
{
	for (int c = 0; c < chains; c++)
	{
		double		v = gsl_ran_gaussian(r, 1.0) / sqrt(1.0 - phi * phi);

		for (int i = 0; i < n; i++)
		{
			v = phi * v + gsl_ran_gaussian(r, 1.0);
			x[c * n + i] = v;
		}
	}
}

static void
diag_small_summaries(void)
{
	/* sorted 1 1 2 3 4 5 6 9: median 3.5; q5 at h = 0.35 -> 1, q95 at
	 * h = 6.65 -> 0.35*6 + 0.65*9 = 7.95; |x - 3.5| sorted 0.5 0.5 1.5 1.5
	 * 2.5 2.5 2.5 5.5 -> median 2 -> mad 2.9652; sum of squares 52.875 */
	static const double a[8] = {3, 1, 4, 1, 5, 9, 2, 6};
	/* sorted -2 -1 0 0.5 3: median 0; q5 at h = 0.2 -> -1.8, q95 at
	 * h = 3.8 -> 2.5; |x| sorted 0 0.5 1 2 3 -> mad 1.4826; 2 of 5 > 0 */
	static const double b[5] = {-2, 0, 0.5, -1, 3};
	dpb_summary s;

	CHECK(dpb_summarize(a, 1, 8, &s) == DPB_OK, "summarize a");
	CHECK_CLOSE(s.mean, 3.875, 1e-15, "a mean");
	CHECK_CLOSE(s.median, 3.5, 1e-15, "a median");
	CHECK_CLOSE(s.sd, sqrt(52.875 / 7.0), 1e-14, "a sd");
	CHECK_CLOSE(s.mad, 2.9652, 1e-14, "a mad");
	CHECK_CLOSE(s.q5, 1.0, 1e-15, "a q5");
	CHECK_CLOSE(s.q95, 7.95, 1e-14, "a q95");
	CHECK(s.prob_positive == 1.0, "a prob_positive %g", s.prob_positive);
	/* the layout does not matter for the summaries: 2 chains x 4 */
	CHECK(dpb_summarize(a, 2, 4, &s) == DPB_OK, "summarize a 2x4");
	CHECK_CLOSE(s.q95, 7.95, 1e-14, "a 2x4 q95");
	CHECK_CLOSE(s.mad, 2.9652, 1e-14, "a 2x4 mad");

	CHECK(dpb_summarize(b, 1, 5, &s) == DPB_OK, "summarize b");
	CHECK_CLOSE(s.mean, 0.1, 1e-15, "b mean");
	CHECK(s.median == 0.0, "b median %g", s.median);
	CHECK_CLOSE(s.mad, 1.4826, 1e-15, "b mad");
	CHECK_CLOSE(s.q5, -1.8, 1e-14, "b q5");
	CHECK_CLOSE(s.q95, 2.5, 1e-14, "b q95");
	CHECK_CLOSE(s.prob_positive, 0.4, 1e-15, "b prob_positive");

	/*
	 * R-hat of b by hand: split chains (-2, 0) and (-1, 3), the middle 0.5
	 * dropped; ranks 1 3 | 2 4 of S = 4, z_r = Phi^-1((r - 3/8)/(4 + 1/4)),
	 * z_1 = -A, z_2 = -B, z_3 = B, z_4 = A.  Chains (-A, B), (-B, A): W =
	 * (A + B)^2 / 2, B_between = h var(means) = (A - B)^2, so R-hat =
	 * sqrt((2 (A - B)^2 / (A + B)^2 + 1) / 2).  The folded draws |x - 0|
	 * split to (2, 0), (1, 3): ranks 3 1 | 2 4, the same R-hat.
	 */
	double		A = gsl_cdf_ugaussian_Pinv(3.625 / 4.25),
				B = gsl_cdf_ugaussian_Pinv(2.625 / 4.25),
				want = sqrt((2 * (A - B) * (A - B) / ((A + B) * (A + B)) + 1) / 2),
				bulk,
				tail;

	CHECK(dpb_rhat_parts(b, 1, 5, &bulk, &tail) == DPB_OK, "rhat parts b");
	CHECK_CLOSE(bulk, want, 1e-14, "b bulk rhat");
	CHECK_CLOSE(tail, want, 1e-14, "b tail rhat");
	CHECK_CLOSE(s.rhat, want, 1e-14, "b rhat");
	CHECK(isnan(s.ess_bulk) && isnan(s.ess_tail), "b ess NaN with 2 draws per split chain");
}

static void
diag_reference(void)
{
	/* values of the Python port of posterior (see the header comment) */
	static const struct
	{
		int			chains,
					n;
		double		phi;
		uint64_t	seed;
		double		rhat,
					bulk,
					tail;
	}			ref[] = {
		/* Geyer's sequence reaches the last lags, monotone fix everywhere */
		{3, 101, 0.9, 1, 1.152719419035128, 19.370048729407937, 45.982189098109387},
		/* positive sequence ends at lag 22, monotone fixes at 8..16 */
		{4, 201, 0.5, 6, 1.0175383874096784, 229.12684425195249, 486.89123475792701},
		/* split chains of 5 and 3 draws: max_t = 0, ESS = S / 2 */
		{1, 10, 0.3, 7, 0.96293021410986879, 5, 5},
		{2, 7, 0.3, 7, 0.97073359495771805, 6, 6},
	};
	double		x[4 * 201];

	for (size_t k = 0; k < sizeof(ref) / sizeof(ref[0]); k++)
	{
		lcg_ar(x, ref[k].chains, ref[k].n, ref[k].phi, ref[k].seed);
		CHECK_REL(dpb_rhat(x, ref[k].chains, ref[k].n), ref[k].rhat, 1e-12, "ref rhat");
		CHECK_REL(dpb_ess_bulk(x, ref[k].chains, ref[k].n), ref[k].bulk, 1e-11, "ref ess_bulk");
		CHECK_REL(dpb_ess_tail(x, ref[k].chains, ref[k].n), ref[k].tail, 1e-11, "ref ess_tail");
	}

	/* 3 chains x 41 of sines rounded to 0.1: 33 distinct values in 123 */
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 41; i++)
			x[c * 41 + i] = floor(10 * (sin(0.7 * i + c) + 0.5 * sin(0.13 * i * i) + 0.3 * c) + 0.5) / 10;
	double		bulk,
				tail;

	CHECK(dpb_rhat_parts(x, 3, 41, &bulk, &tail) == DPB_OK, "ties rhat parts");
	CHECK_REL(bulk, 1.0303471389228529, 1e-12, "ties bulk rhat");
	CHECK_REL(tail, 0.98081062626039228, 1e-12, "ties tail rhat");
	CHECK_REL(dpb_ess_bulk(x, 3, 41), 53.487528659619457, 1e-11, "ties ess_bulk");
	CHECK_REL(dpb_ess_tail(x, 3, 41), 91.527572364250986, 1e-11, "ties ess_tail");

	/* antithetic chain: tau < 1/log10(S) is capped, ESS = S log10(S) = 3000
	 * (posterior's test "negative ess estimates are avoided") */
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, USEED(7));
	double	   *y = malloc(1000 * sizeof(double));

	if (y == NULL || r == NULL)
	{
		CHECK(0, "alloc");
		free(y);
		gsl_rng_free(r);
		return;
	}
	gauss_ar(r, y, 1, 1000, -0.9);
	CHECK_CLOSE(dpb_ess_bulk(y, 1, 1000), 3000.0, 1e-12, "capped ess_bulk");
	free(y);
	gsl_rng_free(r);
}

static void
diag_simulated(void)
{
	enum
	{
		C = 4, N = 1000, NAR = 5000
	};
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	double	   *x = malloc((size_t) C * NAR * sizeof(double));
	double		bulk,
				tail,
				v;
	dpb_summary s;

	if (x == NULL || r == NULL)
	{
		CHECK(0, "alloc");
		free(x);
		gsl_rng_free(r);
		return;
	}
	gsl_rng_set(r, USEED(20240611));

	/* iid N(0, 1): R-hat ~ 1, both ESS ~ S = 4000 (posterior's ESS of iid
	 * draws is slightly below S on average: 1000 seeds give ess_bulk 3950 +-
	 * 176, ess_tail 3852 +- 163; rhat stayed within 0.9992..1.0027) */
	for (int i = 0; i < C * N; i++)
		x[i] = gsl_ran_gaussian(r, 1.0);
	CHECK(dpb_summarize(x, C, N, &s) == DPB_OK, "summarize iid");
	printf("  iid normal 4x1000: rhat %.5f ess_bulk %.1f ess_tail %.1f mean %.4f sd %.4f "
		   "median %.4f mad %.4f q5 %.4f q95 %.4f P(>0) %.4f\n", s.rhat, s.ess_bulk,
		   s.ess_tail, s.mean, s.sd, s.median, s.mad, s.q5, s.q95, s.prob_positive);
	CHECK(s.rhat >= 0.995 && s.rhat <= 1.01, "iid rhat %g", s.rhat);
	/* ESS >= 0.7 S: 6 sd below the mean over 1000 seeds (0.8 S failed 2 of
	 * them: DPB_TEST_SEED_SHIFT moves these draws) */
	CHECK(s.ess_bulk >= 2800 && s.ess_bulk <= 5000, "iid ess_bulk %g", s.ess_bulk);
	CHECK(s.ess_tail >= 2800 && s.ess_tail <= 5000, "iid ess_tail %g", s.ess_tail);
	/* 5 standard errors: mean 0.016, sd 0.011, median 0.02, mad 0.018,
	 * quantiles 0.034, P(> 0) 0.008 */
	CHECK(fabs(s.mean) < 0.08, "iid mean %g", s.mean);
	CHECK(fabs(s.sd - 1) < 0.056, "iid sd %g", s.sd);
	CHECK(fabs(s.median) < 0.10, "iid median %g", s.median);
	CHECK(fabs(s.mad - 1) < 0.095, "iid mad %g", s.mad);
	CHECK(fabs(s.q5 + 1.644854) < 0.17, "iid q5 %g", s.q5);
	CHECK(fabs(s.q95 - 1.644854) < 0.17, "iid q95 %g", s.q95);
	CHECK(fabs(s.prob_positive - 0.5) < 0.04, "iid prob_positive %g", s.prob_positive);

	/* tiny shift of one chain (0.02 sd): still ~1 (200 seeds: <= 1.0020) */
	for (int i = 3 * N; i < C * N; i++)
		x[i] += 0.02;
	v = dpb_rhat(x, C, N);
	printf("  one chain shifted by 0.02: rhat %.5f\n", v);
	CHECK(v < 1.01, "tiny shift rhat %g", v);
	/* shift of one sd (200 seeds: 1.083..1.123) */
	for (int i = 3 * N; i < C * N; i++)
		x[i] += 0.98;
	v = dpb_rhat(x, C, N);
	printf("  one chain shifted by 1: rhat %.5f\n", v);
	CHECK(v > 1.05, "shifted rhat %g", v);
	/* a chain stuck in another region */
	for (int i = 3 * N; i < C * N; i++)
		x[i] = 3.0 + 0.1 * gsl_ran_gaussian(r, 1.0);
	v = dpb_rhat(x, C, N);
	printf("  one chain stuck near 3: rhat %.5f\n", v);
	CHECK(v > 1.1, "stuck-elsewhere rhat %g", v);
	/* a chain stuck at its first value.  Rank-normalised R-hat has a blind
	 * spot: a constant chain near the 20th or 80th percentile moves neither
	 * the bulk nor the folded chain means much (x0 = +-0.75 gives ~1.06;
	 * over 1000 seeds 16% of "constant at the first draw" stay <= 1.1,
	 * all > 1.06 in 200), so we check a grid of positions as well */
	static const double stuck_at[] = {-2.0, -1.25, 0.0, 0.25, 1.25, 2.0};

	x[3 * N] = gsl_ran_gaussian(r, 1.0);
	for (int i = 3 * N; i < C * N; i++)
		x[i] = x[3 * N];
	v = dpb_rhat(x, C, N);
	printf("  one chain constant at its first draw %.4f: rhat %.5f\n", x[3 * N], v);
	/* > 1.04, not 1.1: 16% of first draws stay below 1.1 (the blind spot) */
	CHECK(v > 1.04, "stuck rhat %g", v);
	for (size_t k = 0; k < sizeof(stuck_at) / sizeof(stuck_at[0]); k++)
	{
		for (int i = 3 * N; i < C * N; i++)
			x[i] = stuck_at[k];
		v = dpb_rhat(x, C, N);
		CHECK(v > 1.1, "chain stuck at %g: rhat %g", stuck_at[k], v);
	}
	for (int i = 3 * N; i < C * N; i++)
		x[i] = 0.75;
	v = dpb_rhat(x, C, N);
	printf("  one chain constant at 0.75 (the blind spot): rhat %.5f\n", v);
	CHECK(v > 1.04, "chain stuck at 0.75: rhat %g", v);

	/* equal means, one chain with sd 3: the bulk R-hat misses it, the
	 * folded one does not (400 seeds: bulk <= 1.0023, tail 1.116..1.174) */
	for (int i = 0; i < C * N; i++)
		x[i] = gsl_ran_gaussian(r, i >= 3 * N ? 3.0 : 1.0);
	CHECK(dpb_rhat_parts(x, C, N, &bulk, &tail) == DPB_OK, "parts sd3");
	printf("  one chain with sd 3: bulk rhat %.5f tail rhat %.5f\n", bulk, tail);
	CHECK(bulk < 1.02, "sd3 bulk rhat %g", bulk);
	CHECK(tail > 1.05, "sd3 tail rhat %g", tail);
	CHECK(dpb_rhat(x, C, N) == tail, "rhat is the max");

	/* iid Cauchy: ranks make R-hat and ESS well defined (200 seeds: rhat
	 * 0.9994..1.0028, min ESS 3205) */
	for (int i = 0; i < C * N; i++)
		x[i] = gsl_ran_cauchy(r, 1.0);
	CHECK(dpb_summarize(x, C, N, &s) == DPB_OK, "summarize cauchy");
	printf("  iid Cauchy: rhat %.5f ess_bulk %.1f ess_tail %.1f\n", s.rhat, s.ess_bulk, s.ess_tail);
	CHECK(s.rhat >= 0.995 && s.rhat <= 1.01, "cauchy rhat %g", s.rhat);
	CHECK(s.ess_bulk >= 2800 && s.ess_tail >= 2800, "cauchy ess %g %g", s.ess_bulk, s.ess_tail);

	/* AR(1), phi = 0.9, 4 x 5000: ESS ~ S (1 - phi)/(1 + phi) = 1052.6
	 * (100 seeds: ratio 0.79..1.18; with 4 x 1000 it spreads 0.54..1.44) */
	gauss_ar(r, x, C, NAR, 0.9);
	v = dpb_ess_bulk(x, C, NAR);
	printf("  AR(1) phi 0.9, 4x5000: ess_bulk %.1f (theory %.1f)\n", v, C * NAR * 0.1 / 1.9);
	/* 0.6..1.4: 5 sd of the spread over 100 seeds (sd ~0.08) */
	CHECK(fabs(v / (C * NAR * 0.1 / 1.9) - 1) < 0.4, "AR(1) ess_bulk %g", v);

	free(x);
	gsl_rng_free(r);
}

static void
diag_edge_cases(void)
{
	double		x[4 * 8],
				b,
				t;
	dpb_summary s;

	/* constant draws: NaN diagnostics, exact summaries */
	for (int i = 0; i < 32; i++)
		x[i] = 0.1;
	CHECK(dpb_summarize(x, 4, 8, &s) == DPB_OK, "summarize constant");
	CHECK(isnan(s.rhat) && isnan(s.ess_bulk) && isnan(s.ess_tail), "constant: NaN diagnostics");
	CHECK(s.median == 0.1 && s.q5 == 0.1 && s.q95 == 0.1 && s.mad == 0.0, "constant quantiles");
	CHECK(fabs(s.mean - 0.1) < 1e-16 && s.sd < 1e-16, "constant mean %g sd %g", s.mean, s.sd);

	/* n = 1: no split chains; n = 4: R-hat but no ESS; n = 6: both */
	for (int i = 0; i < 32; i++)
		x[i] = sin(1.7 * i * i);
	CHECK(dpb_summarize(x, 1, 1, &s) == DPB_OK, "summarize one draw");
	CHECK(isnan(s.rhat) && isnan(s.ess_bulk) && isnan(s.ess_tail) && isnan(s.sd), "one draw NaN");
	CHECK(s.median == x[0] && s.q5 == x[0] && s.mad == 0.0, "one draw quantiles");
	CHECK(dpb_summarize(x, 4, 1, &s) == DPB_OK && isnan(s.rhat) && isnan(s.ess_bulk), "4 x 1");
	CHECK(dpb_summarize(x, 2, 3, &s) == DPB_OK && isnan(s.rhat), "2 x 3: rhat NaN");
	CHECK(dpb_summarize(x, 2, 4, &s) == DPB_OK && dpb_isfinite(s.rhat) && isnan(s.ess_bulk),
		  "2 x 4: rhat %g, ess NaN", s.rhat);
	CHECK(dpb_summarize(x, 2, 6, &s) == DPB_OK && dpb_isfinite(s.ess_bulk) &&
		  dpb_isfinite(s.ess_tail), "2 x 6: ess %g %g", s.ess_bulk, s.ess_tail);

	/* one chain constant, the others not: defined, no division by zero */
	for (int i = 0; i < 8; i++)
		x[i] = 2.0;
	CHECK(dpb_isfinite(dpb_rhat(x, 4, 8)) && dpb_isfinite(dpb_ess_bulk(x, 4, 8)), "a constant chain");

	/* two values, half and half: q95 is the max, I(x <= q95) constant, so
	 * tail ESS is NaN like posterior's; bulk ESS uses the tied ranks */
	for (int i = 0; i < 32; i++)
		x[i] = (i * 7) % 4 < 2 ? 0.0 : 1.0;
	CHECK(isnan(dpb_ess_tail(x, 4, 8)) && dpb_isfinite(dpb_ess_bulk(x, 4, 8)), "binary draws");
	/* symmetric about the median, the folded draws are constant */
	CHECK(dpb_rhat_parts(x, 4, 8, &b, &t) == DPB_OK && dpb_isfinite(b) && isnan(t), "folded constant");
	CHECK(isnan(dpb_rhat(x, 4, 8)), "rhat NaN when a part is NaN");

	/* non-finite draws: NaN diagnostics and order statistics */
	x[5] = NAN;
	CHECK(dpb_summarize(x, 4, 8, &s) == DPB_OK, "summarize NaN");
	CHECK(isnan(s.rhat) && isnan(s.ess_bulk) && isnan(s.median) && isnan(s.q95), "NaN draw");
	x[5] = INFINITY;
	CHECK(isnan(dpb_rhat(x, 4, 8)) && isnan(dpb_ess_tail(x, 4, 8)), "infinite draw");

	/* invalid arguments */
	CHECK(dpb_summarize(x, 0, 8, &s) == DPB_EINVAL, "chains 0");
	CHECK(dpb_summarize(x, 4, 0, &s) == DPB_EINVAL, "n 0");
	CHECK(dpb_rhat_parts(x, -1, 8, &b, &t) == DPB_EINVAL, "parts chains -1");
	CHECK(isnan(dpb_rhat(x, 0, 8)) && isnan(dpb_ess_bulk(x, 4, 0)), "bad sizes NaN");
}

static void
diag_long_chains(void)
{
	/* 4 x 20000 iid: the FFT path on long chains (ESS ~ 80000) */
	enum
	{
		C = 4, N = 20000
	};
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	double	   *x = malloc((size_t) C * N * sizeof(double));

	if (x == NULL || r == NULL)
	{
		CHECK(0, "alloc");
		free(x);
		gsl_rng_free(r);
		return;
	}
	gsl_rng_set(r, USEED(99));
	for (int i = 0; i < C * N; i++)
		x[i] = gsl_ran_gaussian(r, 1.0);
	double		v = dpb_ess_bulk(x, C, N);

	printf("  iid normal 4x20000: ess_bulk %.0f\n", v);
	CHECK(v > 0.9 * C * N && v < 1.1 * C * N, "long ess_bulk %g", v);
	free(x);
	gsl_rng_free(r);
}

void
test_diag(void)
{
	diag_small_summaries();
	diag_reference();
	diag_simulated();
	diag_edge_cases();
	diag_long_chains();
}
