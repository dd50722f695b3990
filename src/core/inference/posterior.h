/*
 * posterior.h — posterior sampling on a release (post-processing: no
 * privacy cost).  The glue validates options and calls dpb_posterior_run;
 * the model-specific samplers (linear: gibbs_linear.c) fill a dpb_draws.
 *
 * Draws are reported in the user's original feature units: the release's
 * public scaling z_j = gain_j (x_j - center_j) is undone.
 */
#ifndef DPB_POSTERIOR_H
#define DPB_POSTERIOR_H

#include "release.h"

#include <gsl/gsl_rng.h>

#define DPB_MAX_DRAWS 100000
#define DPB_MAX_CHAINS 16
#define DPB_MAX_WARMUP 100000
#define DPB_VAR_NAME_LEN 96

typedef enum dpb_method
{
	DPB_METHOD_NOISE_AWARE = 1,
	DPB_METHOD_NAIVE = 2,
	DPB_METHOD_NONPRIVATE = 3	/* exact statistics (mechanism "none") */
} dpb_method;

typedef enum dpb_xmoments
{
	DPB_XMOM_UPDATE = 1,		/* hierarchical NIW prior, conjugate update */
	DPB_XMOM_PRIOR = 2,			/* fixed moments given by the user */
	DPB_XMOM_NOISY = 3			/* the release's noisy x moments (x_moments) */
} dpb_xmoments;

/* The sampler (options.sampler); DEFAULT resolves per model and method
 * (dpb_posterior_sampler). */
typedef enum dpb_sampler
{
	DPB_SAMPLER_DEFAULT = 0,
	DPB_SAMPLER_NUTS = 1,
	DPB_SAMPLER_GIBBS = 2
} dpb_sampler;

/* Returns nonzero when the host wants the computation to stop. */
typedef int (*dpb_interrupt_fn) (void);

/*
 * Options of a posterior run: the run's own settings, then one struct per
 * model family (each sampler reads only its own and the shared ones).
 */

/*
 * The prior on (theta, sigma^2) of linear regression (options.prior), in
 * scaled units.  WEAK (the default of the NUTS sampler since issue 26):
 * independent, theta_j ~ N(theta_mean_j, theta_sd_j^2) for the slopes,
 * theta_0 ~ N(theta_mean_0, intercept_sd^2), sigma^2 ~ Exponential(mean
 * sigma2_mean); defaults theta_sd = 2 y_bound / B (B the features'
 * coordinate bound), intercept_sd = y_bound, sigma2_mean = y_bound^2 / 8.
 * NIG (0.1's prior; Gibbs-SS and the naive and non-private methods always
 * use it): theta | sigma^2 ~ N(theta_mean, sigma^2 diag(1/theta_precision)),
 * sigma^2 ~ InvGamma(sigma2_shape, sigma2_scale).  docs/posterior.md,
 * "Fixed-truth coverage".
 */
typedef enum dpb_lin_prior
{
	DPB_LIN_PRIOR_WEAK = 0,
	DPB_LIN_PRIOR_NIG = 1
} dpb_lin_prior;

/* linear regression: the prior on (theta, sigma^2) (dpb_lin_prior above);
 * the feature moments x ~ N(mu, Sigma) with an NIW prior (update): mu |
 * Sigma ~ N(x_mean, Sigma / x_kappa), Sigma ~ InvWishart(x_df, x_scale), or
 * fixed (x_cov) */
typedef struct dpb_linear_opts
{
	dpb_lin_prior prior;
	double		theta_sd[DPB_MAX_D + 1];	/* weak: index j of theta
											 * (slopes only) */
	double		intercept_sd;	/* weak */
	double		sigma2_mean;	/* weak */
	double		theta_mean[DPB_MAX_D + 1];
	double		theta_precision[DPB_MAX_D + 1];
	double		sigma2_shape;
	double		sigma2_scale;
	dpb_xmoments xmoments;
	double		x_kappa;
	double		x_df;
	double		x_scale[DPB_MAX_D * DPB_MAX_D];
	double		x_cov[DPB_MAX_D * DPB_MAX_D];
	/* Laplace releases, NUTS: 0 = the noise as a Gaussian scale mixture
	 * with Gibbs steps for its variances omega; 1 = the latent statistics
	 * non-centred, s = N m + chol(N V) eta, with the exact Laplace
	 * likelihood (docs/posterior.md, "Laplace releases"); -1 (default,
	 * "auto") = chosen from the release by dpb_lin_use_latent
	 * (linear_model.h) */
	int			laplace_latent;
	/* NUTS: 1 = the slopes and sigma in polar coordinates, (L_Sigma^T
	 * theta_x, sigma) = sqrt(C) w / |w| with C = theta_x' Sigma theta_x +
	 * sigma^2 the variance of y (linear_model.h); 0 = theta and log sigma;
	 * -1 (default, "auto") = chosen with laplace_latent */
	int			polar;
	/* NUTS, options "clamp": y's clamping at +-y_bound modelled in the
	 * statistics' moments (linear_model.h, dpb_lin_clamp).  1 = on: with
	 * the release's noisy count of clamped records when it has one
	 * (dpb_lin_clamp_count: the Gaussian correction scaled to the observed
	 * share), else with y's tails Gaussian; 0 = off, y unclamped (Bernstein
	 * & Sheldon's model, as Gibbs-SS); -1 (default, "auto") = on exactly
	 * when the release has the count (docs/posterior.md, "Clipping") */
	int			clamp;
	/* the count of clamped records and its noise sd, for a release without
	 * the y_clamped block (benchmarks); clamp_count_sd < 0: not given */
	double		clamp_count;
	double		clamp_count_sd;
} dpb_linear_opts;

/* logistic / poisson (scaled units): theta_j ~ N(0, theta_scale_j^2)
 * (or, with theta_norm_bound > 0, N(0, I) truncated to ||theta|| <=
 * bound: the GLM paper's uniform-direction, truncated chi^2 prior),
 * mu_j ~ N(x_mean_j, mu_scale^2), tau_j ~ half-normal(tau_scale),
 * Omega ~ LKJ(lkj_eta); moments exact (1) or Taylor (2) */
typedef struct dpb_glm_opts
{
	double		theta_scale[DPB_MAX_D + 1];
	double		theta_norm_bound;
	double		mu_scale;
	double		tau_scale;
	double		lkj_eta;
	int			approx;
} dpb_glm_opts;

/* the NUTS samplers (linear, GLM, LDP) */
typedef struct dpb_nuts_settings
{
	double		target_accept;
	int			max_depth;
} dpb_nuts_settings;

/* The number of records N.  Known (n_known = 1, N = n_hat) for a
 * replace-one release; unknown for an add/remove release, which holds only a
 * noisy count n_hat = N + noise of sd n_sd (Laplace when n_laplace, else
 * Gaussian).  dpb_infer_opts_default fills these from the release.  An
 * unknown N is a parameter of the model (continuous, N > 0) with prior
 * uniform on (n_lo, n_hi); n_hi = +inf is the flat default
 * (docs/posterior.md, "The number of records"). */
typedef struct dpb_count_opts
{
	int			n_known;
	double		n_hat;
	double		n_sd;
	int			n_laplace;
	double		n_lo;
	double		n_hi;
} dpb_count_opts;

typedef struct dpb_infer_opts
{
	int			draws;
	int			chains;
	int			warmup;
	uint64_t	seed;
	dpb_method	method;
	dpb_sampler sampler;		/* DPB_SAMPLER_DEFAULT unless chosen */
	int			thin;			/* keep every thin-th draw (>= 1) */
	int			nuisance;		/* also report nuisance parameters */
	dpb_interrupt_fn interrupt;
	double		x_mean[DPB_MAX_D];	/* prior mean of the features' mean
									 * (both model families) */
	dpb_linear_opts lin;
	dpb_glm_opts glm;
	dpb_nuts_settings nuts;
	dpb_count_opts count;
} dpb_infer_opts;

/* Defaults for release r (see docs/posterior.md). */
void		dpb_infer_opts_default(dpb_infer_opts *o, const dpb_release *r);

typedef struct dpb_draws
{
	int			chains;
	int			iters;			/* kept draws per chain */
	int			nvars;
	char	  (*names)[DPB_VAR_NAME_LEN];
	double	   *v;				/* v[(c * iters + i) * nvars + k] */
	long		divergences;	/* HMC samplers; 0 for Gibbs */
	long		rejected;		/* non-finite / non-PD states rejected */
	long		proposals;		/* states proposed (rejected ones included):
								 * Gibbs iterations, NUTS density evaluations */
	int			warmup;			/* warmup iterations of the run (0: not
								 * recorded); for the warnings' hints */
} dpb_draws;

dpb_status	dpb_draws_alloc(dpb_draws *d, int chains, int iters, int nvars);
void		dpb_draws_free(dpb_draws *d);

/* The estimated cost of a run (docs/posterior.md, "Limits"): seconds of one
 * sampler step and of the whole run.  DPB_ERANGE when either is over the
 * limit (dpb_posterior_run then refuses the run). */
dpb_status	dpb_posterior_cost(const dpb_release *r, const dpb_infer_opts *o,
							   double *step_s, double *run_s);

/* A chain whose DPB_STUCK_MIN_DRAWS or more draws are all equal (every
 * proposal after warmup was rejected): returns its number (1-based), else 0.
 * (A working NUTS chain stays put with probability < 1/2 per iteration, a
 * Gibbs chain never.)  dpb_draws_stuck_chains counts such chains.  A stuck
 * chain after a valid start is a sampler outcome, not an input error: a
 * warmup too short to tune the step size leaves one (issue 22), so the
 * draws are returned and the caller warns (src/pg/posterior.c); a prior with
 * no mass where the likelihood is fails earlier, with "the sampler found no
 * valid starting point". */
#define DPB_STUCK_MIN_DRAWS 20
int			dpb_draws_stuck_chain(const dpb_draws *dr);
int			dpb_draws_stuck_chains(const dpb_draws *dr);

/*
 * The sampler a run of r with o uses (o->sampler resolved): linear
 * regression, noise-aware: NUTS on the marginal likelihood
 * (linear_model.h), or Gibbs-SS with the noisy x moments; naive and
 * non-private linear runs draw iid from the conjugate posterior, reported
 * as "gibbs"; GLMs: NUTS.  DPB_SAMPLER_DEFAULT when the model has no such
 * sampler.
 */
dpb_sampler dpb_posterior_sampler(const dpb_release *r, const dpb_infer_opts *o);

/* Whether a run of linear release r with o uses the weak prior on (theta,
 * sigma^2) (o->lin.prior and the NUTS sampler); else the NIG prior. */
int			dpb_lin_weak_prior_used(const dpb_release *r, const dpb_infer_opts *o);
const char *dpb_sampler_name(dpb_sampler s);

/* Runs the sampler for r's model and o->method; DPB_ERANGE for a model too
 * large to sample (dpb_posterior_cost). */
dpb_status	dpb_posterior_run(const dpb_release *r, const dpb_infer_opts *o,
							  dpb_draws *out, dpb_err *err);

/* Per-chain generator: mt19937 seeded from (seed, chain). */
gsl_rng    *dpb_chain_rng(uint64_t seed, int chain);

/* The feature map of release r: z_j = gain[j] * (x_j - center[j]). */
void		dpb_feature_map(const dpb_release *r, double *gain, double *center);

/* Output variables: theta[intercept] (with an intercept), theta[<feature>]
 * ..., sigma (when with_sigma), n (when with_n: an unknown number of
 * records), then with nuisance mu_x[<feature>] ... and sd_x[<feature>] ... */
int			dpb_nvars(const dpb_release *r, int with_sigma, int with_n, int nuisance);
void		dpb_name_vars(const dpb_release *r, int with_sigma, int with_n, int nuisance,
						  char (*names)[DPB_VAR_NAME_LEN]);

/* One draw in the user's units (theta in scaled units; sigma and n may be
 * NULL): coefficients on features become theta_j gain_j, the intercept
 * absorbs the centres, the feature moments are mapped back likewise. */
void		dpb_record_draw(const dpb_release *r, const double *gain,
							const double *center, const double *theta,
							const double *sigma, const double *n,
							const double *mu, const double *Sigma, int nuisance,
							double *out);

/*
 * An unknown N (o->n_known = 0): log p(N) + log p(n_hat | N), up to a
 * constant, and its derivative in N (dN may be NULL); -inf outside the
 * prior's support (n_lo, n_hi).
 */
double		dpb_n_log_density(const dpb_infer_opts *o, double N, double *dN);

/*
 * The unconstrained coordinate u of an unknown N for gradient samplers:
 * N = n_lo + exp(u) when n_hi is infinite, else
 * N = n_lo + (n_hi - n_lo) / (1 + exp(-u)).  dpb_n_from_u returns N and
 * sets *dNdu, the log Jacobian *logjac = log dN/du and its derivative in u.
 */
double		dpb_n_from_u(const dpb_infer_opts *o, double u, double *dNdu,
						 double *logjac, double *dlogjac);
double		dpb_n_to_u(const dpb_infer_opts *o, double N);

/*
 * A prior for an unknown N from the released count alone (issue 26, item
 * 3): [max(0, n_hat - k s), n_hat + k s] with s the count's noise scale
 * (Laplace: b = sd / sqrt 2, k = DPB_N_PRIOR_K_LAPLACE, the likelihood's mass
 * beyond is e^-7 = 0.09%; Gaussian: s = sd, k = DPB_N_PRIOR_K_GAUSS, mass
 * 0.05%), rounded outwards to whole records.  Post-processing of the
 * release (the count is public), so it spends no privacy.  What the window
 * costs and buys is in docs/posterior.md, "The number of records".
 */
#define DPB_N_PRIOR_K_LAPLACE 7.0
#define DPB_N_PRIOR_K_GAUSS 3.5
void		dpb_n_prior_suggest(const dpb_infer_opts *o, double *lo, double *hi);

/* The starting value of an unknown N: n_hat moved into the prior's support. */
double		dpb_n_start(const dpb_infer_opts *o);

/* The GLM theta prior of o (normal, or truncated normal with
 * theta_norm_bound): adds its gradient to grad (p entries) and returns its
 * log density, -inf outside the truncation. */
double		dpb_theta_log_prior(const dpb_infer_opts *o, int p, const double *theta,
								double *grad);

/*
 * The prior sd of each variable of dr (a run of r with options o), in the
 * user's units, in closed form (prior_sd.c): out[k] for dr->names[k];
 * +inf where the prior has no finite variance (the flat prior of an unknown
 * N; a sigma^2 shape <= 1), NaN where it is not computed (the linear
 * model's feature moments).
 */
void		dpb_prior_sd(const dpb_release *r, const dpb_infer_opts *o,
						 const dpb_draws *dr, double *out);

/* Name of feature j of r ("x1".. when unnamed). */
const char *dpb_feature_name(const dpb_release *r, int j, char *buf, size_t len);

#endif
