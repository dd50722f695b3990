/*
 * test_release.c — releases (release.h): pack / unpack round trips, every
 * truncation and every single-byte corruption of the packed form,
 * tampering with the calibration, the noise (per-entry scales, the sqrt(2)
 * rule of off-diagonal second moments, nothing but r->stats touched), and
 * the JSON form (parsed by a strict JSON parser below).
 *
 * Truncated inputs are copied into buffers of exactly their length, so
 * that valgrind (valgrind --error-exitcode=1 ./test/unit_run release) sees
 * any read past the end.
 */
#include "unit.h"
#include "release.h"
#include "dnoise.h"
#include "sim.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* building releases                                                  */
/* ------------------------------------------------------------------ */

typedef struct relcfg
{
	dpb_model	model;
	dpb_mechanism mech;
	int			d;
	int			intercept;
	int			bounds;
	int			names;
	int			weights;		/* given noise weights */
	dpb_scaling scaling;
	int			corrupt_all;	/* run the corruption test at every offset */
	int			addrem;			/* add/remove neighbours (0: replace) */
} relcfg;

static const relcfg configs[] = {
	{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, 3, 1, 1, 1, 0, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_LINEAR, DPB_MECH_LAPLACE, 3, 1, 1, 1, 1, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_LINEAR, DPB_MECH_LAPLACE, 2, 0, 1, 0, 0, DPB_SCALE_BALL, 1, 0},
	{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, 2, 0, 0, 0, 1, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_LOGISTIC, DPB_MECH_GAUSSIAN, 3, 1, 1, 1, 1, DPB_SCALE_BALL, 1, 0},
	{DPB_MODEL_LOGISTIC, DPB_MECH_GAUSSIAN, 1, 0, 0, 0, 0, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 3, 1, 1, 1, 0, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 2, 0, 1, 1, 1, DPB_SCALE_BALL, 1, 0},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 1, 0, 0, 0, 0, DPB_SCALE_BOX, 1, 0},
	{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, DPB_MAX_D, 1, 1, 1, 0, DPB_SCALE_BOX, 0, 0},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 20, 0, 1, 0, 1, DPB_SCALE_BALL, 0, 0},
	/* add/remove neighbours: the count block, no n */
	{DPB_MODEL_LINEAR, DPB_MECH_GAUSSIAN, 3, 1, 1, 1, 0, DPB_SCALE_BOX, 1, 1},
	{DPB_MODEL_LINEAR, DPB_MECH_LAPLACE, 2, 0, 1, 0, 1, DPB_SCALE_BOX, 1, 1},
	{DPB_MODEL_LOGISTIC, DPB_MECH_GAUSSIAN, 2, 1, 0, 0, 1, DPB_SCALE_BOX, 1, 1},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 2, 0, 1, 1, 1, DPB_SCALE_BALL, 1, 1},
	{DPB_MODEL_POISSON, DPB_MECH_GAUSSIAN, 3, 1, 1, 0, 0, DPB_SCALE_BOX, 0, 1},
};
#define NCONFIGS ((int) (sizeof(configs) / sizeof(configs[0])))

/* names that need escaping in JSON; all valid feature names */
static const char *const odd_names[] = {
	"age", "a \"quoted\" name", "back\\slash", "caf\xc3\xa9 / slash", "{braces}:;",
};

static void
cfg_name(const relcfg *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s d=%d ic=%d bounds=%d names=%d weights=%d %s %s",
			 dpb_model_name(c->model), dpb_mechanism_name(c->mech), c->d,
			 c->intercept, c->bounds, c->names, c->weights,
			 dpb_scaling_name(c->scaling), c->addrem ? "add_remove" : "replace");
}

/* arbitrary finite statistics, some extreme */
static double
stat_value(int k)
{
	switch (k % 9)
	{
		case 0:
			return 1234.5 + k;
		case 1:
			return -0.0;
		case 2:
			return 1e300;
		case 3:
			return -4.9406564584124654e-324;
		case 4:
			return -DBL_MAX;
		case 5:
			return 0.1 * k;
		case 6:
			return -3.25e-7 * k;
		case 7:
			return 1.0 / 3.0;
		default:
			return (double) k * k;
	}
}

/* Fills and calibrates r; r->stats is malloc'ed (nstats + 4 entries, the
 * last 4 a sentinel). */
static int
make_release(dpb_release *r, const relcfg *c)
{
	dpb_layout	L;
	dpb_err		err;
	int			j,
				k;

	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = c->model;
	r->d = c->d;
	r->n = c->addrem ? 0 : 123456789012LL + c->d;
	r->insecure = c->d % 2;
	dpb_params_default(&r->p);
	r->p.neighbours = c->addrem ? DPB_NB_ADD_REMOVE : DPB_NB_REPLACE;
	r->p.d = c->d;
	r->p.epsilon = 0.7;
	r->p.mechanism = c->mech;
	r->p.delta = c->mech == DPB_MECH_GAUSSIAN ? 1e-5 : 0.0;
	r->p.clip = 1.5;
	r->p.y_bound = c->model == DPB_MODEL_LOGISTIC ? 0.0 : 2.5;
	r->p.intercept = c->intercept;
	r->p.scaling = c->scaling;
	r->p.has_bounds = c->bounds;
	if (c->bounds)
		for (j = 0; j < c->d; j++)
		{
			r->p.lower[j] = -1.0 - 0.25 * j;
			r->p.upper[j] = 2.0 + 1.5 * j;
		}
	r->p.has_names = c->names;
	if (c->names)
		for (j = 0; j < c->d; j++)
		{
			if (j < 5)
				snprintf(r->p.names[j], DPB_NAME_LEN, "%s", odd_names[j]);
			else
				snprintf(r->p.names[j], DPB_NAME_LEN, "feature_%d", j + 1);
		}
	if (dpb_params_model_layout(&r->p, c->model, c->d, &L) != DPB_OK)
		return 0;
	if (c->weights)
	{
		r->p.nweights = L.nblocks;
		for (k = 0; k < L.nblocks; k++)
			r->p.noise_weights[k] = 0.5 + 0.75 * k;
	}
	if (dpb_params_check_model(&r->p, c->model, c->d, &err) != DPB_OK)
	{
		CHECK(0, "make_release: params rejected: %s", err.msg);
		return 0;
	}
	if (dpb_release_calibrate(r, &err) != DPB_OK)
	{
		CHECK(0, "make_release: calibrate: %s", err.msg);
		return 0;
	}
	r->stats = malloc(sizeof(double) * (r->nstats + 4));
	dpb_release_layout(r, &L);
	for (k = 0; k < r->nstats; k++)
	{
		dpb_entry	en;
		int			m;

		/* a released value lies on its block's grid */
		dpb_layout_entry(&L, k, &en);
		m = r->grid_exp[en.block];
		r->stats[k] = ldexp(fmax(-9007199254740991.0, fmin(9007199254740991.0,
															nearbyint(ldexp(stat_value(k), -m)))), m);
	}
	for (k = 0; k < 4; k++)
		r->stats[r->nstats + k] = 777.0;
	return 1;
}

static int
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* Compares every field; returns 0 and describes the first difference. */
static int
same_release(const dpb_release *a, const dpb_release *b, char *why, size_t len)
{
	int			j;

#define DIFF(cond, ...) do { if (cond) { snprintf(why, len, __VA_ARGS__); return 0; } } while (0)
	DIFF(a->version != b->version, "version");
	DIFF(a->model != b->model, "model");
	DIFF(a->d != b->d, "d");
	DIFF(a->n != b->n, "n");
	DIFF(a->insecure != b->insecure, "insecure");
	DIFF(!same_double(a->p.epsilon, b->p.epsilon), "epsilon");
	DIFF(!same_double(a->p.delta, b->p.delta), "delta");
	DIFF(!same_double(a->p.clip, b->p.clip), "clip");
	DIFF(!same_double(a->p.y_bound, b->p.y_bound), "y_bound");
	DIFF(a->p.d != b->p.d, "p.d");
	DIFF(a->p.has_bounds != b->p.has_bounds, "has_bounds");
	if (a->p.has_bounds)
		for (j = 0; j < a->d; j++)
			DIFF(!same_double(a->p.lower[j], b->p.lower[j]) ||
				 !same_double(a->p.upper[j], b->p.upper[j]), "bounds of feature %d", j + 1);
	DIFF(a->p.intercept != b->p.intercept, "intercept");
	DIFF(a->p.mechanism != b->p.mechanism, "mechanism");
	DIFF(a->p.neighbours != b->p.neighbours, "neighbours");
	DIFF(a->p.scaling != b->p.scaling, "scaling");
	DIFF(a->p.nweights != b->p.nweights, "nweights");
	for (j = 0; j < a->p.nweights; j++)
		DIFF(!same_double(a->p.noise_weights[j], b->p.noise_weights[j]), "noise weight %d", j);
	DIFF(a->p.has_names != b->p.has_names, "has_names");
	if (a->p.has_names)
		for (j = 0; j < a->d; j++)
			DIFF(strcmp(a->p.names[j], b->p.names[j]) != 0, "name %d", j + 1);
	DIFF(!same_double(a->sensitivity, b->sensitivity), "sensitivity");
	DIFF(!same_double(a->noise_scale, b->noise_scale), "noise_scale");
	DIFF(a->nblocks != b->nblocks, "nblocks");
	for (j = 0; j < a->nblocks; j++)
		DIFF(!same_double(a->block_weight[j], b->block_weight[j]) ||
			 !same_double(a->block_sens[j], b->block_sens[j]), "block %d", j);
	DIFF(a->nstats != b->nstats, "nstats");
	for (j = 0; j < a->nstats; j++)
		DIFF(!same_double(a->stats[j], b->stats[j]), "stat %d", j);
#undef DIFF
	return 1;
}

static unsigned char *
pack_release(const dpb_release *r, size_t *size)
{
	unsigned char *buf;

	*size = dpb_release_packed_size(r);
	buf = malloc(*size);
	dpb_release_pack(r, buf);
	return buf;
}

/* unpack from a private copy of exactly len bytes */
static dpb_status
unpack_copy(const unsigned char *buf, size_t len, dpb_release *out, dpb_err *err)
{
	unsigned char *cp = malloc(len > 0 ? len : 1);
	dpb_status	st;

	if (len > 0)
		memcpy(cp, buf, len);
	st = dpb_release_unpack(len > 0 ? cp : cp + 1, len, out, err);
	free(cp);
	return st;
}

static int
rel_close(double a, double b, double tol)
{
	return dpb_isfinite(a) && dpb_isfinite(b) && fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* The calibration recorded in r is the one its parameters imply (computed
 * here, independently of dpb_release_validate). */
static int
calibration_matches(const dpb_release *r)
{
	dpb_release chk = *r;
	dpb_err		err;
	int			b;

	chk.stats = NULL;
	if (dpb_release_calibrate(&chk, &err) != DPB_OK)
		return 0;
	if (chk.nblocks != r->nblocks || chk.nstats != r->nstats)
		return 0;
	if (r->p.mechanism == DPB_MECH_NONE)
	{
		if (r->sensitivity != 0 || r->noise_scale != 0)
			return 0;
	}
	else if (!rel_close(chk.sensitivity, r->sensitivity, 1e-9) ||
			 !rel_close(chk.noise_scale, r->noise_scale, 1e-9))
		return 0;
	for (b = 0; b < r->nblocks; b++)
		if (!(rel_close(chk.block_weight[b], r->block_weight[b], 1e-9) &&
			  (rel_close(chk.block_sens[b], r->block_sens[b], 1e-9) ||
			   (chk.block_sens[b] == 0 && r->block_sens[b] == 0))))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* pack / unpack, truncation, corruption                              */
/* ------------------------------------------------------------------ */

static void
check_packing(const relcfg *c)
{
	dpb_release r,
				u,
				u2;
	dpb_err		err;
	unsigned char *buf,
			   *buf2,
			   *big;
	size_t		size,
				size2,
				len,
				off;
	char		what[200],
				why[100];
	int			bad,
				accepted = 0,
				rejected = 0,
				v;

	cfg_name(c, what, sizeof(what));
	if (!make_release(&r, c))
		return;
	CHECK(dpb_release_validate(&r, &err) == DPB_OK, "%s: fresh release invalid: %s", what, err.msg);

	/* pack writes exactly packed_size bytes, deterministically */
	size = dpb_release_packed_size(&r);
	big = malloc(size + 64);
	memset(big, 0xAA, size + 64);
	dpb_release_pack(&r, big);
	bad = 0;
	for (off = size; off < size + 64; off++)
		bad += big[off] != 0xAA;
	CHECK(bad == 0, "%s: pack wrote past packed_size", what);
	buf = pack_release(&r, &size);
	memset(big, 0x55, size);
	dpb_release_pack(&r, big);
	CHECK(memcmp(big, buf, size) == 0, "%s: pack left bytes unwritten", what);
	free(big);

	/* round trip */
	memset(&err, 0, sizeof(err));
	CHECK(unpack_copy(buf, size, &u, &err) == DPB_OK, "%s: unpack: %s %s", what, err.msg, err.detail);
	if (u.stats != NULL)
	{
		CHECK(same_release(&r, &u, why, sizeof(why)), "%s: round trip differs in %s", what, why);
		buf2 = pack_release(&u, &size2);
		CHECK(size2 == size && memcmp(buf, buf2, size) == 0, "%s: repacking differs", what);
		free(buf2);
		dpb_release_free_stats(&u);
		CHECK(u.stats == NULL, "free_stats");
	}

	/* every truncation, and one byte too many */
	bad = 0;
	for (len = 0; len < size; len++)
	{
		dpb_status	st;

		memset(&err, 0, sizeof(err));
		st = unpack_copy(buf, len, &u, &err);
		if (st != DPB_ECORRUPT || u.stats != NULL || err.msg[0] == '\0')
		{
			if (bad++ < 3)
				CHECK(0, "%s: truncation to %zu of %zu bytes: status %d", what, len, size, (int) st);
			if (u.stats != NULL)
				dpb_release_free_stats(&u);
		}
	}
	CHECK(bad == 0, "%s: %d truncations not rejected", what, bad);
	big = malloc(size + 1);
	memcpy(big, buf, size);
	big[size] = 0;
	CHECK(unpack_copy(big, size + 1, &u, &err) == DPB_ECORRUPT && u.stats == NULL,
		  "%s: trailing byte accepted", what);
	free(big);

	/*
	 * single-byte corruptions: rejected with DPB_ECORRUPT, or accepted as a
	 * release that validates and whose calibration is the one its
	 * (possibly corrupted) parameters imply
	 */
	bad = 0;
	big = malloc(size);
	for (off = 0; off < size; off++)
	{
		static const int xors[] = {0x01, 0x04, 0x20, 0x80};
		int			nv = 6;

		if (!c->corrupt_all && off > 120 && off % 97 != 0 && off + 40 < size)
			continue;
		for (v = 0; v < nv; v++)
		{
			dpb_status	st;
			unsigned char nb = v < 4 ? buf[off] ^ xors[v] : (v == 4 ? 0x00 : 0xff);

			if (nb == buf[off])
				continue;
			memcpy(big, buf, size);
			big[off] = nb;
			memset(&err, 0, sizeof(err));
			st = unpack_copy(big, size, &u, &err);
			if (st == DPB_OK)
			{
				int			ok = u.stats != NULL &&
					dpb_release_validate(&u, NULL) == DPB_OK &&
					calibration_matches(&u);

				accepted++;
				if (!ok && bad++ < 5)
					CHECK(0, "%s: byte %zu = 0x%02x accepted with a calibration that does not match",
						  what, off, nb);
				/* whatever was accepted round-trips */
				if (ok)
				{
					buf2 = pack_release(&u, &size2);
					if (unpack_copy(buf2, size2, &u2, NULL) != DPB_OK ||
						!same_release(&u, &u2, why, sizeof(why)))
					{
						if (bad++ < 5)
							CHECK(0, "%s: byte %zu = 0x%02x: accepted release does not round-trip",
								  what, off, nb);
					}
					dpb_release_free_stats(&u2);
					free(buf2);
				}
				dpb_release_free_stats(&u);
			}
			else
			{
				rejected++;
				if ((st != DPB_ECORRUPT || u.stats != NULL || err.msg[0] == '\0') && bad++ < 5)
					CHECK(0, "%s: byte %zu = 0x%02x: status %d, stats %p, msg \"%s\"",
						  what, off, nb, (int) st, (void *) u.stats, err.msg);
			}
		}
	}
	free(big);
	CHECK(bad == 0, "%s: %d bad outcomes of single-byte corruptions", what, bad);
	CHECK(rejected > 0, "%s: no corruption rejected (%d accepted)", what, accepted);
	if (getenv("DPB_UNIT_VERBOSE"))
		printf("  %s: %zu bytes, corruptions rejected %d, accepted %d\n", what, size,
			   rejected, accepted);
	free(buf);
	free(r.stats);
}

/* ------------------------------------------------------------------ */
/* tampering with the calibration                                     */
/* ------------------------------------------------------------------ */

typedef void (*tamper_fn) (dpb_release *r, int arg);

static void t_sens(dpb_release *r, int a) { r->sensitivity *= a == 0 ? 0.5 : a == 1 ? 1.001 : a == 2 ? 0.0 : -1.0; }
static void t_sens_nan(dpb_release *r, int a) { r->sensitivity = a ? INFINITY : NAN; }
static void t_scale(dpb_release *r, int a) { r->noise_scale *= a == 0 ? 0.5 : a == 1 ? 1 - 1e-7 : a == 2 ? 0.0 : -1.0; }
static void t_scale_nan(dpb_release *r, int a) { r->noise_scale = a ? INFINITY : NAN; }
static void t_weight(dpb_release *r, int a) { r->block_weight[a % r->nblocks] *= 2.0; }
static void t_weight_all(dpb_release *r, int a) { int b; for (b = 0; b < r->nblocks; b++) r->block_weight[b] *= 3.0; }
static void t_noise_weight(dpb_release *r, int a)
{
	/* both copies of a given weight: the calibration no longer matches */
	if (r->p.nweights)
	{
		r->p.noise_weights[a % r->nblocks] *= 2.0;
		r->block_weight[a % r->nblocks] *= 2.0;
	}
	else
		r->block_weight[a % r->nblocks] *= 2.0;
}
static void t_block_sens(dpb_release *r, int a) { r->block_sens[a % r->nblocks] *= 0.9; }
static void t_eps(dpb_release *r, int a) { r->p.epsilon *= a == 0 ? 2.0 : a == 1 ? 1 + 1e-6 : 0.5; }
static void t_delta(dpb_release *r, int a) { if (r->p.mechanism == DPB_MECH_GAUSSIAN) r->p.delta *= a ? 10.0 : 0.5; else r->p.delta = 1e-5; }
static void t_clip(dpb_release *r, int a) { r->p.clip *= a ? 0.5 : 1.1; }
static void t_ybound(dpb_release *r, int a) { r->p.y_bound = r->p.y_bound == 0 ? 2.0 : r->p.y_bound * (a ? 0.5 : 1.1); }
static void t_mech(dpb_release *r, int a)
{
	r->p.mechanism = r->p.mechanism == DPB_MECH_GAUSSIAN ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN;
	r->p.delta = r->p.mechanism == DPB_MECH_LAPLACE ? 0.0 : 1e-5;
}
static void t_none(dpb_release *r, int a) { r->p.mechanism = DPB_MECH_NONE; r->p.delta = 0; }
static void t_model(dpb_release *r, int a) { r->model = (dpb_model) (1 + (r->model + a) % 3); }
static void t_intercept(dpb_release *r, int a) { r->p.intercept = !r->p.intercept; }
static void t_n(dpb_release *r, int a) { r->n = a ? INT64_MIN : -1; }
static void t_stat(dpb_release *r, int a) { r->stats[a % r->nstats] = a % 2 ? INFINITY : NAN; }
static void t_version(dpb_release *r, int a) { r->version = a ? 0 : DPB_RELEASE_VERSION + 1; }
static void t_name(dpb_release *r, int a)
{
	if (!r->p.has_names)
	{
		r->p.has_names = 1;		/* names all empty */
		return;
	}
	if (a)
		strcpy(r->p.names[0], "new\nline");
	else
		r->p.names[r->d - 1][0] = '\0';
}
static void t_bounds(dpb_release *r, int a)
{
	if (!r->p.has_bounds)
	{
		r->p.has_bounds = 1;	/* all bounds 0: lower >= upper */
		return;
	}
	if (a)
		r->p.lower[0] = r->p.upper[0];
	else
		r->p.upper[r->d - 1] = NAN;
}
static void t_nblocks(dpb_release *r, int a) { r->nblocks += a ? 1 : -1; }

/*
 * consistent: 0 = must be rejected; 1 = a changed weight of a block: with
 * given noise weights it is a change of the privacy parameters, accepted
 * when the sensitivity does not depend on that block's weight (e.g. linear
 * regression without intercept, where the supremum has y'^2 = y^2 and the
 * y^2 block does not move), provided the calibration matches; at least one
 * block's change must be rejected.
 */
static const struct
{
	const char *name;
	tamper_fn	fn;
	int			nargs;
	int			consistent;
} tampers[] = {
	{"sensitivity", t_sens, 4, 0},
	{"sensitivity non-finite", t_sens_nan, 2, 0},
	{"noise_scale", t_scale, 4, 0},
	{"noise_scale non-finite", t_scale_nan, 2, 0},
	{"block weight", t_weight, 4, 1},
	{"all block weights", t_weight_all, 1, 0},
	{"noise weight", t_noise_weight, 4, 1},
	{"block sensitivity", t_block_sens, 4, 0},
	{"epsilon", t_eps, 3, 0},
	{"delta", t_delta, 2, 0},
	{"clip", t_clip, 2, 0},
	{"mechanism", t_mech, 1, 0},
	{"mechanism none", t_none, 1, 0},
	{"model", t_model, 2, 0},
	{"intercept", t_intercept, 1, 0},
	{"n", t_n, 2, 0},
	{"statistic", t_stat, 3, 0},
	{"version", t_version, 2, 0},
	{"name", t_name, 2, 0},
	{"bounds", t_bounds, 2, 0},
	{"nblocks", t_nblocks, 2, 0},
	{"y_bound", t_ybound, 2, 0},
};

static void
check_tampering(const relcfg *c)
{
	dpb_release r,
				t,
				u;
	dpb_err		err;
	char		what[200];
	unsigned char *buf;
	size_t		size;
	int			i,
				a;

	cfg_name(c, what, sizeof(what));
	if (!make_release(&r, c))
		return;
	for (i = 0; i < (int) (sizeof(tampers) / sizeof(tampers[0])); i++)
	{
		int			nrej = 0;

		for (a = 0; a < tampers[i].nargs; a++)
		{
			dpb_status	st;
			int			may_pass;

			/* y_bound does not apply to logistic */
			if (tampers[i].fn == t_ybound && c->model == DPB_MODEL_LOGISTIC)
				continue;
			t = r;
			t.stats = malloc(sizeof(double) * (r.nstats + 4));
			memcpy(t.stats, r.stats, sizeof(double) * (r.nstats + 4));
			tampers[i].fn(&t, a);
			memset(&err, 0, sizeof(err));
			st = dpb_release_validate(&t, &err);
			may_pass = tampers[i].consistent && t.p.nweights &&
				tampers[i].fn == t_noise_weight;
			if (st == DPB_ECORRUPT)
				nrej++;
			if (may_pass && st == DPB_OK)
				CHECK(calibration_matches(&t), "%s: tampered %s (%d) validates, inconsistent",
					  what, tampers[i].name, a);
			else
				CHECK(st == DPB_ECORRUPT && err.msg[0] != '\0',
					  "%s: tampered %s (%d) validates (status %d)", what, tampers[i].name, a, (int) st);
			/* the same through the packed form (its fields permitting);
			 * there a given weight is both copies */
			may_pass = tampers[i].consistent && t.p.nweights;
			if (t.nblocks >= 1 && t.nblocks <= DPB_MAX_BLOCKS && t.version >= 0 &&
				t.model >= 1 && t.model <= 3)
			{
				buf = pack_release(&t, &size);
				st = unpack_copy(buf, size, &u, &err);
				if (may_pass && st == DPB_OK)
					CHECK(calibration_matches(&u), "%s: tampered %s (%d) unpacks, inconsistent",
						  what, tampers[i].name, a);
				else
					CHECK(st == DPB_ECORRUPT && u.stats == NULL,
						  "%s: tampered %s (%d) unpacks (status %d)", what, tampers[i].name, a, (int) st);
				if (u.stats)
					dpb_release_free_stats(&u);
				free(buf);
			}
			free(t.stats);
		}
		CHECK(nrej > 0 || tampers[i].fn == t_ybound, "%s: no tampering of %s rejected",
			  what, tampers[i].name);
	}
	/* untampered, recalibrated: still valid (the checks above are not
	 * rejecting everything) */
	t = r;
	CHECK(dpb_release_calibrate(&t, &err) == DPB_OK &&
		  dpb_release_validate(&t, &err) == DPB_OK, "%s: recalibrated release invalid", what);
	/* a tampered parameter with a matching recalibration, and statistics
	 * moved onto the new grid, is consistent (only a signature can tell:
	 * validation checks consistency, not origin) */
	t.p.epsilon *= 2;
	CHECK(dpb_release_calibrate(&t, &err) == DPB_OK, "%s: recalibrate", what);
	{
		dpb_layout	L;
		dpb_entry	en;
		int			k;

		t.stats = malloc(sizeof(double) * t.nstats);
		dpb_release_layout(&t, &L);
		for (k = 0; k < t.nstats; k++)
		{
			dpb_layout_entry(&L, k, &en);
			t.stats[k] = ldexp(nearbyint(ldexp(r.stats[k], -t.grid_exp[en.block]) / 4),
							   t.grid_exp[en.block]);
		}
	}
	CHECK(dpb_release_validate(&t, &err) == DPB_OK,
		  "%s: epsilon changed and recalibrated: invalid: %s", what, err.msg);
	free(t.stats);
	CHECK(t.noise_scale < r.noise_scale, "%s: larger epsilon, not less noise", what);
	free(r.stats);
}

/* ------------------------------------------------------------------ */
/* noise                                                              */
/* ------------------------------------------------------------------ */

static int	fail_fill(void *ctx, void *buf, size_t len) { (void) ctx; memset(buf, 0, len); return 0; }

static void
check_noise(const relcfg *c, gsl_rng *grng)
{
	dpb_rbits  *rng = sim_bits(grng);
	dpb_release r,
				before;
	dpb_layout	L;
	dpb_entry	e;
	dpb_err		err;
	char		what[200];
	double	   *scale,
			   *sd,
			   *want,
			   *orig,
			   *ss,
			   *sa;
	int			k,
				rep,
				bad,
				nrep = 3000;
	double		pooled = 0,
				pooled_abs = 0,
				tol_sd,
				tol_abs;

	cfg_name(c, what, sizeof(what));
	if (!make_release(&r, c))
		return;
	dpb_release_layout(&r, &L);
	scale = malloc(sizeof(double) * r.nstats);
	sd = malloc(sizeof(double) * r.nstats);
	want = malloc(sizeof(double) * r.nstats);
	orig = malloc(sizeof(double) * (r.nstats + 4));
	ss = calloc(r.nstats, sizeof(double));
	sa = calloc(r.nstats, sizeof(double));

	/* the documented per-entry scales: gaussian sigma_b / weight, laplace b_b */
	dpb_release_noise_scale(&r, scale);
	dpb_release_noise_sd(&r, sd);
	bad = 0;
	for (k = 0; k < r.nstats; k++)
	{
		double		blk;

		dpb_layout_entry(&L, k, &e);
		blk = r.block_weight[e.block] * r.noise_scale;
		want[k] = c->mech == DPB_MECH_GAUSSIAN ? blk / e.weight : blk;
		if (c->mech == DPB_MECH_GAUSSIAN && e.i >= 0 && e.j >= 0 && e.i != e.j)
			bad += fabs(e.weight - M_SQRT2) > 1e-15;
		/* the discrete noise's scale is the nominal one rounded up on the
		 * grid g: sigma^2 / g^2 or b / g up to the next integer */
		{
			double		g = ldexp(1.0, r.grid_exp[e.block]);

			bad += !(scale[k] >= want[k]) ||
				(c->mech == DPB_MECH_GAUSSIAN ?
				 scale[k] * scale[k] > want[k] * want[k] * (1 + 1e-15) + g * g :
				 scale[k] > want[k] + g);
		}
		bad += !rel_close(sd[k], c->mech == DPB_MECH_LAPLACE ? M_SQRT2 * scale[k] : scale[k], 1e-14);
		bad += !(want[k] > 0);
	}
	CHECK(bad == 0, "%s: per-entry noise scales", what);

	/* calibrate + add_noise touch nothing but the contents of r.stats */
	memcpy(orig, r.stats, sizeof(double) * (r.nstats + 4));
	memcpy(&before, &r, sizeof(r));
	CHECK(dpb_release_calibrate(&r, &err) == DPB_OK, "%s: recalibrate", what);
	CHECK(memcmp(&before, &r, sizeof(r)) == 0, "%s: recalibration changed the release", what);
	CHECK(dpb_release_add_noise(&r, NULL, NULL, rng, &err) == DPB_OK, "%s: add_noise: %s", what, err.msg);
	CHECK(memcmp(&before, &r, sizeof(r)) == 0, "%s: add_noise changed more than the stats", what);
	bad = 0;
	for (k = 0; k < r.nstats; k++)
		bad += r.stats[k] == 0;
	CHECK(bad <= 1, "%s: %d entries without noise", what, bad);
	CHECK(dpb_release_on_grid(&r, NULL), "%s: noisy values off the grid", what);
	CHECK(memcmp(r.stats + r.nstats, orig + r.nstats, 4 * sizeof(double)) == 0,
		  "%s: add_noise wrote past nstats", what);

	/*
	 * The distribution of the noise, entry by entry and pooled.  The
	 * tolerances are 5 standard errors of the estimates from n draws, in
	 * units of the scale: the sd's relative standard error is
	 * sqrt(kurtosis - 1) / (2 sqrt(n)), 0.707 / sqrt(n) for the Gaussian and
	 * 1.118 / sqrt(n) for the Laplace; the mean |v|'s is 0.755 / sqrt(n)
	 * (Gaussian, sqrt(pi / 2 - 1)) and 1 / sqrt(n) (Laplace: |v| is
	 * exponential).  At 3000 draws an entry's noise off by 11% or the pooled
	 * noise off by 3-5% fails.
	 */
	tol_sd = 5 * (c->mech == DPB_MECH_LAPLACE ? 1.118 : 0.7072);
	tol_abs = 5 * (c->mech == DPB_MECH_LAPLACE ? 1.0 : 0.7555);
	for (rep = 0; rep < nrep; rep++)
	{
		dpb_release_add_noise(&r, NULL, NULL, rng, NULL);
		for (k = 0; k < r.nstats; k++)
		{
			double		v = r.stats[k] / want[k];

			ss[k] += v * v;
			sa[k] += fabs(v);
		}
	}
	bad = 0;
	for (k = 0; k < r.nstats; k++)
	{
		/* in units of the entry's scale: gaussian sd 1; laplace sd sqrt 2,
		 * mean |v| 1 */
		double		s = sqrt(ss[k] / nrep),
					m = sa[k] / nrep,
					s_want = c->mech == DPB_MECH_LAPLACE ? M_SQRT2 : 1.0,
					m_want = c->mech == DPB_MECH_LAPLACE ? 1.0 : sqrt(2 / M_PI);

		pooled += ss[k];
		pooled_abs += sa[k];
		if ((fabs(s / s_want - 1) > tol_sd / sqrt(nrep) ||
			 fabs(m / m_want - 1) > tol_abs / sqrt(nrep)) && bad++ < 3)
			CHECK(0, "%s: entry %d: noise sd %.4g x scale, want %.4g (mean |v| %.4g, want %.4g)",
				  what, k, s, s_want, m, m_want);
	}
	CHECK(bad == 0, "%s: %d entries with the wrong noise scale", what, bad);
	pooled = sqrt(pooled / ((double) nrep * r.nstats));
	CHECK(fabs(pooled / (c->mech == DPB_MECH_LAPLACE ? M_SQRT2 : 1.0) - 1) <
		  tol_sd / sqrt((double) nrep * r.nstats),
		  "%s: pooled noise sd %.5g x scale", what, pooled);
	pooled_abs /= (double) nrep * r.nstats;
	CHECK(fabs(pooled_abs / (c->mech == DPB_MECH_LAPLACE ? 1.0 : sqrt(2 / M_PI)) - 1) <
		  tol_abs / sqrt((double) nrep * r.nstats),
		  "%s: pooled mean |noise| %.5g x scale", what, pooled_abs);
	CHECK(memcmp(r.stats + r.nstats, orig + r.nstats, 4 * sizeof(double)) == 0,
		  "%s: add_noise wrote past nstats", what);

	/* a noisy copy leaves the original alone */
	{
		dpb_release cp = r;
		double	   *mine = malloc(sizeof(double) * r.nstats);

		memcpy(r.stats, orig, sizeof(double) * r.nstats);
		cp.stats = malloc(sizeof(double) * r.nstats);
		memcpy(cp.stats, r.stats, sizeof(double) * r.nstats);
		memcpy(mine, r.stats, sizeof(double) * r.nstats);
		dpb_release_add_noise(&cp, NULL, NULL, rng, NULL);
		CHECK(memcmp(mine, r.stats, sizeof(double) * r.nstats) == 0,
			  "%s: noise on a copy changed the original", what);
		free(cp.stats);
		free(mine);
	}

	/* a failing random source is reported */
	{
		dpb_rbits  *bad_rng = dpb_rbits_new(fail_fill, NULL);

		memset(&err, 0, sizeof(err));
		CHECK(dpb_release_add_noise(&r, NULL, NULL, bad_rng, &err) == DPB_ERNG && err.msg[0] != '\0',
			  "%s: failing random source not reported", what);
		dpb_rbits_free(bad_rng);
	}
	dpb_rbits_free(rng);
	free(scale);
	free(sd);
	free(want);
	free(orig);
	free(ss);
	free(sa);
	free(r.stats);
}

/* ------------------------------------------------------------------ */
/* a strict JSON parser (RFC 8259), enough to inspect the output       */
/* ------------------------------------------------------------------ */

enum
{
	J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ
};

typedef struct jval
{
	int			type;
	double		num;
	char	   *str;			/* J_STR: decoded (UTF-8) */
	int			n;				/* J_ARR, J_OBJ */
	char	  **keys;			/* J_OBJ */
	struct jval *items;
} jval;

typedef struct jparser
{
	const char *p;
	int			err;
	int			depth;
} jparser;

static void
jskip(jparser *P)
{
	while (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')
		P->p++;
}

static void jparse(jparser *P, jval *v);

static char *
jstring(jparser *P)
{
	size_t		cap = 16,
				n = 0;
	char	   *s = malloc(cap);

	if (*P->p != '"')
	{
		P->err = 1;
		s[0] = 0;
		return s;
	}
	P->p++;
	for (;;)
	{
		unsigned char c = (unsigned char) *P->p;
		unsigned	cp = 0;

		if (n + 5 >= cap)
			s = realloc(s, cap *= 2);
		if (c == '"')
		{
			P->p++;
			break;
		}
		if (c < 0x20)			/* includes the end of the text */
		{
			P->err = 1;
			break;
		}
		if (c != '\\')
		{
			s[n++] = (char) c;
			P->p++;
			continue;
		}
		P->p++;
		switch (*P->p)
		{
			case '"':
			case '\\':
			case '/':
				s[n++] = *P->p;
				break;
			case 'b':
				s[n++] = '\b';
				break;
			case 'f':
				s[n++] = '\f';
				break;
			case 'n':
				s[n++] = '\n';
				break;
			case 'r':
				s[n++] = '\r';
				break;
			case 't':
				s[n++] = '\t';
				break;
			case 'u':
				{
					int			i;

					for (i = 1; i <= 4; i++)
					{
						char		h = P->p[i];

						cp = cp * 16 + (h >= '0' && h <= '9' ? h - '0' :
										h >= 'a' && h <= 'f' ? h - 'a' + 10 :
										h >= 'A' && h <= 'F' ? h - 'A' + 10 : (P->err = 1, 0));
						if (P->err)
							break;
					}
					if (P->err)
						goto out;
					P->p += 4;
					if (cp < 0x80)
						s[n++] = (char) cp;
					else if (cp < 0x800)
					{
						s[n++] = (char) (0xc0 | (cp >> 6));
						s[n++] = (char) (0x80 | (cp & 0x3f));
					}
					else
					{
						s[n++] = (char) (0xe0 | (cp >> 12));
						s[n++] = (char) (0x80 | ((cp >> 6) & 0x3f));
						s[n++] = (char) (0x80 | (cp & 0x3f));
					}
					break;
				}
			default:
				P->err = 1;
				goto out;
		}
		P->p++;
	}
out:
	s[n] = 0;
	return s;
}

static void
jnumber(jparser *P, jval *v)
{
	const char *q = P->p;

	if (*q == '-')
		q++;
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		while (*q >= '0' && *q <= '9')
			q++;
	else
	{
		P->err = 1;
		return;
	}
	if (*q == '.')
	{
		q++;
		if (!(*q >= '0' && *q <= '9'))
		{
			P->err = 1;
			return;
		}
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q == 'e' || *q == 'E')
	{
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!(*q >= '0' && *q <= '9'))
		{
			P->err = 1;
			return;
		}
		while (*q >= '0' && *q <= '9')
			q++;
	}
	v->type = J_NUM;
	v->num = strtod(P->p, NULL);
	P->p = q;
}

static void
jparse(jparser *P, jval *v)
{
	memset(v, 0, sizeof(*v));
	jskip(P);
	if (P->err || ++P->depth > 64)
	{
		P->err = 1;
		return;
	}
	if (*P->p == '{' || *P->p == '[')
	{
		int			obj = *P->p == '{';
		char		close = obj ? '}' : ']';

		v->type = obj ? J_OBJ : J_ARR;
		P->p++;
		jskip(P);
		if (*P->p == close)
			P->p++;
		else
			for (;;)
			{
				v->items = realloc(v->items, sizeof(jval) * (v->n + 1));
				if (obj)
				{
					v->keys = realloc(v->keys, sizeof(char *) * (v->n + 1));
					jskip(P);
					v->keys[v->n] = jstring(P);
					jskip(P);
					if (*P->p != ':')
						P->err = 1;
					else
						P->p++;
				}
				jparse(P, &v->items[v->n]);
				v->n++;
				if (P->err)
					break;
				jskip(P);
				if (*P->p == ',')
				{
					P->p++;
					continue;
				}
				if (*P->p == close)
				{
					P->p++;
					break;
				}
				P->err = 1;
				break;
			}
	}
	else if (*P->p == '"')
	{
		v->type = J_STR;
		v->str = jstring(P);
	}
	else if (strncmp(P->p, "null", 4) == 0)
	{
		v->type = J_NULL;
		P->p += 4;
	}
	else if (strncmp(P->p, "true", 4) == 0 || strncmp(P->p, "false", 5) == 0)
	{
		v->type = J_BOOL;
		v->num = P->p[0] == 't';
		P->p += P->p[0] == 't' ? 4 : 5;
	}
	else
		jnumber(P, v);
	P->depth--;
}

static void
jfree(jval *v)
{
	int			i;

	for (i = 0; i < v->n; i++)
	{
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

/* parses a whole text; returns 0 on a syntax error or trailing text */
static int
jparse_text(const char *text, jval *v)
{
	jparser		P = {text, 0, 0};

	jparse(&P, v);
	jskip(&P);
	return !P.err && *P.p == '\0';
}

static const jval *
jget(const jval *o, const char *key)
{
	int			i,
				found = -1;

	if (o == NULL || o->type != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
		{
			if (found >= 0)
				return NULL;	/* duplicate key */
			found = i;
		}
	return found >= 0 ? &o->items[found] : NULL;
}

/* ------------------------------------------------------------------ */
/* JSON output                                                        */
/* ------------------------------------------------------------------ */

static void
check_json(const relcfg *c)
{
	dpb_release r;
	dpb_layout	L;
	dpb_buf		out;
	jval		root;
	const jval *v,
			   *blocks;
	double	   *sd;
	char		what[200];
	int			b,
				k,
				j,
				bad = 0;

	cfg_name(c, what, sizeof(what));
	if (!make_release(&r, c))
		return;
	dpb_release_layout(&r, &L);
	sd = malloc(sizeof(double) * r.nstats);
	dpb_release_noise_sd(&r, sd);
	dpb_buf_init(&out);
	CHECK(dpb_release_to_json(&r, &out) == DPB_OK && !out.oom, "%s: to_json", what);
	CHECK(strlen(out.data) == out.len, "%s: buffer length", what);
	if (!jparse_text(out.data, &root))
	{
		CHECK(0, "%s: not valid JSON: %.300s", what, out.data);
		jfree(&root);
		dpb_buf_free(&out);
		free(sd);
		free(r.stats);
		return;
	}
	CHECK(root.type == J_OBJ, "%s: not an object", what);
	v = jget(&root, "format");
	CHECK(v && v->type == J_STR && strcmp(v->str, "dpbayes.release") == 0, "%s: format", what);
	v = jget(&root, "version");
	CHECK(v && v->type == J_NUM && v->num == DPB_RELEASE_VERSION, "%s: version", what);
	v = jget(&root, "model");
	CHECK(v && v->type == J_STR && strcmp(v->str, dpb_model_name(c->model)) == 0, "%s: model", what);
	v = jget(&root, "n");
	if (c->addrem)
		CHECK(v && v->type == J_NULL, "%s: n must be null under add_remove", what);
	else
		CHECK(v && v->type == J_NUM && v->num == (double) r.n, "%s: n", what);
	v = jget(&root, "neighbours");
	CHECK(v && v->type == J_STR &&
		  strcmp(v->str, c->addrem ? "add_remove" : "replace") == 0, "%s: neighbours", what);
	v = jget(&root, "d");
	CHECK(v && v->type == J_NUM && v->num == c->d, "%s: d", what);
	v = jget(&root, "mechanism");
	CHECK(v && v->type == J_STR && strcmp(v->str, dpb_mechanism_name(c->mech)) == 0,
		  "%s: mechanism", what);
	v = jget(&root, "epsilon");
	CHECK(v && v->type == J_NUM && v->num == r.p.epsilon, "%s: epsilon", what);
	v = jget(&root, "noise_scale");
	CHECK(v && v->type == J_NUM && v->num == r.noise_scale, "%s: noise_scale exact", what);
	v = jget(&root, "sensitivity");
	CHECK(v && v->type == J_NUM && v->num == r.sensitivity, "%s: sensitivity exact", what);
	v = jget(&root, "features");
	if (c->names)
	{
		CHECK(v && v->type == J_ARR && v->n == c->d, "%s: features", what);
		for (j = 0; v && v->type == J_ARR && j < v->n; j++)
			CHECK(v->items[j].type == J_STR && strcmp(v->items[j].str, r.p.names[j]) == 0,
				  "%s: feature name %d decodes to \"%s\", want \"%s\"", what, j + 1,
				  v->items[j].str ? v->items[j].str : "", r.p.names[j]);
	}
	else
		CHECK(v && v->type == J_NULL, "%s: features null", what);
	v = jget(&root, "lower");
	if (c->bounds)
	{
		CHECK(v && v->type == J_ARR && v->n == c->d, "%s: lower", what);
		for (j = 0; v && v->type == J_ARR && j < v->n; j++)
			bad += v->items[j].type != J_NUM || v->items[j].num != r.p.lower[j];
	}
	else
		CHECK(v && v->type == J_NULL, "%s: lower null", what);

	blocks = jget(&root, "blocks");
	CHECK(blocks && blocks->type == J_ARR && blocks->n == L.nblocks, "%s: blocks", what);
	for (b = 0; blocks && blocks->type == J_ARR && b < blocks->n && b < L.nblocks; b++)
	{
		const jval *blk = &blocks->items[b],
				   *vals = jget(blk, "values"),
				   *sds = jget(blk, "noise_sd"),
				   *ent = jget(blk, "entries"),
				   *kind = jget(blk, "kind");

		CHECK(kind && kind->type == J_STR && strcmp(kind->str, dpb_block_kind_name(L.kind[b])) == 0,
			  "%s: block %d kind", what, b);
		CHECK(vals && vals->type == J_ARR && vals->n == L.len[b], "%s: block %d values", what, b);
		CHECK(sds && sds->type == J_ARR && sds->n == L.len[b], "%s: block %d noise_sd", what, b);
		CHECK(ent && ent->type == J_ARR && ent->n == L.len[b], "%s: block %d entries", what, b);
		for (k = 0; vals && vals->type == J_ARR && k < vals->n && k < L.len[b]; k++)
			bad += vals->items[k].type != J_NUM ||
				vals->items[k].num != r.stats[L.start[b] + k] ||
				signbit(vals->items[k].num) != signbit(r.stats[L.start[b] + k]);
		for (k = 0; sds && sds->type == J_ARR && k < sds->n && k < L.len[b]; k++)
			bad += sds->items[k].type != J_NUM || sds->items[k].num != sd[L.start[b] + k];
		for (k = 0; ent && ent->type == J_ARR && k < ent->n && k < L.len[b]; k++)
		{
			char		label[4 * DPB_NAME_LEN];
			const char *names[DPB_MAX_D];

			for (j = 0; j < c->d; j++)
				names[j] = c->names ? r.p.names[j] : NULL;
			dpb_layout_label(&L, L.start[b] + k, names, label, sizeof(label));
			bad += ent->items[k].type != J_STR || strcmp(ent->items[k].str, label) != 0;
		}
	}
	CHECK(bad == 0, "%s: %d numbers or labels do not round-trip exactly", what, bad);

	/* the escapes themselves, in the text */
	if (c->names && c->d >= 3)
	{
		CHECK(strstr(out.data, "\"a \\\"quoted\\\" name\"") != NULL, "%s: quote not escaped", what);
		CHECK(strstr(out.data, "\"back\\\\slash\"") != NULL, "%s: backslash not escaped", what);
	}
	jfree(&root);
	dpb_buf_free(&out);

	/* control characters in names (not valid names, but to_json must not
	 * emit invalid JSON for them) */
	if (c->names)
	{
		strcpy(r.p.names[0], "tab\there\x01\x1f");
		dpb_buf_init(&out);
		dpb_release_to_json(&r, &out);
		CHECK(jparse_text(out.data, &root), "%s: control characters make invalid JSON", what);
		v = jget(&root, "features");
		CHECK(v && v->type == J_ARR && v->n >= 1 && v->items[0].type == J_STR &&
			  strcmp(v->items[0].str, "tab\there\x01\x1f") == 0,
			  "%s: control characters do not round-trip", what);
		jfree(&root);
		dpb_buf_free(&out);
	}
	free(sd);
	free(r.stats);
}

/* the JSON parser itself must reject what it should */
static void
check_json_parser(void)
{
	static const char *const bad[] = {
		"", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "\"abc", "\"a\x01\"",
		"01", "1.", ".5", "-", "1e", "nul", "[1]]", "{\"a\":[}", "\"\\x\"", "[\"\\u12g4\"]",
		"{a:1}", "[1] x",
	};
	static const char *const good[] = {
		"{}", "[]", "0", "-0.5e-3", "\"\\u00e9\\\\\\\"\"", "{\"a\": [1, {\"b\": null}], \"c\": true}",
	};
	jval		v;
	int			i;

	for (i = 0; i < (int) (sizeof(bad) / sizeof(bad[0])); i++)
	{
		CHECK(!jparse_text(bad[i], &v), "JSON parser accepts \"%s\"", bad[i]);
		jfree(&v);
	}
	for (i = 0; i < (int) (sizeof(good) / sizeof(good[0])); i++)
	{
		CHECK(jparse_text(good[i], &v), "JSON parser rejects \"%s\"", good[i]);
		jfree(&v);
	}
}

/* functions handed a release whose statistic count does not match its
 * layout must not read or write past r->stats */
/* ------------------------------------------------------------------ */
/* version 2 releases (the grid of T2 with an intercept at max(1, R)^2) */
/* ------------------------------------------------------------------ */

/*
 * Releases packed by the code before format version 3 (commit 7165d86,
 * deterministic test noise): the values, the recorded noise scale sigma0
 * (b0), the grid exponents and the first entry's noise scale it derived.
 * They must still unpack and validate, with their own (coarser) grid and
 * noise, and pack back to the same bytes.
 */
static const struct
{
	const char *hex;
	double		noise_scale;
	double		entry0_scale;
	int			grid_exp[4];
	int			nblocks;
}			v2_fixtures[] = {
	{
		/* linear gaussian, d 2, intercept, clip 1e-3, y_bound 1, add_remove */
		"44504252020001010123020004000000000000000000000000000000f03ff168"
		"e388b5f8e43efca9f1d24d62503f000000000000f03f00000000000000403815"
		"5850786d204000974538a1a42b573f974538a1a42b573f0b9a3e860000f03f0b"
		"9a3e860000f03f38df06000000f03f38df06000000f03f38df06000000f03f38"
		"df06000000f03f0a0000000000000000a072bf0000000000a88a3f0000000000"
		"40523f00000000002068bf0000000000a0753f000000001c3017400000000096"
		"fc2dc000000000cb9e304000000000451335400000008094834140",
		8.2138085467837385, 0.0082138218845002053, {-16, -16, -16, -16}, 4
	},
	{
		/* logistic gaussian, d 2, intercept, clip 1e-6, replace */
		"44504252020002010103020002002800000000000000000000000000f03ff168"
		"e388b5f8e43e8dedb5a0f7c6b03e000000000000000094357f669ea0f63fde8a"
		"143d7edc50400004e806000000004004e8060000000040549a924100bac73e54"
		"9a924100bac73e080000000000000030a428c000000000f8c745c0000000009c"
		"1f4e4000000000000008bf00000000000010bf00000000000032bf0000000000"
		"00203f00000000000014bf",
		67.445204992352473, 134.89040999830095, {-13, -16, 0, 0}, 2
	},
	{
		/* linear laplace, d 1, intercept, clip 0.01, y_bound 0.5, add_remove */
		"44504252020001020123010004000000000000000000000000000000f03f0000"
		"0000000000007b14ae47e17a843f000000000000e03f0000000000001040173f"
		"31012e03104000522f8d0d4faf843f522f8d0d4faf843ff94c96c2f528e03ff9"
		"4c96c2f528e03f38df06000000d03f38df06000000d03f38df06000000f03f38"
		"df06000000f03f060000000000000000349ebf0000000000d8853f00000000d6"
		"a513400000000016c210400000000093ee124000000080dd434140",
		4.0031051813419003, 0.040435791015625, {-16, -17, -18, -16}, 4
	},
	{
		/* poisson gaussian, d 1, intercept, clip 0.2, y_bound 3, add_remove */
		"44504252020003010123010003000000000000000000000000000000f03ff168"
		"e388b5f8e43e9a9999999999c93f0000000000000840aa4c58e87ab6fb3f970f"
		"654c03071c40004afb80df3448d23f4afb80df3448d23f57e1668fc2f5084057"
		"e1668fc2f5084038df06000000f03f38df06000000f03f060000000000000080"
		"cef7bf0000000000a6d93f000000005149554000000000441739400000000030"
		"251e400000008053d74140",
		7.0068485199625661, 1.41531402479641, {-16, -14, -16, 0}, 3
	},
};

static unsigned char *
from_hex(const char *hex, size_t *len)
{
	size_t		n = strlen(hex) / 2,
				i;
	unsigned char *buf = malloc(n);

	for (i = 0; i < n; i++)
	{
		unsigned	v;

		sscanf(hex + 2 * i, "%2x", &v);
		buf[i] = (unsigned char) v;
	}
	*len = n;
	return buf;
}

static void
check_version2(void)
{
	int			f,
				b;

	for (f = 0; f < (int) (sizeof(v2_fixtures) / sizeof(v2_fixtures[0])); f++)
	{
		size_t		len,
					len2;
		unsigned char *buf = from_hex(v2_fixtures[f].hex, &len),
				   *again;
		dpb_release r,
					now;
		dpb_err		err;
		double		sc[64];
		int			same_grid = 1,
					finer = 0;

		CHECK(dpb_release_unpack(buf, len, &r, &err) == DPB_OK,
			  "version 2 fixture %d: %s (%s)", f, err.msg, err.detail);
		if (r.stats == NULL)
		{
			free(buf);
			continue;
		}
		CHECK(r.version == 2 && r.nblocks == v2_fixtures[f].nblocks,
			  "version 2 fixture %d: version %d, %d blocks", f, r.version, r.nblocks);
		for (b = 0; b < r.nblocks && b < 4; b++)
			same_grid &= r.grid_exp[b] == v2_fixtures[f].grid_exp[b];
		dpb_release_noise_scale(&r, sc);
		CHECK(same_grid && r.noise_scale == v2_fixtures[f].noise_scale &&
			  sc[0] == v2_fixtures[f].entry0_scale,
			  "version 2 fixture %d: grid, sigma0 %.17g or scale %.17g differ from the code that made it",
			  f, r.noise_scale, sc[0]);
		/* packs back to the same bytes (a signature over them stays valid) */
		again = pack_release(&r, &len2);
		CHECK(len2 == len && memcmp(again, buf, len) == 0,
			  "version 2 fixture %d does not pack back to its bytes", f);
		free(again);

		/* the same parameters now: version 3, a finer T2 grid, less noise */
		now = r;
		now.version = DPB_RELEASE_VERSION;
		now.stats = NULL;
		CHECK(dpb_release_calibrate(&now, &err) == DPB_OK, "recalibrate: %s", err.msg);
		for (b = 0; b < r.nblocks; b++)
		{
			CHECK(now.grid_exp[b] <= r.grid_exp[b], "version 3 grid coarser in block %d", b + 1);
			finer |= now.grid_exp[b] < r.grid_exp[b];
		}
		CHECK(finer && now.noise_scale < r.noise_scale,
			  "version 2 fixture %d: version 3 is not finer (sigma0 %.17g vs %.17g)",
			  f, now.noise_scale, r.noise_scale);

		/* a version 2 release relabelled 3 (its calibration is not
		 * version 3's) is refused, and so is a version 3 release
		 * relabelled 2 */
		{
			dpb_release back;

			buf[4] = 3;
			CHECK(unpack_copy(buf, len, &back, &err) == DPB_ECORRUPT,
				  "version 2 fixture %d relabelled version 3 is accepted", f);
			if (back.stats)
				dpb_release_free_stats(&back);
			now.stats = r.stats;	/* on the version 2 grid, so on the finer one */
			again = pack_release(&now, &len2);
			CHECK(unpack_copy(again, len2, &back, &err) == DPB_OK,
				  "version 3 twin of fixture %d: %s (%s)", f, err.msg, err.detail);
			if (back.stats)
				dpb_release_free_stats(&back);
			again[4] = 2;
			CHECK(unpack_copy(again, len2, &back, &err) == DPB_ECORRUPT,
				  "version 3 twin of fixture %d relabelled version 2 is accepted", f);
		}
		free(again);
		dpb_release_free_stats(&r);
		free(buf);
	}
}

static void
check_inconsistent(gsl_rng *rng)
{
	dpb_rbits  *rb = sim_bits(rng);
	dpb_release r;
	dpb_buf		out;
	dpb_err		err;
	double	   *stats,
				scale[64];
	int			k,
				n,
				bad = 0;

	if (!make_release(&r, &configs[0]))
		return;
	n = r.nstats;
	r.nstats = n - 3;
	stats = malloc(sizeof(double) * r.nstats);	/* exactly nstats entries */
	memcpy(stats, r.stats, sizeof(double) * r.nstats);
	free(r.stats);
	r.stats = stats;
	CHECK(dpb_release_add_noise(&r, NULL, NULL, rb, &err) == DPB_ECORRUPT,
		  "add_noise on a release with too few statistics");
	dpb_buf_init(&out);
	CHECK(dpb_release_to_json(&r, &out) == DPB_ECORRUPT,
		  "to_json on a release with too few statistics");
	dpb_buf_free(&out);
	for (k = 0; k < 64; k++)
		scale[k] = -1;
	dpb_release_noise_scale(&r, scale);
	dpb_release_noise_sd(&r, scale);
	for (k = r.nstats; k < 64; k++)
		bad += scale[k] != -1;
	CHECK(bad == 0 && n < 64, "noise_scale wrote past r->nstats");
	r.nstats = n;
	r.nblocks--;
	CHECK(dpb_release_add_noise(&r, NULL, NULL, rb, &err) == DPB_ECORRUPT,
		  "add_noise on a release with a wrong block count");
	free(r.stats);
	dpb_rbits_free(rb);
}

void
test_release(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			i;

	gsl_rng_set(rng, USEED(4242));
	check_json_parser();
	check_inconsistent(rng);
	check_version2();
	for (i = 0; i < NCONFIGS; i++)
	{
		check_packing(&configs[i]);
		check_tampering(&configs[i]);
		check_json(&configs[i]);
		if (configs[i].d <= 3)
			check_noise(&configs[i], rng);
	}
	/* the non-private reference (mechanism none) packs and prints too */
	{
		relcfg		c = configs[0];

		c.mech = DPB_MECH_NONE;
		check_json(&c);
	}
	gsl_rng_free(rng);
}
