/*
 * release_state.c — the SQL type dpbayes.release_state (release_state.h):
 * its expanded form (what the aggregates update in place), its flat form
 * (src/core/release/rstate.h), text and binary I/O, and the combine
 * function shared by every aggregate with this state.
 *
 * Text form: \x followed by the hex digits of the flat form, as
 * postgresql-hll prints its values; Citus's worker_partial_agg sends it to
 * the coordinator, whose coord_combine_agg reads it with the input
 * function.  Every input path validates the whole value (rstate.h); no
 * message quotes the input, which holds exact statistics.
 */
#include "dpbayes_pg.h"
#include "release_state.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

static Size state_flat_size(ExpandedObjectHeader *eohptr);
static void state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods state_methods = {
	state_flat_size,
	state_flatten
};

/* at most 16 MB of state (a linear release with x_moments at d = 16 is
 * about 200 kB) */
#define STATE_MAX_BYTES (16 * 1024 * 1024)

DpbState *
dpb_state_new(MemoryContext parent, int kind)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "dpbayes release_state",
											  ALLOCSET_START_SMALL_SIZES);
	DpbState   *e = MemoryContextAllocZero(cxt, sizeof(DpbState));

	EOH_init_header(&e->hdr, &state_methods, cxt);
	e->kind = kind;
	return e;
}

static Size
state_flat_size(ExpandedObjectHeader *eohptr)
{
	DpbState   *e = (DpbState *) eohptr;

	return VARHDRSZ + (e->kind == DPB_STATE_KIND_STATS ? dpb_rel_state_size(e->s) :
					   dpb_ldp_state_size(e->s));
}

static void
state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	DpbState   *e = (DpbState *) eohptr;

	SET_VARSIZE(result, allocated_size);
	if (e->kind == DPB_STATE_KIND_STATS)
		dpb_rel_state_pack(e->s, (unsigned char *) VARDATA(result));
	else
		dpb_ldp_state_pack(e->s, (unsigned char *) VARDATA(result));
}

pg_attribute_noreturn()
static void
kind_error(int want, int code)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid release aggregate state"),
			 errdetail(want == DPB_STATE_KIND_STATS ?
					   "The state is not one of the statistics of a release aggregate." :
					   "The state is not one of the sums of dpbayes.ldp_release.")));
	pg_unreachable();
}

/* a new expanded state of the flat bytes, validated, under parent */
static DpbState *
state_expand(const unsigned char *buf, size_t len, MemoryContext parent, int code)
{
	int			kind = dpb_state_kind(buf, len);
	DpbState   *e;

	if (kind != DPB_STATE_KIND_STATS && kind != DPB_STATE_KIND_LDP)
	{
		if (len >= DPB_STATE_HDR && memcmp(buf, DPB_STATE_MAGIC, 4) == 0 &&
			!DPB_STATE_VERSION_OK(buf[4]))
			ereport(ERROR,
					(errcode(code),
					 errmsg("unsupported release aggregate state version"),
					 errdetail("Version %u; this build reads versions 1 and %d.", (unsigned) buf[4],
							   DPB_STATE_VERSION)));
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid release aggregate state"),
				 errdetail("The value is not a dpbayes release aggregate state.")));
	}
	e = dpb_state_new(parent, kind);
	e->s = kind == DPB_STATE_KIND_STATS ?
		dpb_rel_state_unpack(buf, len, e->hdr.eoh_context, code) :
		dpb_ldp_state_unpack(buf, len, e->hdr.eoh_context, code);
	return e;
}

static bool
is_our_expanded(Datum d)
{
	return VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) &&
		DatumGetEOHP(d)->eoh_methods == &state_methods;
}

DpbState *
dpb_state_read(Datum d, int kind)
{
	DpbState   *e;

	if (is_our_expanded(d))
		e = (DpbState *) DatumGetEOHP(d);
	else
	{
		struct varlena *v = PG_DETOAST_DATUM(d);

		e = state_expand((const unsigned char *) VARDATA(v), VARSIZE(v) - VARHDRSZ,
						 CurrentMemoryContext, ERRCODE_DATA_CORRUPTED);
	}
	if (e->kind != kind)
		kind_error(kind, ERRCODE_DATATYPE_MISMATCH);
	return e;
}

DpbState   *
dpb_state_update(Datum d, int kind, MemoryContext aggcxt)
{
	DpbState   *e,
			   *c;

	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) && is_our_expanded(d))
	{
		e = (DpbState *) DatumGetEOHP(d);
		if (e->kind != kind)
			kind_error(kind, ERRCODE_DATATYPE_MISMATCH);
		return e;
	}
	/* read-only or flat: a copy of our own */
	e = dpb_state_read(d, kind);
	c = dpb_state_new(aggcxt, kind);
	c->s = kind == DPB_STATE_KIND_STATS ? dpb_rel_state_copy(e->s, c->hdr.eoh_context) :
		dpb_ldp_state_copy(e->s, c->hdr.eoh_context);
	return c;
}

/* ---- I/O ---- */

/* the flat bytes of a state datum (expanded ones are flattened) */
static struct varlena *
state_flat(Datum d)
{
	return PG_DETOAST_DATUM(d);
}

PG_FUNCTION_INFO_V1(dpbayes_release_state_out);
Datum
dpbayes_release_state_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = state_flat(PG_GETARG_DATUM(0));
	Size		len = VARSIZE(v) - VARHDRSZ;
	char	   *out = palloc(2 * len + 3);

	out[0] = '\\';
	out[1] = 'x';
	hex_encode(VARDATA(v), len, out + 2);
	out[2 + 2 * len] = '\0';
	PG_RETURN_CSTRING(out);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a validated flat datum of the bytes (copied) */
static Datum
state_from_bytes(const unsigned char *buf, Size len, int code)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "dpbayes state check",
											  ALLOCSET_START_SMALL_SIZES);
	struct varlena *v;

	(void) state_expand(buf, len, tmp, code);	/* raises on anything invalid */
	MemoryContextDelete(tmp);
	v = palloc(VARHDRSZ + len);
	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), buf, len);
	PG_RETURN_POINTER(v);
}

PG_FUNCTION_INFO_V1(dpbayes_release_state_in);
Datum
dpbayes_release_state_in(PG_FUNCTION_ARGS)
{
	const char *s = PG_GETARG_CSTRING(0);
	size_t		n = strlen(s),
				i;
	unsigned char *buf;

	/* the input is never quoted: a state holds exact statistics */
	if (n < 2 || s[0] != '\\' || s[1] != 'x' || (n - 2) % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type dpbayes.release_state"),
				 errdetail("A release aggregate state is written as \\x followed by an even number of hex digits.")));
	if ((n - 2) / 2 > STATE_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("release aggregate state too long"),
				 errdetail("A state has at most %d bytes.", STATE_MAX_BYTES)));
	buf = palloc((n - 2) / 2 + 1);
	for (i = 0; i < (n - 2) / 2; i++)
	{
		int			hi = hexval(s[2 + 2 * i]),
					lo = hexval(s[3 + 2 * i]);

		if (hi < 0 || lo < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type dpbayes.release_state"),
					 errdetail("A release aggregate state is written as \\x followed by an even number of hex digits.")));
		buf[i] = (unsigned char) (hi << 4 | lo);
	}
	return state_from_bytes(buf, (n - 2) / 2, ERRCODE_INVALID_TEXT_REPRESENTATION);
}

PG_FUNCTION_INFO_V1(dpbayes_release_state_recv);
Datum
dpbayes_release_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *p;

	if (len > STATE_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("release aggregate state too long"),
				 errdetail("A state has at most %d bytes.", STATE_MAX_BYTES)));
	p = pq_getmsgbytes(buf, len);
	return state_from_bytes((const unsigned char *) p, len,
							ERRCODE_INVALID_BINARY_REPRESENTATION);
}

PG_FUNCTION_INFO_V1(dpbayes_release_state_send);
Datum
dpbayes_release_state_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = state_flat(PG_GETARG_DATUM(0));
	bytea	   *out = palloc(VARSIZE(v));

	memcpy(out, v, VARSIZE(v));
	PG_RETURN_BYTEA_P(out);
}

/* ---- combine: the partial states of shards or parallel workers ---- */

PG_FUNCTION_INFO_V1(dpbayes_release_state_combine);
Datum
dpbayes_release_state_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	DpbState   *a,
			   *b;
	int			kind;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("release_state combine function called in non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (is_our_expanded(PG_GETARG_DATUM(1)))
		kind = ((DpbState *) DatumGetEOHP(PG_GETARG_DATUM(1)))->kind;
	else
	{
		struct varlena *v = state_flat(PG_GETARG_DATUM(1));

		kind = dpb_state_kind((const unsigned char *) VARDATA(v), VARSIZE(v) - VARHDRSZ);
		if (kind != DPB_STATE_KIND_STATS && kind != DPB_STATE_KIND_LDP)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid release aggregate state"),
					 errdetail("The value is not a dpbayes release aggregate state.")));
	}
	b = dpb_state_read(PG_GETARG_DATUM(1), kind);
	if (PG_ARGISNULL(0))
	{
		a = dpb_state_new(aggcxt, kind);
		a->s = kind == DPB_STATE_KIND_STATS ? dpb_rel_state_copy(b->s, a->hdr.eoh_context) :
			dpb_ldp_state_copy(b->s, a->hdr.eoh_context);
		PG_RETURN_DATUM(dpb_state_datum(a));
	}
	a = dpb_state_update(PG_GETARG_DATUM(0), kind, aggcxt);
	if (kind == DPB_STATE_KIND_STATS)
		dpb_rel_state_merge(a->s, b->s);
	else
		dpb_ldp_state_merge(a->s, b->s);
	PG_RETURN_DATUM(dpb_state_datum(a));
}
