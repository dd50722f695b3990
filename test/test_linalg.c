/*
 * test_linalg.c — the LAPACK/BLAS wrappers of src/core/common/linalg.c:
 * the inverse from a Cholesky factor (by halves above 16 rows, see
 * tri_inverse_upper) against M M^-1 = I and against solves, at sizes on
 * both sides of the leaf size and of the halving (odd ones included), and
 * a singular factor.
 */
#include "unit.h"

#include "linalg.h"

#include <stdlib.h>
#include <string.h>

/* a symmetric positive definite n x n matrix with correlated entries */
static void
spd(int n, unsigned seed, double *M)
{
	double	   *X = malloc(sizeof(double) * n * n);

	srand(seed);
	for (int i = 0; i < n * n; i++)
		X[i] = (double) rand() / RAND_MAX - 0.5;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
		{
			double		s = 0;

			for (int k = 0; k < n; k++)
				s += X[i * n + k] * X[j * n + k];
			M[i * n + j] = s + (i == j ? 0.05 * n : 0.0) + 0.3;
		}
	free(X);
}

void
test_linalg(void)
{
	const int	sizes[] = {1, 2, 15, 16, 17, 31, 33, 55, 64, 65, 104, 150};

	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++)
	{
		int			n = sizes[t];
		double	   *M = malloc(sizeof(double) * n * n),
				   *L = malloc(sizeof(double) * n * n),
				   *inv = malloc(sizeof(double) * n * n),
				   *col = malloc(sizeof(double) * n);
		double		err_id = 0,
					err_solve = 0,
					scale = 0;

		spd(n, 11 + n, M);
		memcpy(L, M, sizeof(double) * n * n);
		CHECK(dpb_chol(L, n, NULL) == DPB_OK, "chol n = %d", n);
		/* the lower triangle in place (the strict upper one is untouched) */
		memcpy(inv, L, sizeof(double) * n * n);
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				inv[i * n + j] = 12345.0;
		CHECK(dpb_chol_inverse_lower(inv, n) == DPB_OK, "inverse n = %d", n);
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
			{
				CHECK(inv[i * n + j] == 12345.0, "upper triangle touched, n = %d", n);
				inv[i * n + j] = inv[j * n + i];
			}
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
			{
				double		s = 0;

				for (int k = 0; k < n; k++)
					s += M[i * n + k] * inv[k * n + j];
				err_id = fmax(err_id, fabs(s - (i == j)));
				scale = fmax(scale, fabs(inv[i * n + j]));
			}
		/* column j of the inverse = the solve of M x = e_j */
		for (int j = 0; j < n; j++)
		{
			memset(col, 0, sizeof(double) * n);
			col[j] = 1;
			dpb_chol_solve(L, n, col, 1);
			for (int i = 0; i < n; i++)
				err_solve = fmax(err_solve, fabs(col[i] - inv[i * n + j]) / scale);
		}
		CHECK(err_id < 1e-10, "n = %d: max |M M^-1 - I| %.3g", n, err_id);
		CHECK(err_solve < 1e-12, "n = %d: inverse against solves %.3g", n, err_solve);
		/* a zero on the diagonal of the factor (in either half) */
		if (n >= 2)
		{
			for (int z = 0; z < 2; z++)
			{
				int			r = z ? n - 1 : n / 3;

				memcpy(inv, L, sizeof(double) * n * n);
				inv[r * n + r] = 0.0;
				CHECK(dpb_chol_inverse_lower(inv, n) == DPB_ENUMERIC,
					  "singular factor (row %d of %d) is an error", r, n);
			}
		}
		free(M);
		free(L);
		free(inv);
		free(col);
	}
}
