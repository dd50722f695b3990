/*
 * gibbs_linear.h — noise-aware Bayesian linear regression on a release
 * (Bernstein & Sheldon 2019, Gibbs-SS), the noise-naive baseline and the
 * non-private conjugate posterior.  See docs/posterior.md.
 */
#ifndef DPB_GIBBS_LINEAR_H
#define DPB_GIBBS_LINEAR_H

#include "posterior.h"

dpb_status	dpb_gibbs_linear_run(const dpb_release *r, const dpb_infer_opts *o,
								 dpb_draws *out, dpb_err *err);

/*
 * Mean m (nstats) and covariance V (nstats x nstats) of one record's
 * statistic vector t(x, y) of a linear release with layout L, when
 * x ~ N(mu, Sigma) (scaled units, d-dim) and y | x ~ N(theta^T w, sigma2).
 * (w, y) is jointly Gaussian, so every entry is a degree-2 monomial of a
 * Gaussian vector and the covariances follow from Isserlis' theorem.
 */
void		dpb_linear_stat_moments(const dpb_layout *L, const double *theta,
									double sigma2, const double *mu,
									const double *Sigma, double *m, double *V);

/* Mean mv (q = p + 1) and covariance C (q x q) of v = [w, y] under the
 * same model (w = [1, x] with an intercept: mv[0] = 1, C's row 0 zero). */
void		dpb_linear_joint_moments(const dpb_layout *L, const double *theta,
									 double sigma2, const double *mu,
									 const double *Sigma, double *mv, double *C);

/* Draws from InverseGaussian(mean, shape) (Michael, Schucany & Haas 1976). */
double		dpb_ran_invgauss(gsl_rng *rng, double mean, double shape);

#endif
