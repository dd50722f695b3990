/*
 * test_rstate.c — the portable partial state of the release aggregates
 * (src/core/release/rstate.h, the SQL type dpbayes.release_state): a state
 * packed and unpacked keeps every exact total; two states summed give the
 * totals of all their rows at once (what Citus's coordinator combines);
 * malformed, truncated, forged and out-of-bound states are refused.
 */
#include "unit.h"
#include "rstate.h"
#include "clip.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct acc_box
{
	void	   *raw;
	dpb_acc		acc;
	dpb_clipper clip;
} acc_box;

static void
box_init(acc_box *b, dpb_model model, const dpb_params *p, int d)
{
	dpb_acc_bounds ab;
	size_t		sz = dpb_acc_size(d, model == DPB_MODEL_POISSON, p->x_moments > 0);

	ab.model = model;
	ab.d = d;
	ab.xmom = p->x_moments > 0;
	ab.R = p->clip;
	ab.B = dpb_coord_bound(p, d);
	ab.Ry = p->y_bound;
	b->raw = malloc(sz + 16);
	dpb_acc_init(&b->acc, (void *) (((uintptr_t) b->raw + 15) & ~(uintptr_t) 15), &ab);
	dpb_clipper_init(&b->clip, p, model, d);
}

static void
box_add(acc_box *b, gsl_rng *rng, dpb_model model, int d)
{
	double		x[DPB_MAX_D],
				z[DPB_MAX_D],
				y;
	int			j;

	for (j = 0; j < d; j++)
		x[j] = 4 * gsl_rng_uniform(rng) - 2;	/* some beyond the bounds */
	y = model == DPB_MODEL_LOGISTIC ? (gsl_rng_uniform(rng) < 0.5 ? -1 : 1) :
		model == DPB_MODEL_POISSON ? floor(6 * gsl_rng_uniform(rng)) :
		3 * gsl_rng_uniform(rng) - 1.5;
	dpb_clip_x(&b->clip, x, z);
	dpb_acc_add(&b->acc, z, dpb_clip_y(&b->clip, y));
}

static int
same_totals(dpb_acc *a, dpb_acc *b)
{
	size_t		n = (size_t) a->q * a->q;

	dpb_acc_flush(a);
	dpb_acc_flush(b);
	for (size_t k = 0; k < n; k++)
		if ((k % a->q) >= (k / a->q) && a->G[k] != b->G[k])
			return 0;
	if (a->poisson)
	{
		size_t		h = (size_t) a->d + 1;

		for (size_t k = 0; k < h * h; k++)
			if ((k % h) >= (k / h) && a->H[k] != b->H[k])
				return 0;
	}
	return 1;
}

static void
params_for(dpb_params *p, dpb_model model, int d, int xmom, int names)
{
	int			j;

	dpb_params_default(p);
	p->epsilon = 0.7;
	p->delta = 1e-6;
	p->y_bound = model == DPB_MODEL_POISSON ? 5 : model == DPB_MODEL_LINEAR ? 1.5 : 0;
	p->d = d;
	p->has_bounds = 1;
	for (j = 0; j < d; j++)
	{
		p->lower[j] = -1 - j;
		p->upper[j] = 1 + 0.5 * j;
	}
	if (xmom)
		p->x_moments = 0.25;
	if (names)
	{
		p->has_names = 1;
		for (j = 0; j < d; j++)
			snprintf(p->names[j], DPB_NAME_LEN, "feat_%d", j);
	}
}

/* pack, unpack and load one state; its totals and header come back */
static void
roundtrip(gsl_rng *rng, dpb_model model, int d, int xmom, int names, int64_t nrows)
{
	dpb_params	p,
				q;
	acc_box		a,
				b;
	unsigned char *buf;
	size_t		sz;
	dpb_model	m2;
	int			d2;
	int64_t		n2,
				i;
	const unsigned char *tot;
	dpb_err		err;
	dpb_status	st;

	params_for(&p, model, d, xmom, names);
	box_init(&a, model, &p, d);
	for (i = 0; i < nrows; i++)
		box_add(&a, rng, model, d);
	sz = dpb_state_stats_size(model, &p, d);
	buf = malloc(sz);
	dpb_state_stats_pack(model, &p, d, nrows, &a.acc, buf);
	CHECK(dpb_state_kind(buf, sz) == DPB_STATE_KIND_STATS, "kind of a packed state");
	memset(&err, 0, sizeof(err));
	st = dpb_state_stats_unpack(buf, sz, &m2, &q, &d2, &n2, &tot, &err);
	CHECK(st == DPB_OK, "unpack model %d d %d xmom %d: %s %s", model, d, xmom, err.msg, err.detail);
	if (st != DPB_OK)
	{
		free(buf);
		free(a.raw);
		return;
	}
	CHECK(m2 == model && d2 == d && n2 == nrows, "header kept");
	/* the parameters come back byte for byte (the combine compares them) */
	CHECK(memcmp(&p, &q, sizeof(p)) == 0, "parameters kept byte for byte (model %d, d %d)", model, d);
	box_init(&b, model, &q, d);
	st = dpb_state_load_totals(&b.acc, &q, tot, n2, &err);
	CHECK(st == DPB_OK, "load totals: %s", err.detail);
	CHECK(same_totals(&a.acc, &b.acc), "totals kept (model %d, d %d, xmom %d)", model, d, xmom);
	free(buf);
	free(a.raw);
	free(b.raw);
}

void
test_rstate(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_params	p,
				q;
	acc_box		all,
				s1,
				s2,
				m;
	unsigned char *b1,
			   *b2,
			   *bad;
	size_t		sz;
	dpb_model	mm;
	int			dd,
				i;
	int64_t		nn;
	const unsigned char *tot;
	dpb_err		err;
	gsl_rng    *r1,
			   *r2;

	unit_current = "rstate";
	gsl_rng_set(rng, 27);
	roundtrip(rng, DPB_MODEL_LOGISTIC, 3, 0, 0, 5000);
	roundtrip(rng, DPB_MODEL_LINEAR, 10, 0, 1, 3000);
	roundtrip(rng, DPB_MODEL_POISSON, 4, 0, 1, 2000);
	roundtrip(rng, DPB_MODEL_LINEAR, 5, 1, 0, 1500);
	roundtrip(rng, DPB_MODEL_LOGISTIC, 64, 0, 0, 50);
	roundtrip(rng, DPB_MODEL_LINEAR, 1, 0, 0, 1);

	/* the rows of two shards, combined = the same rows in one place */
	params_for(&p, DPB_MODEL_POISSON, 3, 0, 0);
	box_init(&all, DPB_MODEL_POISSON, &p, 3);
	box_init(&s1, DPB_MODEL_POISSON, &p, 3);
	box_init(&s2, DPB_MODEL_POISSON, &p, 3);
	r1 = gsl_rng_alloc(gsl_rng_mt19937);
	r2 = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r1, 5);
	gsl_rng_set(r2, 5);
	for (i = 0; i < 4000; i++)
	{
		box_add(&all, r1, DPB_MODEL_POISSON, 3);
		box_add(i % 3 == 0 ? &s1 : &s2, r2, DPB_MODEL_POISSON, 3);
	}
	sz = dpb_state_stats_size(DPB_MODEL_POISSON, &p, 3);
	b1 = malloc(sz);
	b2 = malloc(sz);
	dpb_state_stats_pack(DPB_MODEL_POISSON, &p, 3, 1334, &s1.acc, b1);
	dpb_state_stats_pack(DPB_MODEL_POISSON, &p, 3, 2666, &s2.acc, b2);
	box_init(&m, DPB_MODEL_POISSON, &p, 3);
	CHECK(dpb_state_stats_unpack(b1, sz, &mm, &q, &dd, &nn, &tot, &err) == DPB_OK &&
		  dpb_state_load_totals(&m.acc, &q, tot, nn, &err) == DPB_OK, "shard 1 unpacks");
	{
		acc_box		m2;

		box_init(&m2, DPB_MODEL_POISSON, &p, 3);
		CHECK(dpb_state_stats_unpack(b2, sz, &mm, &q, &dd, &nn, &tot, &err) == DPB_OK &&
			  dpb_state_load_totals(&m2.acc, &q, tot, nn, &err) == DPB_OK, "shard 2 unpacks");
		dpb_acc_merge(&m.acc, &m2.acc);
		CHECK(same_totals(&m.acc, &all.acc), "two shards combined = all rows in one place");
		free(m2.raw);
	}

	/* refused: each a copy of b1 with one thing wrong */
	bad = malloc(sz + 1);
#define REFUSED(what, len) \
	do { \
		memset(&err, 0, sizeof(err)); \
		dpb_status _st = dpb_state_stats_unpack(bad, (len), &mm, &q, &dd, &nn, &tot, &err); \
		if (_st == DPB_OK) \
		{ \
			acc_box _t; \
			box_init(&_t, mm, &q, dd); \
			_st = dpb_state_load_totals(&_t.acc, &q, tot, nn, &err); \
			free(_t.raw); \
		} \
		CHECK(_st != DPB_OK, "refused: %s", (what)); \
	} while (0)
	memcpy(bad, b1, sz);
	bad[0] = 'X';
	REFUSED("bad magic", sz);
	memcpy(bad, b1, sz);
	bad[4] = 3;
	REFUSED("unknown version", sz);
	memcpy(bad, b1, sz);
	bad[5] = 9;
	REFUSED("unknown kind", sz);
	memcpy(bad, b1, sz);
	REFUSED("truncated", sz - 1);
	REFUSED("header only", 20);
	bad[sz] = 0;
	REFUSED("one byte too many", sz + 1);
	memcpy(bad, b1, sz);
	bad[6] = 7;
	REFUSED("unknown model", sz);
	memcpy(bad, b1, sz);
	bad[7] = DPB_MECH_NONE;
	REFUSED("mechanism none (not private)", sz);
	memcpy(bad, b1, sz);
	bad[10] = 0;
	REFUSED("d = 0", sz);
	memcpy(bad, b1, sz);
	bad[10] = 4;
	REFUSED("d that does not match the bounds and length", sz);
	memcpy(bad, b1, sz);
	memset(bad + 12, 0, 8);
	REFUSED("n = 0", sz);
	memcpy(bad, b1, sz);
	memset(bad + 12, 0xff, 8);
	REFUSED("n beyond 2^38", sz);
	memcpy(bad, b1, sz);
	bad[12] ^= 1;				/* n != G[0][0] */
	REFUSED("n that is not the count of the totals", sz);
	memcpy(bad, b1, sz);
	memset(bad + 20, 0xff, 8);	/* epsilon NaN */
	REFUSED("epsilon NaN", sz);
	memcpy(bad, b1, sz);
	bad[9] |= 64;
	REFUSED("unknown flag", sz);
	{
		/* a total beyond n times its bound: the last 16 bytes (H's last
		 * diagonal entry) set to 2^100 */
		memcpy(bad, b1, sz);
		memset(bad + sz - 16, 0, 16);
		bad[sz - 16 + 12] = 0x10;
		REFUSED("a total beyond its bound", sz);
		memcpy(bad, b1, sz);
		memset(bad + sz - 16, 0xff, 16);	/* -1 on a diagonal */
		REFUSED("a negative diagonal", sz);
	}
	free(bad);
	free(b1);
	free(b2);
	free(all.raw);
	free(s1.raw);
	free(s2.raw);
	free(m.raw);
	gsl_rng_free(r1);
	gsl_rng_free(r2);
	gsl_rng_free(rng);

	/* 128-bit little-endian round trip at the extremes */
	{
		unsigned char w[16];
		dpb_i128	vals[4] = {0, -1, ((dpb_i128) 1 << 126) + 12345, -((dpb_i128) 1 << 126) - 7};

		for (i = 0; i < 4; i++)
		{
			dpb_state_put_i128(w, vals[i]);
			CHECK(dpb_state_get_i128(w) == vals[i], "i128 round trip %d", i);
		}
		dpb_state_put_i128(w, 1);
		CHECK(w[0] == 1 && w[15] == 0, "little-endian");
	}
}
