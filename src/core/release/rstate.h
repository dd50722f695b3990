/*
 * rstate.h — the portable form of a release aggregate's partial state (the
 * SQL type dpbayes.release_state): the exact fixed-point sums of the rows a
 * shard (or a parallel worker) has seen, with the public parameters they
 * were clipped and quantised with.  Citus sends it from the workers to the
 * coordinator, which combines the states and adds the noise once
 * (docs/scale-out.md).
 *
 * THE STATE IS NOT PRIVATE: its sums are exact statistics of the rows, as
 * sensitive as the rows themselves (docs/privacy.md §16).
 *
 * Layout, little-endian, byte by byte (no struct is copied):
 *
 *   0  magic "DPBP"
 *   4  u8 format version (2; version 1, still read, lacks y_clamped)
 *   5  u8 kind: 1 statistics of a release aggregate, 2 sums of LDP reports
 *   6  ... the kind's body
 *
 * Kind 1 (statistics):
 *   6  u8 model, u8 mechanism, u8 scaling, u8 flags (1 intercept, 4 bounds,
 *      8 names, 16 x_moments, 32 add_remove), u8 d (1..64), u8 nweights
 *  12  u64 n (1 .. 2^38: the rows summed)
 *  20  f64 epsilon, delta, clip, y_bound, x_moments
 *  60  f64 y_clamped (version 2 only; version 1 has no such field, and its
 *      y_clamped is 0)
 *  68  f64 noise_weights[nweights]; (lower, upper)[d] with bounds; names
 *      (u8 length + UTF-8) with names
 *      then the totals of the accumulator (accum.h): the upper triangle of
 *      G (q x q, row by row), then for Poisson that of H ((d+1) x (d+1)),
 *      then with y_clamped > 0 the number of records whose response was
 *      clamped, each a 16-byte two's-complement integer
 *      (version 1: the same from offset 60, without the count)
 *
 * Kind 2 (LDP sums, src/pg/ldp_release.c; no exact statistic: the reports
 * are already private) is packed by the server glue with the helpers
 * below.
 *
 * Unpacking validates everything a state could carry: the version and kind,
 * the parameters (as dpbayes.privacy() and the aggregate check them), the
 * exact length, 1 <= n <= 2^38, and every total against the bound that n
 * quantised records in the public domain imply (so that no combination of
 * valid states can overflow the 128-bit totals).  Messages never contain
 * a value of the sums.
 */
#ifndef DPB_RSTATE_H
#define DPB_RSTATE_H

#include "params.h"
#include "accum.h"

#define DPB_STATE_MAGIC "DPBP"
#define DPB_STATE_VERSION 2
#define DPB_STATE_VERSION_OK(v) ((v) == 1 || (v) == DPB_STATE_VERSION)
#define DPB_STATE_KIND_STATS 1
#define DPB_STATE_KIND_LDP 2
#define DPB_STATE_HDR 6			/* magic, version, kind */
/* the most rows one state may sum: the totals of accum.h stay below 2^127 */
#define DPB_STATE_MAX_N ((int64_t) 1 << 38)

/* The packed size of a statistics state (header, parameters, totals). */
size_t		dpb_state_stats_size(dpb_model model, const dpb_params *p, int d);

/* Packs a statistics state: model, parameters (p->d is d), n, and the
 * totals of acc (flushed first). buf has dpb_state_stats_size() bytes. */
void		dpb_state_stats_pack(dpb_model model, const dpb_params *p, int d, int64_t n,
								 dpb_acc *acc, unsigned char *buf);

/*
 * Reads the header and the parameters of a packed statistics state and
 * checks them (version, kind, model, parameters valid for the model and d,
 * usable calibration, 1 <= n <= DPB_STATE_MAX_N, the exact length).
 * *totals points at the totals in buf.  DPB_ECORRUPT (or DPB_EINVAL for
 * parameters that dpbayes.privacy() would refuse) with a message.
 */
dpb_status	dpb_state_stats_unpack(const unsigned char *buf, size_t len, dpb_model *model,
								   dpb_params *p, int *d, int64_t *n,
								   const unsigned char **totals, dpb_err *err);

/*
 * Loads packed totals into acc, set up (dpb_acc_init) for the same model,
 * parameters p (as unpacked) and d, and checks them against n: G's
 * constant entry is n, its diagonal is not negative, every entry at most n
 * times the largest product of the two coordinates' quantised bounds; with
 * p->y_clamped > 0 the clamped-response count that ends them is in [0, n].
 */
dpb_status	dpb_state_load_totals(dpb_acc *acc, const dpb_params *p,
								  const unsigned char *totals, int64_t n,
								  dpb_err *err);

/* 128-bit little-endian two's complement (16 bytes). */
void		dpb_state_put_i128(unsigned char *p, dpb_i128 v);
dpb_i128	dpb_state_get_i128(const unsigned char *p);

/* The kind of a packed state (0 when the header is not a state's). */
int			dpb_state_kind(const unsigned char *buf, size_t len);

#endif
