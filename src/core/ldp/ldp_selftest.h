/*
 * ldp_selftest.h — distribution checks of the LDP client's samplers.
 */
#ifndef DPB_LDP_SELFTEST_H
#define DPB_LDP_SELFTEST_H

#include "ldp.h"

#define DPB_LDP_SELFTEST_PMIN 1e-6

typedef struct dpb_ldp_check
{
	char		name[48];
	double		stat;			/* chi-square statistic */
	int			df;
	double		pvalue;
} dpb_ldp_check;

/*
 * Runs the checks with n draws each (randomized response at eps = 1 for
 * both inputs, the 16 OUE patterns at K = 4, eps = 1.3, the discrete
 * Laplace at t = 3 and the discrete Gaussian at sigma^2 = 10, each against
 * its exact probabilities); writes up to max results, returns their
 * number.  *status is DPB_ERNG when the source failed.
 */
int			dpb_ldp_selftest(dpb_rbits *rb, int64_t n, dpb_ldp_check *out, int max,
							 dpb_status *status);

/* The chi-square statistic of counts against cell probabilities. */
double		dpb_ldp_chisq(const int64_t *count, const double *prob, int cells,
						  int64_t n, int *df);

/* P(X > x), X chi-square with df >= 1 degrees of freedom (closed form for
 * integer df, libm only; NaN for df < 1). */
double		dpb_ldp_chisq_q(double x, int df);

/* Probability of the OUE report pattern (bit j = (pattern >> j) & 1) for
 * the 0-based category cat: a 1 stays 1 w.p. 1/2, a 0 becomes 1 w.p.
 * 1/(1 + e^eps) (the corrected eq. 9). */
double		dpb_ldp_oue_pattern_prob(int K, int cat, double eps, unsigned pattern);

#endif
