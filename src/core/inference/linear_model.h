/*
 * linear_model.h — noise-aware linear regression with the exact statistics
 * marginalised: the release likelihood z ~ N(N m(phi), N V(phi) + D), with
 * m and V the Isserlis moments of one record's statistics
 * (dpb_linear_stat_moments), sampled by NUTS with an exact gradient.  A
 * Laplace release is a scale mixture of Gaussians: D = diag(omega), omega_k
 * ~ Exp(1 / (2 b_k^2)), and omega | phi, z is a Gibbs step (through the
 * exact statistics s | phi, omega, z) between NUTS transitions; or, in the
 * latent forms (by default, "auto", where the noise dominates every
 * statistic: dpb_lin_use_latent), the exact statistics non-centred, eta in
 * NUTS with phi, the exact Laplace likelihood and an unknown N as n_lo +
 * n_sd softplus(u): the root form (options laplace_noise "latent", the
 * default's) s = N m + sqrt(N) (mv u^T + u mv^T + A G A^T) with A A^T the
 * covariance of one record's [x, y], u = A xi, G symmetric Gaussian, at
 * O(d^3) per gradient; the mixed form ("latent_mixed", by default where
 * the noise dominates every statistic but sum y^2, from d = 8 and N =
 * 1000), the root form without G_yy, whose part of s_yy is integrated out
 * with s_yy's Laplace noise in closed form, the slopes and sigma in polar
 * coordinates (polar_chain); or the Cholesky form ("latent_chol") s = N m +
 * chol(N V) eta, O(d^6).  The priors
 * are those of Gibbs-SS (gibbs_linear.h).  See docs/posterior.md,
 * "Linear regression: the default sampler".
 */
#ifndef DPB_LINEAR_MODEL_H
#define DPB_LINEAR_MODEL_H

#include "posterior.h"

typedef struct dpb_lin_ctx dpb_lin_ctx;

/* The model of linear release r with o's priors (o->xmoments "update" or
 * "prior"); NULL on allocation failure. */
dpb_lin_ctx *dpb_lin_ctx_new(const dpb_release *r, const dpb_infer_opts *o);
void		dpb_lin_ctx_free(dpb_lin_ctx *c);

/*
 * Unconstrained parameters phi: theta (p; with an intercept phi[0] is
 * a = theta_0 + sum_j theta_j mu_j, as in glm_model.h), log sigma, then
 * with "update" moments mu (d, with an intercept) and the lower triangle of
 * Sigma's Cholesky factor row by row (the diagonal as logs), then u of an
 * unknown N (dpb_n_from_u).
 */
int			dpb_lin_ctx_dim(const dpb_lin_ctx *c);

/* Log posterior density of phi given the current noise variances (up to a
 * constant) and its gradient; NaN at an invalid point. */
double		dpb_lin_logp(const double *phi, double *grad, void *ctx);

/* The Gibbs step of a Laplace release: s | phi, omega, z, then omega | s, z
 * (needs dpb_lin_set_rng).  Nonzero on a numerical failure. */
int			dpb_lin_gibbs_omega(const double *phi, void *ctx);
void		dpb_lin_set_rng(dpb_lin_ctx *c, gsl_rng *rng);

/* The latent forms: the statistics s at phi (n of them), with the mean m
 * (n) and covariance V (n x n) of one record's statistics there, so that
 * s ~ N(N m, N V) for eta ~ N(0, I) can be checked.  Nonzero on failure or
 * when c has no latent statistics. */
int			dpb_lin_latent_stats(dpb_lin_ctx *c, const double *phi, double *s, double *m,
								 double *V);

/* A starting point: a ridge fit to the released statistics, jittered. */
void		dpb_lin_init(dpb_lin_ctx *c, gsl_rng *rng, double *phi);

/* The smallest over the statistics of the noise's share of their
 * variance, 2 b_k^2 / (2 b_k^2 + N V_kk), at the release's own moments
 * (Laplace releases).  NaN on failure. */
double		dpb_lin_noise_share(dpb_lin_ctx *c);
/* The same, and in *rest (unless NULL) the smallest over the statistics
 * other than sum y^2. */
double		dpb_lin_noise_shares(dpb_lin_ctx *c, double *rest);

/*
 * Laplace releases: whether the NUTS sampler uses a latent form (options
 * laplace_noise "latent": 2, the root form; "latent_mixed":
 * DPB_LIN_LATENT_MIXED; "latent_chol": 1, the Cholesky form) or the omega
 * scale mixture ("omega", 0).  The default ("auto",
 * o->lin.laplace_latent = -1) takes the root form when the noise's share
 * of every statistic's variance, dpb_lin_noise_share, is at least
 * DPB_LIN_LATENT_SHARE (measured: bench/results/laplace_auto.md,
 * bench/results/laplace_fast.md).  0 for other releases; -1 when out of
 * memory.
 */
#define DPB_LIN_LATENT_SHARE 0.75
/* o->lin.laplace_latent of the mixed form ("latent_mixed"): the root form
 * with the part of sum y^2 that no other statistic shares (G_yy's term,
 * variance 2 N sigma^4) and its Laplace noise integrated out in closed form
 * (dpb_laplace_gauss_logconv).  "auto" takes it when every statistic but
 * sum y^2 has a noise share of at least DPB_LIN_LATENT_SHARE, sum y^2 has
 * less, and d >= DPB_LIN_MIXED_MIN_D */
#define DPB_LIN_LATENT_MIXED 3
/*
 * From this many features on, "auto" takes the mixed form where its rule
 * holds, and the mixed form's coordinates are by default the polar ones
 * (o->lin.polar, linear_model.c polar_chain).  At d = 10 the mixed form
 * needs them (replace-one, N = 1e4, epsilon 1: 947 -> 117 gradients per
 * iteration; N = 1e6, epsilon 0.1: R-hat 1.04 -> converged) and is 4-10
 * times faster than the omega form.  Below: at d = 5 the mixed form without
 * them was no faster than the omega form and once short of tail ESS
 * (replace-one, N = 1e4, epsilon 1: 374); at d = 2 (SBC, 1000
 * replications, N = 100, epsilon 0.5, the mixed form forced) with them it
 * was miscalibrated (sigma's rank p 3e-5) where either alone was not
 * (bench/results/laplace_mixed.md)
 */
#define DPB_LIN_MIXED_MIN_D 8
/*
 * ... and from this many records on (the known N, or the released count):
 * at N = 100 (d = 10, epsilon 10, replace-one) one of two sampler seeds
 * left a chain stuck (R-hat 1.53, 49 divergent transitions) where the
 * omega form takes 20 s; the polar coordinates tie theta to L_Sigma, and
 * at small N Sigma is weakly identified (bench/results/laplace_mixed.md)
 */
#define DPB_LIN_MIXED_MIN_N 1000
/* the root form's metric is dense (from the first slow window) up to this
 * many coordinates, diagonal above (bench/results/laplace_fast.md) */
#define DPB_LIN_ROOT_DENSE_DIM 100
/* the root form's tree depth limit until the first metric update (nuts.h,
 * init_max_depth) */
#define DPB_LIN_ROOT_INIT_DEPTH 5
/* the Laplace omega form's tree depth limit until the first metric update
 * (bench/results/laplace_fast.md, "The omega form") */
#define DPB_LIN_OMEGA_INIT_DEPTH 5
/* the latent forms' target_accept when N is known, below
 * DPB_LIN_LATENT_TA_MAX_N, and options leave the default 0.8 */
#define DPB_LIN_LATENT_TARGET_ACCEPT 0.9
#define DPB_LIN_LATENT_TA_MAX_N 1000
int			dpb_lin_use_latent(const dpb_release *r, const dpb_infer_opts *o);

/*
 * y's clamping (o->lin.clamp): one record's y ~ N(m, s2) is released as
 * y_c = clamp(y, -B, B), B = y_bound.  With alpha = (-B - m) / s, beta =
 * (B - m) / s and P = Phi(beta) - Phi(alpha): E[y_c] = m P + s (phi(alpha)
 * - phi(beta)) + B (Phi(-beta) - Phi(alpha)); E[y_c^2] = (m^2 + s^2) P +
 * s ((m - B) phi(alpha) - (m + B) phi(beta)) + B^2 (1 - P); Cov(x, y_c) =
 * P Cov(x, y) for x jointly Gaussian with y (Stein's lemma).  The NUTS
 * model replaces (mv_y, C_yy, C_xy) by (E[y_c], Var(y_c), P C_xy) and keeps
 * Isserlis' formulas for V at those moments (exact means, approximate
 * covariance).  dvar = Var(y_c) - s2 and omp = 1 - P are computed without
 * cancellation; the derivatives are in m and in s2.
 */
typedef struct dpb_lin_clamp
{
	double		mean,			/* E[y_c] */
				var,			/* Var(y_c) */
				dvar,			/* Var(y_c) - s2 */
				P,
				omp,			/* 1 - P */
				dmean_dm,
				dmean_ds2,
				dvar_dm,
				dvar_ds2,
				dP_dm,
				dP_ds2;
} dpb_lin_clamp;
void		dpb_lin_clamp_moments(double m, double s2, double B, dpb_lin_clamp *out);

/*
 * The clamping with the release's count of clamped records (option "clamp",
 * docs/posterior.md "Clipping"): the Gaussian correction above scaled by a
 * tail factor kappa, every clamped moment g(m, s2) becoming g0 + kappa (g -
 * g0) (g0 the unclamped one: m, s2, C_xy).  kappa estimates the ratio of
 * the clamped share to the Gaussian's 1 - P: with A = N (1 - P) the count
 * the Gaussian tails predict and c ~ N(kappa A, v) the noisy count of
 * variance v, kappa ~ N(1, tau^2) a priori, kappa is its posterior mean
 *
 *     kappa = (v / tau^2 + A c) / (v / tau^2 + A^2),
 *
 * so a precise count sets the share (kappa = c / A) and a noisy one leaves
 * the Gaussian tails (kappa = 1).  kappa is a function of (m, s2) through
 * A, differentiated, and capped at DPB_LIN_CLAMP_KMAX = 1: for kappa in
 * [0, 1] the moments are a convex combination of two valid sets (the
 * unclamped and the Gaussian clamped ones), whose covariance is positive
 * definite (it is a mixture's covariance less a positive semidefinite
 * term); above 1 Var(y_c) can turn negative.  So the count can lessen the
 * Gaussian correction (lighter tails), never enlarge it.  k holds the
 * Gaussian correction at (m, s2) on entry and the scaled one on return.
 */
#define DPB_LIN_CLAMP_TAU 1.0
#define DPB_LIN_CLAMP_KMAX 1.0

/*
 * The root form with the clamp takes A_yy = sqrt(W + DPB_LIN_CLAMP_WFLOOR
 * y_bound^2), W = Var(y_c) - P^2 |r|^2 the part of y_c's variance that x
 * does not explain.  Where the modelled y is saturated (|E[y]| well past
 * y_bound, P -> 0) W is exponentially small: computed as sigma^2 + dvar +
 * (1 - P^2) |r|^2 it lost its digits (even turning negative by 1e-16
 * C_yy; Var(y_c) itself is now computed without that cancellation,
 * dpb_lin_clamp_moments), and its square root's derivative 1/(2 A_yy)
 * amplifies the rounding of W's gradient (a sum of terms of size 1) into
 * the energy errors of divergent transitions (bench/results/laplace_mixed.md,
 * "The divergent transitions at N = 10^2").  The floor adds a variance of
 * N 1e-12 y_bound^2 to the latent sum of y, against the noise's 2 b^2 >=
 * 2 (y_bound / epsilon)^2.
 */
#define DPB_LIN_CLAMP_WFLOOR 1e-12

void		dpb_lin_clamp_scale(dpb_lin_clamp *k, double m, double N, double c,
								double v);

/*
 * The noisy count of records whose y was clamped, and its noise sd: from
 * the release's y_clamped block, else from o->lin.clamp_count(_sd) when
 * given.  Returns 0 (and leaves the outputs alone) when there is none.
 */
int			dpb_lin_clamp_count(const dpb_release *r, const dpb_infer_opts *o,
								double *c, double *sd);

/* (theta, sigma^2, mu, Sigma, N) in scaled units at phi. */
void		dpb_lin_unpack(dpb_lin_ctx *c, const double *phi, double *theta,
						   double *sigma2, double *mu, double *Sigma, double *N);

dpb_status	dpb_linear_nuts_run(const dpb_release *r, const dpb_infer_opts *o,
								dpb_draws *out, dpb_err *err);

#endif
