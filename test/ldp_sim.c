/*
 * ldp_sim.c — simulated local-DP reports (see ldp_sim.h).
 */
#include "ldp_sim.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double
clampd(double x, double a, double b)
{
	return x < a ? a : (x > b ? b : x);
}

static void
scalar_reports(ldp_sim *s, gsl_rng *r, long n, const double *x, double a, double b,
			   double lambda)
{
	s->z = malloc(sizeof(double) * (n > 0 ? n : 1));
	s->dt.n = n;
	s->dt.a = a;
	s->dt.b = b;
	s->dt.lambda = lambda;
	for (long i = 0; i < n; i++)
	{
		double		z = clampd(x[i], a, b) + gsl_ran_laplace(r, 1 / lambda);

		if (z < a)
			s->dt.n_low++;
		else if (z > b)
			s->dt.n_high++;
		else
			s->z[s->dt.n_in++] = z;
	}
	s->dt.z = s->z;
}

void
ldp_sim_gaussian(ldp_sim *s, gsl_rng *r, long n, double mu, double sigma, double a,
				 double b, double eps)
{
	double	   *x = malloc(sizeof(double) * (n > 0 ? n : 1));

	memset(s, 0, sizeof(*s));
	s->dt.model = DPB_LDPM_GAUSSIAN;
	for (long i = 0; i < n; i++)
		x[i] = mu + gsl_ran_gaussian(r, sigma);
	scalar_reports(s, r, n, x, a, b, eps / (b - a));
	free(x);
}

void
ldp_sim_exponential(ldp_sim *s, gsl_rng *r, long n, double rate, double b, double eps)
{
	double	   *x = malloc(sizeof(double) * (n > 0 ? n : 1));

	memset(s, 0, sizeof(*s));
	s->dt.model = DPB_LDPM_EXPONENTIAL;
	for (long i = 0; i < n; i++)
		x[i] = gsl_ran_exponential(r, 1 / rate);
	scalar_reports(s, r, n, x, 0, b, eps / b);
	free(x);
}

void
ldp_sim_histogram(ldp_sim *s, gsl_rng *r, long n, int K, const double *theta, double eps)
{
	long		U = 1L << K;
	double		q0 = 1 / (1 + exp(eps));
	double	   *cnt = calloc(U, sizeof(double));

	memset(s, 0, sizeof(*s));
	s->dt.model = DPB_LDPM_HISTOGRAM;
	s->dt.K = K;
	s->dt.eps = eps;
	s->dt.n = n;
	for (long i = 0; i < n; i++)
	{
		double		u = gsl_rng_uniform(r),
					c = 0;
		int			k = K - 1;
		long		code = 0;

		for (int j = 0; j < K; j++)
		{
			c += theta[j];
			if (u < c)
			{
				k = j;
				break;
			}
		}
		for (int j = 0; j < K; j++)
			if (gsl_rng_uniform(r) < (j == k ? 0.5 : q0))
				code |= 1L << j;
		cnt[code]++;
	}
	s->pat = malloc(U * K);
	s->count = malloc(sizeof(double) * U);
	for (long c = 0; c < U; c++)
		if (cnt[c] > 0)
		{
			for (int j = 0; j < K; j++)
				s->pat[s->dt.npat * K + j] = (c >> j) & 1;
			s->count[s->dt.npat++] = cnt[c];
		}
	free(cnt);
	s->dt.pat = s->pat;
	s->dt.count = s->count;
}

void
ldp_sim_regression(ldp_sim *s, gsl_rng *r, dpb_ldpm_model m, long n, int d,
				   const double *theta, double sigma, const double *mu, const double *L,
				   double sd_x, double sd_y, double rr_keep)
{
	int			lin = m == DPB_LDPM_LINEAR,
				k = lin ? d + 1 : d;
	double		x[DPB_LDPM_MAX_D],
				e[DPB_LDPM_MAX_D],
				w[DPB_LDPM_MAX_D + 1];

	memset(s, 0, sizeof(*s));
	s->dt.model = m;
	s->dt.n = n;
	s->dt.d = d;
	for (int j = 0; j < d; j++)
		s->dt.sd_x[j] = sd_x;
	s->dt.sd_y = sd_y;
	s->dt.rr_keep = rr_keep;
	s->sw = calloc(k, sizeof(double));
	s->sww = calloc(k * k, sizeof(double));
	if (!lin)
	{
		s->zx = malloc(sizeof(double) * (size_t) (n > 0 ? n : 1) * d);
		s->zy = malloc(sizeof(double) * (n > 0 ? n : 1));
	}
	for (long i = 0; i < n; i++)
	{
		double		eta = theta[0];

		for (int j = 0; j < d; j++)
			e[j] = gsl_ran_gaussian(r, 1);
		for (int j = 0; j < d; j++)
		{
			x[j] = mu[j];
			for (int l = 0; l <= j; l++)
				x[j] += L[j * d + l] * e[l];
			eta += theta[1 + j] * x[j];
			w[j] = x[j] + gsl_ran_gaussian(r, sd_x);
		}
		if (lin)
			w[d] = eta + gsl_ran_gaussian(r, sigma) + gsl_ran_gaussian(r, sd_y);
		else
		{
			int			y = gsl_rng_uniform(r) < 1 / (1 + exp(-eta));

			if (gsl_rng_uniform(r) >= rr_keep)
				y = 1 - y;
			memcpy(s->zx + (size_t) i * d, w, sizeof(double) * d);
			s->zy[i] = y;
		}
		for (int a = 0; a < k; a++)
		{
			s->sw[a] += w[a];
			for (int b = 0; b < k; b++)
				s->sww[a * k + b] += w[a] * w[b];
		}
	}
	s->dt.sw = s->sw;
	s->dt.sww = s->sww;
	s->dt.zx = s->zx;
	s->dt.zy = s->zy;
}

void
ldp_sim_gaussian_gn(ldp_sim *s, gsl_rng *r, long n, double mu, double sigma, double a,
					double b, double tau)
{
	memset(s, 0, sizeof(*s));
	s->dt.model = DPB_LDPM_GAUSSIAN_GN;
	s->dt.n = n;
	s->dt.a = a;
	s->dt.b = b;
	s->dt.tau = tau;
	s->z = malloc(sizeof(double) * (n > 0 ? n : 1));
	for (long i = 0; i < n; i++)
		s->z[i] = clampd(mu + gsl_ran_gaussian(r, sigma), a, b) + gsl_ran_gaussian(r, tau);
	s->dt.n_in = n;
	s->dt.z = s->z;
}

void
ldp_sim_proportion(ldp_sim *s, gsl_rng *r, int groups, long n, const double *theta,
				   const double *keep)
{
	memset(s, 0, sizeof(*s));
	s->dt.model = DPB_LDPM_PROPORTION;
	s->dt.groups = groups;
	for (int g = 0; g < groups; g++)
	{
		s->dt.g_n[g] = n;
		s->dt.g_keep[g] = keep[g];
		for (long i = 0; i < n; i++)
		{
			int			x = gsl_rng_uniform(r) < theta[g];

			if (gsl_rng_uniform(r) >= keep[g])
				x = 1 - x;
			s->dt.g_k[g] += x;
		}
		s->dt.n += n;
	}
}

void
ldp_sim_free(ldp_sim *s)
{
	free(s->z);
	free(s->pat);
	free(s->count);
	free(s->sw);
	free(s->sww);
	free(s->zx);
	free(s->zy);
	memset(s, 0, sizeof(*s));
}

void
ldp_sim_prior_draw(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, gsl_rng *r,
				   double *phi)
{
	int			d = dt->d,
				lin = dt->model == DPB_LDPM_LINEAR,
				o = lin ? d + 2 : d + 1;

	switch (dt->model)
	{
		case DPB_LDPM_PROPORTION:
			for (int g = 0; g < dt->groups; g++)
			{
				double		t = gsl_ran_beta(r, pr->beta_a, pr->beta_b);

				phi[g] = log(t) - log1p(-t);
			}
			return;
		case DPB_LDPM_GAUSSIAN:
		case DPB_LDPM_GAUSSIAN_GN:
			phi[0] = pr->mu_mean + gsl_ran_gaussian(r, pr->mu_sd);
			phi[1] = log(gsl_ran_gamma(r, pr->sigma_shape, 1 / pr->sigma_rate));
			return;
		case DPB_LDPM_EXPONENTIAL:
			phi[0] = log(gsl_ran_gamma(r, pr->rate_shape, 1 / pr->rate_rate));
			return;
		case DPB_LDPM_HISTOGRAM:
			{
				double		g[1024];

				for (int k = 0; k < dt->K; k++)
					g[k] = gsl_ran_gamma(r, pr->alpha, 1);
				for (int k = 0; k < dt->K - 1; k++)
					phi[k] = log(g[k]) - log(g[dt->K - 1]);
				return;
			}
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			for (int j = 0; j <= d; j++)
				phi[j] = gsl_ran_gaussian(r, pr->theta_sd);
			if (lin)
				phi[d + 1] = log(fabs(gsl_ran_gaussian(r, pr->noise_sd)));
			for (int j = 0; j < d; j++)
			{
				phi[o + j] = gsl_ran_gaussian(r, pr->x_mean_sd);
				phi[o + d + j] = log(fabs(gsl_ran_gaussian(r, pr->tau_sd)));
			}
			for (int j = 0; j < d * (d - 1) / 2; j++)
				phi[o + 2 * d + j] = gsl_ran_gaussian(r, 0.5 * pr->tau_sd);
			return;
	}
}

void
ldp_sim_from_phi(ldp_sim *s, const dpb_ldpm_data *dt0, gsl_rng *r, long n,
				 const double *phi)
{
	double		c[1024];

	switch (dt0->model)
	{
		case DPB_LDPM_GAUSSIAN:
			ldp_sim_gaussian(s, r, n, phi[0], exp(phi[1]), dt0->a, dt0->b,
							 dt0->lambda * (dt0->b - dt0->a));
			return;
		case DPB_LDPM_GAUSSIAN_GN:
			ldp_sim_gaussian_gn(s, r, n, phi[0], exp(phi[1]), dt0->a, dt0->b, dt0->tau);
			return;
		case DPB_LDPM_PROPORTION:
			{
				double		t[2];

				for (int g = 0; g < dt0->groups; g++)
					t[g] = 1 / (1 + exp(-phi[g]));
				ldp_sim_proportion(s, r, dt0->groups, n, t, dt0->g_keep);
				return;
			}
		case DPB_LDPM_EXPONENTIAL:
			ldp_sim_exponential(s, r, n, exp(phi[0]), dt0->b, dt0->lambda * dt0->b);
			return;
		case DPB_LDPM_HISTOGRAM:
			dpb_ldpm_constrain(dt0, phi, c);
			ldp_sim_histogram(s, r, n, dt0->K, c, dt0->eps);
			return;
		case DPB_LDPM_LINEAR:
		case DPB_LDPM_LOGISTIC:
			{
				int			d = dt0->d,
							lin = dt0->model == DPB_LDPM_LINEAR,
							o = lin ? d + 2 : d + 1,
							q = 0;
				double		L[DPB_LDPM_MAX_D * DPB_LDPM_MAX_D] = {0};

				for (int i = 0; i < d; i++)
				{
					L[i * d + i] = exp(phi[o + d + i]);
					for (int j = 0; j < i; j++)
						L[i * d + j] = phi[o + 2 * d + q++];
				}
				ldp_sim_regression(s, r, dt0->model, n, d, phi,
								   lin ? exp(phi[d + 1]) : 0, phi + o, L,
								   dt0->sd_x[0], dt0->sd_y, dt0->rr_keep);
				return;
			}
	}
}
