/*
 * linear_grid.c — default runs of the linear posterior (NUTS) on
 * bench_release_mech releases: d (argv[1]) x N in {1e2, 1e4, 1e6} x eps in
 * {0.1, 1, 10} x Gaussian, Laplace; wall time, max R-hat, min(bulk, tail)
 * ESS, divergences (argv[2]: first N index, to resume).  Built like
 * bench/linear_ess_per_s (bench_util.c and the core sources, -lgsl
 * -lopenblas -lcrypto -lm); no server.
 */
#include "bench_util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
void openblas_set_num_threads(int);
int main(int argc, char **argv){
  openblas_set_num_threads(1);
  int d = atoi(argv[1]);
  long Ns[] = {100, 10000, 1000000}; double es[] = {0.1, 1, 10};
  /* argv[2]: first N index (0..2), to resume a partial run */
  int a0 = argc > 2 ? atoi(argv[2]) : 0;
  for (int a = a0; a < 3; a++) for (int b = 0; b < 3; b += 1) for (int m = 0; m < 2; m++) {
    dpb_release r; bench_release_mech(DPB_MODEL_LINEAR, d, Ns[a], es[b], m ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN, &r);
    dpb_infer_opts o; dpb_infer_opts_default(&o, &r); o.seed = 1;
    dpb_draws dr; dpb_err err; double t0 = bench_now();
    if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK) { printf("fail %s\n", err.msg); continue; }
    double t = bench_now() - t0, ess = 1e300, rh = 0, *x = malloc(sizeof(double)*4000);
    for (int k = 0; k < dr.nvars; k++) { dpb_summary s; bench_summarize_var(&dr, k, x, &s); ess = fmin(ess, fmin(s.ess_bulk, s.ess_tail)); rh = fmax(rh, s.rhat); }
    printf("d=%d N=%ld eps=%g %s: %.1f s, max rhat %.4f, min ess %.0f, div %ld\n", d, Ns[a], es[b], m ? "laplace" : "gaussian", t, rh, ess, dr.divergences);
    fflush(stdout); free(x); dpb_draws_free(&dr); dpb_release_free_stats(&r);
  }
}
