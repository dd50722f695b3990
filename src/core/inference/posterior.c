/*
 * posterior.c — options, draw storage, seeding and dispatch of the
 * posterior samplers.
 */
#include "posterior.h"

#include "clip.h"
#include "gibbs_linear.h"
#include "glm_model.h"
#include "linear_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dpb_infer_opts_default(dpb_infer_opts *o, const dpb_release *r)
{
	int			j,
				d = r->d;
	double		b = dpb_coord_bound(&r->p, d);
	double		yb = r->model == DPB_MODEL_LOGISTIC ? 1.0 : r->p.y_bound;

	memset(o, 0, sizeof(*o));
	o->draws = 1000;
	o->chains = 4;
	o->warmup = 1000;
	o->thin = 1;
	o->method = DPB_METHOD_NOISE_AWARE;
	for (j = 0; j <= DPB_MAX_D; j++)
	{
		o->lin.theta_mean[j] = 0;
		o->lin.theta_precision[j] = 0.01;
	}
	o->lin.sigma2_shape = 2;
	o->lin.sigma2_scale = yb * yb / 4;
	/* the weak prior (NUTS; bench/results/linear_coverage.md) */
	o->lin.prior = DPB_LIN_PRIOR_WEAK;
	for (j = 0; j <= DPB_MAX_D; j++)
		o->lin.theta_sd[j] = 2 * yb / b;
	o->lin.intercept_sd = yb;
	o->lin.sigma2_mean = yb * yb / 8;
	o->lin.xmoments = DPB_XMOM_UPDATE;
	for (j = 0; j <= DPB_MAX_D; j++)
		o->glm.theta_scale[j] = 5.0;
	o->glm.theta_norm_bound = 0;
	o->glm.mu_scale = b;
	o->glm.tau_scale = b;
	o->glm.lkj_eta = 2.0;
	o->lin.laplace_latent = -1;	/* Laplace: "auto" (dpb_lin_use_latent) */
	o->lin.polar = -1;			/* with the mixed form (linear_model.h) */
	o->lin.clamp = -1;			/* y's clamping modelled when the release
								 * counts the clamped records (linear_model.h,
								 * dpb_lin_clamp_count) */
	o->lin.clamp_count = 0;
	o->lin.clamp_count_sd = -1;
	o->glm.approx = 1;
	o->nuts.target_accept = 0.8;
	o->nuts.max_depth = 10;
	o->lin.x_kappa = 1;
	o->lin.x_df = d + 2;
	for (j = 0; j < d; j++)
	{
		o->x_mean[j] = 0;
		o->lin.x_scale[j * d + j] = b * b / 3;	/* E[Sigma] = var of U(-b, b) */
		o->lin.x_cov[j * d + j] = b * b / 3;
	}
	/* the number of records: exact in a replace-one release, a noisy count
	 * under add/remove neighbours */
	dpb_release_count(r, &o->count.n_hat, &o->count.n_sd, &o->count.n_known);
	o->count.n_laplace = r->p.mechanism == DPB_MECH_LAPLACE;
	o->count.n_lo = 0;
	o->count.n_hi = INFINITY;
}

double
dpb_n_log_density(const dpb_infer_opts *o, double N, double *dN)
{
	double		e = o->count.n_hat - N;

	if (dN)
		*dN = 0;
	if (!(N > o->count.n_lo) || !(N < o->count.n_hi) || !(o->count.n_sd > 0))
		return -INFINITY;
	if (o->count.n_laplace)
	{
		/* scale b = sd / sqrt(2) */
		double		b = o->count.n_sd / M_SQRT2;

		if (dN)
			*dN = ((e > 0) - (e < 0)) / b;
		return -fabs(e) / b;
	}
	if (dN)
		*dN = e / (o->count.n_sd * o->count.n_sd);
	return -0.5 * e * e / (o->count.n_sd * o->count.n_sd);
}

double
dpb_n_from_u(const dpb_infer_opts *o, double u, double *dNdu, double *logjac,
			 double *dlogjac)
{
	if (isinf(o->count.n_hi))
	{
		double		t = exp(u);

		*dNdu = t;
		*logjac = u;
		*dlogjac = 1;
		return o->count.n_lo + t;
	}
	else
	{
		double		w = o->count.n_hi - o->count.n_lo,
					s = u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u)),
					c = u >= 0 ? exp(-u) / (1 + exp(-u)) : 1 / (1 + exp(u));

		*dNdu = w * s * c;
		*logjac = log(w) + log(s) + log(c);
		*dlogjac = c - s;
		return o->count.n_lo + w * s;
	}
}

double
dpb_n_to_u(const dpb_infer_opts *o, double N)
{
	if (isinf(o->count.n_hi))
		return log(N - o->count.n_lo);
	return log((N - o->count.n_lo) / (o->count.n_hi - N));
}

void
dpb_n_prior_suggest(const dpb_infer_opts *o, double *lo, double *hi)
{
	double		w = o->count.n_laplace ? DPB_N_PRIOR_K_LAPLACE * o->count.n_sd / M_SQRT2 :
		DPB_N_PRIOR_K_GAUSS * o->count.n_sd;

	*lo = floor(fmax(0, o->count.n_hat - w));
	*hi = ceil(fmax(o->count.n_hat, 0) + w);
}

double
dpb_n_start(const dpb_infer_opts *o)
{
	double		N = o->count.n_hat,
				lo = o->count.n_lo,
				hi = o->count.n_hi;

	/* inside the support, at least one noise sd (and one record) from its
	 * lower end, or the middle of a narrow support */
	if (isinf(hi))
		return fmax(N, lo + fmax(1.0, o->count.n_sd));
	if (hi - lo <= 2 * o->count.n_sd)
		return 0.5 * (lo + hi);
	return fmin(fmax(N, lo + o->count.n_sd), hi - o->count.n_sd);
}

dpb_status
dpb_draws_alloc(dpb_draws *d, int chains, int iters, int nvars)
{
	size_t		n = (size_t) chains * iters * nvars;

	memset(d, 0, sizeof(*d));
	d->chains = chains;
	d->iters = iters;
	d->nvars = nvars;
	d->v = calloc(n > 0 ? n : 1, sizeof(double));
	d->names = calloc(nvars > 0 ? nvars : 1, DPB_VAR_NAME_LEN);
	if (d->v == NULL || d->names == NULL)
	{
		dpb_draws_free(d);
		return DPB_ENOMEM;
	}
	return DPB_OK;
}

void
dpb_draws_free(dpb_draws *d)
{
	free(d->v);
	free(d->names);
	d->v = NULL;
	d->names = NULL;
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

gsl_rng *
dpb_chain_rng(uint64_t seed, int chain)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t	s = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t) (chain + 1));

	if (r != NULL)
		gsl_rng_set(r, (unsigned long) (splitmix64(&s) & 0xffffffffUL));
	return r;
}

void
dpb_feature_map(const dpb_release *r, double *gain, double *center)
{
	dpb_clipper c;
	int			j;

	dpb_clipper_init(&c, &r->p, r->model, r->d);
	for (j = 0; j < r->d; j++)
	{
		gain[j] = r->p.has_bounds ? c.gain[j] : 1.0;
		center[j] = r->p.has_bounds ? c.center[j] : 0.0;
	}
}

const char *
dpb_feature_name(const dpb_release *r, int j, char *buf, size_t len)
{
	if (r->p.has_names)
		snprintf(buf, len, "%s", r->p.names[j]);
	else
		snprintf(buf, len, "x%d", j + 1);
	return buf;
}

/*
 * The size limit (docs/posterior.md, "Limits").  One step of either sampler
 * (a Gibbs-SS iteration; a log density + gradient of the GLM) factorises
 * matrices of the n model statistics: measured on this project's reference
 * machine (OpenBLAS, one thread) at d = 24, 32, 48, 64 one GLM gradient
 * took 4.6 ms, 20 ms, 0.15 s, 0.89 s and one Gibbs iteration 7.8 ms, 38 ms,
 * 0.22 s (d = 64: ~1.2 s), that is 0.7 to 1.8 x 1e-10 n^3 seconds.  In
 * units of STEP_UNIT = 1e-10 n^3 s:
 *  - one step may cost at most MAX_STEP_S = 0.25 s, so that the interrupt polls between steps honour a
 *    cancel within a second;
 *  - a whole run at most MAX_RUN_S = 3600 s, counting per chain 2 dim
 *    gradients of the curvature initialisation and GLM_GRADS_PER_ITER = 10
 *    gradients per NUTS iteration (the fewest measured: 7 to 30), or
 *    GIBBS_STEPS_PER_ITER = 2 units per Gibbs iteration (measured with an
 *    unknown N, the default and costlier case).
 * With an intercept that allows d <= 43 for linear regression with Gibbs-SS,
 * d <= 46 with NUTS, d <= 49 for logistic and d <= 35 for Poisson regression
 * (whose model also holds the y x x' block); docs/posterior.md has the table,
 * regression test 28_analyst_ux its boundaries.
 * The estimate is a lower bound of the time; a run it lets through can take
 * several times longer, and the host's statement_timeout bounds it.
 */
#define STEP_UNIT 1e-10
#define MAX_STEP_S 0.25
#define MAX_RUN_S 3600.0
#define GLM_GRADS_PER_ITER 10.0
#define GIBBS_STEPS_PER_ITER 2.0

/* the NUTS models: 2 dim gradients of the curvature initialisation and
 * GLM_GRADS_PER_ITER per iteration */
static void
nuts_cost(double n3, int dim, const dpb_infer_opts *o, double iters,
		  double *step_s, double *run_s)
{
	*step_s = STEP_UNIT * n3;
	*run_s = (double) o->chains * (2.0 * dim + GLM_GRADS_PER_ITER * iters) * *step_s;
}

static void
gibbs_linear_cost(const dpb_release *r, const dpb_infer_opts *o, double n3,
				  double iters, double *step_s, double *run_s)
{
	*step_s = GIBBS_STEPS_PER_ITER * STEP_UNIT * n3;
	*run_s = (double) o->chains * iters * *step_s;
}

/* one gradient of the linear model (linear_model.c) measured 1.1 x 1e-10 n^3
 * s at d = 32 and 1.6 at d = 24 (more below, where the O(n^2) adjoints
 * dominate): charged LINEAR_GRAD_UNITS units */
#define LINEAR_GRAD_UNITS 1.5

static void
nuts_linear_cost(const dpb_release *r, const dpb_infer_opts *o, double n3,
				 double iters, double *step_s, double *run_s)
{
	int			d = r->d;

	nuts_cost(LINEAR_GRAD_UNITS * n3,
			  d + r->p.intercept + 1 + d + d * (d + 1) / 2 + (o->count.n_known ? 0 : 1),
			  o, iters, step_s, run_s);
}

static void
nuts_glm_cost(const dpb_release *r, const dpb_infer_opts *o, double n3,
			  double iters, double *step_s, double *run_s)
{
	nuts_cost(n3, dpb_glm_dim(r->d, r->p.intercept) + (o->count.n_known ? 0 : 1), o, iters,
			  step_s, run_s);
}

/*
 * The samplers: one row per (model, sampler), its run function and its cost
 * (seconds of one step and of the run, from n3 = nmodel^3 and the
 * iterations per chain).  The options are one struct for every model
 * (dpb_infer_opts); each sampler reads its own fields.
 */
typedef struct sampler_entry
{
	dpb_model	model;
	dpb_sampler sampler;
	dpb_status	(*run) (const dpb_release *r, const dpb_infer_opts *o,
						dpb_draws *out, dpb_err *err);
	void		(*cost) (const dpb_release *r, const dpb_infer_opts *o, double n3,
						 double iters, double *step_s, double *run_s);
} sampler_entry;

static const sampler_entry samplers[] = {
	{DPB_MODEL_LINEAR, DPB_SAMPLER_NUTS, dpb_linear_nuts_run, nuts_linear_cost},
	{DPB_MODEL_LINEAR, DPB_SAMPLER_GIBBS, dpb_gibbs_linear_run, gibbs_linear_cost},
	{DPB_MODEL_LOGISTIC, DPB_SAMPLER_NUTS, dpb_glm_run, nuts_glm_cost},
	{DPB_MODEL_POISSON, DPB_SAMPLER_NUTS, dpb_glm_run, nuts_glm_cost},
};

const char *
dpb_sampler_name(dpb_sampler s)
{
	return s == DPB_SAMPLER_NUTS ? "nuts" : s == DPB_SAMPLER_GIBBS ? "gibbs" : "default";
}

int
dpb_lin_weak_prior_used(const dpb_release *r, const dpb_infer_opts *o)
{
	return r->model == DPB_MODEL_LINEAR && o->lin.prior == DPB_LIN_PRIOR_WEAK &&
		dpb_posterior_sampler(r, o) == DPB_SAMPLER_NUTS;
}

dpb_sampler
dpb_posterior_sampler(const dpb_release *r, const dpb_infer_opts *o)
{
	dpb_sampler s = o->sampler;

	if (r->model == DPB_MODEL_LINEAR)
	{
		/* the naive and non-private posteriors are conjugate: iid draws */
		if (o->method != DPB_METHOD_NOISE_AWARE)
			return DPB_SAMPLER_GIBBS;
		if (s == DPB_SAMPLER_DEFAULT)
		{
			dpb_layout	L;
			double		n3,
						step_s,
						run_s;

			s = o->lin.xmoments == DPB_XMOM_NOISY ? DPB_SAMPLER_GIBBS : DPB_SAMPLER_NUTS;
			/* a NUTS run over the size limit falls back to Gibbs-SS, whose
			 * iterations are cheaper (d >= 34 at the default draws) */
			if (s == DPB_SAMPLER_NUTS && dpb_release_layout(r, &L) == DPB_OK)
			{
				n3 = (double) L.nmodel * L.nmodel * L.nmodel;
				nuts_linear_cost(r, o, n3, (double) o->warmup +
								 (double) o->draws * (o->thin > 0 ? o->thin : 1),
								 &step_s, &run_s);
				if (step_s > MAX_STEP_S || run_s > MAX_RUN_S)
					s = DPB_SAMPLER_GIBBS;
			}
		}
	}
	else if (s == DPB_SAMPLER_DEFAULT)
		s = DPB_SAMPLER_NUTS;
	for (size_t i = 0; i < sizeof(samplers) / sizeof(samplers[0]); i++)
		if (samplers[i].model == r->model && samplers[i].sampler == s)
			return s;
	return DPB_SAMPLER_DEFAULT;
}

static const sampler_entry *
find_sampler(const dpb_release *r, const dpb_infer_opts *o)
{
	dpb_sampler s = dpb_posterior_sampler(r, o);

	for (size_t i = 0; i < sizeof(samplers) / sizeof(samplers[0]); i++)
		if (samplers[i].model == r->model && samplers[i].sampler == s)
			return &samplers[i];
	return NULL;
}

dpb_status
dpb_posterior_cost(const dpb_release *r, const dpb_infer_opts *o,
				   double *step_s, double *run_s)
{
	dpb_layout	L;
	double		n3,
				iters;
	const sampler_entry *e = find_sampler(r, o);

	*step_s = *run_s = 0;
	if (e == NULL || dpb_release_layout(r, &L) != DPB_OK)
		return DPB_EINVAL;
	n3 = (double) L.nmodel * L.nmodel * L.nmodel;
	iters = (double) o->warmup + (double) o->draws * (o->thin > 0 ? o->thin : 1);
	e->cost(r, o, n3, iters, step_s, run_s);
	if (*step_s > MAX_STEP_S || *run_s > MAX_RUN_S)
		return DPB_ERANGE;
	return DPB_OK;
}

/* 1 if chain c's draws are all equal (and there are enough to tell) */
static int
chain_stuck(const dpb_draws *dr, int c)
{
	const double *first = dr->v + (size_t) c * dr->iters * dr->nvars;

	if (dr->iters < DPB_STUCK_MIN_DRAWS)
		return 0;
	for (int i = 1; i < dr->iters; i++)
		if (memcmp(first, first + (size_t) i * dr->nvars,
				   sizeof(double) * (size_t) dr->nvars) != 0)
			return 0;
	return 1;
}

int
dpb_draws_stuck_chain(const dpb_draws *dr)
{
	for (int c = 0; c < dr->chains; c++)
		if (chain_stuck(dr, c))
			return c + 1;
	return 0;
}

int
dpb_draws_stuck_chains(const dpb_draws *dr)
{
	int			n = 0;

	for (int c = 0; c < dr->chains; c++)
		n += chain_stuck(dr, c);
	return n;
}

dpb_status
dpb_posterior_run(const dpb_release *r, const dpb_infer_opts *o,
				  dpb_draws *out, dpb_err *err)
{
	double		step_s,
				run_s;
	dpb_status	st;
	const sampler_entry *e;

	if (r->p.mechanism == DPB_MECH_NONE && o->method != DPB_METHOD_NONPRIVATE)
	{
		dpb_err_set(err, "this release holds exact statistics",
					"A non-private release is analysed with method \"nonprivate\".");
		return DPB_EINVAL;
	}
	if (o->method == DPB_METHOD_NONPRIVATE && r->p.mechanism != DPB_MECH_NONE)
	{
		dpb_err_set(err, "method \"nonprivate\" needs exact statistics",
					"Make them with dpbayes.nonprivate_%s_stats(...).",
					dpb_model_name(r->model));
		return DPB_EINVAL;
	}
	if (!o->count.n_known && !(o->count.n_sd > 0 && dpb_isfinite(o->count.n_hat) && o->count.n_lo >= 0 &&
						 o->count.n_lo < o->count.n_hi))
	{
		dpb_err_set(err, "the number of records is unknown and its prior or noise is invalid",
					"An unknown N needs a positive noise sd and a prior 0 <= lo < hi.");
		return DPB_EINVAL;
	}
	if (dpb_posterior_cost(r, o, &step_s, &run_s) == DPB_ERANGE)
	{
		const char *sname = dpb_sampler_name(dpb_posterior_sampler(r, o));

		if (step_s > MAX_STEP_S)
		{
			/* enough digits that the estimate reads as more than the limit
			 * ("about 0.25 s (the limit is 0.25 s)" did not) */
			int			prec = 3;
			char		buf[32];

			for (; prec < 12; prec++)
			{
				snprintf(buf, sizeof(buf), "%.*g", prec, step_s);
				if (strtod(buf, NULL) > MAX_STEP_S)
					break;
			}
			dpb_err_set(err, "the model is too large to sample",
						"One step of the %s sampler on %s regression with %d features would take about %s s, "
						"more than the limit of %.2g s that keeps a cancel within a second.",
						sname, dpb_model_name(r->model), r->d, buf, MAX_STEP_S);
		}
		else
			dpb_err_set(err, "the model is too large to sample with these draws, chains and warmup",
						"The run of the %s sampler would take at least about %.0f s, more than the limit of %.0f s.",
						sname, run_s, MAX_RUN_S);
		return DPB_ERANGE;
	}
	e = find_sampler(r, o);
	if (e == NULL)
	{
		dpb_err_set(err, "this sampler is not available for this model",
					"Model: %s, sampler: %s.", dpb_model_name(r->model),
					dpb_sampler_name(o->sampler));
		return DPB_ENOTSUP;
	}
	/*
	 * A chain that never moved after warmup is returned as it is: the
	 * caller's convergence warning names it (dpb_draws_stuck_chains).
	 */
	st = e->run(r, o, out, err);
	if (st == DPB_OK)
		out->warmup = o->warmup;
	return st;
}

int
dpb_nvars(const dpb_release *r, int with_sigma, int with_n, int nuisance)
{
	return (r->p.intercept ? 1 : 0) + r->d + (with_sigma ? 1 : 0) +
		(with_n ? 1 : 0) + (nuisance ? 2 * r->d : 0);
}

void
dpb_name_vars(const dpb_release *r, int with_sigma, int with_n, int nuisance,
			  char (*names)[DPB_VAR_NAME_LEN])
{
	char		buf[DPB_NAME_LEN];
	int			j,
				k = 0;

	if (r->p.intercept)
		snprintf(names[k++], DPB_VAR_NAME_LEN, "theta[intercept]");
	for (j = 0; j < r->d; j++)
		snprintf(names[k++], DPB_VAR_NAME_LEN, "theta[%s]",
				 dpb_feature_name(r, j, buf, sizeof(buf)));
	if (with_sigma)
		snprintf(names[k++], DPB_VAR_NAME_LEN, "sigma");
	if (with_n)
		snprintf(names[k++], DPB_VAR_NAME_LEN, "n");
	if (nuisance)
	{
		for (j = 0; j < r->d; j++)
			snprintf(names[k++], DPB_VAR_NAME_LEN, "mu_x[%s]",
					 dpb_feature_name(r, j, buf, sizeof(buf)));
		for (j = 0; j < r->d; j++)
			snprintf(names[k++], DPB_VAR_NAME_LEN, "sd_x[%s]",
					 dpb_feature_name(r, j, buf, sizeof(buf)));
	}
}

void
dpb_record_draw(const dpb_release *r, const double *gain, const double *center,
				const double *theta, const double *sigma, const double *n,
				const double *mu, const double *Sigma, int nuisance, double *out)
{
	int			d = r->d,
				ic = r->p.intercept ? 1 : 0,
				j,
				k = 0;
	double		b0 = ic ? theta[0] : 0;

	for (j = 0; j < d; j++)
		b0 -= theta[ic + j] * gain[j] * center[j];
	if (ic)
		out[k++] = b0;
	for (j = 0; j < d; j++)
		out[k++] = theta[ic + j] * gain[j];
	if (sigma)
		out[k++] = *sigma;
	if (n)
		out[k++] = *n;
	if (nuisance)
	{
		for (j = 0; j < d; j++)
			out[k++] = mu[j] / gain[j] + center[j];
		for (j = 0; j < d; j++)
			out[k++] = sqrt(Sigma[j * d + j]) / gain[j];
	}
}

double
dpb_theta_log_prior(const dpb_infer_opts *o, int p, const double *theta,
					double *grad)
{
	double		lp = 0;
	int			j;

	if (o->glm.theta_norm_bound > 0)
	{
		double		ss = 0;

		for (j = 0; j < p; j++)
			ss += theta[j] * theta[j];
		if (ss > o->glm.theta_norm_bound * o->glm.theta_norm_bound)
			return -INFINITY;
		for (j = 0; j < p; j++)
			grad[j] -= theta[j];
		return -0.5 * ss;
	}
	for (j = 0; j < p; j++)
	{
		double		s2 = o->glm.theta_scale[j] * o->glm.theta_scale[j];

		lp -= 0.5 * theta[j] * theta[j] / s2;
		grad[j] -= theta[j] / s2;
	}
	return lp;
}
