/*
 * diag.h — posterior summaries and MCMC convergence diagnostics.
 *
 * Rank-normalised split R-hat, bulk and tail effective sample sizes as in
 * Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), "Rank-normalization,
 * folding, and localization: an improved R-hat for assessing convergence of
 * MCMC", following the R package `posterior` (rhat, ess_bulk, ess_tail,
 * mad, quantile2) step by step; see diag.c for the details and the few
 * places where we differ (non-finite draws).
 */
#ifndef DPB_DIAG_H
#define DPB_DIAG_H

#include "dpb.h"

/* x holds chains * n draws of one scalar, chain-major: x[c * n + i]. */
typedef struct dpb_summary {
    double mean, median, sd, mad, q5, q95, rhat, ess_bulk, ess_tail, prob_positive;
} dpb_summary;

/* rank-normalised split R-hat: max of bulk R-hat (on rank-normalised split
 * chains) and tail R-hat (on folded draws |x - median|), like posterior::rhat.
 * NaN when n < 4, when the draws are constant, contain NaN or +-Inf, or on
 * allocation failure. */
double dpb_rhat(const double *x, int chains, int n);

/* the two parts of dpb_rhat: bulk (rank-normalised split chains) and tail
 * (rank-normalised folded split chains) R-hat, each NaN when undefined.
 * DPB_EINVAL if chains < 1 or n < 1, DPB_ENOMEM on allocation failure. */
dpb_status dpb_rhat_parts(const double *x, int chains, int n, double *bulk, double *tail);

/* bulk ESS: ESS of rank-normalised split chains (posterior::ess_bulk).
 * NaN when n < 6 (split chains need >= 3 draws, as in posterior), for
 * constant or non-finite draws, or on allocation failure. */
double dpb_ess_bulk(const double *x, int chains, int n);

/* tail ESS: min of the ESS of the indicators I(x <= q05) and I(x <= q95)
 * (posterior::ess_tail).  NaN in the same cases as dpb_ess_bulk. */
double dpb_ess_tail(const double *x, int chains, int n);

/* all of the above; mad is the median absolute deviation scaled by 1.4826
 * (R's mad); q5, q95 are type-7 quantiles; sd uses n-1; prob_positive is the
 * fraction of draws > 0. Returns DPB_ENOMEM on allocation failure, DPB_EINVAL
 * if chains < 1 or n < 1. For fewer than 4 draws per chain (split chains need
 * >= 2 each) rhat/ess are NaN. Constant draws: rhat NaN, ess NaN (as posterior
 * does), never a crash or division by zero.
 * (sd is NaN for a single draw; median, mad, q5, q95 are NaN if a draw is NaN.) */
dpb_status dpb_summarize(const double *x, int chains, int n, dpb_summary *out);

#endif							/* DPB_DIAG_H */
