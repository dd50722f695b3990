/*
 * glm_model.h — noise-aware logistic and Poisson regression on a release
 * (Kulkarni et al. 2021, with exact moments): the release likelihood
 * z ~ N(N m(phi), N V(phi) + D), priors, the unconstrained
 * parametrization, and the NUTS driver.  See docs/posterior.md.
 */
#ifndef DPB_GLM_MODEL_H
#define DPB_GLM_MODEL_H

#include "posterior.h"

/* Unconstrained parameters: theta (p), mu (d), u (d) with tau_j =
 * tau_scale softplus(u_j), and the d(d-1)/2 canonical partial correlations
 * of the correlation matrix Omega through tanh (Stan's cholesky_corr
 * transform); Sigma = diag(tau) Omega diag(tau).  With an intercept the
 * first entry is not theta_0 but a = theta_0 + sum_j theta_j mu_j (see
 * glm_model.c); the warmup of dpb_glm_run may switch the slopes to
 * b_j = tau_j^alpha theta_j (dpb_glm_set_slope_power); dpb_glm_unpack
 * returns theta. */
int			dpb_glm_dim(int d, int intercept);

typedef struct dpb_glm_ctx dpb_glm_ctx;

/* Builds the model of release r (logistic or poisson, gaussian or none
 * mechanism) with the options' priors; NULL on allocation failure. */
dpb_glm_ctx *dpb_glm_ctx_new(const dpb_release *r, const dpb_infer_opts *o);
void		dpb_glm_ctx_free(dpb_glm_ctx *c);

/* Log posterior density (up to a constant) at phi and its gradient. */
double		dpb_glm_logp(const double *phi, double *grad, void *ctx);

/* A starting point (from the release's moments, jittered by rng); resets
 * the slopes' coordinates to theta (alpha = 0). */
void		dpb_glm_init(dpb_glm_ctx *c, gsl_rng *rng, double *phi);

/* The slopes' coordinates from now on: b_j = tau_j^alpha theta_j (0: theta;
 * dpb_glm_run chooses it in warmup, the unit tests set it). */
void		dpb_glm_set_slope_power(dpb_glm_ctx *c, double alpha);

/* The number of unconstrained parameters of c: dpb_glm_dim, plus one (the
 * last, u with N = dpb_n_from_u(u)) when N is unknown. */
int			dpb_glm_ctx_dim(const dpb_glm_ctx *c);

/* N at phi (the known N when it is not a parameter). */
double		dpb_glm_n(const dpb_glm_ctx *c, const double *phi);

/* (theta, mu, Sigma) in scaled units from phi. */
void		dpb_glm_unpack(const dpb_glm_ctx *c, const double *phi, double *theta,
						   double *mu, double *Sigma);

dpb_status	dpb_glm_run(const dpb_release *r, const dpb_infer_opts *o,
						dpb_draws *out, dpb_err *err);

#endif
