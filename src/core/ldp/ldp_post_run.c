/*
 * ldp_post_run.c — priors, parametrisation, starting points and the NUTS
 * driver of the local-DP posteriors (ldp_models.h).
 *
 * Unconstrained parameters:
 *   gaussian     (mu, log sigma)
 *   exponential  (log rate)
 *   histogram    K - 1 log-ratios: theta = softmax(phi, 0); the Jacobian
 *                of the additive log-ratio map is prod_k theta_k
 *   linear       (theta_0, theta_1..d, log sigma, mu_1..d, log L_jj, L_ij (i > j))
 *   logistic     (theta_0, theta_1..d, mu_1..d, log L_jj, L_ij (i > j))
 *   gaussian_gn  (mu, log sigma)
 *   proportion   logit theta per group (1 or 2)
 */
#include "ldp_models.h"
#include "nuts.h"
#include "progress.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* theta = 1 / (1 + e^{-phi}), without overflow */
static double
expit(double phi)
{
	return phi >= 0 ? 1 / (1 + exp(-phi)) : exp(phi) / (1 + exp(phi));
}

/* the proportion model's data: 1 or 2 groups of counts, keep > 1/2 */
static int
prop_ok(const dpb_ldpm_data *dt)
{
	if (dt->groups < 1 || dt->groups > 2)
		return 0;
	for (int g = 0; g < dt->groups; g++)
		if (!(dt->g_keep[g] > 0.5 && dt->g_keep[g] < 1) || !(dt->g_n[g] >= 0)
			|| !(dt->g_k[g] >= 0 && dt->g_k[g] <= dt->g_n[g]))
			return 0;
	return 1;
}

const char *
dpb_ldpm_model_name(dpb_ldpm_model m)
{
	switch (m)
	{
		case DPB_LDPM_GAUSSIAN:
			return "gaussian";
		case DPB_LDPM_EXPONENTIAL:
			return "exponential";
		case DPB_LDPM_HISTOGRAM:
			return "histogram";
		case DPB_LDPM_LINEAR:
			return "linear";
		case DPB_LDPM_LOGISTIC:
			return "logistic";
		case DPB_LDPM_GAUSSIAN_GN:
			return "gaussian_gn";
		case DPB_LDPM_PROPORTION:
			return "proportion";
	}
	return "?";
}

void
dpb_ldpm_prior_default(const dpb_ldpm_data *dt, dpb_ldpm_prior *pr)
{
	double		w = dt->b - dt->a;

	memset(pr, 0, sizeof(*pr));
	/* gaussian: mu ~ N(centre, (w/4)^2), sigma ~ Gamma(2, 8/w) (mean w/4) */
	pr->mu_mean = 0.5 * (dt->a + dt->b);
	pr->mu_sd = w > 0 ? w / 4 : 1;
	pr->sigma_shape = 2;
	pr->sigma_rate = w > 0 ? 8 / w : 1;
	/* exponential: rate ~ Gamma(2, b/2) (mean 4/b: E[x] = b/4) */
	pr->rate_shape = 2;
	pr->rate_rate = dt->b > 0 ? dt->b / 2 : 1;
	pr->alpha = 1;
	/* regression: theta ~ N(0, 5) as in the paper (Table 8) */
	pr->theta_sd = sqrt(5.0);
	pr->noise_sd = 1;
	pr->x_mean_sd = 1;
	pr->tau_sd = 1;
	/* proportion: uniform */
	pr->beta_a = 1;
	pr->beta_b = 1;
}

dpb_status
dpb_ldpm_prior_check(const dpb_ldpm_prior *pr, dpb_err *err)
{
	const double *v[] = {&pr->mu_sd, &pr->sigma_shape, &pr->sigma_rate,
		&pr->rate_shape, &pr->rate_rate, &pr->alpha, &pr->theta_sd,
	&pr->noise_sd, &pr->x_mean_sd, &pr->tau_sd, &pr->beta_a, &pr->beta_b};

	if (!isfinite(pr->mu_mean))
	{
		dpb_err_set(err, "prior option mu_mean must be finite", NULL);
		return DPB_EINVAL;
	}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!(*v[i] > 0) || !isfinite(*v[i]))
		{
			dpb_err_set(err, "prior scales, shapes and rates must be positive and finite", NULL);
			return DPB_EINVAL;
		}
	return DPB_OK;
}

int
dpb_ldpm_dim(const dpb_ldpm_data *dt)
{
	int			d = dt->d;

	switch (dt->model)
	{
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			return 2;
		case DPB_LDPM_EXPONENTIAL:
			return 1;
		case DPB_LDPM_PROPORTION:
			return dt->groups;
		case DPB_LDPM_HISTOGRAM:
			return dt->K - 1;
		case DPB_LDPM_LINEAR:
			return 1 + d + 1 + d + d + d * (d - 1) / 2;
		case DPB_LDPM_LOGISTIC:
			return 1 + d + d + d + d * (d - 1) / 2;
	}
	return 0;
}

int
dpb_ldpm_nvars(const dpb_ldpm_data *dt)
{
	switch (dt->model)
	{
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			return 2;
		case DPB_LDPM_EXPONENTIAL:
			return 1;
		case DPB_LDPM_PROPORTION:
			return dt->groups == 1 ? 1 : 4;
		case DPB_LDPM_HISTOGRAM:
			return dt->K;
		case DPB_LDPM_LINEAR:
			return 1 + dt->d + 1 + 2 * dt->d;
		case DPB_LDPM_LOGISTIC:
			return 1 + dt->d + 2 * dt->d;
	}
	return 0;
}

void
dpb_ldpm_names(const dpb_ldpm_data *dt, char (*names)[DPB_VAR_NAME_LEN])
{
	int			k = 0,
				d = dt->d;

	switch (dt->model)
	{
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			strcpy(names[0], "mu");
			strcpy(names[1], "sigma");
			return;
		case DPB_LDPM_PROPORTION:
			if (dt->groups == 1)
				strcpy(names[0], "theta");
			else
			{
				strcpy(names[0], "theta[a]");
				strcpy(names[1], "theta[b]");
				strcpy(names[2], "diff");
				strcpy(names[3], "log_odds_ratio");
			}
			return;
		case DPB_LDPM_EXPONENTIAL:
			strcpy(names[0], "rate");
			return;
		case DPB_LDPM_HISTOGRAM:
			for (k = 0; k < dt->K; k++)
				snprintf(names[k], DPB_VAR_NAME_LEN, "theta[%d]", k + 1);
			return;
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			strcpy(names[k++], "theta[intercept]");
			for (int j = 0; j < d; j++)
				snprintf(names[k++], DPB_VAR_NAME_LEN, "theta[x%d]", j + 1);
			if (dt->model == DPB_LDPM_LINEAR)
				strcpy(names[k++], "sigma");
			for (int j = 0; j < d; j++)
				snprintf(names[k++], DPB_VAR_NAME_LEN, "mu_x[x%d]", j + 1);
			for (int j = 0; j < d; j++)
				snprintf(names[k++], DPB_VAR_NAME_LEN, "sd_x[x%d]", j + 1);
			return;
	}
}

void
dpb_ldpm_constrain(const dpb_ldpm_data *dt, const double *phi, double *out)
{
	int			d = dt->d,
				k = 0,
				lin = dt->model == DPB_LDPM_LINEAR;

	switch (dt->model)
	{
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			out[0] = phi[0];
			out[1] = exp(phi[1]);
			return;
		case DPB_LDPM_PROPORTION:
			for (int g = 0; g < dt->groups; g++)
				out[g] = expit(phi[g]);
			if (dt->groups == 2)
			{
				out[2] = out[0] - out[1];
				out[3] = phi[0] - phi[1];	/* log odds ratio */
			}
			return;
		case DPB_LDPM_EXPONENTIAL:
			out[0] = exp(phi[0]);
			return;
		case DPB_LDPM_HISTOGRAM:
			dpb_ldpm_softmax(phi, dt->K, out);
			return;
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			{
				const double *mu = phi + (lin ? d + 2 : d + 1),
						   *ld = mu + d,
						   *od = ld + d;

				for (int j = 0; j <= d; j++)
					out[k++] = phi[j];
				if (lin)
					out[k++] = exp(phi[d + 1]);
				for (int j = 0; j < d; j++)
					out[k++] = mu[j];
				for (int j = 0; j < d; j++)
				{
					/* Sigma_jj = sum_l L_jl^2 */
					double		s = exp(2 * ld[j]);

					for (int l = 0; l < j; l++)
						s += od[j * (j - 1) / 2 + l] * od[j * (j - 1) / 2 + l];
					out[k++] = sqrt(s);
				}
				return;
			}
	}
}

double
dpb_ldpm_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad)
{
	switch (dt->model)
	{
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_EXPONENTIAL:
		case DPB_LDPM_GAUSSIAN_GN:
			return dpb_ldpm_scalar_loglik(dt, phi, grad);
		case DPB_LDPM_PROPORTION:
			return dpb_ldpm_prop_loglik(dt, phi, grad);
		case DPB_LDPM_HISTOGRAM:
			return dpb_ldpm_hist_loglik(dt, phi, grad);
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			return dpb_ldpm_reg_loglik(dt, phi, grad);
	}
	return NAN;
}

/* log N(x; 0, s^2) up to a constant, gradient added to *g */
static double
lnorm(double x, double mean, double s, double *g)
{
	*g -= (x - mean) / (s * s);
	return -0.5 * (x - mean) * (x - mean) / (s * s);
}

/* prior and Jacobian of the unconstrained parametrisation, gradient added */
static double
log_prior(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, const double *phi,
		  double *g)
{
	int			d = dt->d,
				lin = dt->model == DPB_LDPM_LINEAR;
	double		lp = 0;

	switch (dt->model)
	{
		case DPB_LDPM_PROPORTION:
			/* Beta(a, b) on theta times the Jacobian theta (1 - theta):
			 * a log theta + b log(1 - theta); d/dphi = a (1 - theta) - b theta */
			for (int j = 0; j < dt->groups; j++)
			{
				double		th = expit(phi[j]);

				lp += -pr->beta_a * log1p(exp(-phi[j])) - pr->beta_b * log1p(exp(phi[j]));
				g[j] += pr->beta_a * (1 - th) - pr->beta_b * th;
			}
			return lp;
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			{
				double		sg = exp(phi[1]);

				lp += lnorm(phi[0], pr->mu_mean, pr->mu_sd, &g[0]);
				/* Gamma(shape, rate) on sigma, times the Jacobian sigma */
				lp += pr->sigma_shape * phi[1] - pr->sigma_rate * sg;
				g[1] += pr->sigma_shape - pr->sigma_rate * sg;
				return lp;
			}
		case DPB_LDPM_EXPONENTIAL:
			{
				double		r = exp(phi[0]);

				lp += pr->rate_shape * phi[0] - pr->rate_rate * r;
				g[0] += pr->rate_shape - pr->rate_rate * r;
				return lp;
			}
		case DPB_LDPM_HISTOGRAM:
			{
				/* Dirichlet(alpha) times the Jacobian prod theta_k:
				 * alpha sum_k log theta_k; d/dphi_j = alpha (1 - K theta_j) */
				int			K = dt->K;
				double	   *th = malloc(sizeof(double) * K);

				if (th == NULL)
					return NAN;
				dpb_ldpm_softmax(phi, K, th);
				for (int j = 0; j < K; j++)
				{
					lp += pr->alpha * log(th[j]);
					if (j < K - 1)
						g[j] += pr->alpha * (1 - K * th[j]);
				}
				free(th);
				return lp;
			}
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			{
				int			o = lin ? d + 2 : d + 1;

				for (int j = 0; j <= d; j++)
					lp += lnorm(phi[j], 0, pr->theta_sd, &g[j]);
				if (lin)
				{
					/* sigma ~ half-normal(noise_sd), Jacobian sigma */
					double		s = exp(phi[d + 1]);

					lp += -0.5 * s * s / (pr->noise_sd * pr->noise_sd) + phi[d + 1];
					g[d + 1] += -s * s / (pr->noise_sd * pr->noise_sd) + 1;
				}
				for (int j = 0; j < d; j++)
					lp += lnorm(phi[o + j], 0, pr->x_mean_sd, &g[o + j]);
				for (int j = 0; j < d; j++)
				{
					double		l = exp(phi[o + d + j]);

					lp += -0.5 * l * l / (pr->tau_sd * pr->tau_sd) + phi[o + d + j];
					g[o + d + j] += -l * l / (pr->tau_sd * pr->tau_sd) + 1;
				}
				for (int j = 0; j < d * (d - 1) / 2; j++)
					lp += lnorm(phi[o + 2 * d + j], 0, 0.5 * pr->tau_sd,
								&g[o + 2 * d + j]);
				return lp;
			}
	}
	return NAN;
}

double
dpb_ldpm_logp(const double *phi, double *grad, void *vctx)
{
	dpb_ldpm_ctx *c = vctx;
	int			dim = dpb_ldpm_dim(c->dt);
	double		gp[3 * DPB_LDPM_MAX_D + 2 + DPB_LDPM_MAX_D * DPB_LDPM_MAX_D];
	double	   *g = dim <= (int) (sizeof(gp) / sizeof(gp[0])) ? gp : malloc(sizeof(double) * dim);
	double		ll,
				lp;

	if (g == NULL)
		return NAN;
	memset(g, 0, sizeof(double) * dim);
	lp = log_prior(c->dt, c->pr, phi, g);
	ll = dpb_ldpm_loglik(c->dt, phi, grad);
	if (grad)
		for (int j = 0; j < dim; j++)
			grad[j] += g[j];
	if (g != gp)
		free(g);
	return isfinite(lp) && isfinite(ll) ? lp + ll : NAN;
}

/* A starting point near the data's crude moments, jittered. */
static void
init_point(const dpb_ldpm_data *dt, gsl_rng *rng, double *phi)
{
	int			d = dt->d;

	switch (dt->model)
	{
		case DPB_LDPM_PROPORTION:
			for (int g = 0; g < dt->groups; g++)
			{
				double		p = dt->g_keep[g],
							f = dt->g_n[g] > 0 ? dt->g_k[g] / dt->g_n[g] : 0.5,
							t = (f - (1 - p)) / (2 * p - 1);

				t = fmin(0.95, fmax(0.05, t));
				phi[g] = log(t / (1 - t)) + 0.3 * gsl_ran_gaussian(rng, 1);
			}
			return;
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_EXPONENTIAL:
		case DPB_LDPM_GAUSSIAN_GN:
			{
				double		s = dt->n_low * dt->a + dt->n_high * dt->b,
							n = dt->n_low + dt->n_high + dt->n_in,
							w = dt->b - dt->a,
							mean;

				for (long i = 0; i < dt->n_in; i++)
					s += dt->z[i];
				mean = n > 0 ? s / n : 0.5 * (dt->a + dt->b);
				if (dt->model == DPB_LDPM_GAUSSIAN)
				{
					phi[0] = mean + 0.1 * w * gsl_ran_gaussian(rng, 1);
					phi[1] = log(w / 4) + 0.3 * gsl_ran_gaussian(rng, 1);
				}
				else
					phi[0] = -log(fmax(mean, dt->b / 50)) + 0.3 * gsl_ran_gaussian(rng, 1);
				return;
			}
		case DPB_LDPM_HISTOGRAM:
			for (int j = 0; j < dt->K - 1; j++)
				phi[j] = 0.3 * gsl_ran_gaussian(rng, 1);
			return;
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			{
				int			lin = dt->model == DPB_LDPM_LINEAR,
							o = lin ? d + 2 : d + 1;
				double		n = dt->n > 0 ? dt->n : 1;

				for (int j = 0; j <= d; j++)
					phi[j] = 0.1 * gsl_ran_gaussian(rng, 1);
				if (lin)
				{
					double		my = dt->sw[d] / n,
								vy = dt->sww[d * (d + 1) + d] / n - my * my,
								ve = vy - dt->sd_y * dt->sd_y;

					phi[d + 1] = 0.5 * log(fmax(ve, 0.05 * fmax(vy, 1e-6)))
						+ 0.2 * gsl_ran_gaussian(rng, 1);
				}
				for (int j = 0; j < d; j++)
				{
					int			k = lin ? d + 1 : d;
					double		mx = dt->sw[j] / n,
								vx = dt->sww[j * k + j] / n - mx * mx,
								vt = vx - dt->sd_x[j] * dt->sd_x[j];

					phi[o + j] = mx + 0.1 * gsl_ran_gaussian(rng, 1);
					phi[o + d + j] = 0.5 * log(fmax(vt, 0.05 * fmax(vx, 1e-6)))
						+ 0.2 * gsl_ran_gaussian(rng, 1);
				}
				for (int j = 0; j < d * (d - 1) / 2; j++)
					phi[o + 2 * d + j] = 0.05 * gsl_ran_gaussian(rng, 1);
				return;
			}
	}
}

dpb_status
dpb_ldpm_run(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr,
			 const dpb_ldpm_run_opts *o, dpb_draws *out, dpb_err *err)
{
	int			dim = dpb_ldpm_dim(dt),
				nv = dpb_ldpm_nvars(dt);
	dpb_ldpm_data gdt = *dt;
	dpb_ldpm_groups grp;
	dpb_ldpm_ctx ctx = {&gdt, pr};
	dpb_nuts_opts no;
	double	   *phi = NULL,
			   *dr = NULL,
			   *g = NULL;
	dpb_status	st = DPB_OK;

	if (dim < 1 || ((dt->model == DPB_LDPM_LINEAR || dt->model == DPB_LDPM_LOGISTIC)
					&& (dt->d < 1 || dt->d > DPB_LDPM_MAX_D))
		|| (dt->model == DPB_LDPM_PROPORTION && !prop_ok(dt))
		|| (dt->model == DPB_LDPM_GAUSSIAN_GN && !(dt->tau > 0 && isfinite(dt->tau))))
	{
		dpb_err_set(err, "the collected reports do not define a model", NULL);
		return DPB_EINVAL;
	}
	st = dpb_ldpm_prior_check(pr, err);
	if (st != DPB_OK)
		return st;
	/* the scalar models: one term per distinct in-range value, or per bin
	 * within the stated bound (dpb_ldpm_group) */
	memset(&grp, 0, sizeof(grp));
	if (DPB_LDPM_IS_SCALAR(dt->model) && dt->gz == NULL && o->bin_tol >= 0)
	{
		st = dpb_ldpm_group(dt, o->bin_tol > 0 ? o->bin_tol : DPB_LDPM_BIN_TOL,
							DPB_LDPM_GROUP_MAX_DISTINCT, o->interrupt, &grp);
		if (st != DPB_OK)
			return st;
		if (grp.k > 0)
		{
			gdt.n_grp = grp.k;
			gdt.gz = grp.z;
			gdt.gw = grp.w;
		}
	}
	st = dpb_draws_alloc(out, o->chains, o->draws, nv);
	if (st != DPB_OK)
	{
		dpb_ldpm_groups_free(&grp);
		return st;
	}
	dpb_ldpm_names(dt, out->names);
	phi = malloc(sizeof(double) * dim);
	g = malloc(sizeof(double) * dim);
	dr = malloc(sizeof(double) * (size_t) o->draws * dim);
	if (phi == NULL || g == NULL || dr == NULL)
	{
		st = DPB_ENOMEM;
		goto done;
	}
	dpb_nuts_opts_default(&no);
	no.warmup = o->warmup;
	no.draws = o->draws;
	no.target_accept = o->target_accept;
	no.max_depth = o->max_depth;
	no.curvature_init = 1;
	no.interrupt = o->interrupt;
	for (int c = 0; c < o->chains && st == DPB_OK; c++)
	{
		gsl_rng    *rng = dpb_chain_rng(o->seed, c);
		dpb_nuts_stats ns;
		int			tries;

		if (rng == NULL)
		{
			st = DPB_ENOMEM;
			break;
		}
		dpb_progress_chain(c + 1, o->chains);
		for (tries = 0; tries < 50; tries++)
		{
			double		lp;
			int			ok = 1;

			if (o->interrupt && o->interrupt())
			{
				st = DPB_EINTR;
				break;
			}
			init_point(dt, rng, phi);
			lp = dpb_ldpm_logp(phi, g, &ctx);
			for (int j = 0; j < dim; j++)
				ok &= isfinite(g[j]);
			if (isfinite(lp) && ok)
				break;
		}
		if (st == DPB_OK && tries == 50)
		{
			dpb_err_set(err, "no finite starting point for the sampler",
						"The prior options may not suit the scale of the reports.");
			st = DPB_ENUMERIC;
		}
		if (st == DPB_OK)
			st = dpb_nuts_run(dim, dpb_ldpm_logp, &ctx, phi, &no, rng, dr, &ns);
		gsl_rng_free(rng);
		if (st == DPB_ENUMERIC)
			dpb_err_set(err, "the sampler found no usable step size",
						"The posterior may be improper for these prior options.");
		if (st != DPB_OK)
			break;
		out->divergences += ns.divergences;
		out->rejected += ns.invalid;
		out->proposals += ns.gradient_evals;
		for (int i = 0; i < o->draws; i++)
			dpb_ldpm_constrain(dt, dr + (size_t) i * dim,
							   out->v + ((size_t) c * o->draws + i) * nv);
	}
done:
	dpb_ldpm_groups_free(&grp);
	free(phi);
	free(g);
	free(dr);
	if (st != DPB_OK)
		dpb_draws_free(out);
	return st;
}
