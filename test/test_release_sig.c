/*
 * test_release_sig.c — Ed25519 signatures of releases (release_sig.c):
 * a signed release verifies, survives the binary form, and any edit of the
 * release or of its signature fails; another key, an unsigned release,
 * malformed trailers and bad texts are told apart.
 */
#include "unit.h"
#include "sim.h"
#include "release.h"

#include <gsl/gsl_rng.h>
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
	gsl_rng_free(g);
}
