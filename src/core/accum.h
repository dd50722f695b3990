/*
 * accum.h — accumulation of the released statistics of clipped records.
 */
#ifndef DPB_ACCUM_H
#define DPB_ACCUM_H

#include "layout.h"

/* Adds the (unweighted) monomials of the clipped record (z, y) to
 * sums[0 .. L->nstats-1]. */
void		dpb_accum_add(const dpb_layout *L, const double *z, double y,
						  double *sums);

/* The monomials of one record, written to out[0 .. L->nstats-1]. */
void		dpb_accum_record(const dpb_layout *L, const double *z, double y,
							 double *out);

#endif
