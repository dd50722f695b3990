/*
 * release_sig.c — Ed25519 signatures of governed releases (release.h,
 * docs/governance.md §6, docs/release-format.md).
 *
 * The signed message is the canonical form of the release: the domain
 * string "dpbayes.release.signature.v1" (version 1) or
 * "dpbayes.release.signature.v2" (version 2) with its terminating NUL, the
 * packed release with no signature (dpb_release_pack or dpb_betad_pack:
 * portable, every field of the release, the noisy values or the draws
 * included, bit for bit), the key id, the request id and the dataset, each
 * as one length byte and its UTF-8 bytes, and (version 2) the 32-byte
 * binding: the SHA-256 of the caller's canonical description of the
 * request (dataset id, columns, requester, charge, group key...).
 * The text form prints every number with 17 significant digits, so a
 * release that goes through its text form (pg_dump, COPY) packs to the same
 * bytes and keeps a valid signature; any edit (n, epsilon, a noise scale, a
 * value, the request id, the dataset, the binding) changes the message.
 */
#include "release.h"
#include "names.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

static const char SIG_DOMAIN_V1[] = "dpbayes.release.signature.v1";
static const char SIG_DOMAIN_V2[] = "dpbayes.release.signature.v2";

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

/*
 * The message signed: the domain of the version with its NUL, the packed
 * release without signature, the key id, the request id and the dataset
 * (length byte + UTF-8 each), and for version 2 the binding.  malloc'ed.
 */
static unsigned char *
sig_message(const dpb_release_sig *sig, const unsigned char *packed, size_t pl, size_t *len)
{
	const char *dom = sig->version == DPB_SIG_V2 ? SIG_DOMAIN_V2 : SIG_DOMAIN_V1;
	size_t		dl = strlen(dom) + 1,
				l1 = strlen(sig->request_id),
				l2 = strlen(sig->dataset),
				bl = sig->version == DPB_SIG_V2 ? DPB_SIG_BINDING_BYTES : 0;
	unsigned char *m,
			   *p;

	*len = dl + pl + DPB_SIG_KEYID_BYTES + 2 + l1 + l2 + bl;
	m = malloc(*len);
	if (m == NULL)
		return NULL;
	p = m;
	memcpy(p, dom, dl);
	p += dl;
	memcpy(p, packed, pl);
	p += pl;
	memcpy(p, sig->key_id, DPB_SIG_KEYID_BYTES);
	p += DPB_SIG_KEYID_BYTES;
	*p++ = (unsigned char) l1;
	memcpy(p, sig->request_id, l1);
	p += l1;
	*p++ = (unsigned char) l2;
	memcpy(p, sig->dataset, l2);
	p += l2;
	if (bl)
		memcpy(p, sig->binding, bl);
	return m;
}

/* r packed without its signature, malloc'ed (NULL when out of memory) */
static unsigned char *
release_unsigned_bytes(const dpb_release *r, size_t *len)
{
	dpb_release u = *r;
	unsigned char *b;

	u.sig.present = 0;
	*len = dpb_release_packed_size(&u);
	b = malloc(*len);
	if (b != NULL)
		dpb_release_pack(&u, b);
	return b;
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
dpb_sig_make(dpb_release_sig *sig, const unsigned char priv[DPB_SIG_KEY_BYTES], int version,
			 const char *request_id, const char *dataset, const unsigned char *binding,
			 const unsigned char *packed, size_t plen, dpb_err *err)
{
	EVP_PKEY   *k;
	EVP_MD_CTX *md = NULL;
	unsigned char pub[DPB_SIG_KEY_BYTES],
			   *m = NULL;
	size_t		lp = DPB_SIG_KEY_BYTES,
				ls = DPB_SIG_BYTES,
				ml = 0;
	int			ok;

	if ((version != DPB_SIG_V1 && version != DPB_SIG_V2) ||
		(version == DPB_SIG_V2 && binding == NULL))
	{
		dpb_err_set(err, "unsupported signature version",
					"Signatures are of version 1 or of version 2 with a 32-byte binding.");
		return DPB_EINVAL;
	}
	if (!dpb_sig_text_ok(request_id, strlen(request_id)) ||
		!dpb_sig_text_ok(dataset, strlen(dataset)))
	{
		dpb_err_set(err, "invalid request id or dataset name for a signature",
					"Both must be 1 to 255 bytes of UTF-8 without control characters.");
		return DPB_EINVAL;
	}
	memset(sig, 0, sizeof(*sig));
	k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, priv, DPB_SIG_KEY_BYTES);
	ok = k != NULL && EVP_PKEY_get_raw_public_key(k, pub, &lp) == 1;
	if (ok)
	{
		sig->version = version;
		dpb_sig_key_id(pub, sig->key_id);
		strcpy(sig->request_id, request_id);
		strcpy(sig->dataset, dataset);
		if (version == DPB_SIG_V2)
			memcpy(sig->binding, binding, DPB_SIG_BINDING_BYTES);
		m = sig_message(sig, packed, plen, &ml);
		md = EVP_MD_CTX_new();
		ok = m != NULL && md != NULL &&
			EVP_DigestSignInit(md, NULL, NULL, NULL, k) == 1 &&
			EVP_DigestSign(md, sig->value, &ls, m, ml) == 1 && ls == DPB_SIG_BYTES;
	}
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(k);
	free(m);
	if (!ok)
	{
		memset(sig, 0, sizeof(*sig));
		dpb_err_set(err, "could not sign the release", "libcrypto's Ed25519 signing failed.");
		return DPB_ERNG;
	}
	sig->present = 1;
	return DPB_OK;
}

dpb_sig_check
dpb_sig_check_packed(const dpb_release_sig *sig, const unsigned char *packed, size_t plen,
					 const unsigned char pub[DPB_SIG_KEY_BYTES])
{
	unsigned char id[DPB_SIG_KEYID_BYTES],
			   *m;
	EVP_PKEY   *k;
	EVP_MD_CTX *md;
	size_t		ml;
	int			ok;

	if (!sig->present)
		return DPB_SIG_UNSIGNED;
	if (sig->version != DPB_SIG_V1 && sig->version != DPB_SIG_V2)
		return DPB_SIG_BAD;
	dpb_sig_key_id(pub, id);
	if (memcmp(id, sig->key_id, DPB_SIG_KEYID_BYTES) != 0)
		return DPB_SIG_KEY_MISMATCH;
	if (packed == NULL)
		return DPB_SIG_BAD;
	m = sig_message(sig, packed, plen, &ml);
	k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, DPB_SIG_KEY_BYTES);
	md = EVP_MD_CTX_new();
	ok = m != NULL && k != NULL && md != NULL &&
		EVP_DigestVerifyInit(md, NULL, NULL, NULL, k) == 1 &&
		EVP_DigestVerify(md, sig->value, DPB_SIG_BYTES, m, ml) == 1;
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(k);
	free(m);
	return ok ? DPB_SIG_VALID : DPB_SIG_BAD;
}

/* ---- the signature block of the binary forms ---- */

size_t
dpb_sig_block_size(const dpb_release_sig *sig, int versioned)
{
	size_t		sz = DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES + 2 + strlen(sig->request_id) +
		strlen(sig->dataset);

	if (versioned)
		sz += 1 + (sig->version == DPB_SIG_V2 ? DPB_SIG_BINDING_BYTES : 0);
	return sz;
}

unsigned char *
dpb_sig_block_write(const dpb_release_sig *sig, int versioned, unsigned char *p)
{
	const char *t[2] = {sig->request_id, sig->dataset};
	int			j;

	if (versioned)
		*p++ = (unsigned char) sig->version;
	memcpy(p, sig->key_id, DPB_SIG_KEYID_BYTES);
	p += DPB_SIG_KEYID_BYTES;
	memcpy(p, sig->value, DPB_SIG_BYTES);
	p += DPB_SIG_BYTES;
	for (j = 0; j < 2; j++)
	{
		size_t		l = strlen(t[j]);

		*p++ = (unsigned char) l;
		memcpy(p, t[j], l);
		p += l;
	}
	if (versioned && sig->version == DPB_SIG_V2)
	{
		memcpy(p, sig->binding, DPB_SIG_BINDING_BYTES);
		p += DPB_SIG_BINDING_BYTES;
	}
	return p;
}

dpb_status
dpb_sig_block_read(const unsigned char *p, size_t len, int versioned, dpb_release_sig *sig,
				   dpb_err *err)
{
	char	   *t[2] = {sig->request_id, sig->dataset};
	size_t		left = len;
	int			j;

	memset(sig, 0, sizeof(*sig));
	sig->version = DPB_SIG_V1;
	if (versioned)
	{
		if (left < 1)
			goto truncated;
		sig->version = *p++;
		left--;
		/* a versioned block is of version 2: version 1 has its own,
		 * unversioned block */
		if (sig->version != DPB_SIG_V2)
		{
			memset(sig, 0, sizeof(*sig));
			dpb_err_set(err, "unsupported release signature version",
						"The release's signature block is of an unknown version; this build reads version 2.");
			return DPB_ECORRUPT;
		}
	}
	if (left < DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES)
		goto truncated;
	memcpy(sig->key_id, p, DPB_SIG_KEYID_BYTES);
	p += DPB_SIG_KEYID_BYTES;
	memcpy(sig->value, p, DPB_SIG_BYTES);
	p += DPB_SIG_BYTES;
	left -= DPB_SIG_KEYID_BYTES + DPB_SIG_BYTES;
	for (j = 0; j < 2; j++)
	{
		size_t		l;

		if (left < 1)
			goto truncated;
		l = *p++;
		left--;
		if (left < l)
			goto truncated;
		if (!dpb_sig_text_ok((const char *) p, l))
		{
			memset(sig, 0, sizeof(*sig));
			dpb_err_set(err, "invalid release",
						"The release's signature holds a request id or dataset that is not 1 to 255 bytes of text without control characters.");
			return DPB_ECORRUPT;
		}
		memcpy(t[j], p, l);
		t[j][l] = '\0';
		p += l;
		left -= l;
	}
	if (sig->version == DPB_SIG_V2)
	{
		if (left < DPB_SIG_BINDING_BYTES)
			goto truncated;
		memcpy(sig->binding, p, DPB_SIG_BINDING_BYTES);
		left -= DPB_SIG_BINDING_BYTES;
	}
	if (left != 0)
		goto truncated;
	sig->present = 1;
	return DPB_OK;

truncated:
	memset(sig, 0, sizeof(*sig));
	dpb_err_set(err, "invalid release", "The release's signature is malformed or truncated.");
	return DPB_ECORRUPT;
}

/* ---- statistics releases ---- */

static dpb_status
release_sign(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES], int version,
			 const char *request_id, const char *dataset, const unsigned char *binding,
			 dpb_err *err)
{
	size_t		pl;
	unsigned char *b = release_unsigned_bytes(r, &pl);
	dpb_release_sig sig;
	dpb_status	st;

	if (b == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	st = dpb_sig_make(&sig, priv, version, request_id, dataset, binding, b, pl, err);
	free(b);
	if (st == DPB_OK)
		r->sig = sig;
	else if (st != DPB_EINVAL)
		memset(&r->sig, 0, sizeof(r->sig));
	return st;
}

dpb_status
dpb_release_sign(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
				 const char *request_id, const char *dataset, dpb_err *err)
{
	return release_sign(r, priv, DPB_SIG_V1, request_id, dataset, NULL, err);
}

dpb_status
dpb_release_sign2(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
				  const char *request_id, const char *dataset,
				  const unsigned char binding[DPB_SIG_BINDING_BYTES], dpb_err *err)
{
	return release_sign(r, priv, DPB_SIG_V2, request_id, dataset, binding, err);
}

dpb_sig_check
dpb_release_verify(const dpb_release *r, const unsigned char pub[DPB_SIG_KEY_BYTES])
{
	size_t		pl;
	unsigned char *b;
	dpb_sig_check c;

	if (!r->sig.present)
		return DPB_SIG_UNSIGNED;
	b = release_unsigned_bytes(r, &pl);
	c = dpb_sig_check_packed(&r->sig, b, pl, pub);
	free(b);
	return c;
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
