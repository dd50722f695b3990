/*
 * signing.c — the SQL side of signed releases (src/core/release/release_sig.c,
 * docs/governance.md §6): key generation, signing (called by
 * dpbayes._compute with the server's private key, which only the governance
 * owner can read), the signature fields of a release, and the check of a
 * signature against a public key (dpbayes.verify looks the key up).
 * Statistics releases carry signatures of version 1 (0.1.0) or 2 (with a
 * binding); betaD releases of version 2.  Every entry point named by an
 * installed script is kept (docs/upgrades.md).
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "betad/betad_release.h"

static bytea *
to_bytea(const unsigned char *b, int n)
{
	bytea	   *v = palloc(VARHDRSZ + n);

	SET_VARSIZE(v, VARHDRSZ + n);
	memcpy(VARDATA(v), b, n);
	return v;
}

/* argument 0, the release, detoasted once (the kind test and the unpack
 * both read it) */
static Datum
release_arg(FunctionCallInfo fcinfo)
{
	return PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
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

/* The release's text arguments as the UTF-8 a signature stores. */
static const char *
utf8_arg(FunctionCallInfo fcinfo, int i)
{
	text	   *t = PG_GETARG_TEXT_PP(i);

	return dpb_pg_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

static void
refuse_insecure(bool insecure, bool reference)
{
	if (insecure || reference)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only private releases are signed"),
				 errdetail("The release was made with insecure test noise or is the non-private reference.")));
}

/*
 * dpbayes._sign(r release, request_id text, dataset text, private_key bytea):
 * a version-1 signature (dpbayes 0.1.0; statistics releases only).
 */
PG_FUNCTION_INFO_V1(dpbayes_sign);
Datum
dpbayes_sign(PG_FUNCTION_ARGS)
{
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	const unsigned char *priv = key_arg(fcinfo, 3, "private");
	Datum		rd = release_arg(fcinfo);

	if (dpb_pg_datum_is_betad(rd))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a betaD release is signed only with a binding"),
				 errdetail("Signatures of betaD releases are of version 2, which also signs a 32-byte digest of the request."),
				 errhint("Call dpbayes._sign(r, request_id, dataset, binding, private_key).")));
	dpb_pg_release_from_datum(rd, &r);
	refuse_insecure(r.insecure, r.p.mechanism == DPB_MECH_NONE);
	st = dpb_release_sign(&r, priv, utf8_arg(fcinfo, 1), utf8_arg(fcinfo, 2), &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}

/*
 * dpbayes._sign(r release, request_id text, dataset text, binding bytea,
 * private_key bytea): a version-2 signature, which also signs the binding
 * (the SHA-256 of the request's canonical description, 32 bytes), of a
 * statistics or a betaD release.
 */
PG_FUNCTION_INFO_V1(dpbayes_sign_v2);
Datum
dpbayes_sign_v2(PG_FUNCTION_ARGS)
{
	bytea	   *bd = PG_GETARG_BYTEA_PP(3);
	const unsigned char *priv = key_arg(fcinfo, 4, "private"),
			   *binding;
	dpb_err		err;
	dpb_status	st;
	Datum		rd;

	if (VARSIZE_ANY_EXHDR(bd) != DPB_SIG_BINDING_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a signature binding has %d bytes", DPB_SIG_BINDING_BYTES),
				 errdetail("The binding is the SHA-256 digest of the request's canonical description."),
				 errhint("Pass sha256(convert_to(description, 'UTF8')).")));
	binding = (const unsigned char *) VARDATA_ANY(bd);
	rd = release_arg(fcinfo);
	if (dpb_pg_datum_is_betad(rd))
	{
		dpb_betad_release b;

		dpb_pg_betad_release_from_datum(rd, &b);
		refuse_insecure(b.insecure, false);
		st = dpb_betad_sign(&b, priv, utf8_arg(fcinfo, 1), utf8_arg(fcinfo, 2), binding, &err);
		if (st != DPB_OK)
			dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
		PG_RETURN_DATUM(dpb_pg_betad_to_datum(&b));
	}
	else
	{
		dpb_release r;

		dpb_pg_release_from_datum(rd, &r);
		refuse_insecure(r.insecure, r.p.mechanism == DPB_MECH_NONE);
		st = dpb_release_sign2(&r, priv, utf8_arg(fcinfo, 1), utf8_arg(fcinfo, 2), binding,
							   &err);
		if (st != DPB_OK)
			dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
		PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
	}
}

/* the signature of a release of either kind (present = 0 when unsigned) */
static void
release_sig_of(Datum d, dpb_release_sig *sig)
{
	if (dpb_pg_datum_is_betad(d))
	{
		dpb_betad_release b;

		dpb_pg_betad_release_from_datum(d, &b);
		*sig = b.sig;
	}
	else
	{
		dpb_release r;

		dpb_pg_release_from_datum(d, &r);
		*sig = r.sig;
	}
}

/*
 * The signature's fields, all null for an unsigned release: alg, key_id,
 * request_id, dataset, and (ncols 6) binding (null for version 1) and
 * version.
 */
static Datum
release_signature(FunctionCallInfo fcinfo, int ncols)
{
	dpb_release_sig sig;
	TupleDesc	td;
	Datum		v[6] = {0};
	bool		nulls[6] = {0};
	int			j;

	td = dpb_pg_result_desc(fcinfo);
	if (td->natts != ncols)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("function return row and query-specified return row do not match"),
				 errdetail("The signature has %d fields; the declared result has %d.",
						   ncols, td->natts)));
	release_sig_of(release_arg(fcinfo), &sig);
	if (!sig.present)
		for (j = 0; j < ncols; j++)
			nulls[j] = true;
	else
	{
		v[0] = CStringGetTextDatum("ed25519");
		v[1] = PointerGetDatum(to_bytea(sig.key_id, DPB_SIG_KEYID_BYTES));
		v[2] = CStringGetTextDatum(dpb_pg_from_utf8(sig.request_id));
		v[3] = CStringGetTextDatum(dpb_pg_from_utf8(sig.dataset));
		if (ncols == 6)
		{
			if (sig.version == DPB_SIG_V2)
				v[4] = PointerGetDatum(to_bytea(sig.binding, DPB_SIG_BINDING_BYTES));
			else
				nulls[4] = true;
			v[5] = Int32GetDatum(sig.version);
		}
	}
	return HeapTupleGetDatum(heap_form_tuple(td, v, nulls));
}

/*
 * dpbayes.release_signature(r, OUT alg text, OUT key_id bytea,
 * OUT request_id text, OUT dataset text) of dpbayes 0.1.0.
 */
PG_FUNCTION_INFO_V1(dpbayes_release_signature);
Datum
dpbayes_release_signature(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(release_signature(fcinfo, 4));
}

/*
 * dpbayes.release_signature(r, OUT alg text, OUT key_id bytea,
 * OUT request_id text, OUT dataset text, OUT binding bytea,
 * OUT version integer): a release of either kind.
 */
PG_FUNCTION_INFO_V1(dpbayes_release_signature_v2);
Datum
dpbayes_release_signature_v2(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(release_signature(fcinfo, 6));
}

/* dpbayes._verify_signature(r release, public_key bytea): valid, unsigned,
 * signed by another key, or signature does not match the release; a
 * release of either kind, a signature of either version. */
PG_FUNCTION_INFO_V1(dpbayes_verify_signature);
Datum
dpbayes_verify_signature(PG_FUNCTION_ARGS)
{
	const unsigned char *pub = key_arg(fcinfo, 1, "public");
	Datum		rd = release_arg(fcinfo);
	dpb_sig_check c;

	if (dpb_pg_datum_is_betad(rd))
	{
		dpb_betad_release b;

		dpb_pg_betad_release_from_datum(rd, &b);
		c = dpb_betad_verify(&b, pub);
	}
	else
	{
		dpb_release r;

		dpb_pg_release_from_datum(rd, &r);
		c = dpb_release_verify(&r, pub);
	}
	PG_RETURN_TEXT_P(cstring_to_text(dpb_sig_check_name(c)));
}
