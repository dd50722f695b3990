/*
 * ldp_models.h — noise-aware posteriors on collected local-DP reports
 * (issue 11, server side; docs/ldp.md "Posteriors on collected reports";
 * digest Part A §A3.4, A3.5, A3.7, A3.8, A3.9).
 *
 * Each record's latent true value is marginalised in closed form (or by
 * Gauss-Hermite quadrature), so there are no per-record latent variables;
 * NUTS (nuts.h) samples the model parameters with exact gradients.
 *
 *   gaussian     x ~ N(mu, sigma^2) clipped to [a, b], z = x + Laplace(1/lambda)
 *                (eq. 28, corrected).  Reports below a / above b enter only
 *                through their counts (their likelihood factorises, see
 *                ldp_post_scalar.c), so the data are n_low, n_high and the
 *                in-range reports; those are grouped by value, or binned
 *                within a stated error bound (dpb_ldpm_group).
 *   exponential  x ~ Exp(rate) clipped to [0, b], the same Laplace reports
 *                (eq. 30, corrected); the same reduction.
 *   histogram    x ~ Categorical(theta), OUE reports of K bits, theta ~
 *                Dirichlet(alpha); the distinct report patterns with their
 *                counts are sufficient (the column sums are not).
 *   linear       x ~ N(mu, Sigma), y = theta_0 + theta'x + N(0, sigma^2),
 *                z_x = x + N(0, diag(sd_x^2)), z_y = y + N(0, sd_y^2): w =
 *                (z_x, z_y) is jointly Gaussian, so N, sum w and sum w w' are
 *                sufficient: O(1) in N.
 *   logistic     x ~ N(mu, Sigma), y ~ Bernoulli(sigmoid(theta_0 + theta'x)),
 *                z_x = x + N(0, diag(sd_x^2)), z_y = RR(y) (kept w.p. rr_keep);
 *                P(y = 1 | z_x) by Gauss-Hermite quadrature: O(N (d + Q)).
 *   gaussian_gn  x ~ N(mu, sigma^2) clipped to [a, b], z = x + N(0, tau^2):
 *                the Gaussian-perturbed clipped scalar (scalar_gaussian
 *                reports; the LDP paper's Lemma 3.2 with g = 1, h the
 *                Gaussian's exponent, plus the atoms of clipping).  No
 *                reduction: every report enters, grouped or binned within a
 *                stated bound (dpb_ldpm_group).
 *   proportion   x ~ Bernoulli(theta), z = x kept w.p. rr_keep (randomized
 *                response), theta ~ Beta(beta_a, beta_b): the exact RR
 *                likelihood, O(1) (N and the number of ones are
 *                sufficient); with two groups, theta_a and theta_b
 *                independent, and their difference.
 */
#ifndef DPB_LDP_MODELS_H
#define DPB_LDP_MODELS_H

#include "dpb.h"
#include "posterior.h"

#define DPB_LDPM_MAX_D 16		/* features of the regression models */
#define DPB_LDPM_GH_NODES 32	/* Gauss-Hermite nodes (logistic) */

typedef enum dpb_ldpm_model
{
	DPB_LDPM_GAUSSIAN = 1,
	DPB_LDPM_EXPONENTIAL = 2,
	DPB_LDPM_HISTOGRAM = 3,
	DPB_LDPM_LINEAR = 4,
	DPB_LDPM_LOGISTIC = 5,
	DPB_LDPM_GAUSSIAN_GN = 6,
	DPB_LDPM_PROPORTION = 7
} dpb_ldpm_model;

#define DPB_LDPM_MODEL_MAX DPB_LDPM_PROPORTION

/* the scalar models whose reports are grouped or binned (dpb_ldpm_group) */
#define DPB_LDPM_IS_SCALAR(m) \
	((m) == DPB_LDPM_GAUSSIAN || (m) == DPB_LDPM_EXPONENTIAL || (m) == DPB_LDPM_GAUSSIAN_GN)

const char *dpb_ldpm_model_name(dpb_ldpm_model m);

/* The already-private data a model sees (the glue keeps the memory). */
typedef struct dpb_ldpm_data
{
	dpb_ldpm_model model;
	double		n;				/* number of reports */
	/* gaussian, exponential: clipping interval (exponential: a = 0) and
	 * Laplace rate lambda = 1 / scale; n_low reports below a, n_high above
	 * b, the n_in reports in [a, b] in z */
	double		a,
				b,
				lambda;
	double		n_low,
				n_high;
	long		n_in;
	const double *z;
	/* gaussian_gn: the clipping interval [a, b], the noise sd tau; every
	 * report in z (n_in of them; n_low = n_high = 0) */
	double		tau;
	/* proportion: 1 or 2 groups; group g has g_n reports, g_k of them 1,
	 * its label kept with probability g_keep (> 1/2) */
	int			groups;
	double		g_n[2],
				g_k[2],
				g_keep[2];
	/* optional (dpb_ldpm_group): the in-range reports as n_grp terms, value
	 * gz[k] with weight gw[k]; when gz is set the likelihood sums
	 * gw[k] log p(gz[k]) in place of the z */
	long		n_grp;
	const double *gz;
	const double *gw;
	/* histogram: K categories, OUE epsilon; npat distinct patterns, row u
	 * of pat (K bytes, 0 or 1) seen count[u] times */
	int			K;
	double		eps;
	long		npat;
	const unsigned char *pat;
	const double *count;
	/* linear, logistic: d features, per-feature noise sd of z_x */
	int			d;
	double		sd_x[DPB_LDPM_MAX_D];
	/* linear: noise sd of z_y; sums over reports of w = (z_x, z_y):
	 * sw (d + 1), sww ((d + 1) x (d + 1), row-major) */
	double		sd_y;
	const double *sw;
	const double *sww;
	/* logistic: the label's keep probability (> 1/2); sums of z_x (sw: d,
	 * sww: d x d) and the n reports: zx (n x d, row-major), zy (n, 0/1) */
	double		rr_keep;
	const double *zx;
	const double *zy;
} dpb_ldpm_data;

/* Priors (docs/ldp.md).  dpb_ldpm_prior_default fills them from d. */
typedef struct dpb_ldpm_prior
{
	/* gaussian: mu ~ N(mu_mean, mu_sd^2), sigma ~ Gamma(sigma_shape,
	 * sigma_rate) */
	double		mu_mean,
				mu_sd,
				sigma_shape,
				sigma_rate;
	/* exponential: rate ~ Gamma(rate_shape, rate_rate) */
	double		rate_shape,
				rate_rate;
	/* histogram: theta ~ Dirichlet(alpha, ..., alpha) */
	double		alpha;
	/* regression: theta_j (intercept included) ~ N(0, theta_sd^2); linear
	 * sigma ~ half-normal(noise_sd); mu_j ~ N(0, x_mean_sd^2); Sigma = L L'
	 * with L_jj ~ half-normal(tau_sd), L_ij ~ N(0, (tau_sd / 2)^2) (i > j) */
	double		theta_sd,
				noise_sd,
				x_mean_sd,
				tau_sd;
	/* proportion: theta ~ Beta(beta_a, beta_b) (each group) */
	double		beta_a,
				beta_b;
} dpb_ldpm_prior;

void		dpb_ldpm_prior_default(const dpb_ldpm_data *dt, dpb_ldpm_prior *pr);

/* Checks the prior's values (positive, finite).  DPB_EINVAL with a message. */
dpb_status	dpb_ldpm_prior_check(const dpb_ldpm_prior *pr, dpb_err *err);

/* Unconstrained dimension of the model. */
int			dpb_ldpm_dim(const dpb_ldpm_data *dt);

/* Number of output variables (constrained) and their names. */
int			dpb_ldpm_nvars(const dpb_ldpm_data *dt);
void		dpb_ldpm_names(const dpb_ldpm_data *dt, char (*names)[DPB_VAR_NAME_LEN]);

/* Constrained output variables from an unconstrained point. */
void		dpb_ldpm_constrain(const dpb_ldpm_data *dt, const double *phi, double *out);

/* The log-likelihood alone (no prior) at phi, gradient in grad (may be NULL:
 * then not computed).  For tests and the benchmarks. */
double		dpb_ldpm_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad);

/* Log posterior density (unconstrained, with Jacobians) and gradient. */
typedef struct dpb_ldpm_ctx
{
	const dpb_ldpm_data *dt;
	const dpb_ldpm_prior *pr;
} dpb_ldpm_ctx;
double		dpb_ldpm_logp(const double *phi, double *grad, void *ctx);

/* Per-record densities (tests): eq. 28 and eq. 30 at one report z. */
double		dpb_ldpm_gauss_logpdf(double z, double mu, double sigma, double a,
								  double b, double lambda, double *dmu, double *dsigma);
double		dpb_ldpm_exp_logpdf(double z, double rate, double b, double lambda,
								double *drate);
/* gaussian_gn at one report z: the density of clip(x, a, b) + N(0, tau^2),
 * x ~ N(mu, sigma^2), with d/dmu and d/dsigma of its log */
double		dpb_ldpm_gn_logpdf(double z, double mu, double sigma, double a, double b,
							   double tau, double *dmu, double *dsigma);

/*
 * Grouping of the scalar models' in-range reports (docs/ldp.md "Grouped and
 * binned likelihood").  With at most max_distinct distinct values, at most
 * half as many as reports: one term per value with its count (exact).
 * Otherwise equal-width bins on [a, b] (gaussian_gn: on [min z, max z]),
 * each bin's reports replaced by their mean with weight their count; the
 * number of bins B (16, 32, ...) is the smallest with v <= tol, where for
 * every parameter value the error E = (exact) - (binned) log-likelihood
 * satisfies c - v <= E <= c (c constant in theta):
 *   Laplace noise (gaussian, exponential), S2 = sum_b sum_{i in b} (z_i - zbar_b)^2:
 *     c = (lambda^2 / 2) S2,
 *     v = (2 lambda + lambda^2 (b - a)) max_b sum_{i in b} |z_i - zbar_b|;
 *   Gaussian noise (gaussian_gn):
 *     c = v - S2 / (2 tau^2),   v = (b - a)^2 S2 / (8 tau^4).
 * When no B < n_in / 2 meets tol (nor gives fewer terms than the distinct
 * values), the exact grouping if it has fewer terms than reports, else k =
 * 0 (use the reports).  Polls interrupt every 65536 reports (DPB_EINTR).
 */
typedef struct dpb_ldpm_groups
{
	long		k;				/* terms (0: none, use the reports) */
	double	   *z,
			   *w;				/* value and weight of each term */
	int			exact;			/* one term per distinct value */
	long		bins;			/* binned: the number of bins B */
	double		c,
				v;				/* the bound above (0 when exact) */
} dpb_ldpm_groups;

#define DPB_LDPM_GROUP_MAX_DISTINCT 4096
#define DPB_LDPM_BIN_TOL 0.05

dpb_status	dpb_ldpm_group(const dpb_ldpm_data *dt, double tol, long max_distinct,
						   dpb_interrupt_fn interrupt, dpb_ldpm_groups *g);
void		dpb_ldpm_groups_free(dpb_ldpm_groups *g);

/* P = E[sigmoid(u)], u ~ N(m, s2), by Q-node Gauss-Hermite quadrature,
 * with dP/dm and dP/ds2. */
double		dpb_ldpm_logistic_normal(double m, double s2, double *dm, double *ds2);

/* Sampler options (a subset of dpb_infer_opts). */
typedef struct dpb_ldpm_run_opts
{
	int			chains,
				warmup,
				draws;
	uint64_t	seed;
	double		target_accept;
	int			max_depth;
	dpb_interrupt_fn interrupt;
	/* scalar models: the binning tolerance in nats (dpb_ldpm_group); 0:
	 * DPB_LDPM_BIN_TOL; < 0: every in-range report its own term (the
	 * ungrouped path, for comparisons) */
	double		bin_tol;
} dpb_ldpm_run_opts;

/* NUTS chains (seeded by dpb_chain_rng(seed, chain)); out receives the
 * constrained variables.  DPB_EINTR on interrupt, DPB_ENUMERIC when no
 * finite starting point is found or the sampler fails. */
dpb_status	dpb_ldpm_run(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr,
						 const dpb_ldpm_run_opts *o, dpb_draws *out, dpb_err *err);

/* The OUE point estimate (digest §A2): f_k = (mean_k - q) / (1/2 - q),
 * q = 1/(1 + e^eps), from the column means; with simplex, projected onto
 * the probability simplex in L2 (sort-based projection). */
void		dpb_ldpm_oue_estimate(const dpb_ldpm_data *dt, int simplex, double *f);



/* Internal (ldp_post_*.c): the per-model log-likelihoods. */
double		dpb_ldpm_scalar_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad);
double		dpb_ldpm_hist_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad);
double		dpb_ldpm_reg_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad);
double		dpb_ldpm_prop_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad);
/* theta = softmax(phi_1..phi_{K-1}, 0) */
void		dpb_ldpm_softmax(const double *phi, int K, double *theta);
#endif
