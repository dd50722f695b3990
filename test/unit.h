/*
 * unit.h — a minimal test harness for the core library (no server needed).
 *
 * Each test file defines `void test_<name>(void)` functions and lists them in
 * test/unit_main.c.  CHECK() counts a passed or failed assertion and prints
 * the failures; the runner ends with the line "N passed, N failed".
 */
#ifndef DPB_UNIT_H
#define DPB_UNIT_H

#include <math.h>
#include <stdio.h>
#include <stdint.h>

extern int	unit_passed;
extern int	unit_failed;
extern const char *unit_current;

/*
 * Seeds of the statistical tests.  A verdict must not rest on where one
 * fixed-seed chain lands: OpenBLAS picks its kernels by CPU and they round
 * differently, so another machine runs every chain on other bits.  USEED(s)
 * is s, or s moved by the environment variable DPB_TEST_SEED_SHIFT=k (an
 * integer), which reruns every statistical test on other seeds; that is how
 * the tolerances were checked (test/seed_sweep.sh).  Tests that compare
 * against fixed known answers do not use it.
 */
extern unsigned long unit_seed_shift;

/*
 * p-values.  The p-value of a goodness-of-fit test (SBC ranks, KS against
 * an exact distribution) is uniform for a correct implementation, whatever
 * the seed or the kernel: a check that the smallest of k p-values exceeds
 * UNIT_P_MIN / k fails one run in 10^4 at most.  (The old threshold, 0.01
 * for the smallest of 4, failed one run in 25: on another CPU's chains that
 * is a coin with few sides.)  The power of each such check is shown by a
 * deliberately wrong variant that must fall below the same bound, in the
 * test itself or, with measured p-values, in its comment.
 */
#define UNIT_P_MIN 1e-4
#define USEED(s) ((unsigned long) (s) + 104729UL * unit_seed_shift)

#define CHECK(cond, ...) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			printf("FAIL %s (%s:%d): ", unit_current, __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_CLOSE(a, b, tol, what) \
	do { \
		double _a = (a), _b = (b); \
		CHECK(fabs(_a - _b) <= (tol) * fmax(1.0, fabs(_b)), \
			  "%s: got %.12g, want %.12g", (what), _a, _b); \
	} while (0)

/* relative: |a - b| <= tol * |b| */
#define CHECK_REL(a, b, tol, what) \
	do { \
		double _a = (a), _b = (b); \
		CHECK(fabs(_a - _b) <= (tol) * fabs(_b), \
			  "%s: got %.12g, want %.12g", (what), _a, _b); \
	} while (0)

/* a tiny deterministic xorshift generator: a uniform on [0, 1) from *state
 * (tests that must not depend on GSL's streams) */
static inline double
unit_xorshift_uniform(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (double) (*state >> 11) / 9007199254740992.0;
}

#endif
