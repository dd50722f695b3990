/*
 * ldp_selftest.c — distribution checks of the LDP client's samplers, run
 * by `dpbayes-ldp selftest` on the OS source and by the unit tests on
 * fixed insecure seeds (docs/ldp.md).  Each check is a chi-square test of
 * exact draws against the exact probabilities; a check passes at
 * p > DPB_LDP_SELFTEST_PMIN.  Part of the slim client library: only libc
 * and libm (the p-value is the closed form below, not GSL's).
 */
#include "ldp_selftest.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_2_SQRTPI
#define M_2_SQRTPI 1.12837916709551257390 /* 2 / sqrt(pi) */
#endif

/* chi-square statistic of counts against probabilities (sum 1), n draws */
double
dpb_ldp_chisq(const int64_t *count, const double *prob, int cells, int64_t n,
			  int *df)
{
	double		stat = 0;
	int			k;

	for (k = 0; k < cells; k++)
	{
		double		e = prob[k] * (double) n;
		double		dlt = (double) count[k] - e;

		stat += dlt * dlt / e;
	}
	*df = cells - 1;
	return stat;
}

/*
 * P(X > x) for X chi-square with an integer df >= 1, in closed form
 * (Abramowitz & Stegun 26.4.4-5; the recurrence Q(x; v + 2) = Q(x; v) +
 * (x/2)^(v/2) e^(-x/2) / Gamma(v/2 + 1)):
 *   df = 2m      Q = e^(-x/2) sum_{k=0}^{m-1} (x/2)^k / k!
 *   df = 2m + 1  Q = erfc(sqrt(x/2))
 *                    + e^(-x/2) sum_{k=1}^{m} (x/2)^(k-1/2) / Gamma(k+1/2)
 * Every term is positive (no cancellation); each is the previous one times
 * (x/2) / (k or k + 1/2).  Relative error a few ulps per term while
 * e^(-x/2) is a normal double (x < 1400); beyond, 0 (the p-values a check
 * compares with 1e-6 are far larger).  NaN for df < 1 or a NaN x.
 */
double
dpb_ldp_chisq_q(double x, int df)
{
	double		h = x / 2,
				term,
				sum;
	int			k;

	if (df < 1 || isnan(x))
		return NAN;
	if (x <= 0)
		return 1;
	if (df % 2 == 0)
	{
		term = exp(-h);
		sum = term;
		for (k = 1; k < df / 2; k++)
		{
			term *= h / k;
			sum += term;
		}
		return sum;
	}
	sum = erfc(sqrt(h));
	if (df == 1)
		return sum;
	term = exp(-h) * sqrt(h) * M_2_SQRTPI;	/* (x/2)^(1/2) e^(-x/2) / Gamma(3/2) */
	sum += term;
	for (k = 2; k <= df / 2; k++)
	{
		term *= h / (k - 0.5);
		sum += term;
	}
	return sum > 1 ? 1 : sum;
}

/* P(a 0 bit becomes 1) / P(a 1 bit stays 1) of an OUE report */
double
dpb_ldp_oue_pattern_prob(int K, int cat, double eps, unsigned pattern)
{
	double		flip = 1.0 / (1.0 + exp(eps));
	double		pr = 1;
	int			j;

	for (j = 0; j < K; j++)
	{
		int			bit = (pattern >> j) & 1;

		if (j == cat)
			pr *= 0.5;
		else
			pr *= bit ? flip : 1 - flip;
	}
	return pr;
}

static void
add_check(dpb_ldp_check *out, int *n, int max, const char *name,
		  const int64_t *count, const double *prob, int cells, int64_t draws)
{
	int			df;
	double		stat = dpb_ldp_chisq(count, prob, cells, draws, &df);

	if (*n >= max)
		return;
	snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
	out[*n].stat = stat;
	out[*n].df = df;
	out[*n].pvalue = dpb_ldp_chisq_q(stat, df);
	(*n)++;
}

#define SELFTEST_CELLS 64

int
dpb_ldp_selftest(dpb_rbits *rb, int64_t n, dpb_ldp_check *out, int max,
				 dpb_status *status)
{
	int64_t		count[SELFTEST_CELLS];
	double		prob[SELFTEST_CELLS];
	int			nc = 0,
				k;
	int64_t		i;
	dpb_status	st = DPB_OK;
	const double eps_rr = 1.0,
				eps_oue = 1.3;
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_err		err;

	*status = DPB_OK;
	if (c == NULL)
	{
		*status = DPB_ENOMEM;
		return 0;
	}

	/* 1. randomized response (eps = 1), both inputs: 2 x 2 cells */
	memset(&p, 0, sizeof(p));
	p.mech = DPB_LDP_RR;
	p.epsilon = eps_rr;
	if ((st = dpb_ldp_calibrate(&p, c, &err)) != DPB_OK)
		goto done;
	for (k = 0; k < 2; k++)
	{
		double		x = k,
					z;
		double		keep = 1.0 / (1.0 + exp(-eps_rr));

		count[0] = count[1] = 0;
		for (i = 0; i < n; i++)
		{
			if ((st = dpb_ldp_randomize(&p, c, &x, rb, &z, &err)) != DPB_OK)
				goto done;
			count[(int) z]++;
		}
		prob[k] = keep;
		prob[1 - k] = 1 - keep;
		add_check(out, &nc, max, k ? "rr eps=1 x=1" : "rr eps=1 x=0",
				  count, prob, 2, n);
	}

	/* 2. OUE (K = 4, eps = 1.3, category 2): the 16 patterns against the
	 * bitwise product of the corrected probabilities */
	p.mech = DPB_LDP_OUE;
	p.epsilon = eps_oue;
	p.categories = 4;
	if ((st = dpb_ldp_calibrate(&p, c, &err)) != DPB_OK)
		goto done;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
	{
		double		x = 2,
					z[4];
		unsigned	pat = 0;

		if ((st = dpb_ldp_randomize(&p, c, &x, rb, z, &err)) != DPB_OK)
			goto done;
		for (k = 0; k < 4; k++)
			pat |= (unsigned) z[k] << k;
		count[pat]++;
	}
	for (k = 0; k < 16; k++)
		prob[k] = dpb_ldp_oue_pattern_prob(4, 1, eps_oue, (unsigned) k);
	add_check(out, &nc, max, "oue K=4 eps=1.3 patterns",
			  count, prob, 16, n);

	/* 3. discrete Laplace (t = 3): |y| <= 14 and the two tails */
	{
		double		a = exp(-1.0 / 3),
					norm = (1 - a) / (1 + a),
					tail = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
		{
			int64_t		y;

			if ((st = dpb_dlaplace(rb, 3, &y)) != DPB_OK)
				goto done;
			count[y < -14 ? 0 : y > 14 ? 30 : y + 15]++;
		}
		for (k = -14; k <= 14; k++)
			tail += prob[k + 15] = norm * pow(a, abs(k));
		prob[0] = prob[30] = (1 - tail) / 2;
		add_check(out, &nc, max, "discrete laplace t=3",
				  count, prob, 31, n);
	}

	/* 4. discrete Gaussian (sigma^2 = 10): |y| <= 10 and the two tails */
	{
		double		norm = 0,
					mid = 0;

		for (k = -200; k <= 200; k++)
			norm += exp(-(double) k * k / 20.0);
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
		{
			int64_t		y;

			if ((st = dpb_dgauss(rb, 10, &y)) != DPB_OK)
				goto done;
			count[y < -10 ? 0 : y > 10 ? 22 : y + 11]++;
		}
		for (k = -10; k <= 10; k++)
			mid += prob[k + 11] = exp(-(double) k * k / 20.0) / norm;
		prob[0] = prob[22] = (1 - mid) / 2;
		add_check(out, &nc, max, "discrete gaussian sigma2=10",
				  count, prob, 23, n);
	}
done:
	free(c);
	*status = st;
	return nc;
}
