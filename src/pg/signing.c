/*
 * signing.c — the SQL side of signed releases (src/core/release/release_sig.c,
 * docs/governance.md §6): key generation, signing (called by
 * dpbayes._compute with the server's private key, which only the governance
 * owner can read), the signature fields of a release, and the check of a
 * signature against a public key (dpbayes.verify looks the key up).
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

static bytea *
to_bytea(const unsigned char *b, int n)
{
	bytea	   *v = palloc(VARHDRSZ + n);

	SET_VARSIZE(v, VARHDRSZ + n);
	memcpy(VARDATA(v), b, n);
	return v;
}

static const unsigned char *
key_arg(FunctionCallInfo fcinfo, int i, const char *what)
{
	bytea	   *k = PG_GETARG_BYTEA_PP(i);

	if (VARSIZE_ANY_EXHDR(k) != DPB_SIG_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an Ed25519 %s key has %d bytes", what, DPB_SIG_KEY_BYTES)));
	return (const unsigned char *) VARDATA_ANY(k);
}

/* dpbayes._keygen(OUT key_id bytea, OUT public_key bytea, OUT private_key bytea) */
PG_FUNCTION_INFO_V1(dpbayes_keygen);
Datum
dpbayes_keygen(PG_FUNCTION_ARGS)
{
	unsigned char pub[DPB_SIG_KEY_BYTES],
				priv[DPB_SIG_KEY_BYTES],
				id[DPB_SIG_KEYID_BYTES];
	dpb_err		err;
	dpb_status	st;
	TupleDesc	td;
	Datum		v[3];
	bool		nulls[3] = {0};

	td = dpb_pg_result_desc(fcinfo);
	if ((st = dpb_sig_keygen(pub, priv, &err)) != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	dpb_sig_key_id(pub, id);
	v[0] = PointerGetDatum(to_bytea(id, DPB_SIG_KEYID_BYTES));
	v[1] = PointerGetDatum(to_bytea(pub, DPB_SIG_KEY_BYTES));
	v[2] = PointerGetDatum(to_bytea(priv, DPB_SIG_KEY_BYTES));
	explicit_bzero(priv, sizeof(priv));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, v, nulls)));
}

/* dpbayes._sign(r release, request_id text, dataset text, private_key bytea) */
PG_FUNCTION_INFO_V1(dpbayes_sign);
Datum
dpbayes_sign(PG_FUNCTION_ARGS)
{
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	text	   *rid = PG_GETARG_TEXT_PP(1),
			   *ds = PG_GETARG_TEXT_PP(2);
	const unsigned char *priv = key_arg(fcinfo, 3, "private");

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	if (r.insecure || r.p.mechanism == DPB_MECH_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only private releases are signed"),
				 errdetail("The release was made with insecure test noise or is the non-private reference.")));
	st = dpb_release_sign(&r,
						  priv,
						  dpb_pg_to_utf8(VARDATA_ANY(rid), VARSIZE_ANY_EXHDR(rid)),
						  dpb_pg_to_utf8(VARDATA_ANY(ds), VARSIZE_ANY_EXHDR(ds)),
						  &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}

/*
 * dpbayes.release_signature(r, OUT alg text, OUT key_id bytea,
 * OUT request_id text, OUT dataset text): the signature's fields, all null
 * for an unsigned release.
 */
PG_FUNCTION_INFO_V1(dpbayes_release_signature);
Datum
dpbayes_release_signature(PG_FUNCTION_ARGS)
{
	dpb_release r;
	TupleDesc	td;
	Datum		v[4];
	bool		nulls[4] = {0};

	td = dpb_pg_result_desc(fcinfo);
	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	if (!r.sig.present)
	{
		nulls[0] = nulls[1] = nulls[2] = nulls[3] = true;
		memset(v, 0, sizeof(v));
	}
	else
	{
		v[0] = CStringGetTextDatum("ed25519");
		v[1] = PointerGetDatum(to_bytea(r.sig.key_id, DPB_SIG_KEYID_BYTES));
		v[2] = CStringGetTextDatum(dpb_pg_from_utf8(r.sig.request_id));
		v[3] = CStringGetTextDatum(dpb_pg_from_utf8(r.sig.dataset));
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, v, nulls)));
}

/* dpbayes._verify_signature(r release, public_key bytea): valid, unsigned,
 * signed by another key, or signature does not match the release. */
PG_FUNCTION_INFO_V1(dpbayes_verify_signature);
Datum
dpbayes_verify_signature(PG_FUNCTION_ARGS)
{
	dpb_release r;
	const unsigned char *pub = key_arg(fcinfo, 1, "public");

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	PG_RETURN_TEXT_P(cstring_to_text(dpb_sig_check_name(dpb_release_verify(&r, pub))));
}
