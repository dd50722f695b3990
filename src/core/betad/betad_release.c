/*
 * betad_release.c — parameters, mechanism run, validation, packing and JSON
 * of the betaD-Bayes release (see betad_release.h, docs/betad.md).
 */
#include "betad_release.h"

#include "dnoise.h"
#include "ledger.h"
#include "names.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void canonical(dpb_betad_release *r);

void
dpb_betad_spec_default(dpb_betad_spec *s, int gaussian)
{
	memset(s, 0, sizeof(*s));
	s->gaussian = gaussian;
	s->epsilon = NAN;
	s->beta = NAN;
	s->root = DPB_BETAD_ROOT_SMALLER;
	s->prior_sd = 3.0;
	s->sigma2_floor = gaussian ? NAN : 0.0;
	s->y_scale = 1.0;
	s->ig_a = gaussian ? 1.0 : 0.0;
	s->ig_b = gaussian ? 1.0 : 0.0;
	s->fx.intercept = 1;
	dpb_betad_schedule_default(&s->sched);
	s->ndraws = 1;
	s->tier = DPB_BETAD_APPROXIMATE;
	s->delta_prime = 0.0;
	s->neighbours = DPB_NB_ADD_REMOVE;
}

/*
 * Under add/remove neighbours one exact draw is (L, 0)-DP, L the range of
 * -l_beta(x, .) over theta for a fixed record x (docs/betad.md,
 * "Neighbours"): adding x multiplies the unnormalised density by
 * exp(-l_beta(x, theta)) and the normaliser by its mean under the old
 * posterior, which lies between the same bounds.  L is M^b / b for both
 * models (logistic: the range of -l is exactly 1/b; Gaussian: the sup
 * M^b (1/b - beta^-3/2) at m = y, sigma at the floor, the inf
 * -M^b beta^-3/2 as m leaves y), half the replace-one epsilon 2 M^b / b.
 */
double
dpb_betad_eps_draw(const dpb_betad_spec *s, double beta)
{
	double		e = dpb_betad_epsilon(s->gaussian, beta, s->sigma2_floor, s->y_scale);

	return s->neighbours == DPB_NB_ADD_REMOVE ? 0.5 * e : e;
}

/* beta for the epsilon of one draw under the spec's neighbours */
static dpb_status
beta_of_eps(const dpb_betad_spec *s, double eps1, double *beta, dpb_err *err)
{
	int			ar = s->neighbours == DPB_NB_ADD_REMOVE;
	dpb_status	st = dpb_betad_beta(s->gaussian, ar ? 2 * eps1 : eps1, s->sigma2_floor,
									s->y_scale, s->root, beta, err);

	if (st == DPB_ERANGE && ar)
	{
		double		emin = 0.5 * dpb_betad_epsilon_min(s->sigma2_floor, s->y_scale);

		dpb_err_set(err, "epsilon is below the smallest epsilon this variance floor allows",
					"With sigma2_floor %.6g and y_scale %.6g one draw is at best %.6g-DP under add/remove neighbours; epsilon %.6g needs sigma2_floor >= %.6g at this y_scale (or a smaller public y_scale).",
					s->sigma2_floor, s->y_scale, emin, eps1,
					exp(-2 * eps1 / M_E) / (2.0 * M_PI) * s->y_scale * s->y_scale);
	}
	return st;
}

static int
pos_finite(double v)
{
	return v > 0 && dpb_isfinite(v);
}

static int
close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* the total (epsilon, delta) of k draws of epsilon eps1 each: the
 * exponential mechanism is (eps1^2 / 8)-zCDP (bounded range), so k draws are
 * (k eps1^2 / 8)-zCDP, converted at delta; or pure composition k eps1,
 * whichever epsilon is smaller */
static void
compose(int k, double eps1, double delta, double *eps, double *deff)
{
	double		pure = k * eps1,
				z;

	if (k == 1)
	{
		*eps = eps1;
		*deff = 0;
		return;
	}
	z = dpb_zcdp_eps(k * eps1 * eps1 / 8.0, delta);
	if (!(z < pure))
	{
		*eps = pure;
		*deff = 0;
	}
	else
	{
		*eps = z;
		*deff = delta;
	}
}

dpb_status
dpb_betad_spec_check(dpb_betad_spec *s, dpb_err *err)
{
	double		eps1,
				total,
				deff;
	dpb_status	st;
	int			j;

	if (s->gaussian != 0 && s->gaussian != 1)
	{
		dpb_err_set(err, "unknown betaD model", NULL);
		return DPB_EINVAL;
	}
	if (!pos_finite(s->prior_sd) || s->prior_sd > 1e6)
	{
		dpb_err_set(err, "prior_sd must be positive and at most 1e6", NULL);
		return DPB_EINVAL;
	}
	if (s->gaussian)
	{
		if (!pos_finite(s->sigma2_floor) || !pos_finite(s->y_scale))
		{
			dpb_err_set(err, "sigma2_floor and y_scale must be positive and finite", NULL);
			return DPB_EINVAL;
		}
		if (!pos_finite(s->ig_a) || !pos_finite(s->ig_b))
		{
			dpb_err_set(err, "the inverse-gamma prior of sigma2 needs positive, finite parameters", NULL);
			return DPB_EINVAL;
		}
	}
	else if (s->sigma2_floor != 0 || s->y_scale != 1 || s->ig_a != 0 || s->ig_b != 0)
	{
		dpb_err_set(err, "sigma2_floor, y_scale and sigma2_prior apply only to the linear model", NULL);
		return DPB_EINVAL;
	}
	if (s->fx.d < 0 || s->fx.d > DPB_MAX_D)
	{
		dpb_err_set(err, "the number of features must be between 1 and 64", NULL);
		return DPB_ERANGE;
	}
	if (s->fx.has_bounds)
	{
		if (s->fx.d == 0)
		{
			dpb_err_set(err, "lower and upper need the number of features", NULL);
			return DPB_EINVAL;
		}
		for (j = 0; j < s->fx.d; j++)
			if (!dpb_isfinite(s->fx.lower[j]) || !dpb_isfinite(s->fx.upper[j]) ||
				!(s->fx.lower[j] < s->fx.upper[j]) ||
				!dpb_isfinite(s->fx.upper[j] - s->fx.lower[j]))
			{
				dpb_err_set(err, "lower must be below upper, both finite",
							"Feature %d has invalid bounds.", j + 1);
				return DPB_EINVAL;
			}
	}
	if (s->fx.has_names && (st = dpb_names_check(&s->fx, err)) != DPB_OK)
		return st;
	if (s->fx.intercept != 0 && s->fx.intercept != 1)
	{
		dpb_err_set(err, "invalid intercept flag", NULL);
		return DPB_EINVAL;
	}
	if (s->sched.chains < 1 || s->sched.chains > DPB_BETAD_MAX_CHAINS ||
		s->sched.warmup < 10 || s->sched.warmup > DPB_BETAD_MAX_ITERS ||
		s->sched.iters < 1 || s->sched.iters > DPB_BETAD_MAX_ITERS)
	{
		dpb_err_set(err, "invalid sampler schedule",
					"chains must be between 1 and %d, warmup between 10 and %d, iterations between 1 and %d.",
					DPB_BETAD_MAX_CHAINS, DPB_BETAD_MAX_ITERS, DPB_BETAD_MAX_ITERS);
		return DPB_EINVAL;
	}
	if (s->ndraws < 1 || s->ndraws > DPB_BETAD_MAX_DRAWS)
	{
		dpb_err_set(err, "draws must be between 1 and 100", NULL);
		return DPB_EINVAL;
	}
	if (s->ndraws == 1 && !(s->delta == 0 || isnan(s->delta)))
	{
		dpb_err_set(err, "delta applies only to more than one draw",
					"One exact draw is (epsilon, 0)-DP; delta is the conversion parameter of the zCDP composition of several draws.");
		return DPB_EINVAL;
	}
	if (s->ndraws == 1)
		s->delta = 0;
	else if (!(s->delta > 0 && s->delta < 1))
	{
		dpb_err_set(err, "more than one draw needs delta in (0, 1)",
					"k draws are composed as (k epsilon1^2 / 8)-zCDP and converted to (epsilon, delta)-DP.");
		return DPB_EINVAL;
	}
	if (s->tier != DPB_BETAD_APPROXIMATE && s->tier != DPB_BETAD_EXACT)
	{
		dpb_err_set(err, "unknown sampling tier", NULL);
		return DPB_EINVAL;
	}
	if (s->tier == DPB_BETAD_EXACT && !(s->delta_prime > 0 && s->delta_prime < 1))
	{
		dpb_err_set(err, "the exact tier needs delta_prime in (0, 1)", NULL);
		return DPB_EINVAL;
	}
	if (s->tier == DPB_BETAD_APPROXIMATE)
		s->delta_prime = 0;
	if (s->neighbours != DPB_NB_ADD_REMOVE && s->neighbours != DPB_NB_REPLACE)
	{
		dpb_err_set(err, "neighbours must be add_remove or replace", NULL);
		return DPB_EINVAL;
	}
	if (s->tier == DPB_BETAD_EXACT && s->neighbours != DPB_NB_REPLACE)
	{
		/* its number of trials is a function of N: with N private, the
		 * trials, the certified delta' and the run's time would leak it */
		dpb_err_set(err, "the exact tier needs a public number of records",
					"Its fixed number of trials and the delta' it certifies are functions of N; use neighbours \"replace\" when N is public, or the approximate tier.");
		return DPB_EINVAL;
	}
	if (s->hidden < 0 || s->hidden > DPB_BETAD_MAX_HIDDEN)
	{
		dpb_err_set(err, "hidden must be between 1 and 64", NULL);
		return DPB_EINVAL;
	}
	if (s->hidden == 0 && s->activation != 0)
	{
		dpb_err_set(err, "activation applies only to a network", NULL);
		return DPB_EINVAL;
	}
	if (s->hidden > 0)
	{
		if (s->activation != DPB_BETAD_ACT_RELU && s->activation != DPB_BETAD_ACT_TANH)
		{
			dpb_err_set(err, "activation must be relu or tanh", NULL);
			return DPB_EINVAL;
		}
		if (!s->fx.intercept)
		{
			dpb_err_set(err, "a betaD network always has biases",
						"Every hidden unit and the output have a bias; intercept => false applies only to the logistic and linear models.");
			return DPB_EINVAL;
		}
		if (s->tier == DPB_BETAD_EXACT)
		{
			dpb_err_set(err, "the exact tier is not available for a network",
						"The exact tier's rejection sampler is implemented for the logistic and linear models only; use the approximate tier.");
			return DPB_EINVAL;
		}
		if ((size_t) s->hidden * (s->fx.d + 2) + 2 > DPB_BETAD_MAX_DIM)
		{
			dpb_err_set(err, "the network has too many weights",
						"hidden units times (features + 2) must be at most %d.", DPB_BETAD_MAX_DIM - 2);
			return DPB_ERANGE;
		}
	}
	if (s->root != DPB_BETAD_ROOT_SMALLER && s->root != DPB_BETAD_ROOT_LARGER)
	{
		dpb_err_set(err, "root must be smaller or larger", NULL);
		return DPB_EINVAL;
	}

	if (isnan(s->beta))
	{
		if (!pos_finite(s->epsilon))
		{
			dpb_err_set(err, "epsilon must be positive and finite", NULL);
			return DPB_EINVAL;
		}
		eps1 = s->epsilon;
		if (s->ndraws > 1)
		{
			double		rho;

			if ((st = dpb_zcdp_rho(s->epsilon, s->delta, &rho, err)) != DPB_OK)
				return st;
			eps1 = fmax(s->epsilon / s->ndraws, sqrt(8.0 * rho / s->ndraws));
		}
		st = beta_of_eps(s, eps1, &s->beta, err);
		if (st != DPB_OK)
			return st;
	}
	else if (!(s->beta > 1) || !dpb_isfinite(s->beta))
	{
		dpb_err_set(err, "beta must be greater than 1 and finite", NULL);
		return DPB_EINVAL;
	}
	eps1 = dpb_betad_eps_draw(s, s->beta);
	if (!pos_finite(eps1))
	{
		dpb_err_set(err, "the epsilon of this beta is not representable", NULL);
		return DPB_ERANGE;
	}
	compose(s->ndraws, eps1, s->delta, &total, &deff);
	if (!pos_finite(total))
	{
		dpb_err_set(err, "the epsilon of the draws is not representable", NULL);
		return DPB_ERANGE;
	}
	if (!isnan(s->epsilon) && !close_rel(total, s->epsilon, 1e-9))
	{
		dpb_err_set(err, "epsilon does not match beta",
					"The epsilon of the draws follows from beta, the model, the floor, y_scale and the number of draws; give epsilon or beta, not both.");
		return DPB_EINVAL;
	}
	s->epsilon = total;
	s->eps_draw = eps1;
	s->delta_eff = deff;
	return DPB_OK;
}

int
dpb_betad_nvar(const dpb_betad_spec *s)
{
	if (s->hidden > 0)
		return s->hidden * (s->fx.d + 1) + s->hidden + 1 + s->gaussian;
	return s->fx.d + s->fx.intercept + s->gaussian;
}

const char *
dpb_betad_model_name(const dpb_betad_spec *s)
{
	if (s->hidden > 0)
		return s->gaussian ? "mlp_regression" : "mlp_classifier";
	return s->gaussian ? "linear" : "logistic";
}

void
dpb_betad_var_name(const dpb_betad_spec *s, int j, char *out, size_t outlen)
{
	int			ld = s->fx.d + 1;

	if (s->hidden > 0 && j < s->hidden * ld)
	{
		/* h<k>.bias, h<k>.<feature>: the weights of hidden unit k */
		int			f = j % ld - 1;

		if (f < 0)
			snprintf(out, outlen, "h%d.bias", j / ld + 1);
		else if (s->fx.has_names)
			snprintf(out, outlen, "h%d.%s", j / ld + 1, s->fx.names[f]);
		else
			snprintf(out, outlen, "h%d.x%d", j / ld + 1, f + 1);
	}
	else if (s->hidden > 0 && j < s->hidden * ld + s->hidden + 1)
	{
		/* out.bias, out.h<k>: the output layer */
		int			k = j - s->hidden * ld;

		if (k == 0)
			snprintf(out, outlen, "out.bias");
		else
			snprintf(out, outlen, "out.h%d", k);
	}
	else if (s->hidden > 0)
		snprintf(out, outlen, "sigma2");
	else if (s->fx.intercept && j == 0)
		snprintf(out, outlen, "intercept");
	else if (s->gaussian && j == dpb_betad_nvar(s) - 1)
		snprintf(out, outlen, "sigma2");
	else
	{
		int			f = j - s->fx.intercept;

		if (s->fx.has_names)
			snprintf(out, outlen, "%s", s->fx.names[f]);
		else
			snprintf(out, outlen, "x%d", f + 1);
	}
}

/* per record: the upper bound of -l_beta and its range */
static void
loss_bounds(const dpb_betad_spec *s, double *up, double *range)
{
	double		b = s->beta - 1.0;

	if (!s->gaussian)
	{
		/* -l in [-1/beta, 1/(beta b)] */
		*up = 1.0 / (s->beta * b);
		*range = 1.0 / b;
	}
	else
	{
		/* -l = f^b / b - integ, f^b in [0, M^b], integ in (0, M^b beta^-3/2] */
		double		mb = exp(b * dpb_betad_gauss_logm(s->sigma2_floor, s->y_scale));

		*up = mb / b;
		*range = mb / b + mb * pow(s->beta, -1.5);
	}
}

dpb_status
dpb_betad_exact_plan(const dpb_betad_spec *s, int64_t n, int64_t *trials,
					 double *delta_prime, dpb_err *err)
{
	double		up,
				range,
				la,
				l1a,
				gamma,
				t;

	loss_bounds(s, &up, &range);
	la = -(double) n * range;	/* log of the smallest acceptance probability */
	/* gamma: the failure probability one draw may have */
	gamma = s->delta_prime / ((1.0 + exp(s->epsilon)) * s->ndraws);
	if (n == 0)
	{
		*trials = 1;
		*delta_prime = 0;
		return DPB_OK;
	}
	l1a = log1p(-exp(la));
	t = (la < -700 || l1a == 0) ? INFINITY : ceil(log(gamma) / l1a);
	if (!(t * (double) n <= DPB_BETAD_EXACT_MAX_WORK) || !(gamma > 0))
	{
		dpb_err_set(err, "the exact tier is infeasible for this group",
					"Rejection sampling from the prior accepts with probability at least exp(-N epsilon / 2) (logistic); the trials it needs for the stated delta_prime exceed the fixed budget of %.0f record evaluations per draw.",
					DPB_BETAD_EXACT_MAX_WORK);
		return DPB_ERANGE;
	}
	*trials = (int64_t) t;
	*delta_prime = (1.0 + exp(s->epsilon)) * s->ndraws * exp(t * l1a);
	return DPB_OK;
}

/* ---- the mechanism ---- */

/* 12 significant digits: free post-processing that drops the low-order
 * bits of a long floating-point computation (digest B9.8) */
static double
round12(double v)
{
	char		buf[40];

	snprintf(buf, sizeof(buf), "%.12g", v);
	return strtod(buf, NULL);
}

/* one draw from the prior (scaled parametrisation): coefficients, then
 * sigma^2 (not eta) for the Gaussian model */
static void
prior_draw(const dpb_betad_model *m, gsl_rng *g, double *par)
{
	int			p = m->d + m->intercept,
				j;

	for (j = 0; j < p; j++)
		par[j] = gsl_ran_gaussian(g, m->prior_sd);
	if (m->gaussian)
	{
		/* 1/sigma^2 ~ Gamma(a, rate b) conditioned on 1/sigma^2 <= 1/s2 */
		double		pmax = gsl_cdf_gamma_P(1.0 / m->s2, m->ig_a, 1.0 / m->ig_b),
					u = gsl_rng_uniform_pos(g),
					tau = gsl_cdf_gamma_Pinv(u * pmax, m->ig_a, 1.0 / m->ig_b);

		par[p] = (tau > 0 && dpb_isfinite(1.0 / tau)) ? fmax(1.0 / tau, m->s2) : m->s2;
	}
}

/*
 * The certified exact tier: T proposals from the prior, each accepted with
 * probability exp(sum_i -l_beta - n up) <= 1; the first accepted one is
 * released, a fresh prior draw when none is.  All T proposals are always
 * evaluated (the work does not depend on when one is accepted).
 */
static dpb_status
exact_draw(const dpb_betad_model *m, const dpb_betad_spec *s, int64_t trials, gsl_rng *g,
		   dpb_interrupt_fn interrupt, double *par)
{
	double		up,
				range,
				prop[DPB_MAX_D + 2];
	int			dim = dpb_betad_dim(m),
				got = 0;
	int64_t		t;

	loss_bounds(s, &up, &range);
	for (t = 0; t < trials; t++)
	{
		double		u,
					a;

		if ((t & 255) == 0 && interrupt && interrupt())
			return DPB_EINTR;
		prior_draw(m, g, prop);
		u = gsl_rng_uniform_pos(g);
		a = dpb_betad_negloss(m, prop, m->gaussian ? prop[dim - 1] : 0) - (double) m->n * up;
		if (!got && log(u) < a)
		{
			memcpy(par, prop, sizeof(double) * dim);
			got = 1;
		}
	}
	if (!got)
		prior_draw(m, g, par);
	return DPB_OK;
}

/* the public scaling of the rows (in place) and the model over them */
typedef struct betad_setup
{
	dpb_betad_model m;
	double		scale[DPB_MAX_D],
				center[DPB_MAX_D];
} betad_setup;

static void
setup_model(const dpb_betad_spec *s, int64_t n, double *X, double *y, double *work,
			betad_setup *b)
{
	int			d = s->fx.d,
				j;
	int64_t		i;

	/* feature j to (x - c_j) / h_j (c_j = 0 without an intercept), y to
	 * y / y_scale */
	for (j = 0; j < d; j++)
	{
		b->scale[j] = s->fx.has_bounds ? 0.5 * (s->fx.upper[j] - s->fx.lower[j]) : 1.0;
		b->center[j] = s->fx.has_bounds && s->fx.intercept ?
			0.5 * (s->fx.upper[j] + s->fx.lower[j]) : 0.0;
	}
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < d; j++)
			X[i * d + j] = (X[i * d + j] - b->center[j]) / b->scale[j];
		if (s->gaussian)
			y[i] /= s->y_scale;
	}
	memset(&b->m, 0, sizeof(b->m));
	b->m.gaussian = s->gaussian;
	b->m.d = d;
	b->m.intercept = s->fx.intercept;
	b->m.beta = s->beta;
	b->m.prior_sd = s->prior_sd;
	b->m.s2 = s->gaussian ? s->sigma2_floor / (s->y_scale * s->y_scale) : 0;
	b->m.ig_a = s->ig_a;
	b->m.ig_b = s->ig_b;
	b->m.n = n;
	b->m.X = X;
	b->m.y = y;
	b->m.work = work;
	b->m.hidden = s->hidden;
	b->m.activation = s->activation;
}

/* a point of the model (sigma^2 last, Gaussian) in the original units,
 * rounded to 12 significant digits when round is set */
static void
to_original(const dpb_betad_spec *s, const betad_setup *b, const double *par, double *out,
			int round)
{
	int			d = s->fx.d,
				off = s->fx.intercept,
				nvar = dpb_betad_nvar(s),
				j;
	double		c0 = 0;

	if (s->hidden > 0)
	{
		/* each hidden unit as a linear predictor of the original features;
		 * the output layer times y_scale (regression) */
		int			ld = d + 1,
					h,
					nw = s->hidden * ld;

		for (h = 0; h < s->hidden; h++)
		{
			double		bias = par[h * ld];

			for (j = 0; j < d; j++)
			{
				double		w = par[h * ld + 1 + j] / b->scale[j];

				bias -= w * b->center[j];
				out[h * ld + 1 + j] = w;
			}
			out[h * ld] = bias;
		}
		for (j = 0; j <= s->hidden; j++)
			out[nw + j] = par[nw + j] * (s->gaussian ? s->y_scale : 1.0);
		if (s->gaussian)
			out[nvar - 1] = par[nvar - 1] * s->y_scale * s->y_scale;
		if (round)
			for (j = 0; j < nvar; j++)
				out[j] = round12(out[j]);
		return;
	}
	for (j = 0; j < d; j++)
	{
		double		w = par[off + j] / b->scale[j];

		c0 += w * b->center[j];
		out[off + j] = w;
	}
	if (off)
		out[0] = par[0] - c0;
	for (j = 0; j < d + off; j++)
		out[j] *= s->gaussian ? s->y_scale : 1.0;
	if (s->gaussian)
		out[nvar - 1] = par[nvar - 1] * s->y_scale * s->y_scale;
	if (round)
		for (j = 0; j < nvar; j++)
			out[j] = round12(out[j]);
}

dpb_status
dpb_betad_run(const dpb_betad_spec *s, int64_t n, double *X, double *y, double *work,
			  dpb_rbits *rb, dpb_interrupt_fn interrupt, dpb_betad_release *r, dpb_err *err)
{
	betad_setup b;
	int			nvar,
				dim,
				k;
	double	   *par = NULL,
			   *nwork = NULL;
	dpb_status	st = DPB_OK;
	gsl_rng    *g = NULL;

	memset(r, 0, sizeof(*r));
	r->s = *s;
	if ((st = dpb_betad_spec_check(&r->s, err)) != DPB_OK)
		return st;
	if (s->fx.d < 1)
	{
		dpb_err_set(err, "the number of features must be between 1 and 64", NULL);
		return DPB_ERANGE;
	}
	r->n = s->neighbours == DPB_NB_REPLACE ? n : -1;
	r->delta_prime = NAN;
	if (s->tier == DPB_BETAD_EXACT &&
		(st = dpb_betad_exact_plan(&r->s, n, &r->trials, &r->delta_prime, err)) != DPB_OK)
		return st;
	setup_model(&r->s, n, X, y, work, &b);
	dim = dpb_betad_dim(&b.m);
	nvar = dpb_betad_nvar(s);
	r->draws = malloc(sizeof(double) * nvar * s->ndraws);
	par = malloc(sizeof(double) * dim);
	if (s->hidden > 0)
	{
		nwork = malloc(sizeof(double) * dpb_betad_mlp_nwork(s->hidden));
		b.m.nwork = nwork;
		b.m.interrupt = interrupt;
	}
	if (s->tier == DPB_BETAD_EXACT)
		g = dpb_rbits_gsl_alloc(rb);
	if (r->draws == NULL || par == NULL || (s->hidden > 0 && nwork == NULL) ||
		(s->tier == DPB_BETAD_EXACT && g == NULL))
	{
		free(r->draws);
		r->draws = NULL;
		free(par);
		free(nwork);
		if (g)
			gsl_rng_free(g);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	for (k = 0; k < s->ndraws; k++)
	{
		if (s->tier == DPB_BETAD_EXACT)
			st = exact_draw(&b.m, &r->s, r->trials, g, interrupt, par);
		else
		{
			st = dpb_betad_draw(&b.m, &s->sched, rb, interrupt, par, err);
			if (st == DPB_OK && s->gaussian)
				par[dim - 1] = b.m.s2 + exp(par[dim - 1]);
		}
		if (st == DPB_OK && dpb_rbits_failed(rb))
			st = DPB_ERNG;
		if (st != DPB_OK)
			break;
		to_original(s, &b, par, r->draws + (size_t) k * nvar, 1);
	}
	memset(par, 0, sizeof(double) * dim);
	free(par);
	if (nwork != NULL)
	{
		memset(nwork, 0, sizeof(double) * dpb_betad_mlp_nwork(s->hidden));
		free(nwork);
	}
	if (g)
		gsl_rng_free(g);
	if (st != DPB_OK)
	{
		free(r->draws);
		r->draws = NULL;
		if (st == DPB_EINTR)
			dpb_err_set(err, "canceled", NULL);
		else if (st == DPB_ERNG)
			dpb_err_set(err, "could not generate random numbers", NULL);
		return st;
	}
	canonical(r);
	return DPB_OK;
}

dpb_status
dpb_betad_tune(const dpb_betad_spec *spec, int64_t n, double *X, double *y, double *work,
			   gsl_rng *g, dpb_interrupt_fn interrupt, double *draws, dpb_nuts_stats *stats,
			   dpb_err *err)
{
	dpb_betad_spec s = *spec;
	betad_setup b;
	dpb_status	st;
	int			dim;
	size_t		i,
				total;
	double	   *par,
			   *nwork = NULL;

	if ((st = dpb_betad_spec_check(&s, err)) != DPB_OK)
		return st;
	setup_model(&s, n, X, y, work, &b);
	dim = dpb_betad_dim(&b.m);
	total = (size_t) s.sched.chains * s.sched.iters;
	par = malloc(sizeof(double) * dim);
	if (s.hidden > 0)
	{
		nwork = malloc(sizeof(double) * dpb_betad_mlp_nwork(s.hidden));
		b.m.nwork = nwork;
		b.m.interrupt = interrupt;
	}
	if (par == NULL || (s.hidden > 0 && nwork == NULL))
	{
		free(par);
		free(nwork);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	st = dpb_betad_chains(&b.m, &s.sched, g, interrupt, draws, stats);
	free(nwork);
	if (st != DPB_OK)
	{
		free(par);
		dpb_err_set(err, st == DPB_EINTR ? "canceled" : "the betaD sampler failed", NULL);
		return st;
	}
	for (i = 0; i < total; i++)
	{
		memcpy(par, draws + i * dim, sizeof(double) * dim);
		if (s.gaussian)
			par[dim - 1] = b.m.s2 + exp(par[dim - 1]);
		to_original(&s, &b, par, draws + i * dim, 0);
	}
	free(par);
	return DPB_OK;
}

/* ---- validation ---- */

dpb_status
dpb_betad_release_validate(const dpb_betad_release *r, dpb_err *err)
{
	dpb_betad_spec s = r->s;
	dpb_status	st;
	int			nvar,
				j,
				k;

	if ((st = dpb_betad_spec_check(&s, err)) != DPB_OK)
		return st;
	if (r->s.fx.d < 1)
	{
		dpb_err_set(err, "the number of features must be between 1 and 64", NULL);
		return DPB_ECORRUPT;
	}
	if (!close_rel(s.delta_eff, r->s.delta_eff, 1e-9) ||
		!close_rel(s.eps_draw, r->s.eps_draw, 1e-9))
	{
		dpb_err_set(err, "the privacy parameters do not match beta",
					"delta and the epsilon of one draw are recomputed from beta, the model and the number of draws.");
		return DPB_ECORRUPT;
	}
	if (s.neighbours == DPB_NB_REPLACE ? r->n < 1 || r->n > ((int64_t) 1 << 53) : r->n != -1)
	{
		dpb_err_set(err, "invalid number of records",
					"A replace-one release records its N >= 1; an add/remove release records none.");
		return DPB_ECORRUPT;
	}
	if (s.tier == DPB_BETAD_EXACT)
	{
		int64_t		t;
		double		dp;

		if ((st = dpb_betad_exact_plan(&s, r->n, &t, &dp, err)) != DPB_OK)
			return DPB_ECORRUPT;
		if (t != r->trials || !close_rel(dp, r->delta_prime, 1e-9))
		{
			dpb_err_set(err, "trials and delta_prime do not match the parameters",
						"They are recomputed from n, epsilon, the number of draws and the target delta_prime.");
			return DPB_ECORRUPT;
		}
	}
	else if (r->trials != 0 || !isnan(r->delta_prime))
	{
		dpb_err_set(err, "an approximate betaD release has no certified delta_prime", NULL);
		return DPB_ECORRUPT;
	}
	if (r->insecure != 0 && r->insecure != 1)
	{
		dpb_err_set(err, "invalid insecure flag", NULL);
		return DPB_ECORRUPT;
	}
	nvar = dpb_betad_nvar(&s);
	for (k = 0; k < s.ndraws; k++)
		for (j = 0; j < nvar; j++)
		{
			double		v = r->draws[(size_t) k * nvar + j];

			if (!dpb_isfinite(v))
			{
				dpb_err_set(err, "the draws must be finite", NULL);
				return DPB_ECORRUPT;
			}
			if (s.gaussian && j == nvar - 1 && v < s.sigma2_floor * (1 - 1e-9))
			{
				dpb_err_set(err, "a released sigma2 is below the floor", NULL);
				return DPB_ECORRUPT;
			}
		}
	return DPB_OK;
}

/* ---- packing: little-endian doubles after the magic ---- */

static void
put8(unsigned char **p, double v)
{
	uint64_t	u;
	int			i;

	memcpy(&u, &v, 8);
	for (i = 0; i < 8; i++)
		(*p)[i] = (unsigned char) (u >> (8 * i));
	*p += 8;
}

static double
get8(const unsigned char **p)
{
	uint64_t	u = 0;
	double		v;
	int			i;

	for (i = 0; i < 8; i++)
		u |= (uint64_t) (*p)[i] << (8 * i);
	*p += 8;
	memcpy(&v, &u, 8);
	return v;
}

/* header doubles: 26 in version 1 (replace-one, n >= 0), 27 in version 2
 * (h[26]: the neighbours; n = -1 under add/remove), 28 in version 3
 * (h[27]: 1 when a signature block follows the draws) */
#define NHEAD_V1 26
#define NHEAD_V2 27
#define NHEAD_V3 28
/* version 4 (a network): h[28] the hidden units, h[29] the activation */
#define NHEAD 30

/* the header doubles of a release as packed: version 4 for a network,
 * version 3 otherwise */
static int
nhead_of(const dpb_betad_spec *s)
{
	return s->hidden > 0 ? NHEAD : NHEAD_V3;
}

/*
 * The fields that do not apply get fixed values: the exact tier has no
 * schedule (the default one), the approximate tier no delta' target (0) and
 * no certified delta' (NaN), one draw no composition delta (0).  The JSON
 * form omits them, so a release read from its text packs to the same bytes.
 */
static void
canonical(dpb_betad_release *r)
{
	dpb_betad_spec *s = &r->s;

	if (s->tier == DPB_BETAD_EXACT)
		dpb_betad_schedule_default(&s->sched);
	else
	{
		s->delta_prime = 0;
		r->delta_prime = NAN;
		r->trials = 0;
	}
	if (s->ndraws == 1)
		s->delta = 0;
}

static void
head_values(const dpb_betad_release *rel, double *h)
{
	dpb_betad_release c = *rel;
	const dpb_betad_release *r = &c;
	const dpb_betad_spec *s = &c.s;

	canonical(&c);

	h[0] = s->hidden > 0 ? DPB_BETAD_VERSION_MLP : DPB_BETAD_VERSION;
	h[1] = s->gaussian;
	h[2] = s->epsilon;
	h[3] = s->delta;
	h[4] = s->beta;
	h[5] = s->root;
	h[6] = s->prior_sd;
	h[7] = s->sigma2_floor;
	h[8] = s->y_scale;
	h[9] = s->ig_a;
	h[10] = s->ig_b;
	h[11] = s->fx.d;
	h[12] = s->fx.intercept;
	h[13] = s->fx.has_bounds;
	h[14] = s->fx.has_names;
	h[15] = s->sched.chains;
	h[16] = s->sched.warmup;
	h[17] = s->sched.iters;
	h[18] = s->ndraws;
	h[19] = s->tier;
	h[20] = s->delta_prime;
	h[21] = (double) r->n;
	h[22] = r->insecure;
	h[23] = (double) r->trials;
	h[24] = r->delta_prime;
	h[25] = s->delta_eff;
	h[26] = s->neighbours;
	h[27] = r->sig.present ? 1 : 0;
	h[28] = s->hidden;
	h[29] = s->activation;
}

int
dpb_betad_is_packed(const unsigned char *buf, size_t len)
{
	return len >= 4 && memcmp(buf, DPB_BETAD_MAGIC, 4) == 0;
}

size_t
dpb_betad_packed_size(const dpb_betad_release *r)
{
	const dpb_betad_spec *s = &r->s;

	return 4 + 8 * (nhead_of(s) + (s->fx.has_bounds ? 2 * s->fx.d : 0) +
					(size_t) s->ndraws * dpb_betad_nvar(s)) +
		(s->fx.has_names ? (size_t) s->fx.d * DPB_NAME_LEN : 0) +
		(r->sig.present ? dpb_sig_block_size(&r->sig, 1) : 0);
}

void
dpb_betad_pack(const dpb_betad_release *r, unsigned char *buf)
{
	const dpb_betad_spec *s = &r->s;
	double		h[NHEAD];
	unsigned char *p = buf;
	size_t		j,
				nd = (size_t) s->ndraws * dpb_betad_nvar(s);

	memcpy(p, DPB_BETAD_MAGIC, 4);
	p += 4;
	head_values(r, h);
	for (j = 0; j < (size_t) nhead_of(s); j++)
		put8(&p, h[j]);
	if (s->fx.has_bounds)
		for (j = 0; j < (size_t) s->fx.d; j++)
		{
			put8(&p, s->fx.lower[j]);
			put8(&p, s->fx.upper[j]);
		}
	if (s->fx.has_names)
		for (j = 0; j < (size_t) s->fx.d; j++)
		{
			memset(p, 0, DPB_NAME_LEN);
			memcpy(p, s->fx.names[j], strnlen(s->fx.names[j], DPB_NAME_LEN - 1));
			p += DPB_NAME_LEN;
		}
	for (j = 0; j < nd; j++)
		put8(&p, r->draws[j]);
	if (r->sig.present)
		(void) dpb_sig_block_write(&r->sig, 1, p);
}

/* an integer-valued header field in [lo, hi] */
static int
int_field(double v, double lo, double hi, int64_t *out)
{
	if (!(v >= lo && v <= hi) || v != floor(v))
		return 0;
	*out = (int64_t) v;
	return 1;
}

dpb_status
dpb_betad_unpack(const unsigned char *buf, size_t len, dpb_betad_release *r, dpb_err *err)
{
	double		h[NHEAD];
	const unsigned char *p = buf + 4;
	int64_t		iv[16];
	size_t		j,
				nd,
				base;
	int			nhead;
	dpb_betad_spec *s = &r->s;
	dpb_status	st;

	memset(r, 0, sizeof(*r));
	if (!dpb_betad_is_packed(buf, len) || len < 4 + 8 * NHEAD_V1)
		goto corrupt;
	h[0] = get8(&p);
	/* version 1 (dpbayes 0.1.0): replace-one, no neighbours field; version
	 * 2: no signature flag (unsigned) */
	if (h[0] != 1 && h[0] != 2 && h[0] != DPB_BETAD_VERSION && h[0] != DPB_BETAD_VERSION_MLP)
	{
		dpb_err_set(err, "unsupported betaD release format version",
					"This build reads versions 1 to %d.", DPB_BETAD_VERSION_MLP);
		return DPB_ECORRUPT;
	}
	nhead = h[0] == 1 ? NHEAD_V1 : h[0] == 2 ? NHEAD_V2 : h[0] == 3 ? NHEAD_V3 : NHEAD;
	if (len < 4 + 8 * (size_t) nhead)
		goto corrupt;
	for (j = 1; j < (size_t) nhead; j++)
		h[j] = get8(&p);
	if (nhead < NHEAD_V2)
		h[26] = DPB_NB_REPLACE;
	if (nhead < NHEAD_V3)
		h[27] = 0;
	if (nhead < NHEAD)
		h[28] = h[29] = 0;
	/* version 4 is a network's, a network's is version 4 */
	if ((nhead == NHEAD) != (h[28] >= 1))
		goto corrupt;
	if (!int_field(h[26], DPB_NB_ADD_REMOVE, DPB_NB_REPLACE, &iv[12]) ||
		!int_field(h[27], 0, 1, &iv[13]) ||
		!int_field(h[1], 0, 1, &iv[0]) || !int_field(h[5], 0, 1, &iv[1]) ||
		!int_field(h[11], 1, DPB_MAX_D, &iv[2]) || !int_field(h[12], 0, 1, &iv[3]) ||
		!int_field(h[13], 0, 1, &iv[4]) || !int_field(h[14], 0, 1, &iv[5]) ||
		!int_field(h[15], 1, DPB_BETAD_MAX_CHAINS, &iv[6]) ||
		!int_field(h[16], 10, DPB_BETAD_MAX_ITERS, &iv[7]) ||
		!int_field(h[17], 1, DPB_BETAD_MAX_ITERS, &iv[8]) ||
		!int_field(h[18], 1, DPB_BETAD_MAX_DRAWS, &iv[9]) ||
		!int_field(h[19], 0, 1, &iv[10]) ||
		!int_field(h[21], -1, 9007199254740992.0, &r->n) ||
		!int_field(h[22], 0, 1, &iv[11]) ||
		!int_field(h[23], 0, DPB_BETAD_EXACT_MAX_WORK, &r->trials) ||
		!int_field(h[28], 0, DPB_BETAD_MAX_HIDDEN, &iv[14]) ||
		!int_field(h[29], 0, 1, &iv[15]))
		goto corrupt;
	s->gaussian = (int) iv[0];
	s->epsilon = h[2];
	s->delta = h[3];
	s->beta = h[4];
	s->root = (dpb_betad_root) iv[1];
	s->prior_sd = h[6];
	s->sigma2_floor = h[7];
	s->y_scale = h[8];
	s->ig_a = h[9];
	s->ig_b = h[10];
	s->fx.d = (int) iv[2];
	s->fx.intercept = (int) iv[3];
	s->fx.has_bounds = (int) iv[4];
	s->fx.has_names = (int) iv[5];
	s->sched.chains = (int) iv[6];
	s->sched.warmup = (int) iv[7];
	s->sched.iters = (int) iv[8];
	s->ndraws = (int) iv[9];
	s->tier = (dpb_betad_tier) iv[10];
	s->delta_prime = h[20];
	r->insecure = (int) iv[11];
	r->delta_prime = h[24];
	s->delta_eff = h[25];
	s->neighbours = (dpb_neighbours) iv[12];
	s->hidden = (int) iv[14];
	s->activation = (int) iv[15];
	nd = (size_t) s->ndraws * dpb_betad_nvar(s);
	/* the size without a signature block; a signed release has more */
	base = dpb_betad_packed_size(r) - 8 * (size_t) (nhead_of(s) - nhead);
	if (iv[13] ? len <= base : len != base)
		goto corrupt;
	if (s->fx.has_bounds)
		for (j = 0; j < (size_t) s->fx.d; j++)
		{
			s->fx.lower[j] = get8(&p);
			s->fx.upper[j] = get8(&p);
		}
	if (s->fx.has_names)
		for (j = 0; j < (size_t) s->fx.d; j++)
		{
			memcpy(s->fx.names[j], p, DPB_NAME_LEN);
			if (s->fx.names[j][DPB_NAME_LEN - 1] != '\0')
				goto corrupt;
			p += DPB_NAME_LEN;
		}
	r->draws = malloc(sizeof(double) * nd);
	if (r->draws == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	for (j = 0; j < nd; j++)
		r->draws[j] = get8(&p);
	/* the signature block ends the buffer: version 2 (release_sig.c checks
	 * its length, version and texts) */
	if (iv[13] && (st = dpb_sig_block_read(p, len - base, 1, &r->sig, err)) != DPB_OK)
	{
		dpb_betad_release_free(r);
		return st;
	}
	/* eps_draw is derived: validation recomputes and compares the rest */
	s->eps_draw = dpb_betad_eps_draw(s, s->beta);
	st = dpb_betad_release_validate(r, err);
	if (st != DPB_OK)
	{
		dpb_betad_release_free(r);
		return st == DPB_ECORRUPT || st == DPB_EINVAL || st == DPB_ERANGE ? DPB_ECORRUPT : st;
	}
	canonical(r);
	return DPB_OK;

corrupt:
	dpb_err_set(err, "invalid betaD release", "The binary form is malformed or truncated.");
	return DPB_ECORRUPT;
}

void
dpb_betad_release_free(dpb_betad_release *r)
{
	free(r->draws);
	r->draws = NULL;
}

/* ---- signatures (release_sig.c): version 2 over the unsigned packing ---- */

/* r packed without its signature, malloc'ed (NULL when out of memory) */
static unsigned char *
unsigned_bytes(const dpb_betad_release *r, size_t *len)
{
	dpb_betad_release u = *r;
	unsigned char *b;

	u.sig.present = 0;
	*len = dpb_betad_packed_size(&u);
	b = malloc(*len);
	if (b != NULL)
		dpb_betad_pack(&u, b);
	return b;
}

dpb_status
dpb_betad_sign(dpb_betad_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
			   const char *request_id, const char *dataset,
			   const unsigned char binding[DPB_SIG_BINDING_BYTES], dpb_err *err)
{
	size_t		pl;
	unsigned char *b = unsigned_bytes(r, &pl);
	dpb_release_sig sig;
	dpb_status	st;

	if (b == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	st = dpb_sig_make(&sig, priv, DPB_SIG_V2, request_id, dataset, binding, b, pl, err);
	free(b);
	if (st == DPB_OK)
		r->sig = sig;
	else if (st != DPB_EINVAL)
		memset(&r->sig, 0, sizeof(r->sig));
	return st;
}

dpb_sig_check
dpb_betad_verify(const dpb_betad_release *r, const unsigned char pub[DPB_SIG_KEY_BYTES])
{
	size_t		pl;
	unsigned char *b;
	dpb_sig_check c;

	if (!r->sig.present)
		return DPB_SIG_UNSIGNED;
	/* only version 2 exists for this kind (unpack and the text form refuse
	 * others) */
	if (r->sig.version != DPB_SIG_V2)
		return DPB_SIG_BAD;
	b = unsigned_bytes(r, &pl);
	c = dpb_sig_check_packed(&r->sig, b, pl, pub);
	free(b);
	return c;
}

/* ---- JSON ---- */

/* , "key": [v...] or null */
static void
put_opt_nums(dpb_buf *out, const char *key, const double *v, int n)
{
	dpb_buf_printf(out, ", \"%s\": ", key);
	if (v)
		dpb_json_nums(out, v, n);
	else
		dpb_buf_puts(out, "null");
}

dpb_status
dpb_betad_to_json(const dpb_betad_release *r, dpb_buf *out)
{
	const dpb_betad_spec *s = &r->s;
	int			nvar = dpb_betad_nvar(s),
				j,
				k;
	char		name[DPB_NAME_LEN + 8];

	dpb_buf_printf(out, "{\"format\": \"dpbayes.release\", \"kind\": \"betad\", \"version\": %d, ",
				   s->hidden > 0 ? DPB_BETAD_VERSION_MLP : DPB_BETAD_VERSION);
	dpb_buf_printf(out, "\"model\": \"%s\", ", dpb_betad_model_name(s));
	if (s->hidden > 0)
		dpb_buf_printf(out, "\"network\": {\"hidden\": %d, \"activation\": \"%s\"}, ",
					   s->hidden, s->activation == DPB_BETAD_ACT_TANH ? "tanh" : "relu");
	if (s->neighbours == DPB_NB_REPLACE)
		dpb_buf_printf(out, "\"neighbours\": \"replace\", \"n\": %lld, ", (long long) r->n);
	else
		dpb_buf_puts(out, "\"neighbours\": \"add_remove\", ");
	dpb_buf_puts(out, "\"epsilon\": ");
	dpb_json_num(out, s->epsilon);
	dpb_buf_puts(out, ", \"delta\": ");
	dpb_json_num(out, s->delta_eff);
	dpb_buf_puts(out, ", \"beta\": ");
	dpb_json_num(out, s->beta);
	dpb_buf_puts(out, ", \"epsilon_per_draw\": ");
	dpb_json_num(out, s->eps_draw);
	dpb_buf_printf(out, ", \"root\": \"%s\", \"ndraws\": %d, \"composition_delta\": ",
				   s->root == DPB_BETAD_ROOT_LARGER ? "larger" : "smaller", s->ndraws);
	dpb_json_num(out, s->delta);
	dpb_buf_printf(out, ", \"d\": %d, \"intercept\": %s, \"features\": ", s->fx.d,
				   s->fx.intercept ? "true" : "false");
	if (s->fx.has_names)
	{
		dpb_buf_puts(out, "[");
		for (j = 0; j < s->fx.d; j++)
		{
			if (j)
				dpb_buf_puts(out, ", ");
			dpb_json_str(out, s->fx.names[j]);
		}
		dpb_buf_puts(out, "]");
	}
	else
		dpb_buf_puts(out, "null");
	put_opt_nums(out, "lower", s->fx.has_bounds ? s->fx.lower : NULL, s->fx.d);
	put_opt_nums(out, "upper", s->fx.has_bounds ? s->fx.upper : NULL, s->fx.d);
	dpb_buf_puts(out, ", \"prior\": {\"coefficient_sd\": ");
	dpb_json_num(out, s->prior_sd);
	if (s->gaussian)
	{
		dpb_buf_puts(out, ", \"sigma2_inverse_gamma\": [");
		dpb_json_num(out, s->ig_a);
		dpb_buf_puts(out, ", ");
		dpb_json_num(out, s->ig_b);
		dpb_buf_puts(out, "]}, \"sigma2_floor\": ");
		dpb_json_num(out, s->sigma2_floor);
		dpb_buf_puts(out, ", \"y_scale\": ");
		dpb_json_num(out, s->y_scale);
	}
	else
		dpb_buf_puts(out, "}, \"sigma2_floor\": null, \"y_scale\": null");
	if (s->tier == DPB_BETAD_EXACT)
	{
		dpb_buf_printf(out, ", \"sampler\": {\"tier\": \"exact\", \"method\": \"rejection_from_prior\", \"trials\": %lld, \"delta_prime_target\": ",
					   (long long) r->trials);
		dpb_json_num(out, s->delta_prime);
		dpb_buf_puts(out, "}, \"approximate_sampling\": false, \"delta_prime\": ");
		dpb_json_num(out, r->delta_prime);
	}
	else
	{
		dpb_buf_printf(out, ", \"sampler\": {\"tier\": \"approximate\", \"method\": \"nuts\", \"chains\": %d, \"warmup\": %d, \"iterations\": %d}",
					   s->sched.chains, s->sched.warmup, s->sched.iters);
		dpb_buf_puts(out, ", \"approximate_sampling\": true, \"delta_prime\": null, \"delta_prime_note\": \"approximate sampling; delta' not certified\"");
	}
	dpb_buf_printf(out, ", \"insecure_test_noise\": %s, \"variables\": [",
				   r->insecure ? "true" : "false");
	for (j = 0; j < nvar; j++)
	{
		if (j)
			dpb_buf_puts(out, ", ");
		dpb_betad_var_name(s, j, name, sizeof(name));
		dpb_json_str(out, name);
	}
	dpb_buf_puts(out, "], \"draws\": [");
	for (k = 0; k < s->ndraws; k++)
	{
		if (k)
			dpb_buf_puts(out, ", ");
		dpb_json_nums(out, r->draws + (size_t) k * nvar, nvar);
	}
	dpb_buf_puts(out, "]");
	dpb_sig_to_json(out, &r->sig);
	dpb_buf_puts(out, "}");
	return out->oom ? DPB_ENOMEM : DPB_OK;
}

/* ---- prediction (post-processing of a released draw) ---- */

double
dpb_betad_predict(const dpb_betad_release *r, int k, const double *x)
{
	const dpb_betad_spec *s = &r->s;
	const double *dr = r->draws + (size_t) k * dpb_betad_nvar(s);
	double		u;
	int			j;

	if (s->hidden > 0)
		/* the draw is in the original units: each hidden unit a linear
		 * predictor of the raw features, the output in y's units */
		u = dpb_betad_mlp_output(s->fx.d, s->hidden, s->activation, dr, x);
	else
	{
		u = s->fx.intercept ? dr[0] : 0.0;
		for (j = 0; j < s->fx.d; j++)
			u += dr[s->fx.intercept + j] * x[j];
	}
	if (s->gaussian)
		return u;
	/* the class probability sigma(u), stable for |u| large */
	return u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
}
