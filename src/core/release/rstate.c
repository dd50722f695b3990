/*
 * rstate.c — packing and validation of the partial state of a release
 * aggregate (rstate.h; the SQL type dpbayes.release_state).
 */
#include "rstate.h"
#include "release.h"
#include "names.h"

#include <math.h>
#include <string.h>

#define FLAG_INTERCEPT 1
#define FLAG_BOUNDS 4
#define FLAG_NAMES 8
#define FLAG_XMOMENTS 16
#define FLAG_ADD_REMOVE 32
#define FLAGS_KNOWN (FLAG_INTERCEPT | FLAG_BOUNDS | FLAG_NAMES | FLAG_XMOMENTS | FLAG_ADD_REMOVE)

#define FIXED1 (DPB_STATE_HDR + 6 + 8 + 5 * 8)	/* version 1 */
#define FIXED (FIXED1 + 8)		/* version 2: y_clamped */

/* ---- bytes ---- */

static void
put_u64(unsigned char *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static uint64_t
get_u64(const unsigned char *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return v;
}

static void
put_f64(unsigned char *p, double v)
{
	uint64_t	u;

	memcpy(&u, &v, 8);
	put_u64(p, u);
}

static double
get_f64(const unsigned char *p)
{
	uint64_t	u = get_u64(p);
	double		v;

	memcpy(&v, &u, 8);
	return v;
}

void
dpb_state_put_i128(unsigned char *p, dpb_i128 v)
{
	unsigned __int128 u = (unsigned __int128) v;

	put_u64(p, (uint64_t) u);
	put_u64(p + 8, (uint64_t) (u >> 64));
}

dpb_i128
dpb_state_get_i128(const unsigned char *p)
{
	unsigned __int128 u = ((unsigned __int128) get_u64(p + 8) << 64) | get_u64(p);

	return (dpb_i128) u;
}

int
dpb_state_kind(const unsigned char *buf, size_t len)
{
	if (len < DPB_STATE_HDR || memcmp(buf, DPB_STATE_MAGIC, 4) != 0 ||
		!DPB_STATE_VERSION_OK(buf[4]))
		return 0;
	return buf[5];
}

/* ---- the totals ---- */

static size_t
n_totals(dpb_model model, int d, int xmom, int yclamp)
{
	size_t		q = (size_t) d + 2 + (xmom ? (size_t) d * (d + 1) / 2 : 0),
				h = (size_t) d + 1;

	return q * (q + 1) / 2 + (model == DPB_MODEL_POISSON ? h * (h + 1) / 2 : 0) +
		(yclamp ? 1 : 0);
}

static size_t
params_size(const dpb_params *p, int d)
{
	size_t		sz = 8 * (size_t) p->nweights;
	int			j;

	if (p->has_bounds)
		sz += 16 * (size_t) d;
	if (p->has_names)
		for (j = 0; j < d; j++)
			sz += 1 + strlen(p->names[j]);
	return sz;
}

size_t
dpb_state_stats_size(dpb_model model, const dpb_params *p, int d)
{
	return FIXED + params_size(p, d) +
		16 * n_totals(model, d, p->x_moments > 0, p->y_clamped > 0);
}

void
dpb_state_stats_pack(dpb_model model, const dpb_params *p, int d, int64_t n,
					 dpb_acc *acc, unsigned char *buf)
{
	unsigned char *q = buf;
	int			flags = 0,
				i,
				j;

	dpb_acc_flush(acc);
	memcpy(q, DPB_STATE_MAGIC, 4);
	q[4] = DPB_STATE_VERSION;
	q[5] = DPB_STATE_KIND_STATS;
	if (p->intercept)
		flags |= FLAG_INTERCEPT;
	if (p->has_bounds)
		flags |= FLAG_BOUNDS;
	if (p->has_names)
		flags |= FLAG_NAMES;
	if (p->x_moments > 0)
		flags |= FLAG_XMOMENTS;
	if (p->neighbours == DPB_NB_ADD_REMOVE)
		flags |= FLAG_ADD_REMOVE;
	q[6] = (unsigned char) model;
	q[7] = (unsigned char) p->mechanism;
	q[8] = (unsigned char) p->scaling;
	q[9] = (unsigned char) flags;
	q[10] = (unsigned char) d;
	q[11] = (unsigned char) p->nweights;
	put_u64(q + 12, (uint64_t) n);
	put_f64(q + 20, p->epsilon);
	put_f64(q + 28, p->delta);
	put_f64(q + 36, p->clip);
	put_f64(q + 44, p->y_bound);
	put_f64(q + 52, p->x_moments);
	put_f64(q + 60, p->y_clamped);
	q += FIXED;
	for (j = 0; j < p->nweights; j++, q += 8)
		put_f64(q, p->noise_weights[j]);
	if (p->has_bounds)
		for (j = 0; j < d; j++, q += 16)
		{
			put_f64(q, p->lower[j]);
			put_f64(q + 8, p->upper[j]);
		}
	if (p->has_names)
		for (j = 0; j < d; j++)
		{
			size_t		l = strlen(p->names[j]);

			*q++ = (unsigned char) l;
			memcpy(q, p->names[j], l);
			q += l;
		}
	for (i = 0; i < acc->q; i++)
		for (j = i; j < acc->q; j++, q += 16)
			dpb_state_put_i128(q, acc->G[(size_t) i * acc->q + j]);
	if (acc->poisson)
	{
		int			h = acc->d + 1;

		for (i = 0; i < h; i++)
			for (j = i; j < h; j++, q += 16)
				dpb_state_put_i128(q, acc->H[(size_t) i * h + j]);
	}
	if (p->y_clamped > 0)
		dpb_state_put_i128(q, *acc->yc);
}

static dpb_status
corrupt(dpb_err *err, const char *detail)
{
	dpb_err_set(err, "invalid release aggregate state", "%s", detail);
	return DPB_ECORRUPT;
}

dpb_status
dpb_state_stats_unpack(const unsigned char *buf, size_t len, dpb_model *model,
					   dpb_params *p, int *d, int64_t *n,
					   const unsigned char **totals, dpb_err *err)
{
	const unsigned char *q,
			   *end = buf + len;
	unsigned	flags;
	int			j,
				dd,
				fixed;
	uint64_t	un;
	dpb_status	st;

	if (len < DPB_STATE_HDR || memcmp(buf, DPB_STATE_MAGIC, 4) != 0)
		return corrupt(err, "The value is not a dpbayes release aggregate state.");
	if (!DPB_STATE_VERSION_OK(buf[4]))
	{
		dpb_err_set(err, "unsupported release aggregate state version",
					"Version %u; this build reads versions 1 and %d.", (unsigned) buf[4],
					DPB_STATE_VERSION);
		return DPB_ECORRUPT;
	}
	if (buf[5] != DPB_STATE_KIND_STATS)
		return corrupt(err, "The state is not one of the statistics of a release aggregate.");
	fixed = buf[4] == 1 ? FIXED1 : FIXED;
	if (len < (size_t) fixed)
		return corrupt(err, "The state's header is truncated.");
	dpb_params_default(p);
	*model = (dpb_model) buf[6];
	if (*model != DPB_MODEL_LINEAR && *model != DPB_MODEL_LOGISTIC &&
		*model != DPB_MODEL_POISSON)
		return corrupt(err, "The state names an unknown model.");
	p->mechanism = (dpb_mechanism) buf[7];
	/* the release aggregates add noise with these two only */
	if (p->mechanism != DPB_MECH_GAUSSIAN && p->mechanism != DPB_MECH_LAPLACE)
		return corrupt(err, "The state names an unknown mechanism.");
	p->scaling = (dpb_scaling) buf[8];
	flags = buf[9];
	if (flags & ~FLAGS_KNOWN)
		return corrupt(err, "The state has unknown flags.");
	dd = buf[10];
	if (dd < 1 || dd > DPB_MAX_D)
		return corrupt(err, "The state's number of features is out of range.");
	p->nweights = buf[11];
	if (p->nweights > DPB_MAX_MODEL_BLOCKS)
		return corrupt(err, "The state has too many noise weights.");
	un = get_u64(buf + 12);
	if (un < 1 || un > (uint64_t) DPB_STATE_MAX_N)
		return corrupt(err, "The state's number of rows is out of range.");
	p->intercept = (flags & FLAG_INTERCEPT) != 0;
	p->has_bounds = (flags & FLAG_BOUNDS) != 0;
	p->has_names = (flags & FLAG_NAMES) != 0;
	p->neighbours = (flags & FLAG_ADD_REMOVE) ? DPB_NB_ADD_REMOVE : DPB_NB_REPLACE;
	p->epsilon = get_f64(buf + 20);
	p->delta = get_f64(buf + 28);
	p->clip = get_f64(buf + 36);
	p->y_bound = get_f64(buf + 44);
	p->x_moments = get_f64(buf + 52);
	if (((flags & FLAG_XMOMENTS) != 0) != (p->x_moments > 0))
		return corrupt(err, "The state's x_moments flag does not match its share.");
	/* version 1 states have no count of clamped responses */
	p->y_clamped = fixed == FIXED ? get_f64(buf + 60) : 0.0;
	p->d = dd;
	q = buf + fixed;
	if ((size_t) (end - q) < 8 * (size_t) p->nweights)
		return corrupt(err, "The state is truncated.");
	for (j = 0; j < p->nweights; j++, q += 8)
		p->noise_weights[j] = get_f64(q);
	if (p->has_bounds)
	{
		if ((size_t) (end - q) < 16 * (size_t) dd)
			return corrupt(err, "The state is truncated.");
		for (j = 0; j < dd; j++, q += 16)
		{
			p->lower[j] = get_f64(q);
			p->upper[j] = get_f64(q + 8);
		}
	}
	if (p->has_names)
		for (j = 0; j < dd; j++)
		{
			unsigned	l;

			if (q >= end || (l = *q) >= DPB_NAME_LEN || (size_t) (end - q - 1) < l)
				return corrupt(err, "The state is truncated.");
			if (memchr(q + 1, '\0', l) != NULL)
			{
				dpb_err_set(err, "invalid release aggregate state",
							"Feature %d's name contains a NUL byte.", j + 1);
				return DPB_ECORRUPT;
			}
			memcpy(p->names[j], q + 1, l);
			p->names[j][l] = '\0';
			q += 1 + l;
		}
	/* the parameters, as the aggregate checks them before the first row */
	if ((st = dpb_params_check(p, err)) != DPB_OK ||
		(st = dpb_params_check_model(p, *model, dd, err)) != DPB_OK ||
		(st = dpb_release_check_params(*model, p, dd, err)) != DPB_OK)
		return st == DPB_ECORRUPT ? st : DPB_EINVAL;
	if ((size_t) (end - q) != 16 * n_totals(*model, dd, p->x_moments > 0, p->y_clamped > 0))
		return corrupt(err, "The state's length does not match its statistics.");
	*d = dd;
	*n = (int64_t) un;
	*totals = q;
	return DPB_OK;
}

/* the bound on |u_a| of one quantised record (accum.h) */
static dpb_i128
coord_max(const dpb_acc *acc, int a)
{
	if (a == 0)
		return 1;
	if (a <= acc->d)
		return acc->bq;
	if (a == acc->d + 1)
		return acc->yhi > -acc->ylo ? acc->yhi : -acc->ylo;
	return (dpb_i128) acc->bq * acc->bq;
}

static int
within(dpb_i128 v, dpb_i128 bound)
{
	return v <= bound && v >= -bound;
}

dpb_status
dpb_state_load_totals(dpb_acc *acc, const dpb_params *p, const unsigned char *totals,
					  int64_t n, dpb_err *err)
{
	const unsigned char *q = totals;
	int			i,
				j;

	for (i = 0; i < acc->q; i++)
		for (j = i; j < acc->q; j++, q += 16)
		{
			dpb_i128	v = dpb_state_get_i128(q);

			/* n <= 2^38, bounds <= 2^44: the product stays below 2^127 */
			if (!within(v, (dpb_i128) n * coord_max(acc, i) * coord_max(acc, j)) ||
				(i == j && v < 0) || (i == 0 && j == 0 && v != n))
				return corrupt(err, "A statistic of the state is not a sum of that many records within the public bounds.");
			acc->G[(size_t) i * acc->q + j] = v;
		}
	if (acc->poisson)
	{
		int			h = acc->d + 1;
		dpb_i128	my = coord_max(acc, acc->d + 1);

		for (i = 0; i < h; i++)
			for (j = i; j < h; j++, q += 16)
			{
				dpb_i128	v = dpb_state_get_i128(q);

				if (!within(v, (dpb_i128) n * my * coord_max(acc, i) * coord_max(acc, j)) ||
					(i == j && v < 0))
					return corrupt(err, "A statistic of the state is not a sum of that many records within the public bounds.");
				acc->H[(size_t) i * h + j] = v;
			}
	}
	*acc->yc = 0;
	if (p->y_clamped > 0)
	{
		dpb_i128	v = dpb_state_get_i128(q);

		if (v < 0 || v > (dpb_i128) n)
			return corrupt(err, "A statistic of the state is not a sum of that many records within the public bounds.");
		*acc->yc = v;
	}
	return DPB_OK;
}
