/*
 * dnoise.h — exact discrete noise: a random-bit source, integer-only exact
 * samplers of the discrete Laplace and discrete Gaussian distributions, and
 * the zero-concentrated-DP calibration of the discrete Gaussian.
 *
 * Samplers: Canonne, Kamath & Steinke, "The Discrete Gaussian for
 * Differential Privacy" (NeurIPS 2020, arXiv:2004.00010), Algorithms 1-3.
 * Every sampler uses only integer arithmetic (64- and 128-bit) on random
 * bits: no floating point, no transcendental function.  A sample is drawn
 * exactly from the stated distribution, except for the documented
 * truncations of dpb_dlaplace / dpb_dgauss below, whose total-variation
 * distance to the exact distribution is below 2^-1000000.
 *
 * Status convention: every sampler returns DPB_OK and writes its result,
 * DPB_EINVAL (parameter out of the supported range; nothing drawn), or
 * DPB_ERNG when the bit source failed (the value written is 0 and must not
 * be used).  After a failure of the source every sampler returns promptly.
 *
 * Requires unsigned __int128, so 32-bit targets are ruled out (GCC
 * provides the type on 64-bit targets only; docs/ldp-client.md, "32-bit
 * targets").  The exact rationals these samplers compare against random
 * bits do not fit in 64 bits: the discrete Gaussian's acceptance
 * exp(-(a t - sigma2)^2 / (2 sigma2 t^2)) has a denominator below 2^102 and
 * a numerator below 2^126 (sigma2 <= 2^50); the LDP epsilon num / 2^k has k
 * up to 72 (epsilon >= 1e-6 as an exact dyadic double).  Emulating them
 * with pairs of 64-bit words would put hand-written multi-word arithmetic
 * on the privacy-critical path, so the build stops instead.
 */
#ifndef DPB_DNOISE_H
#define DPB_DNOISE_H

#include "dpb.h"

#if !defined(__SIZEOF_INT128__)
#error "dpbayes needs unsigned __int128 (GCC or Clang on a 64-bit target): the exact noise samplers compute with rationals of up to 127 bits; 32-bit targets are not supported (docs/ldp-client.md, \"32-bit targets\")"
#endif

typedef unsigned __int128 dpb_u128;

/* ---------------------------------------------------------------------
 * Random bits
 * ------------------------------------------------------------------- */

/* A byte source: fills buf with len bytes; returns 1 on success, 0 on
 * failure.  In the server: pg_strong_random. */
typedef int (*dpb_fill_fn) (void *ctx, void *buf, size_t len);

typedef struct dpb_rbits dpb_rbits;

/*
 * A bit source drawing from fill(ctx, ...) in blocks of 512 bytes
 * (malloc'ed; NULL when out of memory).  Bits are used one at a time: a
 * sampler consumes only the bits it needs.
 *
 * Fork: a source never hands the same bits to two processes.  The bits it
 * has buffered belong to the process that drew them; in a child (fork(),
 * _Fork() or a raw clone without CLONE_VM) the first draw finds them stale,
 * wipes them and refills from fill() in the child, so a child may keep
 * using a source it inherited.  Detection: a MADV_WIPEONFORK page (Linux
 * >= 4.14) plus a pthread_atfork child handler; without the page, also a
 * getpid() comparison on every draw (dnoise.c, "Fork detection").  fill()
 * itself must give the child fresh bytes (getrandom(2) and
 * pg_strong_random do).  The insecure seeded source is exempt: its stream
 * is a function of the seed, which parent and child continue alike.
 *
 * Threads: a source is NOT thread-safe.  Do not share one dpb_rbits between
 * threads without a lock held around each sampler call; the rule is one
 * source per thread.  Creating, using and freeing distinct sources in
 * several threads at once is safe (the process-wide fork state is set up
 * under pthread_once and updated with atomics), and fill() is called only
 * from the thread drawing from that source.
 */
dpb_rbits  *dpb_rbits_new(dpb_fill_fn fill, void *ctx);

/* INSECURE: a deterministic source for tests and for the superuser-only
 * test setting, NEVER for a real release.  Bytes are the little-endian
 * words splitmix64(seed + k * 0x9E3779B97F4A7C15), k = 1, 2, ... (Vigna's
 * SplitMix64 in counter mode): reproducible, statistically good, and
 * trivially predictable from the seed.  NULL when out of memory. */
dpb_rbits  *dpb_rbits_new_insecure_seeded(uint64_t seed);

void		dpb_rbits_free(dpb_rbits *rb);

/* 1 once any fill has failed (the draws made since are unusable; the
 * source then delivers zero bits and every sampler returns DPB_ERNG). */
int			dpb_rbits_failed(const dpb_rbits *rb);

/* 1 for a source made by dpb_rbits_new_insecure_seeded. */
int			dpb_rbits_insecure(const dpb_rbits *rb);

/* Number of random bits consumed so far (for measurements). */
uint64_t	dpb_rbits_consumed(const dpb_rbits *rb);

/* How forks are detected in this process: "wipeonfork+atfork" or, without
 * MADV_WIPEONFORK, "atfork+getpid" (for tests and diagnostics). */
const char *dpb_rbits_fork_detection(void);

/* TESTS ONLY: on = 1 ignores the MADV_WIPEONFORK page, so the fallback
 * (atfork handler and getpid comparison) is exercised; on = 0 restores the
 * default.  Call with no other thread drawing. */
void		dpb_rbits_fork_fallback_for_tests(int on);

/* ---------------------------------------------------------------------
 * Uniform integers and Bernoulli variables (exact)
 * ------------------------------------------------------------------- */

/* Uniform on {0, ..., m-1} by rejection (no modulo bias); m = 0 stands
 * for 2^64.  Draws ceil(log2 m) bits per try, fewer than 2 tries on
 * average. */
dpb_status	dpb_uniform_u64(dpb_rbits *rb, uint64_t m, uint64_t *out);

/* The same on {0, ..., m-1} for m < 2^128; m = 0 stands for 2^128. */
dpb_status	dpb_uniform_u128(dpb_rbits *rb, dpb_u128 m, dpb_u128 *out);

/* Bernoulli(n/d): 1 with probability min(n/d, 1).  Requires
 * 1 <= d <= 2^127 (otherwise DPB_EINVAL).  Compares a lazily drawn uniform
 * with the binary expansion of n/d: 2 bits on average, exact. */
dpb_status	dpb_bernoulli(dpb_rbits *rb, dpb_u128 n, dpb_u128 d, int *out);

/* Bernoulli(exp(-n/d)) for n >= 0, 1 <= d <= 2^127 (otherwise
 * DPB_EINVAL): CKS Algorithm 1, with floor(n/d) independent
 * Bernoulli(exp(-1)) trials first when n/d > 1.  Exact. */
dpb_status	dpb_bernoulli_exp(dpb_rbits *rb, dpb_u128 n, dpb_u128 d, int *out);

/* ---------------------------------------------------------------------
 * Discrete Laplace and discrete Gaussian
 * ------------------------------------------------------------------- */

#define DPB_DLAPLACE_MAX_T	(UINT64_C(1) << 40)
#define DPB_DGAUSS_MAX_SIGMA2 (UINT64_C(1) << 50)

/*
 * Discrete Laplace with integer scale t, 1 <= t <= 2^40:
 *     P(Y = y) = (1 - e^{-1/t}) / (1 + e^{-1/t}) * e^{-|y|/t},  y in Z.
 * CKS Algorithm 2 (s = 1).  Truncation: a proposal with |y| >= 2^62 is
 * discarded and drawn again, so the output is the discrete Laplace
 * conditioned on |y| < 2^62 (at most; the bound is t * floor(2^62 / t));
 * the total-variation distance to the exact distribution is at most
 * e^{-2^62/t + 1} <= e^{-2^22 + 1} for t <= 2^40.
 * About 1.6 iterations of the outer loop on average.
 */
dpb_status	dpb_dlaplace(dpb_rbits *rb, uint64_t t, int64_t *y);

/*
 * Discrete Gaussian N_Z(0, sigma2) with integer sigma2, 1 <= sigma2 <= 2^50:
 *     P(Y = y) proportional to exp(-y^2 / (2 sigma2)),  y in Z.
 * (Its variance is slightly below sigma2: by a relative 2.1e-7 at
 * sigma2 = 1, less than 1e-14 for sigma2 >= 2.)  CKS Algorithm 3: a discrete Laplace proposal
 * with t = floor(sqrt(sigma2)) + 1 (exact integer square root), accepted
 * with probability exp(-(|y| - sigma2/t)^2 / (2 sigma2)) computed as
 * Bernoulli(exp(-(|y| t - sigma2)^2 / (2 sigma2 t^2))) in 128-bit integers.
 * Truncation: proposals with |y| > floor(2^63 / t) are rejected, so the
 * output is N_Z(0, sigma2) conditioned on |y| <= floor(2^63 / t), which
 * is at least 2^12 sigma (and on the proposal bound of dpb_dlaplace); the
 * total-variation distance to the exact distribution is below e^{-2^23}.
 */
dpb_status	dpb_dgauss(dpb_rbits *rb, uint64_t sigma2, int64_t *y);

/* floor(sqrt(n)), exact. */
uint64_t	dpb_isqrt_u64(uint64_t n);

/* ---------------------------------------------------------------------
 * Calibration by zero-concentrated DP (floating point: public parameters
 * only)
 * ------------------------------------------------------------------- */

/*
 * The smallest delta such that rho-zCDP implies (eps, delta)-DP by CKS
 * Corollary 13 (from their Proposition 12):
 *     delta = inf_{alpha > 1} exp((alpha-1)(alpha rho - eps)) / (alpha-1)
 *                             * (1 - 1/alpha)^alpha,
 * capped at 1.  Computed in log space with x = alpha - 1 and the minimum
 * found by bisection on the (increasing) derivative; any alpha gives a
 * valid bound and the value returned is rounded up by a bound on its
 * rounding error, so it never falls below the infimum.  rho = 0 gives 0.
 * NaN for rho < 0, eps < 0 or non-finite input.
 */
double		dpb_zcdp_delta(double rho, double eps);

/*
 * The largest rho (to a relative 1e-12, from below) such that
 * dpb_zcdp_delta(rho, eps) <= delta.  Adding independent N_Z(0, sigma_j^2)
 * to an integer vector query q with
 *     sum_j (q_j(x) - q_j(x'))^2 / sigma_j^2 <= 2 rho
 * for all neighbouring x, x' is rho-zCDP (CKS Theorem 14, multivariate
 * discrete Gaussian), hence (eps, delta)-DP.  DPB_EINVAL for eps <= 0, delta outside (0, 1) or
 * non-finite input.
 */
dpb_status	dpb_zcdp_rho(double eps, double delta, double *rho, dpb_err *err);

/*
 * sigma = sens / sqrt(2 rho) for rho = dpb_zcdp_rho(eps, delta), rounded
 * up: the noise scale of a discrete Gaussian (in the units of sens) that
 * makes a query of L2 sensitivity sens (eps, delta)-DP.  Rounding sigma^2
 * (in grid units) up to an integer keeps the guarantee.
 */
dpb_status	dpb_zcdp_sigma(double eps, double delta, double sens,
						   double *sigma, dpb_err *err);

/* ---------------------------------------------------------------------
 * Integer parameters on a grid of spacing 2^gexp (public parameters)
 * ------------------------------------------------------------------- */

/* sigma2 = max(1, ceil((sigma / 2^gexp)^2)), the exact ceiling for the
 * double sigma (the square is formed exactly with fma; a larger sigma2
 * only strengthens the guarantee, so the caller rounds sigma up).
 * DPB_EINVAL for sigma <= 0, non-finite or vanishing in grid units;
 * DPB_ERANGE when the result exceeds DPB_DGAUSS_MAX_SIGMA2 (choose a
 * coarser grid). */
dpb_status	dpb_dgauss_sigma2_on_grid(double sigma, int gexp, uint64_t *sigma2,
									  dpb_err *err);

/* t = max(1, ceil(b / 2^gexp)) (exact) for the discrete Laplace with
 * scale b in the units of the statistic.  DPB_EINVAL for b <= 0 or non-finite;
 * DPB_ERANGE when t exceeds DPB_DLAPLACE_MAX_T. */
dpb_status	dpb_dlaplace_t_on_grid(double b, int gexp, uint64_t *t,
								   dpb_err *err);

#endif
