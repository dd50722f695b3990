/*
 * ldp_sim.h — simulated local-DP reports for the model tests, SBC and the
 * benchmarks (the generative models of ldp_models.h, with GSL's samplers:
 * test code, not a randomizer).
 */
#ifndef DPB_LDP_SIM_H
#define DPB_LDP_SIM_H

#include "ldp_models.h"

#include <gsl/gsl_rng.h>

typedef struct ldp_sim
{
	dpb_ldpm_data dt;
	double	   *z;				/* in-range scalar reports */
	unsigned char *pat;
	double	   *count;
	double	   *sw,
			   *sww,
			   *zx,
			   *zy;
} ldp_sim;

/* Parameters (constrained, in the order of dpb_ldpm_names).  For the
 * regression models: theta_0..d, [sigma], mu_1..d, then L (d x d lower,
 * row-major) in par + nvars. */
void		ldp_sim_gaussian(ldp_sim *s, gsl_rng *r, long n, double mu, double sigma,
							 double a, double b, double eps);
void		ldp_sim_exponential(ldp_sim *s, gsl_rng *r, long n, double rate, double b,
								double eps);
void		ldp_sim_histogram(ldp_sim *s, gsl_rng *r, long n, int K, const double *theta,
							  double eps);
/* theta (d + 1), sigma (linear only), mu (d), L (d x d); sd_x, sd_y noise */
void		ldp_sim_regression(ldp_sim *s, gsl_rng *r, dpb_ldpm_model m, long n, int d,
							   const double *theta, double sigma, const double *mu,
							   const double *L, double sd_x, double sd_y, double rr_keep);
/* gaussian_gn: x ~ N(mu, sigma^2) clipped to [a, b], z = x + N(0, tau^2)
 * (every report in z) */
void		ldp_sim_gaussian_gn(ldp_sim *s, gsl_rng *r, long n, double mu, double sigma,
								double a, double b, double tau);
/* proportion: groups (1 or 2) of n records each, x ~ Bernoulli(theta[g]),
 * randomized response keeping x w.p. keep[g] */
void		ldp_sim_proportion(ldp_sim *s, gsl_rng *r, int groups, long n,
							   const double *theta, const double *keep);
void		ldp_sim_free(ldp_sim *s);

/* A parameter draw from the prior (unconstrained phi, dim values), for SBC. */
void		ldp_sim_prior_draw(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr,
							   gsl_rng *r, double *phi);

/* Simulates reports from the unconstrained parameters phi of model dt0 (its
 * a, b, lambda / K, eps / d, sd_x, sd_y, rr_keep are used). */
void		ldp_sim_from_phi(ldp_sim *s, const dpb_ldpm_data *dt0, gsl_rng *r, long n,
							 const double *phi);

#endif
