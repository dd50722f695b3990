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

extern int	unit_passed;
extern int	unit_failed;
extern const char *unit_current;

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

#endif
