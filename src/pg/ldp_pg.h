/*
 * ldp_pg.h — the local-DP protocol on the server (src/pg/ldp_*.c;
 * docs/ldp.md "The server").
 */
#ifndef DPB_LDP_PG_H
#define DPB_LDP_PG_H

#include "dpbayes_pg.h"
#include "ldp.h"

/* A parsed protocol with its calibration and per-entry report facts. */
typedef struct LdpProto
{
	Size		len;			/* the jsonb bytes it was parsed from */
	char	   *bytes;
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

/* Parses and calibrates the protocol (errors are raised, 22023). */
void		dpb_pg_ldp_parse(Jsonb *jb, LdpProto *out, MemoryContext cxt);

/* The protocol of jb, cached in *cache (allocated in cxt) while the jsonb
 * bytes stay the same. */
LdpProto   *dpb_pg_ldp_cached(LdpProto **cache, Jsonb *jb, MemoryContext cxt);

/* 1 when the report (n values) is valid for the protocol: finite, on its
 * grids, within the plausible range. */
int			dpb_pg_ldp_report_ok(const LdpProto *lp, const double *z);

/* The elements of a float8[] report: NULL (and *why set) when it is not a
 * one-dimensional array of lp->n non-NULL values. */
double	   *dpb_pg_ldp_report_values(ArrayType *a, const LdpProto *lp, const char **why);

#endif
