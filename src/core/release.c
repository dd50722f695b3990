/*
 * release.c — calibration, noise, packing and validation of releases.
 */
#include "release.h"

#include "agm.h"
#include "clip.h"
#include "names.h"
#include "noise.h"
#include "sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "DPBR"

dpb_status
dpb_release_layout(const dpb_release *r, dpb_layout *L)
{
	dpb_status	st = dpb_layout_init(L, r->model, r->d, r->p.intercept);

	if (st == DPB_OK && r->p.x_moments > 0)
		st = dpb_layout_add_xmoments(L);
	return st;
}

/* The layout of the model's blocks alone (L without the moment blocks). */
static void
model_layout(const dpb_layout *L, dpb_layout *M)
{
	*M = *L;
	M->nblocks = L->nmodel_blocks;
	M->nstats = L->nmodel;
	M->xmoments = 0;
}

/*
 * Noise weights of the moment blocks: each block's own sensitivity times
 * one factor lambda, chosen so that the moments take the share s =
 * p.x_moments of the privacy budget (docs/privacy.md §12): of the squared
 * L2 sensitivity of the weighted release (gaussian; as zCDP's rho adds up)
 * or of the L1 sensitivity, i.e. of epsilon (laplace).  base_main is the
 * model blocks' part (Delta^2 or sum l1_b / w_b), base_mom the moments'
 * part with lambda = 1; the moments' part scales as lambda^-2 (gaussian)
 * or lambda^-1 (laplace).
 */
static double
moment_lambda(const dpb_release *r, double base_main, double base_mom)
{
	double		s = r->p.x_moments,
				ratio = base_mom * (1.0 - s) / (s * base_main);

	return r->p.mechanism == DPB_MECH_GAUSSIAN ? sqrt(ratio) : ratio;
}

static double
response_bound(const dpb_release *r)
{
	return r->model == DPB_MODEL_LOGISTIC ? 1.0 : r->p.y_bound;
}

/* A block's sensitivity overflows for a huge clip or y_bound (R^4, Ry^4). */
static int
sens_representable(const dpb_release *r, int b, dpb_err *err)
{
	if (dpb_isfinite(r->block_sens[b]))
		return 1;
	dpb_err_set(err, "the privacy parameters give a sensitivity that is not representable",
				"Block %d's sensitivity overflows double precision: clip or y_bound is too large.",
				b + 1);
	return 0;
}

dpb_status
dpb_release_calibrate(dpb_release *r, dpb_err *err)
{
	dpb_layout	L;
	dpb_status	st;
	double		R = r->p.clip,
				Ry = response_bound(r),
				lambda;
	int			b;

	if (dpb_release_layout(r, &L) != DPB_OK)
	{
		dpb_err_set(err, "invalid release layout", NULL);
		return DPB_EINVAL;
	}
	r->nblocks = L.nblocks;
	r->nstats = L.nstats;
	for (b = 0; b < L.nblocks; b++)
		r->block_weight[b] = b < r->p.nweights ? r->p.noise_weights[b] : 1.0;

	if (r->p.mechanism == DPB_MECH_NONE)
	{
		/* exact statistics (the non-private reference): no noise */
		for (b = 0; b < L.nblocks; b++)
			r->block_sens[b] = 0;
		r->sensitivity = 0;
		r->noise_scale = 0;
		return DPB_OK;
	}
	/*
	 * Noise weights: given, or by default each block's own sensitivity, so
	 * that every block is perturbed in proportion to how much one record can
	 * move it (equal weights would drown the feature blocks in the noise
	 * that y^2 needs when y_bound is large).
	 */
	if (r->p.mechanism == DPB_MECH_GAUSSIAN)
	{
		for (b = 0; b < L.nblocks; b++)
		{
			r->block_sens[b] = dpb_sens_l2_block(&L, b, R, Ry);
			if (!sens_representable(r, b, err))
				return DPB_ERANGE;
			if (!r->p.nweights || b >= L.nmodel_blocks)
				r->block_weight[b] = r->block_sens[b];
		}
		if (L.xmoments)
		{
			dpb_layout	M;
			double		dm,
						dall;

			model_layout(&L, &M);
			if ((st = dpb_sens_l2(&M, R, Ry, r->block_weight, &dm, err)) != DPB_OK ||
				(st = dpb_sens_l2(&L, R, Ry, r->block_weight, &dall, err)) != DPB_OK)
				return st;
			lambda = moment_lambda(r, dm * dm, dall * dall - dm * dm);
			for (b = L.nmodel_blocks; b < L.nblocks; b++)
				r->block_weight[b] *= lambda;
		}
		st = dpb_sens_l2(&L, R, Ry, r->block_weight, &r->sensitivity, err);
		if (st != DPB_OK)
			return st;
		return dpb_agm_sigma(r->p.epsilon, r->p.delta, r->sensitivity,
							 &r->noise_scale, err);
	}
	else
	{
		double		B = dpb_coord_bound(&r->p, r->d),
					main = 0,
					mom = 0;

		for (b = 0; b < L.nblocks; b++)
		{
			r->block_sens[b] = dpb_sens_l1_block(&L, b, B, R, Ry);
			if (!sens_representable(r, b, err))
				return DPB_ERANGE;
			if (!r->p.nweights || b >= L.nmodel_blocks)
				r->block_weight[b] = r->block_sens[b];
			if (b < L.nmodel_blocks)
				main += r->block_sens[b] / r->block_weight[b];
			else
				mom += r->block_sens[b] / r->block_weight[b];
		}
		if (L.xmoments)
		{
			lambda = moment_lambda(r, main, mom);
			for (b = L.nmodel_blocks; b < L.nblocks; b++)
				r->block_weight[b] *= lambda;
		}
		r->sensitivity = 0;
		for (b = 0; b < L.nblocks; b++)
			r->sensitivity += r->block_sens[b] / r->block_weight[b];
		r->noise_scale = r->sensitivity / r->p.epsilon;
		return DPB_OK;
	}
}

void
dpb_release_noise_scale(const dpb_release *r, double *out)
{
	dpb_layout	L;
	dpb_entry	e;
	int			k;

	/* out has r->nstats entries: never write more (a release whose count
	 * does not match its layout is invalid anyway) */
	dpb_release_layout(r, &L);
	for (k = 0; k < L.nstats && k < r->nstats; k++)
	{
		dpb_layout_entry(&L, k, &e);
		if (r->p.mechanism == DPB_MECH_GAUSSIAN)
			out[k] = r->block_weight[e.block] * r->noise_scale / e.weight;
		else
			out[k] = r->block_weight[e.block] * r->noise_scale;
	}
}

void
dpb_release_noise_sd(const dpb_release *r, double *out)
{
	int			k;

	dpb_release_noise_scale(r, out);
	if (r->p.mechanism == DPB_MECH_LAPLACE)
		for (k = 0; k < r->nstats; k++)
			out[k] *= M_SQRT2;
}

dpb_status
dpb_release_add_noise(dpb_release *r, gsl_rng *rng, dpb_err *err)
{
	double	   *scale;
	dpb_layout	L;
	int			k;

	if (dpb_release_layout(r, &L) != DPB_OK || L.nstats != r->nstats ||
		L.nblocks != r->nblocks)
	{
		dpb_err_set(err, "invalid release", "The release is not calibrated for its layout.");
		return DPB_ECORRUPT;
	}
	scale = malloc(sizeof(double) * (r->nstats > 0 ? r->nstats : 1));
	if (scale == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	if (r->p.mechanism == DPB_MECH_NONE)
	{
		free(scale);
		return DPB_OK;
	}
	dpb_release_noise_scale(r, scale);
	for (k = 0; k < r->nstats; k++)
	{
		if (r->p.mechanism == DPB_MECH_GAUSSIAN)
			r->stats[k] += dpb_noise_gaussian(rng, scale[k]);
		else
			r->stats[k] += dpb_noise_laplace(rng, scale[k]);
	}
	free(scale);
	if (dpb_strong_rng_failed(rng))
	{
		dpb_err_set(err, "could not generate random numbers", NULL);
		return DPB_ERNG;
	}
	return DPB_OK;
}

/* ---- packing: little-endian, byte by byte ---- */

static void
put_u64(unsigned char **p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		(*p)[i] = (unsigned char) (v >> (8 * i));
	*p += 8;
}

static void
put_f64(unsigned char **p, double v)
{
	uint64_t	u;

	memcpy(&u, &v, 8);
	put_u64(p, u);
}

static void
put_u16(unsigned char **p, unsigned v)
{
	(*p)[0] = (unsigned char) v;
	(*p)[1] = (unsigned char) (v >> 8);
	*p += 2;
}

static void
put_u8(unsigned char **p, unsigned v)
{
	**p = (unsigned char) v;
	*p += 1;
}

typedef struct reader
{
	const unsigned char *p;
	size_t		left;
	int			bad;
} reader;

static const unsigned char *
take(reader *rd, size_t n)
{
	const unsigned char *q = rd->p;

	if (rd->bad || rd->left < n)
	{
		rd->bad = 1;
		return NULL;
	}
	rd->p += n;
	rd->left -= n;
	return q;
}

static uint64_t
get_u64(reader *rd)
{
	const unsigned char *q = take(rd, 8);
	uint64_t	v = 0;
	int			i;

	if (q == NULL)
		return 0;
	for (i = 0; i < 8; i++)
		v |= (uint64_t) q[i] << (8 * i);
	return v;
}

static double
get_f64(reader *rd)
{
	uint64_t	u = get_u64(rd);
	double		v;

	memcpy(&v, &u, 8);
	return v;
}

static unsigned
get_u16(reader *rd)
{
	const unsigned char *q = take(rd, 2);

	return q ? (unsigned) q[0] | ((unsigned) q[1] << 8) : 0;
}

static unsigned
get_u8(reader *rd)
{
	const unsigned char *q = take(rd, 1);

	return q ? q[0] : 0;
}

#define FLAG_INTERCEPT 1
#define FLAG_INSECURE 2
#define FLAG_BOUNDS 4
#define FLAG_NAMES 8
#define FLAG_XMOMENTS 16		/* followed by the f64 share p.x_moments */

size_t
dpb_release_packed_size(const dpb_release *r)
{
	size_t		sz = 4 + 2 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 8 + 6 * 8;
	int			j;

	sz += 2 * 8 * (size_t) r->nblocks + 1;	/* weights, block_sens, nweights */
	if (r->p.x_moments > 0)
		sz += 8;
	if (r->p.has_bounds)
		sz += 2 * 8 * (size_t) r->d;
	if (r->p.has_names)
		for (j = 0; j < r->d; j++)
			sz += 1 + strlen(r->p.names[j]);
	sz += 4 + 8 * (size_t) r->nstats;
	return sz;
}

void
dpb_release_pack(const dpb_release *r, unsigned char *buf)
{
	unsigned char *p = buf;
	int			j,
				flags = 0;

	memcpy(p, MAGIC, 4);
	p += 4;
	put_u16(&p, (unsigned) r->version);
	put_u8(&p, (unsigned) r->model);
	put_u8(&p, (unsigned) r->p.mechanism);
	put_u8(&p, (unsigned) r->p.scaling);
	if (r->p.intercept)
		flags |= FLAG_INTERCEPT;
	if (r->insecure)
		flags |= FLAG_INSECURE;
	if (r->p.has_bounds)
		flags |= FLAG_BOUNDS;
	if (r->p.has_names)
		flags |= FLAG_NAMES;
	if (r->p.x_moments > 0)
		flags |= FLAG_XMOMENTS;
	put_u8(&p, (unsigned) flags);
	put_u16(&p, (unsigned) r->d);
	put_u8(&p, (unsigned) r->nblocks);
	put_u8(&p, (unsigned) r->p.nweights);
	put_u64(&p, (uint64_t) r->n);
	put_f64(&p, r->p.epsilon);
	put_f64(&p, r->p.delta);
	put_f64(&p, r->p.clip);
	put_f64(&p, r->p.y_bound);
	put_f64(&p, r->sensitivity);
	put_f64(&p, r->noise_scale);
	put_u8(&p, 0);				/* reserved */
	if (r->p.x_moments > 0)
		put_f64(&p, r->p.x_moments);
	for (j = 0; j < r->nblocks; j++)
	{
		put_f64(&p, r->block_weight[j]);
		put_f64(&p, r->block_sens[j]);
	}
	if (r->p.has_bounds)
		for (j = 0; j < r->d; j++)
		{
			put_f64(&p, r->p.lower[j]);
			put_f64(&p, r->p.upper[j]);
		}
	if (r->p.has_names)
		for (j = 0; j < r->d; j++)
		{
			size_t		l = strlen(r->p.names[j]);

			put_u8(&p, (unsigned) l);
			memcpy(p, r->p.names[j], l);
			p += l;
		}
	p[0] = (unsigned char) r->nstats;
	p[1] = (unsigned char) (r->nstats >> 8);
	p[2] = (unsigned char) (r->nstats >> 16);
	p[3] = (unsigned char) (r->nstats >> 24);
	p += 4;
	for (j = 0; j < r->nstats; j++)
		put_f64(&p, r->stats[j]);
}

void
dpb_release_free_stats(dpb_release *r)
{
	free(r->stats);
	r->stats = NULL;
}

dpb_status
dpb_release_unpack(const unsigned char *buf, size_t len, dpb_release *r,
				   dpb_err *err)
{
	reader		rd = {buf, len, 0};
	const unsigned char *m;
	unsigned	flags,
				nst,
				j;
	const unsigned char *q;
	dpb_status	st;

	memset(r, 0, sizeof(*r));
	dpb_params_default(&r->p);
	m = take(&rd, 4);
	if (m == NULL || memcmp(m, MAGIC, 4) != 0)
	{
		dpb_err_set(err, "invalid release", "The value is not a dpbayes release.");
		return DPB_ECORRUPT;
	}
	r->version = (int) get_u16(&rd);
	if (!rd.bad && r->version != DPB_RELEASE_VERSION)
	{
		dpb_err_set(err, "unsupported release format version",
					"Version %d; this build reads version %d.",
					r->version, DPB_RELEASE_VERSION);
		return DPB_ECORRUPT;
	}
	r->model = (dpb_model) get_u8(&rd);
	r->p.mechanism = (dpb_mechanism) get_u8(&rd);
	r->p.scaling = (dpb_scaling) get_u8(&rd);
	flags = get_u8(&rd);
	r->p.intercept = (flags & FLAG_INTERCEPT) != 0;
	r->insecure = (flags & FLAG_INSECURE) != 0;
	r->p.has_bounds = (flags & FLAG_BOUNDS) != 0;
	r->p.has_names = (flags & FLAG_NAMES) != 0;
	r->d = (int) get_u16(&rd);
	r->p.d = r->d;
	r->nblocks = (int) get_u8(&rd);
	r->p.nweights = (int) get_u8(&rd);
	r->n = (int64_t) get_u64(&rd);
	r->p.epsilon = get_f64(&rd);
	r->p.delta = get_f64(&rd);
	r->p.clip = get_f64(&rd);
	r->p.y_bound = get_f64(&rd);
	r->sensitivity = get_f64(&rd);
	r->noise_scale = get_f64(&rd);
	(void) get_u8(&rd);
	if (flags & FLAG_XMOMENTS)
	{
		r->p.x_moments = get_f64(&rd);
		if (!(r->p.x_moments > 0))
			rd.bad = 1;			/* the flag means a positive share */
	}
	if (rd.bad || flags > 31 || r->d < 1 || r->d > DPB_MAX_D ||
		r->nblocks < 1 || r->nblocks > DPB_MAX_BLOCKS ||
		r->p.nweights < 0 || r->p.nweights > r->nblocks)
	{
		dpb_err_set(err, "invalid release", "The release header is malformed or truncated.");
		return DPB_ECORRUPT;
	}
	for (j = 0; j < (unsigned) r->nblocks; j++)
	{
		r->block_weight[j] = get_f64(&rd);
		r->block_sens[j] = get_f64(&rd);
		if (j < (unsigned) r->p.nweights)
			r->p.noise_weights[j] = r->block_weight[j];
	}
	if (r->p.has_bounds)
		for (j = 0; j < (unsigned) r->d; j++)
		{
			r->p.lower[j] = get_f64(&rd);
			r->p.upper[j] = get_f64(&rd);
		}
	if (r->p.has_names)
		for (j = 0; j < (unsigned) r->d; j++)
		{
			unsigned	l = get_u8(&rd);

			if (l >= DPB_NAME_LEN || (q = take(&rd, l)) == NULL)
			{
				rd.bad = 1;
				break;
			}
			/* a NUL inside would end the name early (names.h) */
			if (memchr(q, '\0', l) != NULL)
			{
				dpb_err_set(err, "invalid release",
							"Feature %u's name contains a NUL byte.", j + 1);
				return DPB_ECORRUPT;
			}
			memcpy(r->p.names[j], q, l);
			r->p.names[j][l] = '\0';
		}
	q = take(&rd, 4);
	if (q == NULL)
	{
		dpb_err_set(err, "invalid release", "The release is truncated.");
		return DPB_ECORRUPT;
	}
	nst = (unsigned) q[0] | ((unsigned) q[1] << 8) | ((unsigned) q[2] << 16) |
		((unsigned) q[3] << 24);
	if (nst > 100000 || rd.left != 8 * (size_t) nst)
	{
		dpb_err_set(err, "invalid release",
					"The release's length does not match its statistics.");
		return DPB_ECORRUPT;
	}
	r->nstats = (int) nst;
	r->stats = malloc(sizeof(double) * (nst > 0 ? nst : 1));
	if (r->stats == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	for (j = 0; j < nst; j++)
		r->stats[j] = get_f64(&rd);
	st = dpb_release_validate(r, err);
	if (st != DPB_OK)
		dpb_release_free_stats(r);
	return st;
}

/*
 * The calibration must be usable: finite and positive, with every entry's
 * noise scale at most DPB_MAX_NOISE_SCALE, so that no draw of the noise
 * (a few hundred scales at the very most) can overflow a double.
 */
static dpb_status
calibration_usable(const dpb_release *r, dpb_err *err)
{
	double	   *scale;
	int			b,
				k;

	if (r->p.mechanism == DPB_MECH_NONE)
		return DPB_OK;
	if (!(dpb_isfinite(r->sensitivity) && r->sensitivity > 0 &&
		  dpb_isfinite(r->noise_scale) && r->noise_scale > 0))
	{
		dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
					"The sensitivity or the noise scale is not a positive finite number.");
		return DPB_EINVAL;
	}
	for (b = 0; b < r->nblocks; b++)
		if (!(dpb_isfinite(r->block_weight[b]) && r->block_weight[b] > 0 &&
			  dpb_isfinite(r->block_sens[b]) && r->block_sens[b] > 0))
		{
			dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
						"Block %d's sensitivity or noise weight is not a positive finite number.",
						b + 1);
			return DPB_EINVAL;
		}
	scale = malloc(sizeof(double) * (r->nstats > 0 ? r->nstats : 1));
	if (scale == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_release_noise_scale(r, scale);
	for (k = 0; k < r->nstats; k++)
		if (!(dpb_isfinite(scale[k]) && scale[k] <= DPB_MAX_NOISE_SCALE))
		{
			free(scale);
			dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
						"Statistic %d would get noise of scale above %g.", k + 1,
						DPB_MAX_NOISE_SCALE);
			return DPB_EINVAL;
		}
	free(scale);
	return DPB_OK;
}

dpb_status
dpb_release_check_params(dpb_model model, const dpb_params *p, int d, dpb_err *err)
{
	dpb_release r;
	dpb_status	st;

	memset(&r, 0, sizeof(r));
	r.version = DPB_RELEASE_VERSION;
	r.model = model;
	r.p = *p;
	r.p.d = d;
	r.d = d;
	if ((st = dpb_params_check_model(&r.p, model, d, err)) != DPB_OK ||
		(st = dpb_release_calibrate(&r, err)) != DPB_OK)
		return st;
	return calibration_usable(&r, err);
}

static int
close_rel(double a, double b)
{
	if (!dpb_isfinite(a) || !dpb_isfinite(b))
		return 0;
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

dpb_status
dpb_release_validate(const dpb_release *r, dpb_err *err)
{
	dpb_release chk;
	dpb_layout	L;
	dpb_err		e2;
	int			j,
				b;

	if (r->version != DPB_RELEASE_VERSION)
	{
		dpb_err_set(err, "unsupported release format version", NULL);
		return DPB_ECORRUPT;
	}
	if (r->model != DPB_MODEL_LINEAR && r->model != DPB_MODEL_LOGISTIC &&
		r->model != DPB_MODEL_POISSON)
	{
		dpb_err_set(err, "invalid release", "Unknown model.");
		return DPB_ECORRUPT;
	}
	if (r->n < 0)
	{
		dpb_err_set(err, "invalid release", "The row count is negative.");
		return DPB_ECORRUPT;
	}
	if (r->p.d != r->d ||
		dpb_params_check_model(&r->p, r->model, r->d, &e2) != DPB_OK)
	{
		if (r->p.d != r->d)
			dpb_err_set(err, "invalid release", "Its feature counts do not match.");
		else
			dpb_err_set(err, "invalid release", "Its privacy parameters are invalid (%s). %s",
						e2.msg, e2.detail);
		return DPB_ECORRUPT;
	}
	dpb_release_layout(r, &L);
	if (r->nblocks != L.nblocks || r->nstats != L.nstats)
	{
		dpb_err_set(err, "invalid release",
					"A %s release with %d features has %d statistics; this one has %d.",
					dpb_model_name(r->model), r->d, L.nstats, r->nstats);
		return DPB_ECORRUPT;
	}
	for (j = 0; j < r->nstats; j++)
		if (!dpb_isfinite(r->stats[j]))
		{
			dpb_err_set(err, "invalid release", "Statistic %d is not finite.", j + 1);
			return DPB_ECORRUPT;
		}
	/* the calibration must be the one the parameters imply */
	chk = *r;
	chk.stats = NULL;
	if (dpb_release_calibrate(&chk, &e2) != DPB_OK)
	{
		dpb_err_set(err, "invalid release", "Its calibration fails: %s.", e2.msg);
		return DPB_ECORRUPT;
	}
	if (calibration_usable(&chk, &e2) != DPB_OK)
	{
		dpb_err_set(err, "invalid release", "%s", e2.detail);
		return DPB_ECORRUPT;
	}
	if (!close_rel(chk.sensitivity, r->sensitivity) ||
		!close_rel(chk.noise_scale, r->noise_scale))
	{
		dpb_err_set(err, "inconsistent release",
					"The recorded sensitivity or noise scale does not match the privacy parameters.");
		return DPB_ECORRUPT;
	}
	for (b = 0; b < r->nblocks; b++)
		if (!close_rel(chk.block_sens[b], r->block_sens[b]) ||
			!close_rel(chk.block_weight[b], r->block_weight[b]))
		{
			dpb_err_set(err, "inconsistent release",
						"Block %d's sensitivity or noise weight does not match the privacy parameters.",
						b + 1);
			return DPB_ECORRUPT;
		}
	return DPB_OK;
}
