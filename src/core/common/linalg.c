/*
 * linalg.c — wrappers over LAPACK/BLAS (OpenBLAS).
 *
 * LAPACK is called through its Fortran interface (column-major, arguments
 * by reference).  Every matrix here is symmetric or triangular and stored
 * as an n x n array; "lower" in LAPACK's column-major view is the upper
 * triangle of a C row-major array, which is why the wrappers pass 'U' where
 * they mean the lower triangle of the row-major matrix.
 */
#include "linalg.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fortran LAPACK prototypes (OpenBLAS provides them) */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a,
					const int *lda, int *info);
extern void dlauum_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a,
					const int *lda, double *w, double *work, const int *lwork,
					int *iwork, const int *liwork, int *info);

/* Row-major lower triangle L (L[i*n+j], j <= i) is column-major upper. */

dpb_status
dpb_chol(double *a, int n, double *jitter)
{
	int			info,
				i,
				j,
				attempt;
	double		mean_diag = 0,
				add = 0;
	double	   *copy = malloc(sizeof(double) * n * n);

	if (copy == NULL)
		return DPB_ENOMEM;
	memcpy(copy, a, sizeof(double) * n * n);
	for (i = 0; i < n; i++)
		mean_diag += fabs(a[i * n + i]);
	mean_diag = n > 0 ? mean_diag / n : 1;
	if (!(mean_diag > 0))
		mean_diag = 1;
	for (attempt = 0; attempt < 4; attempt++)
	{
		if (attempt > 0)
		{
			memcpy(a, copy, sizeof(double) * n * n);
			add = mean_diag * pow(10.0, -14 + 2 * attempt);	/* 1e-12 .. 1e-8 */
			for (i = 0; i < n; i++)
				a[i * n + i] += add;
		}
		if (dpb_chol_nocopy(a, n) == DPB_OK)
		{
			info = 0;
			break;
		}
		info = 1;
	}
	free(copy);
	if (jitter)
		*jitter = add;
	if (info != 0)
		return DPB_ENUMERIC;
	/* zero the strict upper triangle (row-major) */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			a[i * n + j] = 0.0;
	return DPB_OK;
}

dpb_status
dpb_chol_nocopy(double *a, int n)
{
	int			info;

	dpotrf_("U", &n, a, &n, &info);
	return info == 0 ? DPB_OK : DPB_ENUMERIC;
}

void
dpb_chol_solve(const double *L, int n, double *b, int nrhs)
{
	int			r;

	for (r = 0; r < nrhs; r++)
	{
		double	   *x = b + (size_t) r * n;

		/* L y = b, then L^T x = y; row-major L lower */
		cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, L, n, x, 1);
		cblas_dtrsv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, n, L, n, x, 1);
	}
}

void
dpb_tri_mul(const double *L, int n, double *x)
{
	cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, L, n, x, 1);
}

void
dpb_tri_solve_t(const double *L, int n, double *x)
{
	cblas_dtrsv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, n, L, n, x, 1);
}

/*
 * The inverse of the column-major upper triangular n x n block U (leading
 * dimension ld) in place, by halves: with U = [U11 U12; 0 U22],
 * U^-1 = [U11^-1, -U11^-1 U12 U22^-1; 0, U22^-1], the off-diagonal block by
 * two dtrmm (level 3) and the halves of at most DPB_TRINV_LEAF rows by
 * LAPACK dtrtri.  OpenBLAS's own dtrtri (0.3.21) inverts blocks of up to 64
 * rows column by column (dtrmv, one daxpy per column), which was a sixth of
 * a logistic posterior's gradient at d = 12 (n = 104 statistics); this
 * costs 0.77-0.85 of its time there (bench/README, "Issue 12").  Returns
 * LAPACK's info (> 0: a zero on the diagonal).
 */
#define DPB_TRINV_LEAF 16

static int
tri_inverse_upper(double *U, int n, int ld)
{
	int			n1 = n / 2,
				n2 = n - n1,
				info;

	if (n <= DPB_TRINV_LEAF)
	{
		dtrtri_("U", "N", &n, U, &ld, &info);
		return info;
	}
	if ((info = tri_inverse_upper(U, n1, ld)) != 0)
		return info;
	if ((info = tri_inverse_upper(U + (size_t) n1 * ld + n1, n2, ld)) != 0)
		return info + n1;
	/* U12 <- -U11^-1 U12 U22^-1 (U11, U22 already inverted) */
	cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit,
				n1, n2, 1.0, U, ld, U + (size_t) n1 * ld, ld);
	cblas_dtrmm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
				n1, n2, -1.0, U + (size_t) n1 * ld + n1, ld, U + (size_t) n1 * ld, ld);
	return 0;
}

dpb_status
dpb_chol_inverse_lower(double *L, int n)
{
	int			info;

	/*
	 * (L L^T)^-1 = L^-T L^-1 on the factor (row-major lower = column-major
	 * upper U, L L^T = U^T U): U^-1 (tri_inverse_upper), then LAPACK dlauum
	 * forms U^-1 U^-T in the same triangle, as dpotri does after its dtrtri.
	 */
	if ((info = tri_inverse_upper(L, n, n)) != 0)
		return DPB_ENUMERIC;
	dlauum_("U", &n, L, &n, &info);
	return info == 0 ? DPB_OK : DPB_ENUMERIC;
}

void
dpb_chol_inverse(const double *L, int n, double *inv)
{
	int			i,
				j;

	memcpy(inv, L, sizeof(double) * n * n);
	if (dpb_chol_inverse_lower(inv, n) != DPB_OK)
	{
		/* singular factor: fall back to triangular solves (yields inf) */
		memset(inv, 0, sizeof(double) * n * n);
		for (i = 0; i < n; i++)
			inv[i * n + i] = 1.0;
		dpb_chol_solve(L, n, inv, n);
		return;
	}
	/* the result is in the row-major lower triangle: mirror it */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			inv[i * n + j] = inv[j * n + i];
}

double
dpb_chol_logdet(const double *L, int n)
{
	double		s = 0;
	int			i;

	for (i = 0; i < n; i++)
		s += log(L[i * n + i]);
	return 2 * s;
}

dpb_status
dpb_sym_eigen(const double *a, int n, double *w, double *v)
{
	int			info,
				lwork = -1,
				liwork = -1,
				iw;
	double		wq;
	double	   *work;
	int		   *iwork;
	int			i,
				j;

	/* column-major copy = transpose; symmetric, so identical */
	memcpy(v, a, sizeof(double) * n * n);
	dsyevd_("V", "U", &n, v, &n, w, &wq, &lwork, &iw, &liwork, &info);
	if (info != 0)
		return DPB_ENUMERIC;
	lwork = (int) wq;
	liwork = iw;
	work = malloc(sizeof(double) * lwork);
	iwork = malloc(sizeof(int) * liwork);
	if (work == NULL || iwork == NULL)
	{
		free(work);
		free(iwork);
		return DPB_ENOMEM;
	}
	dsyevd_("V", "U", &n, v, &n, w, work, &lwork, iwork, &liwork, &info);
	free(work);
	free(iwork);
	if (info != 0)
		return DPB_ENUMERIC;
	/* column-major eigenvectors -> row-major columns: transpose in place */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
		{
			double		t = v[i * n + j];

			v[i * n + j] = v[j * n + i];
			v[j * n + i] = t;
		}
	return DPB_OK;
}

dpb_status
dpb_psd_project(double *a, int n, double floor, int *changed)
{
	double	   *w = malloc(sizeof(double) * n);
	double	   *v = malloc(sizeof(double) * n * n);
	dpb_status	st;
	int			i,
				j,
				k;

	*changed = 0;
	if (w == NULL || v == NULL)
	{
		free(w);
		free(v);
		return DPB_ENOMEM;
	}
	st = dpb_sym_eigen(a, n, w, v);
	if (st == DPB_OK && w[0] < floor)
	{
		*changed = 1;
		for (k = 0; k < n; k++)
			if (w[k] < floor)
				w[k] = floor;
		for (i = 0; i < n; i++)
			for (j = 0; j <= i; j++)
			{
				double		s = 0;

				for (k = 0; k < n; k++)
					s += v[i * n + k] * w[k] * v[j * n + k];
				a[i * n + j] = a[j * n + i] = s;
			}
	}
	free(w);
	free(v);
	return st;
}

void
dpb_symv(const double *A, int n, const double *x, double *y)
{
	cblas_dsymv(CblasRowMajor, CblasLower, n, 1.0, A, n, x, 1, 0.0, y, 1);
}
