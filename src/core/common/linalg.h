/*
 * linalg.h — the few dense linear-algebra operations the samplers need, on
 * plain column-major (= row-major, the matrices are symmetric) double
 * arrays, through LAPACK/BLAS from OpenBLAS.
 */
#ifndef DPB_LINALG_H
#define DPB_LINALG_H

#include "dpb.h"

/*
 * Cholesky factor of the symmetric n x n matrix a (lower triangle, in
 * place; the strict upper triangle is zeroed).  When a is not numerically
 * positive definite, a jitter of up to 1e-8 times the mean diagonal is added
 * (the amount is returned in *jitter, may be NULL).  Returns DPB_ENUMERIC if
 * that fails too.
 */
dpb_status	dpb_chol(double *a, int n, double *jitter);

/*
 * dpb_chol's first attempt, without the copy it keeps for the jittered
 * retries: factors a in place (lower triangle; the strict upper triangle is
 * left as it was, and the functions below never read it).  DPB_ENUMERIC
 * when a is not numerically positive definite (a is then overwritten: the
 * caller rebuilds it and may call dpb_chol).
 */
dpb_status	dpb_chol_nocopy(double *a, int n);

/* Solves (L L^T) x = b in place, L from dpb_chol; b has nrhs columns. */
void		dpb_chol_solve(const double *L, int n, double *b, int nrhs);

/* y = L x (L lower triangular), in place on x. */
void		dpb_tri_mul(const double *L, int n, double *x);

/* y = L^{-T} x (solve L^T y = x), in place on x. */
void		dpb_tri_solve_t(const double *L, int n, double *x);

/* Inverse of L L^T into inv (n x n, full). */
void		dpb_chol_inverse(const double *L, int n, double *inv);

/* The same in place: the lower triangle of L becomes that of the inverse
 * (the strict upper triangle is not touched).  DPB_ENUMERIC for a singular
 * factor. */
dpb_status	dpb_chol_inverse_lower(double *L, int n);

/* log det (L L^T) */
double		dpb_chol_logdet(const double *L, int n);

/*
 * Eigen-decomposition of the symmetric n x n matrix a: eigenvalues in w
 * (ascending), eigenvectors in the columns of v.  a is not modified.
 * Needs scratch; returns DPB_ENOMEM / DPB_ENUMERIC on failure.
 */
dpb_status	dpb_sym_eigen(const double *a, int n, double *w, double *v);

/* Replaces a by its projection onto the positive semi-definite cone
 * (negative eigenvalues set to floor >= 0).  Returns 1 when something
 * changed. */
dpb_status	dpb_psd_project(double *a, int n, double floor, int *changed);

/* y = A x for symmetric n x n A. */
void		dpb_symv(const double *A, int n, const double *x, double *y);

#endif
