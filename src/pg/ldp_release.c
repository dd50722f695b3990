/*
 * ldp_release.c — dpbayes.ldp_release(protocol_id, report, protocol) (and
 * 0.1.0's id-less form, which 0.2.0 no longer has): sum the reports of an
 * ss_* protocol (each a one-record, replace-one Gaussian release of t(x, y))
 * into an ordinary dpbayes.release with mechanism "ldp_gaussian" and n the
 * number of reports (docs/ldp.md "The server", docs/release-format.md).
 *
 * No noise is added: the reports are already private.  Every report value
 * is an integer multiple of its block's grid, so the sums are kept exactly
 * as 128-bit integers in grid units; the noise of the sum is N times a
 * report's (D = N Sigma*), which the release's noise_sd carries.  A report
 * off its grid, out of its plausible range or of the wrong width is an
 * error, as is a protocol id that does not match (the id form); a report
 * stamped "insecure_test:" by the test build of the client makes the
 * release insecure.
 */
#include "ldp_pg.h"
#include "release_state.h"

#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

/* (only 8-byte aligned fields: palloc suits it) */
typedef struct LdpSum
{
	LdpProto   *lp;
	int64		n;
	bool		insecure;
	dpb_i128   *sum;			/* lp->n sums in grid units */
	char	   *ptext;			/* release_state: the protocol as JSON text */
} LdpSum;

#define SUM_MAGIC 0x4450424c	/* "DPBL" */

static LdpSum *
sum_new(MemoryContext cxt, LdpProto *lp)
{
	LdpSum	   *s = MemoryContextAllocZero(cxt, sizeof(LdpSum));

	s->lp = lp;
	/* 128-bit integers need 16-byte alignment (palloc gives 8) */
	s->sum = (dpb_i128 *) TYPEALIGN(16, MemoryContextAllocZero(cxt, sizeof(dpb_i128) * (lp->n + 1)));
	return s;
}

static void
require_ss(const LdpProto *lp)
{
	dpb_ldp_mech m = lp->p.mech;

	if (m != DPB_LDP_SS_LINEAR && m != DPB_LDP_SS_LOGISTIC && m != DPB_LDP_SS_POISSON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpbayes.ldp_release sums the reports of an ss_linear, ss_logistic or ss_poisson protocol"),
				 errhint("The reports of the other mechanisms are collected by dpbayes.ldp_collect.")));
}

/*
 * One report into the sums.  s is NULL on the group's first report (a new
 * state is made in cxt); returns the state.  The internal-state aggregates
 * (dpbayes 0.1.0) and the release_state ones share it.
 */
static LdpSum *
report_row(FunctionCallInfo fcinfo, int idarg, LdpArgKind kind, LdpSum *s, MemoryContext cxt)
{
	LdpProto   *lp;
	struct varlena *raw;
	double	   *z;
	const char *why = NULL;
	int			k,
				rarg = idarg + 1;
	bool		insecure = false;

	if (PG_ARGISNULL(rarg + 1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol must not be null")));
	raw = PG_DETOAST_DATUM(PG_GETARG_DATUM(rarg + 1));
	if (s == NULL)
	{
		lp = NULL;
		lp = dpb_pg_ldp_cached(&lp, raw, kind, cxt);
		require_ss(lp);
		s = sum_new(cxt, lp);
	}
	else
	{
		lp = s->lp;
		if (lp->kind != kind || lp->len != VARSIZE(raw) || memcmp(lp->bytes, raw, lp->len) != 0)
		{
			/* a state copied from another (release_state) keeps the
			 * protocol's parsed form: compare the protocols' ids */
			LdpProto   *other = NULL;

			other = dpb_pg_ldp_cached(&other, raw, kind, CurrentMemoryContext);
			if (strcmp(other->p.id, lp->p.id) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the protocol must be the same for every report of a group")));
			/* the same protocol: later rows compare these bytes */
			lp->bytes = MemoryContextAlloc(GetMemoryChunkContext(s), VARSIZE(raw));
			memcpy(lp->bytes, raw, VARSIZE(raw));
			lp->len = VARSIZE(raw);
			lp->kind = kind;
			s->ptext = NULL;
		}
	}
	if (idarg > 0)
		dpb_pg_ldp_check_id(fcinfo, 1, lp, s->n + 1, &insecure);
	if (PG_ARGISNULL(rarg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("report %lld is null", (long long) s->n + 1),
				 errhint("Filter missing reports explicitly (WHERE report IS NOT NULL).")));
	z = dpb_pg_ldp_report_values(PG_GETARG_ARRAYTYPE_P(rarg), lp, &why);
	if (z == NULL || !dpb_pg_ldp_report_ok(lp, z))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("report %lld is not a valid report of the protocol", (long long) s->n + 1),
				 errdetail("%s", why ? why :
						   "A value is not finite, not on its public grid or outside its plausible range."),
				 errhint("Validate reports on ingest with a CHECK constraint using dpbayes.ldp_check.")));
	for (k = 0; k < lp->n; k++)
		s->sum[k] += (dpb_i128) (int64) ldexp(z[k], -lp->gexp[k]);	/* exact: |.| <= 2^53 */
	s->n++;
	s->insecure |= insecure;
	return s;
}

static Datum
trans(FunctionCallInfo fcinfo, int idarg, LdpArgKind kind)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_release transition function called in non-aggregate context")));
	PG_RETURN_POINTER(report_row(fcinfo, idarg, kind,
								 PG_ARGISNULL(0) ? NULL : (LdpSum *) PG_GETARG_POINTER(0),
								 aggcxt));
}

/* the release_state aggregates (release_state.h): the same sums in an
 * expanded object */
static Datum
trans_s(FunctionCallInfo fcinfo, int idarg, LdpArgKind kind)
{
	MemoryContext aggcxt;
	DpbState   *e;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_release transition function called in non-aggregate context")));
	if (PG_ARGISNULL(0))
		e = dpb_state_new(aggcxt, DPB_STATE_KIND_LDP);
	else
		e = dpb_state_update(PG_GETARG_DATUM(0), DPB_STATE_KIND_LDP, aggcxt);
	e->s = report_row(fcinfo, idarg, kind, e->s, e->hdr.eoh_context);
	PG_RETURN_DATUM(dpb_state_datum(e));
}

/* the release_state forms: (protocol_id, report, protocol text) is 0.2.0's
 * SQL; the jsonb forms stay callable */
PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans_s);
Datum
dpbayes_ldp_release_trans_s(PG_FUNCTION_ARGS)
{
	return trans_s(fcinfo, 0, LDP_ARG_JSONB);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans_id_s);
Datum
dpbayes_ldp_release_trans_id_s(PG_FUNCTION_ARGS)
{
	return trans_s(fcinfo, 1, LDP_ARG_JSONB);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans_id_ts);
Datum
dpbayes_ldp_release_trans_id_ts(PG_FUNCTION_ARGS)
{
	return trans_s(fcinfo, 1, LDP_ARG_TEXT);
}

/* 0.1.0: (report, protocol jsonb), without an id: no longer in 0.2.0's SQL */
PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans);
Datum
dpbayes_ldp_release_trans(PG_FUNCTION_ARGS)
{
	return trans(fcinfo, 0, LDP_ARG_JSONB);
}

/* 0.1.0: (protocol_id, report, protocol jsonb) */
PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans_id);
Datum
dpbayes_ldp_release_trans_id(PG_FUNCTION_ARGS)
{
	return trans(fcinfo, 1, LDP_ARG_JSONB);
}

/* 0.2.0 internal-state form: (protocol_id, report, protocol text) */
PG_FUNCTION_INFO_V1(dpbayes_ldp_release_trans_id_t);
Datum
dpbayes_ldp_release_trans_id_t(PG_FUNCTION_ARGS)
{
	return trans(fcinfo, 1, LDP_ARG_TEXT);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_combine);
Datum
dpbayes_ldp_release_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	LdpSum	   *a,
			   *b,
			   *c;
	int			k;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_release combine function called in non-aggregate context")));
	a = PG_ARGISNULL(0) ? NULL : (LdpSum *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (LdpSum *) PG_GETARG_POINTER(1);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
	{
		/* copy b into the aggregate context */
		LdpProto   *lp = dpb_pg_ldp_alloc(aggcxt);

		*lp = *b->lp;
		lp->bytes = MemoryContextAlloc(aggcxt, lp->len);
		memcpy(lp->bytes, b->lp->bytes, lp->len);
		lp->gexp = MemoryContextAlloc(aggcxt, sizeof(int) * lp->n);
		memcpy(lp->gexp, b->lp->gexp, sizeof(int) * lp->n);
		lp->lo = lp->hi = NULL;	/* not needed after the transitions */
		c = sum_new(aggcxt, lp);
		c->n = b->n;
		c->insecure = b->insecure;
		memcpy(c->sum, b->sum, sizeof(dpb_i128) * lp->n);
		PG_RETURN_POINTER(c);
	}
	if (a->lp->len != b->lp->len || memcmp(a->lp->bytes, b->lp->bytes, a->lp->len) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the protocol must be the same for every report of a group")));
	for (k = 0; k < a->lp->n; k++)
		a->sum[k] += b->sum[k];
	a->n += b->n;
	a->insecure |= b->insecure;
	PG_RETURN_POINTER(a);
}

/* serialized: magic u32 | flags u32 (1 insecure, 2 the protocol is text) | n i64 | protocol length u32 |
 * nsums u32 | protocol jsonb bytes | sums (native layout, between processes
 * of one server) */
PG_FUNCTION_INFO_V1(dpbayes_ldp_release_serialize);
Datum
dpbayes_ldp_release_serialize(PG_FUNCTION_ARGS)
{
	LdpSum	   *s = (LdpSum *) PG_GETARG_POINTER(0);
	uint32		hdr[2] = {SUM_MAGIC, (s->insecure ? 1 : 0) | (s->lp->kind == LDP_ARG_TEXT ? 2 : 0)},
				len[2] = {(uint32) s->lp->len, (uint32) s->lp->n};
	Size		sz = sizeof(hdr) + sizeof(int64) + sizeof(len) + s->lp->len +
		sizeof(dpb_i128) * s->lp->n;
	bytea	   *out = palloc(VARHDRSZ + sz);
	char	   *p = VARDATA(out);

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_release serialize function called in non-aggregate context")));
	SET_VARSIZE(out, VARHDRSZ + sz);
	memcpy(p, hdr, sizeof(hdr));
	p += sizeof(hdr);
	memcpy(p, &s->n, sizeof(int64));
	p += sizeof(int64);
	memcpy(p, len, sizeof(len));
	p += sizeof(len);
	memcpy(p, s->lp->bytes, s->lp->len);
	p += s->lp->len;
	memcpy(p, s->sum, sizeof(dpb_i128) * s->lp->n);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_deserialize);
Datum
dpbayes_ldp_release_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	bytea	   *in;
	const char *p;
	Size		sz;
	uint32		hdr[2],
				len[2];
	int64		n;
	LdpProto   *lp = NULL;
	LdpSum	   *s;
	struct varlena *raw;
	const Size	fixed = sizeof(hdr) + sizeof(int64) + sizeof(len);

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_release deserialize function called in non-aggregate context")));
	in = PG_GETARG_BYTEA_PP(0);
	p = VARDATA_ANY(in);
	sz = VARSIZE_ANY_EXHDR(in);
	if (sz < fixed)
		goto corrupt;
	memcpy(hdr, p, sizeof(hdr));
	memcpy(&n, p + sizeof(hdr), sizeof(int64));
	memcpy(len, p + sizeof(hdr) + sizeof(int64), sizeof(len));
	if (hdr[0] != SUM_MAGIC || hdr[1] > 3 || n < 0 || len[0] < VARHDRSZ ||
		len[1] < 1 || len[1] > 100000 ||
		sz != fixed + len[0] + sizeof(dpb_i128) * (Size) len[1])
		goto corrupt;
	raw = palloc(len[0]);
	memcpy(raw, p + fixed, len[0]);
	if (VARSIZE(raw) != len[0])
		goto corrupt;
	lp = dpb_pg_ldp_cached(&lp, raw, (hdr[1] & 2) ? LDP_ARG_TEXT : LDP_ARG_JSONB, aggcxt);
	if ((uint32) lp->n != len[1])
		goto corrupt;
	s = sum_new(aggcxt, lp);
	s->n = n;
	s->insecure = (hdr[1] & 1) != 0;
	memcpy(s->sum, p + fixed + len[0], sizeof(dpb_i128) * lp->n);
	PG_RETURN_POINTER(s);
corrupt:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid ldp_release aggregate state")));
	PG_RETURN_NULL();
}

static Datum ldp_final_of(FunctionCallInfo fcinfo, LdpSum *s);

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_final);
Datum
dpbayes_ldp_release_final(PG_FUNCTION_ARGS)
{
	return ldp_final_of(fcinfo, PG_ARGISNULL(0) ? NULL : (LdpSum *) PG_GETARG_POINTER(0));
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_release_final_s);
Datum
dpbayes_ldp_release_final_s(PG_FUNCTION_ARGS)
{
	return ldp_final_of(fcinfo, PG_ARGISNULL(0) ? NULL :
						dpb_state_read(PG_GETARG_DATUM(0), DPB_STATE_KIND_LDP)->s);
}

static Datum
ldp_final_of(FunctionCallInfo fcinfo, LdpSum *s)
{
	dpb_release r;
	dpb_err		err;
	dpb_status	st;
	int			k;

	if (s == NULL || s->n == 0)
		PG_RETURN_NULL();
	r = s->lp->c.rel;
	r.p.mechanism = DPB_MECH_LDP_GAUSSIAN;
	r.n = s->n;
	r.insecure = s->insecure ? 1 : 0;
	r.stats = palloc(sizeof(double) * s->lp->n);
	for (k = 0; k < s->lp->n; k++)
	{
		/* |sum| < 2^53 grid units: exactly representable */
		if (s->sum[k] >= ((dpb_i128) 1 << 53) || s->sum[k] <= -((dpb_i128) 1 << 53))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the sum of the reports is too large to be represented exactly"),
					 errhint("Sum fewer reports per group.")));
		r.stats[k] = ldexp((double) (int64) s->sum[k], s->lp->gexp[k]);
	}
	memset(&err, 0, sizeof(err));
	if ((st = dpb_release_calibrate(&r, &err)) != DPB_OK ||
		(st = dpb_release_validate(&r, &err)) != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_DATUM(dpb_pg_release_to_datum(&r));
}

/* ---- the hooks of dpbayes.release_state (release_state.h), kind LDP ----
 *
 * Body after the header (magic, version, kind): u8 flags (1: insecure), u8
 * reserved, u64 n, u32 length of the protocol's JSON text, u32 number of
 * sums, the text, the sums (16-byte two's complement each, grid units).
 * The protocol is public and the reports are already private: nothing here
 * is an exact statistic of the rows.
 */
#define LDP_FIXED (DPB_STATE_HDR + 2 + 8 + 4 + 4)

static const char *
ldp_ptext(LdpSum *s)
{
	if (s->ptext == NULL)
	{
		char	   *t = dpb_pg_ldp_raw_text((struct varlena *) s->lp->bytes, s->lp->kind);

		s->ptext = MemoryContextStrdup(GetMemoryChunkContext(s), t);
	}
	return s->ptext;
}

static void
put_le(unsigned char *p, uint64 v, int nbytes)
{
	int			i;

	for (i = 0; i < nbytes; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static uint64
get_le(const unsigned char *p, int nbytes)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < nbytes; i++)
		v |= (uint64) p[i] << (8 * i);
	return v;
}

Size
dpb_ldp_state_size(void *ps)
{
	LdpSum	   *s = ps;

	return LDP_FIXED + strlen(ldp_ptext(s)) + 16 * (Size) s->lp->n;
}

void
dpb_ldp_state_pack(void *ps, unsigned char *buf)
{
	LdpSum	   *s = ps;
	const char *t = ldp_ptext(s);
	size_t		tl = strlen(t);
	unsigned char *q = buf;
	int			k;

	memcpy(q, DPB_STATE_MAGIC, 4);
	q[4] = DPB_STATE_VERSION;
	q[5] = DPB_STATE_KIND_LDP;
	q[6] = s->insecure ? 1 : 0;
	q[7] = 0;
	put_le(q + 8, (uint64) s->n, 8);
	put_le(q + 16, (uint64) tl, 4);
	put_le(q + 20, (uint64) s->lp->n, 4);
	q += LDP_FIXED;
	memcpy(q, t, tl);
	q += tl;
	for (k = 0; k < s->lp->n; k++, q += 16)
		dpb_state_put_i128(q, s->sum[k]);
}

pg_attribute_noreturn()
static void
ldp_state_corrupt(int code, const char *detail)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid release aggregate state"),
			 errdetail("%s", detail)));
	pg_unreachable();
}

void *
dpb_ldp_state_unpack(const unsigned char *buf, size_t len, MemoryContext cxt, int code)
{
	uint64		n,
				tl,
				ns;
	char	   *t;
	struct varlena *raw;
	LdpProto   *lp = NULL;
	LdpSum	   *s;
	MemoryContext old;
	int			k;

	if (len < LDP_FIXED || buf[6] > 1 || buf[7] != 0)
		ldp_state_corrupt(code, "The state's header is malformed or truncated.");
	n = get_le(buf + 8, 8);
	tl = get_le(buf + 16, 4);
	ns = get_le(buf + 20, 4);
	if (n < 1 || n > (uint64) DPB_STATE_MAX_N)
		ldp_state_corrupt(code, "The state's number of reports is out of range.");
	if (ns < 1 || ns > 100000 || tl > len || len - LDP_FIXED != tl + 16 * ns)
		ldp_state_corrupt(code, "The state's length does not match its sums.");
	t = palloc(tl + 1);
	memcpy(t, buf + LDP_FIXED, tl);
	t[tl] = '\0';
	if (memchr(t, '\0', tl) != NULL)
		ldp_state_corrupt(code, "The state's protocol is not text.");
	old = MemoryContextSwitchTo(cxt);
	raw = (struct varlena *) cstring_to_text_with_len(t, (int) tl);
	lp = dpb_pg_ldp_cached(&lp, raw, LDP_ARG_TEXT, cxt);
	MemoryContextSwitchTo(old);
	require_ss(lp);
	if ((uint64) lp->n != ns)
		ldp_state_corrupt(code, "The state's number of sums does not match its protocol.");
	s = sum_new(cxt, lp);
	s->n = (int64) n;
	s->insecure = buf[6] == 1;
	for (k = 0; k < lp->n; k++)
	{
		dpb_i128	v = dpb_state_get_i128(buf + LDP_FIXED + tl + 16 * (Size) k);

		/* each report is below 2^53 grid units */
		if (v > (dpb_i128) n << 53 || v < -((dpb_i128) n << 53))
			ldp_state_corrupt(code, "A sum of the state is not a sum of that many reports.");
		s->sum[k] = v;
	}
	return s;
}

void
dpb_ldp_state_merge(void *pa, void *pb)
{
	LdpSum	   *a = pa,
			   *b = pb;
	int			k;

	if (strcmp(a->lp->p.id, b->lp->p.id) != 0 || a->lp->n != b->lp->n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the protocol must be the same for every report of a group")));
	if (a->n > DPB_STATE_MAX_N - b->n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many reports for one release"),
				 errdetail("A release sums at most 2^38 reports.")));
	for (k = 0; k < a->lp->n; k++)
		a->sum[k] += b->sum[k];
	a->n += b->n;
	a->insecure |= b->insecure;
}

void *
dpb_ldp_state_copy(void *pb, MemoryContext cxt)
{
	LdpSum	   *b = pb,
			   *c;
	LdpProto   *lp = NULL;
	MemoryContext old = MemoryContextSwitchTo(cxt);

	lp = dpb_pg_ldp_cached(&lp, (struct varlena *) b->lp->bytes, b->lp->kind, cxt);
	MemoryContextSwitchTo(old);
	c = sum_new(cxt, lp);
	c->n = b->n;
	c->insecure = b->insecure;
	memcpy(c->sum, b->sum, sizeof(dpb_i128) * lp->n);
	return c;
}
