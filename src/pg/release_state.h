/*
 * release_state.h — dpbayes.release_state, the transition state of the
 * release aggregates that Citus can push down (docs/scale-out.md): a
 * non-internal type whose values are expanded objects while an aggregate
 * runs (the same in-memory accumulator as the internal state, updated in
 * place) and a portable, versioned byte string when they leave the
 * aggregate (a parallel worker's tuple, Citus's worker_partial_agg text,
 * send/recv).  Format and validation: src/core/release/rstate.h.
 *
 * THE STATE HOLDS EXACT STATISTICS (docs/privacy.md §16).
 */
#ifndef DPBAYES_RELEASE_STATE_H
#define DPBAYES_RELEASE_STATE_H

#include "dpbayes_pg.h"

#include "utils/expandeddatum.h"

#include "rstate.h"

typedef struct DpbState
{
	ExpandedObjectHeader hdr;
	int			kind;			/* DPB_STATE_KIND_STATS or _LDP */
	void	   *s;				/* RelState or LdpSum, in hdr.eoh_context */
} DpbState;

/* A new, empty state object of this kind in a new child context of
 * parent (s is set by the caller, allocated in e->hdr.eoh_context). */
DpbState   *dpb_state_new(MemoryContext parent, int kind);

/* The state of a datum for reading (an expanded one as is, a flat one
 * validated and expanded in CurrentMemoryContext); errors when it is of
 * another kind. */
DpbState   *dpb_state_read(Datum d, int kind);

/* The state of a transition or combine function's argument for updating
 * in place: our read-write expanded object as is, anything else copied
 * into a new object under aggcxt. */
DpbState   *dpb_state_update(Datum d, int kind, MemoryContext aggcxt);

#define dpb_state_datum(e) EOHPGetRWDatum(&(e)->hdr)

/* ---- the kinds' hooks: release_agg.c (statistics), ldp_release.c (LDP) ---- */

/* bytes of the flat body (after the varlena header), and packing them */
Size		dpb_rel_state_size(void *s);
void		dpb_rel_state_pack(void *s, unsigned char *buf);
/* a validated state of the packed bytes in cxt; errors with code */
void	   *dpb_rel_state_unpack(const unsigned char *buf, size_t len, MemoryContext cxt,
								 int code);
/* a += b (same parameters); a copy of b in cxt */
void		dpb_rel_state_merge(void *a, void *b);
void	   *dpb_rel_state_copy(void *b, MemoryContext cxt);

Size		dpb_ldp_state_size(void *s);
void		dpb_ldp_state_pack(void *s, unsigned char *buf);
void	   *dpb_ldp_state_unpack(const unsigned char *buf, size_t len, MemoryContext cxt,
								 int code);
void		dpb_ldp_state_merge(void *a, void *b);
void	   *dpb_ldp_state_copy(void *b, MemoryContext cxt);

#endif
