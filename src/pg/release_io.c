/*
 * release_io.c — the dpbayes.release type: input/output (JSON text),
 * binary send/receive, and readable views of a release.
 *
 * The on-disk value is a varlena holding the portable packed form of
 * src/core/release/release.c.  Every path that makes a release value from outside
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
#include "betad/betad_release.h"

#include <stdlib.h>

/* ---- releases of kind betad (a draw, not statistics) ---- */

static bool
varlena_is_betad(struct varlena *v)
{
	return dpb_betad_is_packed((const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
}

/* unpacks (and validates) a betaD release; r->draws is palloc'd */
static void
betad_from_varlena(struct varlena *v, dpb_betad_release *r, int corrupt_code)
{
	dpb_err		err;
	dpb_status	st;
	double	   *draws;
	size_t		nd;

	st = dpb_betad_unpack((const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, corrupt_code);
	nd = (size_t) r->s.ndraws * dpb_betad_nvar(&r->s);
	draws = palloc(sizeof(double) * nd);
	memcpy(draws, r->draws, sizeof(double) * nd);
	dpb_betad_release_free(r);
	r->draws = draws;
}

bool
dpb_pg_datum_is_betad(Datum d)
{
	return varlena_is_betad(PG_DETOAST_DATUM(d));
}

void
dpb_pg_betad_release_from_datum(Datum d, dpb_betad_release *r)
{
	betad_from_varlena(PG_DETOAST_DATUM(d), r, ERRCODE_DATA_CORRUPTED);
}

Datum
dpb_pg_betad_to_datum(const dpb_betad_release *r)
{
	size_t		sz = dpb_betad_packed_size(r);
	struct varlena *v = palloc(VARHDRSZ + sz);

	SET_VARSIZE(v, VARHDRSZ + sz);
	dpb_betad_pack(r, (unsigned char *) VARDATA(v));
	return PointerGetDatum(v);
}

/* a filled JSON buffer as a palloc'd string in the server encoding (the
 * buffer is freed) */
static char *
json_buf_cstring(dpb_buf *b, dpb_status st)
{
	char	   *out;

	if (st != DPB_OK || b->oom)
	{
		dpb_buf_free(b);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	}
	/* the release's names are UTF-8; the text is in the server encoding */
	out = pstrdup(dpb_pg_from_utf8(b->data));
	dpb_buf_free(b);
	return out;
}

static char *
betad_json_cstring(const dpb_betad_release *r)
{
	dpb_buf		b;

	dpb_buf_init(&b);
	return json_buf_cstring(&b, dpb_betad_to_json(r, &b));
}

void
dpb_pg_release_from_datum(Datum d, dpb_release *r)
{
	struct varlena *v = PG_DETOAST_DATUM(d);
	dpb_err		err;
	dpb_status	st;
	double	   *stats;

	if (varlena_is_betad(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("this release is a betaD-Bayes draw, not a release of statistics"),
				 errdetail("A betaD release holds one draw from the betaD posterior (an estimate): there are no noisy statistics to infer from."),
				 errhint("It is an estimate, not a statistic: read it with dpbayes.release_summary() or dpbayes.release_json().")));
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

	dpb_buf_init(&b);
	return json_buf_cstring(&b, dpb_release_to_json(r, &b));
}

PG_FUNCTION_INFO_V1(dpbayes_release_in);
Datum
dpbayes_release_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(dpb_pg_release_in_any(PG_GETARG_CSTRING(0)));
}

PG_FUNCTION_INFO_V1(dpbayes_release_out);
Datum
dpbayes_release_out(PG_FUNCTION_ARGS)
{
	dpb_release r;
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	if (varlena_is_betad(v))
	{
		dpb_betad_release b;

		betad_from_varlena(v, &b, ERRCODE_DATA_CORRUPTED);
		PG_RETURN_CSTRING(betad_json_cstring(&b));
	}
	dpb_pg_release_from_datum(PointerGetDatum(v), &r);
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

	if (dpb_betad_is_packed((const unsigned char *) bytes, (size_t) len))
	{
		dpb_betad_release b;

		st = dpb_betad_unpack((const unsigned char *) bytes, (size_t) len, &b, &err);
		if (st != DPB_OK)
			dpb_pg_raise(st, &err, ERRCODE_INVALID_BINARY_REPRESENTATION);
		result = dpb_pg_betad_to_datum(&b);
		dpb_betad_release_free(&b);
		PG_RETURN_DATUM(result);
	}
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
	if (varlena_is_betad(v))
	{
		dpb_betad_release b;

		betad_from_varlena(v, &b, ERRCODE_DATA_CORRUPTED);
	}
	else
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
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	char	   *js;

	if (varlena_is_betad(v))
	{
		dpb_betad_release b;

		betad_from_varlena(v, &b, ERRCODE_DATA_CORRUPTED);
		js = betad_json_cstring(&b);
	}
	else
	{
		dpb_pg_release_from_datum(PointerGetDatum(v), &r);
		js = release_json_cstring(&r);
	}
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(js)));
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

static void
betad_summary(ReturnSetInfo *rsinfo, const dpb_betad_release *b)
{
	const dpb_betad_spec *sp = &b->s;
	int			nvar = dpb_betad_nvar(sp),
				j,
				k;
	char		name[DPB_NAME_LEN + 8];

	put_kv(rsinfo, "kind", "betad (one draw from the betaD posterior: an estimate, not statistics)");
	put_kv(rsinfo, "model", dpb_betad_model_name(sp));
	if (sp->hidden > 0)
		put_kv(rsinfo, "network", psprintf("one hidden layer of %d %s units", sp->hidden,
										   sp->activation == DPB_BETAD_ACT_TANH ? "tanh" : "ReLU"));
	if (sp->neighbours == DPB_NB_REPLACE)
	{
		put_kv(rsinfo, "neighbours", "replace");
		put_kv(rsinfo, "n", psprintf(INT64_FORMAT, b->n));
	}
	else
		put_kv(rsinfo, "neighbours", "add_remove (the number of records is private: not released)");
	put_kv(rsinfo, "d", psprintf("%d", sp->fx.d));
	put_kv(rsinfo, "intercept", sp->fx.intercept ? "true" : "false");
	put_kv(rsinfo, "epsilon", fmt_num(sp->epsilon));
	put_kv(rsinfo, "delta", fmt_num(sp->delta_eff));
	put_kv(rsinfo, "beta", fmt_num(sp->beta));
	put_kv(rsinfo, "draws", sp->ndraws == 1 ? "1" :
		   psprintf("%d (epsilon %s each, composed as zCDP)", sp->ndraws, fmt_num(sp->eps_draw)));
	put_kv(rsinfo, "prior", psprintf(sp->hidden > 0 ? "every weight and bias N(0, %s^2)" :
									 "coefficients N(0, %s^2)", fmt_num(sp->prior_sd)));
	if (sp->gaussian)
		put_kv(rsinfo, "sigma2", psprintf("floor %s, y_scale %s, sigma2 / y_scale^2 ~ InverseGamma(%s, %s) above the floor",
										  fmt_num(sp->sigma2_floor), fmt_num(sp->y_scale),
										  fmt_num(sp->ig_a), fmt_num(sp->ig_b)));
	if (sp->tier == DPB_BETAD_EXACT)
		put_kv(rsinfo, "sampling", psprintf("exact (rejection from the prior, %lld trials per draw), delta' %s",
											(long long) b->trials, fmt_num(b->delta_prime)));
	else
		put_kv(rsinfo, "sampling", psprintf("approximate: NUTS, %d chains, %d warmup, %d iterations; delta' not certified",
											sp->sched.chains, sp->sched.warmup, sp->sched.iters));
	put_kv(rsinfo, "insecure test noise", b->insecure ? "YES: NOT PRIVATE" : "no");
	for (k = 0; k < sp->ndraws; k++)
		for (j = 0; j < nvar; j++)
		{
			dpb_betad_var_name(sp, j, name, sizeof(name));
			put_kv(rsinfo, sp->ndraws == 1 ? psprintf("draw: %s", dpb_pg_from_utf8(name)) :
				   psprintf("draw %d: %s", k + 1, dpb_pg_from_utf8(name)),
				   psprintf("%.12g", b->draws[(size_t) k * nvar + j]));
		}
}

PG_FUNCTION_INFO_V1(dpbayes_release_summary);
Datum
dpbayes_release_summary(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dpb_release r;
	StringInfoData s;
	int			j;
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	if (varlena_is_betad(v))
	{
		dpb_betad_release b;

		betad_from_varlena(v, &b, ERRCODE_DATA_CORRUPTED);
		InitMaterializedSRF(fcinfo, 0);
		betad_summary(rsinfo, &b);
		return (Datum) 0;
	}
	dpb_pg_release_from_datum(PointerGetDatum(v), &r);
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
	if (r.p.y_clamped > 0)
		put_kv(rsinfo, "y_clamped", psprintf("%s of the budget on the count of clamped responses",
											fmt_num(r.p.y_clamped)));
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
