/*
 * ks.c — Kolmogorov-Smirnov statistics.
 */
#include "ks.h"

#include <math.h>
#include <stdlib.h>

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

double
dpb_ks_uniform_stat(double *u, int n)
{
	double		D = 0;
	int			i;

	qsort(u, n, sizeof(double), cmp_double);
	for (i = 0; i < n; i++)
	{
		double		lo = u[i] - (double) i / n,
					hi = (double) (i + 1) / n - u[i];

		if (lo > D)
			D = lo;
		if (hi > D)
			D = hi;
	}
	return D;
}

double
dpb_ks_pvalue(double D, int n)
{
	double		sn = sqrt((double) n);
	double		lambda = (sn + 0.12 + 0.11 / sn) * D;
	double		p = 0;
	int			k;

	if (lambda < 0.2)
		return 1.0;
	for (k = 1; k <= 100; k++)
	{
		double		term = exp(-2.0 * k * k * lambda * lambda);

		p += (k % 2 ? 2.0 : -2.0) * term;
		if (term < 1e-12)
			break;
	}
	return p < 0 ? 0 : (p > 1 ? 1 : p);
}

double
dpb_ks_two_sample(double *a, int na, double *b, int nb)
{
	int			i = 0,
				j = 0;
	double		D = 0;

	qsort(a, na, sizeof(double), cmp_double);
	qsort(b, nb, sizeof(double), cmp_double);
	while (i < na && j < nb)
	{
		double		x = a[i] <= b[j] ? a[i] : b[j];

		while (i < na && a[i] <= x)
			i++;
		while (j < nb && b[j] <= x)
			j++;
		if (fabs((double) i / na - (double) j / nb) > D)
			D = fabs((double) i / na - (double) j / nb);
	}
	return D;
}
