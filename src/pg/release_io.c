/*
 * release_io.c — the dpbayes.release type: input/output (JSON text),
 * binary send/receive, and readable views of a release.
 *
 * The on-disk value is a varlena holding the portable packed form of
 * src/core/release.c.  Every path that makes a release value from outside
 * (text, binary) goes through dpb_release_unpack/validate: a malformed,
 * truncated or inconsistent release is rejected.
 */
#include "dpbayes_pg.h"

#include "compat.h"

#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "layout.h"

#include <stdlib.h>

void
dpb_pg_release_from_datum(Datum d, dpb_release *r)
{
	struct varlena *v = PG_DETOAST_DATUM(d);
	dpb_err		err;
	dpb_status	st;
	double	   *stats;

	st = dpb_release_unpack((const unsigned char *) VARDATA_ANY(v),
							VARSIZE_ANY_EXHDR(v), r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_DATA_CORRUPTED);
	/* move the statistics into palloc'd memory at once */
	stats = palloc(sizeof(double) * (r->nstats > 0 ? r->nstats : 1));
	memcpy(stats, r->stats, sizeof(double) * r->nstats);
	dpb_release_free_stats(r);
	r->stats = stats;
}

void
dpb_pg_warn_insecure(const dpb_release *r)
{
	if (r->insecure)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("the release was made with insecure test noise"),
				 errdetail("Its noise came from the deterministic stream of dpbayes.insecure_noise_seed: the release is not differentially private, and neither is anything inferred from it."),
				 errhint("Make the release again with dpbayes.insecure_noise_seed = -1 (the default) before publishing it or any result from it.")));
}

Datum
dpb_pg_release_to_datum(const dpb_release *r)
{
	size_t		sz = dpb_release_packed_size(r);
	struct varlena *v = palloc(VARHDRSZ + sz);

	SET_VARSIZE(v, VARHDRSZ + sz);
	dpb_release_pack(r, (unsigned char *) VARDATA(v));
	return PointerGetDatum(v);
}

static char *
release_json_cstring(const dpb_release *r)
{
	dpb_buf		b;
	dpb_status	st;
	char	   *out;

	dpb_buf_init(&b);
	st = dpb_release_to_json(r, &b);
	if (st != DPB_OK || b.oom)
	{
		dpb_buf_free(&b);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	}
	/* the release's names are UTF-8; the text is in the server encoding */
	out = pstrdup(dpb_pg_from_utf8(b.data));
	dpb_buf_free(&b);
	return out;
}

PG_FUNCTION_INFO_V1(dpbayes_release_in);
Datum
dpbayes_release_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	dpb_release r;

	dpb_pg_release_from_json(s, &r);
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}

PG_FUNCTION_INFO_V1(dpbayes_release_out);
Datum
dpbayes_release_out(PG_FUNCTION_ARGS)
{
	dpb_release r;

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	PG_RETURN_CSTRING(release_json_cstring(&r));
}

PG_FUNCTION_INFO_V1(dpbayes_release_recv);
Datum
dpbayes_release_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, len);
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	Datum		result;

	st = dpb_release_unpack((const unsigned char *) bytes, (size_t) len, &r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_BINARY_REPRESENTATION);
	result = dpb_pg_release_to_datum(&r);
	dpb_release_free_stats(&r);
	PG_RETURN_DATUM(result);
}

PG_FUNCTION_INFO_V1(dpbayes_release_send);
Datum
dpbayes_release_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	dpb_release r;
	StringInfoData buf;

	/* validate before sending */
	dpb_pg_release_from_datum(PointerGetDatum(v), &r);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpbayes_release_json);
Datum
dpbayes_release_json(PG_FUNCTION_ARGS)
{
	dpb_release r;

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in,
										CStringGetDatum(release_json_cstring(&r))));
}

static void
put_kv(ReturnSetInfo *rsinfo, const char *key, const char *val)
{
	Datum		v[2];
	bool		n[2] = {false, false};

	v[0] = CStringGetTextDatum(key);
	v[1] = CStringGetTextDatum(val);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

static char *
fmt_num(double v)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.6g", v);
	return pstrdup(buf);
}

PG_FUNCTION_INFO_V1(dpbayes_release_summary);
Datum
dpbayes_release_summary(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dpb_release r;
	StringInfoData s;
	int			j;

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	InitMaterializedSRF(fcinfo, 0);

	put_kv(rsinfo, "model", dpb_model_name(r.model));
	put_kv(rsinfo, "neighbours", dpb_neighbours_name(r.p.neighbours));
	{
		double		n,
					n_sd;
		int			known;

		dpb_release_count(&r, &n, &n_sd, &known);
		if (known)
			put_kv(rsinfo, "n", psprintf("%.17g", n));
		else
			put_kv(rsinfo, "n", psprintf("%s (noisy count, noise sd %s)",
										 fmt_num(n), fmt_num(n_sd)));
	}
	put_kv(rsinfo, "d", psprintf("%d", r.d));
	put_kv(rsinfo, "intercept", r.p.intercept ? "true" : "false");
	initStringInfo(&s);
	for (j = 0; j < r.d; j++)
	{
		if (j)
			appendStringInfoString(&s, ", ");
		if (r.p.has_names)
			appendStringInfoString(&s, r.p.names[j]);
		else
			appendStringInfo(&s, "x%d", j + 1);
		if (r.p.has_bounds)
			appendStringInfo(&s, " [%g, %g]", r.p.lower[j], r.p.upper[j]);
	}
	put_kv(rsinfo, "features", dpb_pg_from_utf8(s.data));
	put_kv(rsinfo, "scaling", r.p.has_bounds ? dpb_scaling_name(r.p.scaling) : "none (features used as given)");
	put_kv(rsinfo, "clip", fmt_num(r.p.clip));
	if (r.model != DPB_MODEL_LOGISTIC)
		put_kv(rsinfo, "y_bound", fmt_num(r.p.y_bound));
	put_kv(rsinfo, "mechanism", dpb_mechanism_name(r.p.mechanism));
	put_kv(rsinfo, "epsilon", fmt_num(r.p.epsilon));
	put_kv(rsinfo, "delta", fmt_num(r.p.delta));
	put_kv(rsinfo, dpb_mech_gaussian(r.p.mechanism) ? "l2 sensitivity" : "l1 sensitivity",
		   fmt_num(r.sensitivity));
	put_kv(rsinfo, dpb_mech_gaussian(r.p.mechanism) ? "noise sigma" : "laplace scale",
		   fmt_num(r.noise_scale));
	if (r.p.x_moments > 0)
		put_kv(rsinfo, "x_moments", psprintf("%s of the budget on the moments of the features",
											fmt_num(r.p.x_moments)));
	put_kv(rsinfo, "statistics", psprintf("%d in %d blocks", r.nstats, r.nblocks));
	put_kv(rsinfo, "insecure test noise", r.insecure ? "YES: NOT PRIVATE" : "no");
	if (r.p.mechanism == DPB_MECH_NONE)
		put_kv(rsinfo, "NOT PRIVATE", "exact statistics (non-private reference): never publish");
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_release_stats);
Datum
dpbayes_release_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dpb_release r;
	dpb_layout	L;
	dpb_entry	e;
	const char *names[DPB_MAX_D];
	double	   *sd;
	char		label[4 * DPB_NAME_LEN];
	int			k,
				j;

	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	InitMaterializedSRF(fcinfo, 0);
	dpb_release_layout(&r, &L);
	sd = palloc(sizeof(double) * r.nstats);
	dpb_release_noise_sd(&r, sd);
	for (j = 0; j < r.d; j++)
		names[j] = r.p.has_names ? r.p.names[j] : NULL;
	for (k = 0; k < r.nstats; k++)
	{
		Datum		v[4];
		bool		n[4] = {false, false, false, false};

		dpb_layout_entry(&L, k, &e);
		dpb_layout_label(&L, k, names, label, sizeof(label));
		v[0] = CStringGetTextDatum(dpb_block_kind_name(L.kind[e.block]));
		v[1] = CStringGetTextDatum(dpb_pg_from_utf8(label));
		v[2] = Float8GetDatum(r.stats[k]);
		v[3] = Float8GetDatum(sd[k]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}
