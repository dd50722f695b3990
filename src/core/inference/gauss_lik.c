/*
 * gauss_lik.c — the release likelihood of the marginalised models and its
 * adjoints (see gauss_lik.h).
 */
#include "gauss_lik.h"

#include "linalg.h"

#include <gsl/gsl_sf_erf.h>
#include <math.h>
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

/*
 * One term of the convolution below, L = -r^2 / (2v) + log erfcx(x) with x =
 * (v / b + sg r) / sqrt(2v), and its derivatives in r and v.  For x >= 0
 * erfcx comes from GSL's hazard function; for x < 0, where erfcx(x) = e^{x^2}
 * erfc(x) and x^2 nearly cancels r^2 / (2v) when v is small (both grow like
 * 1/v), the two are combined first: x^2 - r^2 / (2v) = v / (2b^2) + sg r / b,
 * so L = v / (2b^2) + sg r / b + log erfc(x) holds its digits as v -> 0.
 */
static double
logconv_term(double r, double v, double b, double sg, double *dr, double *dv)
{
	double		s2v = sqrt(2 * v),
				x = (v / b + sg * r) / s2v,
				dxdr = sg / s2v,
				dxdv = (1 / b - sg * r / v) / (2 * s2v);

	if (x >= 0)
	{
		/* erfcx(x) = sqrt(2 / pi) / h(sqrt 2 x), h the normal hazard; d log
		 * erfcx / dx = 2x - 2 / (sqrt(pi) erfcx(x)) */
		double		h = gsl_sf_hazard(M_SQRT2 * x),
					d = 2 * x - M_SQRT2 * h;

		*dr = -r / v + d * dxdr;
		*dv = 0.5 * r * r / (v * v) + d * dxdv;
		return -0.5 * r * r / v + 0.5 * log(2 / M_PI) - log(h);
	}
	else
	{
		double		e = gsl_sf_erfc(x), /* in (1, 2] */
					g = -M_2_SQRTPI * exp(-x * x) / e;	/* d log erfc / dx */

		*dr = sg / b + g * dxdr;
		*dv = 0.5 / (b * b) + g * dxdv;
		return 0.5 * v / (b * b) + sg * r / b + log(e);
	}
}

double
dpb_laplace_gauss_logconv(double r, double v, double b, double *dr, double *dv)
{
	double		dr1,
				dv1,
				dr2,
				dv2,
				l1 = logconv_term(r, v, b, -1, &dr1, &dv1),
				l2 = logconv_term(r, v, b, 1, &dr2, &dv2),
				lm = fmax(l1, l2),
				w1 = exp(l1 - lm),
				w2 = exp(l2 - lm),
				ws = w1 + w2;

	w1 /= ws;
	w2 /= ws;
	*dr = w1 * dr1 + w2 * dr2;
	*dv = w1 * dv1 + w2 * dv2;
	return -M_LN2 + lm + log(ws);
}
