/*
 * gauss_lik.c — the release likelihood of the marginalised models and its
 * adjoints (see gauss_lik.h).
 */
#include "gauss_lik.h"

#include "linalg.h"

#include <stdlib.h>
#include <string.h>

int
dpb_gauss_lik_adjoint(int n, double N, const double *z, const double *D, const double *m,
					  const double *V, double *M, double *Wbar, double *mbar, double *lik,
					  double *dlik_dN)
{
	int			k,
				l;
	double		quad = 0;

	/* M = N V + D (lower triangle: all the factorisation reads); no copy
	 * for jittered retries unless the first attempt fails */
	for (k = 0; k < n; k++)
	{
		for (l = 0; l <= k; l++)
			M[k * n + l] = N * V[k * n + l];
		M[k * n + k] += D[k];
		mbar[k] = z[k] - N * m[k];	/* r, then alpha */
	}
	if (dpb_chol_nocopy(M, n) != DPB_OK)
	{
		for (k = 0; k < n * n; k++)
			M[k] = N * V[k];
		for (k = 0; k < n; k++)
			M[k * n + k] += D[k];
		if (dpb_chol(M, n, NULL) != DPB_OK)
			return 1;
	}
	{
		/* r (scratch: z - N m) */
		double		rbuf[256];
		double	   *r = Wbar != NULL ? Wbar : n <= 256 ? rbuf : malloc(sizeof(double) * n);

		if (r == NULL)
			return 1;
		memcpy(r, mbar, sizeof(double) * n);
		dpb_chol_solve(M, n, mbar, 1);
		for (k = 0; k < n; k++)
			quad += r[k] * mbar[k];
		if (r != Wbar && r != rbuf)
			free(r);
	}
	*lik = -0.5 * dpb_chol_logdet(M, n) - 0.5 * quad;
	/* M^{-1} over the factor (lower triangle), then Wbar from it */
	if (dpb_chol_inverse_lower(M, n) != DPB_OK)
		return 1;
	if (Wbar == NULL)
	{
		/* the caller reads Wbar from M^{-1} and alpha */
		for (k = 0; k < n; k++)
			mbar[k] *= N;
		return dpb_isfinite(*lik) ? 0 : 1;
	}
	for (k = 0; k < n; k++)
		for (l = 0; l <= k; l++)
			Wbar[k * n + l] = Wbar[l * n + k] =
				-0.5 * N * (M[k * n + l] - mbar[k] * mbar[l]);
	if (dlik_dN != NULL)
	{
		/* d lik / dN = -1/2 <M^{-1} - alpha alpha^T, V> + alpha^T m
		 * = <Wbar, V> / N + alpha^T m (V's lower triangle) */
		double		t = 0;

		for (k = 0; k < n; k++)
		{
			t += Wbar[k * n + k] * V[k * n + k] / N + mbar[k] * m[k];
			for (l = 0; l < k; l++)
				t += 2 * Wbar[k * n + l] * V[k * n + l] / N;
		}
		*dlik_dN = t;
	}
	for (k = 0; k < n; k++)
		mbar[k] *= N;
	return dpb_isfinite(*lik) ? 0 : 1;
}
