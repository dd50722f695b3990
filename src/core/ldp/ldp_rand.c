/*
 * ldp_rand.c — the client-side randomizers of local DP (docs/ldp.md).
 *
 * The secret path is integer arithmetic: exact Bernoulli draws for
 * randomized response and OUE, and grid rounding plus exact discrete
 * Laplace / Gaussian integers (dnoise.h) for the numeric mechanisms.
 */
#include "ldp.h"
#include "accum.h"
#include "clip.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/random.h>

/* ---- the OS CSPRNG ---- */

static int
fill_getrandom(void *ctx, void *buf, size_t len)
{
	unsigned char *p = buf;

	(void) ctx;
	while (len > 0)
	{
		ssize_t		got = getrandom(p, len, 0);

		if (got < 0)
		{
			if (errno == EINTR)
				continue;
			return 0;
		}
		p += got;
		len -= (size_t) got;
	}
	return 1;
}

dpb_rbits *
dpb_ldp_rbits_os(void)
{
	return dpb_rbits_new(fill_getrandom, NULL);
}

/* ---- exact Bernoulli(1 / (1 + e^eps)) ----
 *
 * With q = e^-eps, 1/(1 + e^eps) = q / (1 + q).  Each round draws a fair
 * bit: 0 ends with "keep" (probability 1/2), 1 proposes "flip", accepted
 * with probability q (exact, dpb_bernoulli_exp), otherwise the round is
 * repeated.  P(flip) = (q/2) / (q/2 + 1/2) = q / (1 + q).
 */
dpb_status
dpb_ldp_flip(dpb_rbits *rb, dpb_u128 num, int log2den, int *out)
{
	for (;;)
	{
		uint64_t	coin;
		int			acc;
		dpb_status	st;

		if ((st = dpb_uniform_u64(rb, 2, &coin)) != DPB_OK)
		{
			*out = 0;
			return st;
		}
		if (coin == 0)
		{
			*out = 0;
			return DPB_OK;
		}
		if ((st = dpb_bernoulli_exp(rb, num, (dpb_u128) 1 << log2den, &acc)) != DPB_OK)
		{
			*out = 0;
			return st;
		}
		if (acc)
		{
			*out = 1;
			return DPB_OK;
		}
	}
}

int
dpb_ldp_input_len(const dpb_ldp_protocol *p)
{
	switch (p->mech)
	{
		case DPB_LDP_RR:
		case DPB_LDP_OUE:
		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			return 1;
		default:
			return p->d + 1;
	}
}

void
dpb_ldp_report_label(const dpb_ldp_protocol *p, const dpb_ldp_calib *c, int k,
					 char *buf, size_t buflen)
{
	switch (p->mech)
	{
		case DPB_LDP_RR:
		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			snprintf(buf, buflen, "z");
			break;
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			if (k < p->d)
				snprintf(buf, buflen, "x%d", k + 1);
			else
				snprintf(buf, buflen, "y");
			break;
		case DPB_LDP_OUE:
			snprintf(buf, buflen, "z%d", k + 1);
			break;
		default:
			dpb_layout_label(&c->L, k, NULL, buf, buflen);
	}
}

static dpb_status
randomize_ss(const dpb_ldp_protocol *p, const dpb_ldp_calib *c, const double *in,
			 dpb_rbits *rb, double *out, dpb_err *err)
{
	dpb_model	model = c->rel.model;
	dpb_clipper cl;
	dpb_acc_bounds ab;
	dpb_acc		acc;
	dpb_release *r;
	double		z[DPB_MAX_D];
	double		y = in[p->d];
	void	   *raw;
	dpb_i128   *I;
	int		   *e;
	dpb_status	st;

	if (!dpb_isfinite(y))
	{
		dpb_err_set(err, "the response must be finite", NULL);
		return DPB_EDATA;
	}
	if (model == DPB_MODEL_LOGISTIC)
	{
		if (y == 0)
			y = -1;
		if (y != 1 && y != -1)
		{
			dpb_err_set(err, "a logistic response must be -1 or +1 (0 is read as -1)", NULL);
			return DPB_EDATA;
		}
	}
	if (model == DPB_MODEL_POISSON && y < 0)
	{
		dpb_err_set(err, "a Poisson response must not be negative", NULL);
		return DPB_EDATA;
	}
	dpb_clipper_init(&cl, &p->p, model, p->d);
	if (dpb_clip_x(&cl, in, z) < 0)
	{
		dpb_err_set(err, "feature values must be finite", NULL);
		return DPB_EDATA;
	}
	y = dpb_clip_y(&cl, y);
	ab.model = model;
	ab.d = p->d;
	ab.xmom = 0;
	ab.R = p->p.clip;
	ab.B = dpb_coord_bound(&p->p, p->d);
	ab.Ry = p->p.y_bound;
	raw = malloc(dpb_acc_size(p->d, model == DPB_MODEL_POISSON, 0) + 16);
	I = malloc(sizeof(dpb_i128) * c->L.nstats);
	e = malloc(sizeof(int) * c->L.nstats);
	r = malloc(sizeof(*r));
	if (raw == NULL || I == NULL || e == NULL || r == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		st = DPB_ENOMEM;
		goto done;
	}
	dpb_acc_init(&acc, (void *) (((uintptr_t) raw + 15) & ~(uintptr_t) 15), &ab);
	dpb_acc_add(&acc, z, y);
	dpb_acc_fixed(&acc, &c->L, I, e);
	*r = c->rel;
	r->stats = out;
	/* one record's exact statistics, rounded to the grids, plus the grid
	 * step times exact discrete Gaussian integers: the core's release path
	 * with n = 1 under replace-one neighbours, which is local DP */
	st = dpb_release_add_noise(r, I, e, rb, err);
done:
	/* the exact statistics must not outlive the call */
	if (I != NULL)
		memset(I, 0, sizeof(dpb_i128) * c->L.nstats);
	if (raw != NULL)
		memset(raw, 0, dpb_acc_size(p->d, model == DPB_MODEL_POISSON, 0) + 16);
	memset(z, 0, sizeof(z));
	free(raw);
	free(I);
	free(e);
	free(r);
	return st;
}

dpb_status
dpb_ldp_randomize(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
				  const double *in, dpb_rbits *rb, double *out, dpb_err *err)
{
	dpb_status	st;
	int			flip,
				k;

	switch (p->mech)
	{
		case DPB_LDP_RR:
			if (in[0] != 0 && in[0] != 1)
			{
				dpb_err_set(err, "a randomized-response input must be 0 or 1", NULL);
				return DPB_EDATA;
			}
			if ((st = dpb_ldp_flip(rb, c->eps_num, c->eps_log2den, &flip)) != DPB_OK)
			{
				out[0] = 0;
				return st;
			}
			out[0] = (double) ((in[0] == 1) ^ flip);
			return DPB_OK;

		case DPB_LDP_OUE:
			{
				int			cat;

				if (!(in[0] >= 1 && in[0] <= p->categories && in[0] == floor(in[0])))
				{
					dpb_err_set(err, "an OUE input must be a category number from 1 to the protocol's categories", NULL);
					return DPB_EDATA;
				}
				cat = (int) in[0] - 1;
				for (k = 0; k < p->categories; k++)
				{
					if (k == cat)
					{
						uint64_t	bit;

						/* a 1 stays 1 with probability q = 1/2 */
						st = dpb_uniform_u64(rb, 2, &bit);
						out[k] = (double) bit;
					}
					else
					{
						/* a 0 becomes 1 with probability 1/(1 + e^eps) */
						st = dpb_ldp_flip(rb, c->eps_num, c->eps_log2den, &flip);
						out[k] = (double) flip;
					}
					if (st != DPB_OK)
					{
						memset(out, 0, sizeof(double) * p->categories);
						return st;
					}
				}
				return DPB_OK;
			}

		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			{
				double		x = in[0];
				int64_t		v,
							Y;

				if (!dpb_isfinite(x))
				{
					dpb_err_set(err, "the input value must be finite", NULL);
					return DPB_EDATA;
				}
				/* clip (never drop), then round to the grid */
				x = x < p->lower ? p->lower : x > p->upper ? p->upper : x;
				v = (int64_t) nearbyint(ldexp(x, -c->grid_exp));
				v = v < c->vlo ? c->vlo : v > c->vhi ? c->vhi : v;
				st = p->mech == DPB_LDP_SCALAR_LAPLACE ? dpb_dlaplace(rb, c->lap_t, &Y) :
					dpb_dgauss(rb, c->gauss_sigma2, &Y);
				if (st != DPB_OK)
				{
					out[0] = 0;
					return st;
				}
				/* |v| <= 2^50, |Y| < 2^62: no overflow; clamping to the
				 * exact doubles is post-processing */
				v += Y;
				if (v > ((int64_t) 1 << 53))
					v = (int64_t) 1 << 53;
				if (v < -((int64_t) 1 << 53))
					v = -((int64_t) 1 << 53);
				out[0] = ldexp((double) v, c->grid_exp);
				return DPB_OK;
			}

		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			return dpb_ldp_input_randomize(p, c, in, rb, out, err);
		default:
			return randomize_ss(p, c, in, rb, out, err);
	}
}

int
dpb_ldp_report_on_grid(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
					   const double *out)
{
	int			k;

	switch (p->mech)
	{
		case DPB_LDP_RR:
		case DPB_LDP_OUE:
			for (k = 0; k < c->report_len; k++)
				if (out[k] != 0 && out[k] != 1)
					return 0;
			return 1;
		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			{
				double		m = ldexp(out[0], -c->grid_exp);

				return dpb_isfinite(m) && m == floor(m) && fabs(m) <= 0x1p53;
			}
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			return dpb_ldp_input_on_grid(p, c, out);
		default:
			{
				dpb_release *r = malloc(sizeof(*r));
				int			ok,
							bad;

				if (r == NULL)
					return 0;
				*r = c->rel;
				r->stats = (double *) out;
				ok = dpb_release_on_grid(r, &bad);
				free(r);
				return ok;
			}
	}
}
