/*
 * test_release_sig.c — Ed25519 signatures of releases (release_sig.c):
 * a signed release verifies, survives the binary form, and any edit of the
 * release or of its signature fails; another key, an unsigned release,
 * malformed trailers and bad texts are told apart.  Version 1 (0.1.0) and
 * version 2 (with a 32-byte binding) of statistics releases, and version 2
 * of betaD releases.
 */
#include "unit.h"
#include "sim.h"
#include "release.h"
#include "betad/betad_release.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A linear add/remove Gaussian release of 200 rows, d = 2. */
static int
sig_release(dpb_release *r, gsl_rng *g, dpb_neighbours nb)
{
	double		X[400],
				Y[200];
	dpb_params	p;
	int			i,
				clipped;

	for (i = 0; i < 200; i++)
	{
		X[2 * i] = (i % 10) / 10.0;
		X[2 * i + 1] = (i % 7) / 7.0;
		Y[i] = (i % 13) / 13.0 - 0.5;
	}
	dpb_params_default(&p);
	p.d = 2;
	p.epsilon = 1;
	p.delta = 1e-6;
	p.y_bound = 1;
	p.has_bounds = 1;
	p.lower[0] = p.lower[1] = 0;
	p.upper[0] = p.upper[1] = 1;
	p.neighbours = nb;
	return sim_release(DPB_MODEL_LINEAR, &p, 2, X, Y, 200, g, r, &clipped) == 0;
}

/* r packed and unpacked (the stored form); frees nothing of r. */
static dpb_status
round_trip(const dpb_release *r, dpb_release *out)
{
	size_t		n = dpb_release_packed_size(r);
	unsigned char *b = malloc(n);
	dpb_err		err;
	dpb_status	st;

	dpb_release_pack(r, b);
	st = dpb_release_unpack(b, n, out, &err);
	free(b);
	return st;
}

/* A copy of r with its own stats. */
static void
copy_release(const dpb_release *r, dpb_release *c)
{
	*c = *r;
	c->stats = malloc(sizeof(double) * r->nstats);
	memcpy(c->stats, r->stats, sizeof(double) * r->nstats);
}

static void
put_u8_at(unsigned char *b, size_t off, unsigned v)
{
	b[off] = (unsigned char) v;
}

/* the offset of the flags byte of a packed statistics release (release.c:
 * magic, version, model, mechanism, scaling) */
#define FLAGS_AT 9

/* unpack of the n bytes of b: a status, never a crash; frees what it made */
static dpb_status
unpack_status(const unsigned char *b, size_t n)
{
	dpb_release u;
	dpb_err		err;
	dpb_status	st = dpb_release_unpack(b, n, &u, &err);

	if (st == DPB_OK)
		dpb_release_free_stats(&u);
	return st;
}

/* Version 2 of statistics releases: the binding is signed, the block is
 * versioned and validated on unpack, and version 1 still verifies. */
static void
check_v2(gsl_rng *g, const unsigned char *pub, const unsigned char *priv,
		 const unsigned char *pub2)
{
	dpb_release r,
				u,
				t;
	dpb_err		err;
	unsigned char binding[DPB_SIG_BINDING_BYTES],
			   *b;
	size_t		unsigned_size,
				n;
	int			i;

	for (i = 0; i < DPB_SIG_BINDING_BYTES; i++)
		binding[i] = (unsigned char) (7 * i + 3);
	CHECK(sig_release(&r, g, DPB_NB_ADD_REMOVE), "release v2");
	unsigned_size = dpb_release_packed_size(&r);
	CHECK(dpb_release_sign2(&r, priv, "req-2", "public.patients", binding, &err) == DPB_OK,
		  "sign v2: %s", err.msg);
	CHECK(r.sig.present && r.sig.version == DPB_SIG_V2 &&
		  memcmp(r.sig.binding, binding, DPB_SIG_BINDING_BYTES) == 0, "v2 fields");
	CHECK(dpb_release_verify(&r, pub) == DPB_SIG_VALID, "v2 valid");
	CHECK(dpb_release_verify(&r, pub2) == DPB_SIG_KEY_MISMATCH, "v2 another key");
	CHECK(dpb_release_packed_size(&r) ==
		  unsigned_size + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES + 2 + 5 + 15 +
		  DPB_SIG_BINDING_BYTES,
		  "v2 signed size: %zu vs unsigned %zu", dpb_release_packed_size(&r), unsigned_size);

	/* the binary form keeps version and binding */
	CHECK(round_trip(&r, &u) == DPB_OK, "unpack v2");
	CHECK(u.sig.present && u.sig.version == DPB_SIG_V2 &&
		  memcmp(u.sig.binding, binding, DPB_SIG_BINDING_BYTES) == 0 &&
		  strcmp(u.sig.request_id, "req-2") == 0, "v2 fields kept");
	CHECK(dpb_release_verify(&u, pub) == DPB_SIG_VALID, "v2 valid after the binary form");
	dpb_release_free_stats(&u);

	/* the binding is signed: any bit of it */
	copy_release(&r, &t);
	for (i = 0; i < DPB_SIG_BINDING_BYTES; i += 31)
	{
		t.sig.binding[i] ^= 1;
		CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited binding byte %d verifies", i);
		t.sig.binding[i] ^= 1;
	}
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_VALID, "binding restored");
	/* a version-2 signature read as version 1 (no binding, the v1 domain)
	 * fails, and so does an unknown version */
	t.sig.version = DPB_SIG_V1;
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "v2 signature as v1 verifies");
	t.sig.version = 3;
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "version 3 verifies");
	t.sig.version = DPB_SIG_V2;
	t.stats[1] += ldexp(1.0, t.grid_exp[0]);
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "v2: edited value verifies");
	dpb_release_free_stats(&t);

	/* the signed message of version 2 differs from version 1's: a v1
	 * signature of the same release with the v2 label fails */
	copy_release(&r, &t);
	CHECK(dpb_release_sign(&t, priv, "req-2", "public.patients", &err) == DPB_OK, "sign v1");
	CHECK(t.sig.version == DPB_SIG_V1 && dpb_release_verify(&t, pub) == DPB_SIG_VALID,
		  "v1 of the same release valid");
	t.sig.version = DPB_SIG_V2;
	memcpy(t.sig.binding, binding, DPB_SIG_BINDING_BYTES);
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "v1 signature relabelled v2 verifies");
	dpb_release_free_stats(&t);

	/* malformed version-2 blocks are refused, never read past the end */
	n = dpb_release_packed_size(&r);
	b = malloc(n + 1);
	dpb_release_pack(&r, b);
	CHECK(b[FLAGS_AT] & 128, "v2 flag set");
	CHECK(unpack_status(b, n) == DPB_OK, "v2 bytes read");
	for (i = 1; i <= 40; i++)
		CHECK(unpack_status(b, n - (size_t) i) == DPB_ECORRUPT, "v2 truncated by %d read", i);
	CHECK(unpack_status(b, unsigned_size + 1) == DPB_ECORRUPT, "v2 version byte alone read");
	CHECK(unpack_status(b, unsigned_size) == DPB_ECORRUPT, "v2 flag without block read");
	b[n] = 0;
	CHECK(unpack_status(b, n + 1) == DPB_ECORRUPT, "v2 trailing byte read");
	put_u8_at(b, unsigned_size, 1);
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "versioned block of version 1 read");
	CHECK(unpack_status(b, n - DPB_SIG_BINDING_BYTES) == DPB_ECORRUPT,
		  "versioned block of version 1 without a binding read");
	put_u8_at(b, unsigned_size, 3);
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "block of version 3 read");
	put_u8_at(b, unsigned_size, 0xFF);
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "block of version 255 read");
	put_u8_at(b, unsigned_size, DPB_SIG_V2);
	b[FLAGS_AT] |= 64;
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "both signature flags read");
	b[FLAGS_AT] &= (unsigned char) ~128;
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "v2 block under the v1 flag read");
	b[FLAGS_AT] = (unsigned char) ((b[FLAGS_AT] & ~64) | 128);
	CHECK(unpack_status(b, n) == DPB_OK, "restored v2 bytes read");
	/* a request-id length that runs past the end, and one that leaves bytes */
	b[unsigned_size + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES] = 250;
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "v2 long text length read");
	b[unsigned_size + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES] = 4;
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "v2 short text length read");
	b[unsigned_size + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES] = 0;
	CHECK(unpack_status(b, n) == DPB_ECORRUPT, "v2 empty request id read");
	b[unsigned_size + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES] = 5;
	CHECK(unpack_status(b, n) == DPB_OK, "restored again");
	/* random garbage in the block: never a crash */
	for (i = 0; i < 200; i++)
	{
		unsigned char *c = malloc(n);
		size_t		k = unsigned_size + gsl_rng_uniform_int(g, n - unsigned_size),
					m = n - gsl_rng_uniform_int(g, 3);

		memcpy(c, b, n);
		c[k] = (unsigned char) gsl_rng_uniform_int(g, 256);
		(void) unpack_status(c, m);
		free(c);
	}
	free(b);
	CHECK(dpb_release_sign2(&r, priv, "", "public.patients", binding, &err) == DPB_EINVAL,
		  "v2 empty request id signed");
	dpb_release_free_stats(&r);
}

/* A betaD release (logistic, two features, one draw) made by hand: the
 * signature does not care how the draw was made. */
static int
betad_release(dpb_betad_release *b)
{
	dpb_err		err;

	memset(b, 0, sizeof(*b));
	dpb_betad_spec_default(&b->s, 0);
	b->s.epsilon = 2;
	b->s.fx.d = 2;
	b->s.fx.has_names = 1;
	strcpy(b->s.fx.names[0], "age");
	strcpy(b->s.fx.names[1], "bmi");
	if (dpb_betad_spec_check(&b->s, &err) != DPB_OK)
		return 0;
	b->n = -1;
	b->delta_prime = NAN;
	b->draws = malloc(3 * sizeof(double));
	b->draws[0] = 0.5;
	b->draws[1] = 2;
	b->draws[2] = -1;
	return dpb_betad_release_validate(b, &err) == DPB_OK;
}

/* packed and unpacked; 0 on failure */
static int
betad_round_trip(const dpb_betad_release *b, dpb_betad_release *out, unsigned char **bytes,
				 size_t *len)
{
	dpb_err		err;

	*len = dpb_betad_packed_size(b);
	*bytes = malloc(*len + 1);
	dpb_betad_pack(b, *bytes);
	return dpb_betad_unpack(*bytes, *len, out, &err) == DPB_OK;
}

static dpb_status
betad_unpack_status(const unsigned char *b, size_t n)
{
	dpb_betad_release u;
	dpb_err		err;
	dpb_status	st = dpb_betad_unpack(b, n, &u, &err);

	if (st == DPB_OK)
		dpb_betad_release_free(&u);
	return st;
}

/* betaD releases: version 2 signatures in a versioned block after the
 * draws, flagged in header value 27 (betad_release.c) */
static void
check_betad(gsl_rng *g, const unsigned char *pub, const unsigned char *priv,
			const unsigned char *pub2)
{
	dpb_betad_release b,
				u,
				t;
	dpb_err		err;
	unsigned char binding[DPB_SIG_BINDING_BYTES],
			   *bytes,
			   *ub;
	size_t		len,
				ulen;
	int			i;
	const size_t flag_at = 4 + 8 * 27;
	double		v;

	for (i = 0; i < DPB_SIG_BINDING_BYTES; i++)
		binding[i] = (unsigned char) (255 - i);
	CHECK(betad_release(&b), "betaD release");
	CHECK(dpb_betad_verify(&b, pub) == DPB_SIG_UNSIGNED, "betaD unsigned");
	ulen = dpb_betad_packed_size(&b);
	ub = malloc(ulen);
	dpb_betad_pack(&b, ub);

	/* the packed form is canonical: a delta' target, which the approximate
	 * tier does not have, is not in the bytes */
		t = b;
	t.s.delta_prime = 0.25;
	{
		unsigned char *c = malloc(ulen);

		dpb_betad_pack(&t, c);
		CHECK(memcmp(c, ub, ulen) == 0, "betaD packing not canonical");
		free(c);
	}

	CHECK(dpb_betad_sign(&b, priv, "bd-1", "public.hiv", binding, &err) == DPB_OK,
		  "betaD sign: %s", err.msg);
	CHECK(b.sig.present && b.sig.version == DPB_SIG_V2, "betaD signed v2");
	CHECK(dpb_betad_verify(&b, pub) == DPB_SIG_VALID, "betaD valid");
	CHECK(dpb_betad_verify(&b, pub2) == DPB_SIG_KEY_MISMATCH, "betaD another key");
	CHECK(dpb_betad_packed_size(&b) ==
		  ulen + 1 + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES + 2 + 4 + 10 + DPB_SIG_BINDING_BYTES,
		  "betaD signed size %zu vs %zu", dpb_betad_packed_size(&b), ulen);

	/* the binary form keeps it */
	CHECK(betad_round_trip(&b, &u, &bytes, &len), "betaD signed unpack");
	CHECK(u.sig.present && u.sig.version == DPB_SIG_V2 &&
		  memcmp(u.sig.binding, binding, DPB_SIG_BINDING_BYTES) == 0 &&
		  strcmp(u.sig.request_id, "bd-1") == 0 && strcmp(u.sig.dataset, "public.hiv") == 0,
		  "betaD signature fields kept");
	CHECK(dpb_betad_verify(&u, pub) == DPB_SIG_VALID, "betaD valid after the binary form");
	CHECK(memcmp(bytes, ub, flag_at) == 0, "betaD signed header differs before the flag");
	dpb_betad_release_free(&u);

	/* edits: a draw, the schedule (metadata, but in the signed bytes), the
	 * binding, the request id, the signature */
	t = b;
	t.draws = malloc(3 * sizeof(double));
	memcpy(t.draws, b.draws, 3 * sizeof(double));
	t.draws[1] = nextafter(t.draws[1], 3);
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD edited draw verifies");
	t.draws[1] = b.draws[1];
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_VALID, "betaD restored");
	t.s.sched.chains += 1;
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD edited schedule verifies");
	t.s.sched.chains -= 1;
	t.sig.binding[5] ^= 0x10;
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD edited binding verifies");
	t.sig.binding[5] ^= 0x10;
	strcpy(t.sig.request_id, "bd-2");
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD edited request id verifies");
	strcpy(t.sig.request_id, "bd-1");
	t.sig.value[0] ^= 1;
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD edited signature verifies");
	t.sig.value[0] ^= 1;
	t.sig.version = DPB_SIG_V1;
	CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "betaD signature of version 1 verifies");
	free(t.draws);

	/* malformed blocks and flags */
	for (i = 1; i <= 40; i++)
		CHECK(betad_unpack_status(bytes, len - (size_t) i) == DPB_ECORRUPT,
			  "betaD truncated by %d read", i);
	bytes[len] = 0;
	CHECK(betad_unpack_status(bytes, len + 1) == DPB_ECORRUPT, "betaD trailing byte read");
	CHECK(betad_unpack_status(bytes, ulen) == DPB_ECORRUPT, "betaD flag without block read");
	bytes[ulen] = 3;
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD block of version 3 read");
	bytes[ulen] = DPB_SIG_V1;
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD block of version 1 read");
	CHECK(betad_unpack_status(bytes, len - DPB_SIG_BINDING_BYTES) == DPB_ECORRUPT,
		  "betaD block of version 1 without a binding read");
	bytes[ulen] = DPB_SIG_V2;
	CHECK(betad_unpack_status(bytes, len) == DPB_OK, "betaD restored bytes read");
	v = 2;
	memcpy(bytes + flag_at, &v, 8);
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD flag 2 read");
	v = 0.5;
	memcpy(bytes + flag_at, &v, 8);
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD flag 0.5 read");
	v = 0;
	memcpy(bytes + flag_at, &v, 8);
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD block without flag read");
	v = 1;
	memcpy(bytes + flag_at, &v, 8);
	/* a version-2 header (no flag) cannot carry a block */
	v = 2;
	memcpy(bytes + 4, &v, 8);
	CHECK(betad_unpack_status(bytes, len) == DPB_ECORRUPT, "betaD version 2 with a block read");
	v = 3;
	memcpy(bytes + 4, &v, 8);
	CHECK(betad_unpack_status(bytes, len) == DPB_OK, "betaD restored version read");
	for (i = 0; i < 200; i++)
	{
		unsigned char *c = malloc(len);
		size_t		k = ulen + gsl_rng_uniform_int(g, len - ulen),
					m = len - gsl_rng_uniform_int(g, 3);

		memcpy(c, bytes, len);
		c[k] = (unsigned char) gsl_rng_uniform_int(g, 256);
		(void) betad_unpack_status(c, m);
		free(c);
	}
	free(bytes);

	/* a statistics release's signature does not fit a betaD release */
	{
		dpb_release r;

		CHECK(sig_release(&r, g, DPB_NB_ADD_REMOVE), "release for the swap");
		CHECK(dpb_release_sign2(&r, priv, "bd-1", "public.hiv", binding, &err) == DPB_OK,
			  "sign for the swap");
		t = b;
		t.sig = r.sig;
		CHECK(dpb_betad_verify(&t, pub) == DPB_SIG_BAD, "a statistics signature verifies a betaD release");
		dpb_release_free_stats(&r);
	}
	free(ub);
	dpb_betad_release_free(&b);
}

void
test_release_sig(void)
{
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned char pub[DPB_SIG_KEY_BYTES],
				priv[DPB_SIG_KEY_BYTES],
				pub2[DPB_SIG_KEY_BYTES],
				priv2[DPB_SIG_KEY_BYTES];
	dpb_release r,
				u,
				t;
	dpb_err		err;
	size_t		unsigned_size,
				n;
	unsigned char *b;
	char		long_text[300];

	gsl_rng_set(g, USEED(91));
	CHECK(dpb_sig_keygen(pub, priv, &err) == DPB_OK, "keygen");
	CHECK(dpb_sig_keygen(pub2, priv2, &err) == DPB_OK, "keygen 2");
	CHECK(memcmp(pub, pub2, DPB_SIG_KEY_BYTES) != 0, "two keys differ");
	CHECK(sig_release(&r, g, DPB_NB_ADD_REMOVE), "release");
	CHECK(dpb_release_verify(&r, pub) == DPB_SIG_UNSIGNED, "unsigned");
	unsigned_size = dpb_release_packed_size(&r);

	CHECK(dpb_release_sign(&r, priv, "req-1", "public.patients", &err) == DPB_OK, "sign");
	CHECK(r.sig.present, "signed");
	CHECK(dpb_release_verify(&r, pub) == DPB_SIG_VALID, "valid");
	CHECK(dpb_release_verify(&r, pub2) == DPB_SIG_KEY_MISMATCH, "another key");
	CHECK(dpb_release_packed_size(&r) ==
		  unsigned_size + DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES + 2 + 5 + 15,
		  "signed size: %zu vs unsigned %zu", dpb_release_packed_size(&r), unsigned_size);

	/* the stored (binary) form keeps it */
	CHECK(round_trip(&r, &u) == DPB_OK, "unpack signed");
	CHECK(u.sig.present && strcmp(u.sig.request_id, "req-1") == 0 &&
		  strcmp(u.sig.dataset, "public.patients") == 0, "fields kept");
	CHECK(dpb_release_verify(&u, pub) == DPB_SIG_VALID, "valid after the binary form");
	dpb_release_free_stats(&u);

	/* edits: a value by one grid step, epsilon (recalibrated: a valid
	 * release), the noise scale, the request id, the dataset, the
	 * signature, the insecure flag */
	copy_release(&r, &t);
	t.stats[0] += ldexp(1.0, t.grid_exp[0]);
	CHECK(dpb_release_validate(&t, &err) == DPB_OK, "edited value still a valid release");
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited value fails");
	dpb_release_free_stats(&t);

	copy_release(&r, &t);
	t.p.epsilon = 2;
	CHECK(dpb_release_calibrate(&t, &err) == DPB_OK, "recalibrate");
	CHECK(dpb_release_validate(&t, &err) == DPB_OK, "edited epsilon still a valid release: %s", err.msg);
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited epsilon fails");
	dpb_release_free_stats(&t);

	copy_release(&r, &t);
	t.noise_scale *= 1.5;
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited noise scale fails");
	dpb_release_free_stats(&t);

	copy_release(&r, &t);
	strcpy(t.sig.request_id, "req-2");
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited request id fails");
	strcpy(t.sig.request_id, "req-1");
	strcpy(t.sig.dataset, "public.other");
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited dataset fails");
	strcpy(t.sig.dataset, "public.patients");
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_VALID, "restored: valid again");
	t.sig.value[17] ^= 4;
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited signature fails");
	t.sig.value[17] ^= 4;
	t.insecure = 1;
	CHECK(dpb_release_verify(&t, pub) == DPB_SIG_BAD, "edited insecure flag fails");
	dpb_release_free_stats(&t);
	dpb_release_free_stats(&r);

	/* n of a replace release */
	CHECK(sig_release(&r, g, DPB_NB_REPLACE), "replace release");
	CHECK(dpb_release_sign(&r, priv2, "r", "d", &err) == DPB_OK, "sign replace");
	CHECK(dpb_release_verify(&r, pub2) == DPB_SIG_VALID, "replace valid");
	copy_release(&r, &t);
	t.n += 1;
	CHECK(dpb_release_verify(&t, pub2) == DPB_SIG_BAD, "edited n fails");
	dpb_release_free_stats(&t);

	/* malformed trailers: truncated, trailing byte, bad text */
	n = dpb_release_packed_size(&r);
	b = malloc(n + 1);
	dpb_release_pack(&r, b);
	CHECK(dpb_release_unpack(b, n - 1, &u, &err) == DPB_ECORRUPT, "truncated signature");
	b[n] = 'x';
	CHECK(dpb_release_unpack(b, n + 1, &u, &err) == DPB_ECORRUPT, "trailing byte");
	b[n - 1] = '\n';			/* the dataset "d" becomes a control character */
	CHECK(dpb_release_unpack(b, n, &u, &err) == DPB_ECORRUPT, "control character");
	free(b);
	dpb_release_free_stats(&r);

	CHECK(!dpb_sig_text_ok("", 0), "empty text");
	CHECK(!dpb_sig_text_ok("a\tb", 3), "tab");
	CHECK(!dpb_sig_text_ok("\xc2\x85", 2), "C1 control");
	CHECK(!dpb_sig_text_ok("\xff", 1), "invalid UTF-8");
	CHECK(dpb_sig_text_ok("r\xc3\xa9q", 4), "UTF-8 accepted");
	memset(long_text, 'a', 256);
	long_text[256] = '\0';
	CHECK(!dpb_sig_text_ok(long_text, 256), "256 bytes");
	CHECK(dpb_sig_text_ok(long_text, 255), "255 bytes");
	CHECK(sig_release(&r, g, DPB_NB_ADD_REMOVE), "release 3");
	CHECK(dpb_release_sign(&r, priv, long_text, "d", &err) == DPB_EINVAL, "long request id refused");
	CHECK(!r.sig.present, "not signed");
	dpb_release_free_stats(&r);

	check_v2(g, pub, priv, pub2);
	check_betad(g, pub, priv, pub2);
	gsl_rng_free(g);
}
