/*
 * agm.h — the analytic Gaussian mechanism (Balle & Wang 2018, Algorithm 1).
 */
#ifndef DPB_AGM_H
#define DPB_AGM_H

#include "dpb.h"

/*
 * The smallest sigma such that adding N(0, sigma^2 I) to a function with L2
 * sensitivity `sens` is (epsilon, delta)-DP:
 *     Phi(sens/(2 sigma) - eps sigma/sens)
 *       - e^eps Phi(-sens/(2 sigma) - eps sigma/sens) <= delta.
 * Requires eps > 0 finite, 0 < delta < 1, sens > 0 finite; otherwise
 * DPB_EINVAL with a message.  The returned sigma satisfies the inequality
 * (it is rounded up, never down).
 */
dpb_status	dpb_agm_sigma(double epsilon, double delta, double sens,
						  double *sigma, dpb_err *err);

/* The left-hand side above minus nothing: the privacy loss profile
 * delta(sigma) for the given eps and sensitivity (exposed for tests). */
double		dpb_agm_delta(double epsilon, double sens, double sigma);

#endif
