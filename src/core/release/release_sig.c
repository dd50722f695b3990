/*
 * release_sig.c — Ed25519 signatures of governed releases (release.h,
 * docs/governance.md §6, docs/release-format.md).
 *
 * The signed message is the canonical form of the release: the domain
 * string "dpbayes.release.signature.v1" with its terminating NUL, the packed
 * release with no signature (dpb_release_pack: portable, every field of the
 * release, the noisy values included, bit for bit), the key id, and the
 * request id and the dataset, each as one length byte and its UTF-8 bytes.
 * The text form prints every number with 17 significant digits, so a
 * release that goes through its text form (pg_dump, COPY) packs to the same
 * bytes and keeps a valid signature; any edit (n, epsilon, a noise scale, a
 * value, the request id, the dataset) changes the message.
 */
#include "release.h"
#include "names.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

static const char SIG_DOMAIN[] = "dpbayes.release.signature.v1";

int
dpb_sig_text_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *) s;
	size_t		i = 0;

	if (len < 1 || len >= DPB_SIG_TEXT_MAX)
		return 0;
	while (i < len)
	{
		int			n = dpb_utf8_char_len(u + i, len - i);

		if (n == 0 || (n == 1 && (u[i] < 0x20 || u[i] == 0x7F)))
			return 0;
		/* C1 controls U+0080..U+009F are C2 80..C2 9F */
		if (n == 2 && u[i] == 0xC2 && u[i + 1] < 0xA0)
			return 0;
		i += (size_t) n;
	}
	return 1;
}

void
dpb_sig_key_id(const unsigned char pub[DPB_SIG_KEY_BYTES],
			   unsigned char id[DPB_SIG_KEYID_BYTES])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256(pub, DPB_SIG_KEY_BYTES, md);
	memcpy(id, md, DPB_SIG_KEYID_BYTES);
}

/* The message signed for r (its sig fields other than value), malloc'ed. */
static unsigned char *
sig_message(const dpb_release *r, size_t *len)
{
	dpb_release u = *r;
	size_t		dl = sizeof(SIG_DOMAIN),
				pl,
				l1 = strlen(r->sig.request_id),
				l2 = strlen(r->sig.dataset);
	unsigned char *m,
			   *p;

	u.sig.present = 0;
	pl = dpb_release_packed_size(&u);
	*len = dl + pl + DPB_SIG_KEYID_BYTES + 2 + l1 + l2;
	m = malloc(*len);
	if (m == NULL)
		return NULL;
	p = m;
	memcpy(p, SIG_DOMAIN, dl);
	p += dl;
	dpb_release_pack(&u, p);
	p += pl;
	memcpy(p, r->sig.key_id, DPB_SIG_KEYID_BYTES);
	p += DPB_SIG_KEYID_BYTES;
	*p++ = (unsigned char) l1;
	memcpy(p, r->sig.request_id, l1);
	p += l1;
	*p++ = (unsigned char) l2;
	memcpy(p, r->sig.dataset, l2);
	return m;
}

dpb_status
dpb_sig_keygen(unsigned char pub[DPB_SIG_KEY_BYTES], unsigned char priv[DPB_SIG_KEY_BYTES],
			   dpb_err *err)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	EVP_PKEY   *k = NULL;
	size_t		lp = DPB_SIG_KEY_BYTES,
				ls = DPB_SIG_KEY_BYTES;
	int			ok;

	ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_keygen(ctx, &k) == 1 &&
		EVP_PKEY_get_raw_public_key(k, pub, &lp) == 1 &&
		EVP_PKEY_get_raw_private_key(k, priv, &ls) == 1 &&
		lp == DPB_SIG_KEY_BYTES && ls == DPB_SIG_KEY_BYTES;
	EVP_PKEY_free(k);
	EVP_PKEY_CTX_free(ctx);
	if (!ok)
	{
		dpb_err_set(err, "could not generate a signing key",
					"libcrypto's Ed25519 key generation failed.");
		return DPB_ERNG;
	}
	return DPB_OK;
}

dpb_status
dpb_release_sign(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
				 const char *request_id, const char *dataset, dpb_err *err)
{
	EVP_PKEY   *k;
	EVP_MD_CTX *md = NULL;
	unsigned char pub[DPB_SIG_KEY_BYTES],
			   *m = NULL;
	size_t		lp = DPB_SIG_KEY_BYTES,
				ls = DPB_SIG_BYTES,
				ml = 0;
	int			ok;

	if (!dpb_sig_text_ok(request_id, strlen(request_id)) ||
		!dpb_sig_text_ok(dataset, strlen(dataset)))
	{
		dpb_err_set(err, "invalid request id or dataset name for a signature",
					"Both must be 1 to 255 bytes of UTF-8 without control characters.");
		return DPB_EINVAL;
	}
	k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, priv, DPB_SIG_KEY_BYTES);
	ok = k != NULL && EVP_PKEY_get_raw_public_key(k, pub, &lp) == 1;
	if (ok)
	{
		dpb_sig_key_id(pub, r->sig.key_id);
		strcpy(r->sig.request_id, request_id);
		strcpy(r->sig.dataset, dataset);
		m = sig_message(r, &ml);
		md = EVP_MD_CTX_new();
		ok = m != NULL && md != NULL &&
			EVP_DigestSignInit(md, NULL, NULL, NULL, k) == 1 &&
			EVP_DigestSign(md, r->sig.value, &ls, m, ml) == 1 && ls == DPB_SIG_BYTES;
	}
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(k);
	free(m);
	if (!ok)
	{
		memset(&r->sig, 0, sizeof(r->sig));
		dpb_err_set(err, "could not sign the release", "libcrypto's Ed25519 signing failed.");
		return DPB_ERNG;
	}
	r->sig.present = 1;
	return DPB_OK;
}

dpb_sig_check
dpb_release_verify(const dpb_release *r, const unsigned char pub[DPB_SIG_KEY_BYTES])
{
	unsigned char id[DPB_SIG_KEYID_BYTES],
			   *m;
	EVP_PKEY   *k;
	EVP_MD_CTX *md;
	size_t		ml;
	int			ok;

	if (!r->sig.present)
		return DPB_SIG_UNSIGNED;
	dpb_sig_key_id(pub, id);
	if (memcmp(id, r->sig.key_id, DPB_SIG_KEYID_BYTES) != 0)
		return DPB_SIG_KEY_MISMATCH;
	m = sig_message(r, &ml);
	k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, DPB_SIG_KEY_BYTES);
	md = EVP_MD_CTX_new();
	ok = m != NULL && k != NULL && md != NULL &&
		EVP_DigestVerifyInit(md, NULL, NULL, NULL, k) == 1 &&
		EVP_DigestVerify(md, r->sig.value, DPB_SIG_BYTES, m, ml) == 1;
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(k);
	free(m);
	return ok ? DPB_SIG_VALID : DPB_SIG_BAD;
}

const char *
dpb_sig_check_name(dpb_sig_check c)
{
	switch (c)
	{
		case DPB_SIG_VALID:
			return "valid";
		case DPB_SIG_UNSIGNED:
			return "unsigned";
		case DPB_SIG_KEY_MISMATCH:
			return "signed by another key";
		default:
			return "signature does not match the release";
	}
}
