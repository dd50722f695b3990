/*
 * ldp_pg.h — the local-DP protocol on the server (src/pg/ldp_*.c;
 * docs/ldp.md "The server").
 */
#ifndef DPB_LDP_PG_H
#define DPB_LDP_PG_H

#include "dpbayes_pg.h"
#include "ldp.h"

/*
 * How a protocol argument arrives: the published text as given (0.2.0: the
 * client's parser sees exactly what the client sees, duplicated keys and
 * all), or jsonb (the 0.1.0 SQL functions: PostgreSQL has already merged
 * duplicated keys and respelled the numbers).
 */
typedef enum LdpArgKind
{
	LDP_ARG_JSONB = 0,
	LDP_ARG_TEXT = 1
} LdpArgKind;

/* A parsed protocol with its calibration and per-entry report facts. */
typedef struct LdpProto
{
	Size		len;			/* the argument's bytes it was parsed from */
	char	   *bytes;
	LdpArgKind	kind;
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	int			n;				/* report_len */
	int		   *gexp;			/* ss_*, *_input: entry k's grid exponent */
	double	   *lo;				/* plausible range of entry k */
	double	   *hi;
} LdpProto;

/* A zeroed LdpProto in cxt, 16-byte aligned (it holds 128-bit integers,
 * which palloc's 8-byte alignment does not suit). */
LdpProto   *dpb_pg_ldp_alloc(MemoryContext cxt);

/* The protocol's JSON text of a detoasted argument (palloc'd). */
char	   *dpb_pg_ldp_raw_text(const struct varlena *raw, LdpArgKind kind);

/* Parses and calibrates the protocol of a detoasted argument (errors are
 * raised, 22023). */
void		dpb_pg_ldp_parse(const struct varlena *raw, LdpArgKind kind, LdpProto *out,
							 MemoryContext cxt);

/* The protocol of a detoasted argument, cached in *cache (allocated in cxt)
 * while its bytes stay the same. */
LdpProto   *dpb_pg_ldp_cached(LdpProto **cache, const struct varlena *raw, LdpArgKind kind,
							  MemoryContext cxt);

/* The protocol argument argno of a plain SQL function (NULL is an error),
 * cached in fn_extra. */
LdpProto   *dpb_pg_ldp_fn_protocol(FunctionCallInfo fcinfo, int argno, LdpArgKind kind);

/*
 * A report's protocol id (the column the clients write) against the
 * protocol: "insecure_test:<id>" sets *insecure; another id is an error
 * (22023) naming report `ordinal` (1-based), never the id; NULL is an error
 * (22004).
 */
void		dpb_pg_ldp_check_id(FunctionCallInfo fcinfo, int argno, const LdpProto *lp,
								int64 ordinal, bool *insecure);

/* 1 when the report (n values) is valid for the protocol: finite, on its
 * grids, within the plausible range. */
int			dpb_pg_ldp_report_ok(const LdpProto *lp, const double *z);

/* The elements of a float8[] report: NULL (and *why set) when it is not a
 * one-dimensional array of lp->n non-NULL values. */
double	   *dpb_pg_ldp_report_values(ArrayType *a, const LdpProto *lp, const char **why);

#endif
