/*
 * diag.c — posterior summaries and convergence diagnostics (Vehtari et al.
 * 2021), following the R package `posterior` (R/convergence.R):
 *
 *   rhat(x)     = max(.rhat(z_scale(split(x))),
 *                     .rhat(z_scale(split(|x - median(x)|))))
 *   ess_bulk(x) = .ess(z_scale(split(x)))
 *   ess_tail(x) = min over p in {0.05, 0.95} of .ess(split(x <= quantile(x, p)))
 *
 * split()   halves every chain; with an odd n the middle draw is dropped.
 * z_scale() replaces every value by its rank r among all S split draws
 *           (ties get the average rank), then by Phi^-1((r - 3/8) / (S + 1/4))
 *           (Blom's offset c = 3/8 in posterior's (r - c) / (S - 2c + 1)).
 * .rhat()   is the classic between/within R-hat of the (split) chains.
 * .ess()    combines per-chain FFT autocovariances with the between-chain
 *           variance and sums autocorrelations with Geyer's initial positive
 *           and monotone sequences, capping ESS at S log10(S).
 *
 * As in posterior, a diagnostic is NaN ("NA") when its input is constant
 * (max - min < DBL_EPSILON), when .rhat has fewer than 2 and .ess fewer
 * than 3 draws per split chain.  We also return NaN whenever a draw is NaN
 * or infinite (posterior would rank +-Inf draws in rhat and ess_bulk).
 */
#include "diag.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

/* ---------------------------------------------------------------- helpers */

/* total order for qsort, NaN last (qsort needs a consistent comparator) */
static int
cmp_double(const void *a, const void *b)
{
	double		u = *(const double *) a,
				v = *(const double *) b;

	if (u < v)
		return -1;
	if (u > v)
		return 1;
	return (u != u) - (v != v);
}

/* R's quantile(type = 7) of sorted s: h = (S-1) p, (1-f) s[lo] + f s[lo+1] */
static double
quantile7(const double *s, size_t S, double p)
{
	double		h = (double) (S - 1) * p;
	size_t		lo = (size_t) floor(h);
	double		f = h - (double) lo;

	if (lo + 1 >= S || f == 0.0 || s[lo + 1] == s[lo])
		return s[lo];
	return (1.0 - f) * s[lo] + f * s[lo + 1];
}

/* R's median of sorted s: the middle value or the mean of the two */
static double
median_sorted(const double *s, size_t S)
{
	return S % 2 ? s[S / 2] : (s[S / 2 - 1] + s[S / 2]) / 2.0;
}

static int
all_finite(const double *x, size_t S)
{
	for (size_t i = 0; i < S; i++)
		if (!dpb_isfinite(x[i]))
			return 0;
	return 1;
}

/* posterior's is_constant(): max(x) - min(x) < .Machine$double.eps */
static int
is_constant(const double *x, size_t S)
{
	double		lo = x[0],
				hi = x[0];

	for (size_t i = 1; i < S; i++)
	{
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	return hi - lo < DBL_EPSILON;
}

/* mean with a second, correcting pass (as R's mean()) */
static double
mean_of(const double *x, size_t S)
{
	double		m = 0.0,
				c = 0.0;

	for (size_t i = 0; i < S; i++)
		m += x[i];
	m /= (double) S;
	for (size_t i = 0; i < S; i++)
		c += x[i] - m;
	return m + c / (double) S;
}

/* sample variance, denominator S - 1 */
static double
var_of(const double *x, size_t S)
{
	double		m = mean_of(x, S),
				ss = 0.0;

	for (size_t i = 0; i < S; i++)
		ss += (x[i] - m) * (x[i] - m);
	return ss / (double) (S - 1);
}

/* a sorted copy of x (NULL when out of memory) */
static double *
sorted_copy(const double *x, size_t S)
{
	double	   *s = malloc(S * sizeof(double));

	if (s != NULL)
	{
		memcpy(s, x, S * sizeof(double));
		qsort(s, S, sizeof(double), cmp_double);
	}
	return s;
}

/* the first and last h = n/2 draws of every chain of x (chains * n) become
 * 2 * chains chains of h draws in out, chain-major */
static void
split_chains(const double *x, int chains, int n, double *out)
{
	size_t		h = (size_t) n / 2;

	for (int c = 0; c < chains; c++)
	{
		memcpy(out + 2 * c * h, x + (size_t) c * n, h * sizeof(double));
		memcpy(out + (2 * c + 1) * h, x + (size_t) c * n + (n - h), h * sizeof(double));
	}
}

/* ------------------------------------------------------ rank normalisation */

typedef struct ranked
{
	double		v;
	size_t		i;
} ranked;

static int
cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const ranked *) a)->v, &((const ranked *) b)->v);
}

/* In place: v[i] <- Phi^-1((r_i - 3/8) / (S + 1/4)), r_i the rank of v[i]
 * with ties averaged (R's rank(ties.method = "average")). */
static dpb_status
z_scale(double *v, size_t S)
{
	ranked	   *r = malloc(S * sizeof(ranked));

	if (r == NULL)
		return DPB_ENOMEM;
	for (size_t i = 0; i < S; i++)
	{
		r[i].v = v[i];
		r[i].i = i;
	}
	qsort(r, S, sizeof(ranked), cmp_ranked);
	for (size_t a = 0, b; a < S; a = b)
	{
		/* r[a..b-1] tie: 1-based ranks a+1..b, average (a + 1 + b) / 2 */
		for (b = a + 1; b < S && r[b].v == r[a].v; b++)
			;
		double		rank = ((double) a + 1.0 + (double) b) / 2.0;
		double		z = gsl_cdf_ugaussian_Pinv((rank - 0.375) / ((double) S + 0.25));

		for (size_t k = a; k < b; k++)
			v[r[k].i] = z;
	}
	free(r);
	return DPB_OK;
}

/*
 * *out <- z_scale(split(x)), or z_scale(split(|x - median(x)|)) when
 * folded (the median over all draws, middle ones included); malloc'd, with
 * room for 2 * chains more doubles after the 2 * chains * (n/2) draws.
 */
static dpb_status
split_z(const double *x, int chains, int n, int folded, double **out)
{
	size_t		N = (size_t) chains * n,
				S = 2 * (size_t) chains * (size_t) (n / 2);
	double	   *y = malloc((S + 2 * (size_t) chains) * sizeof(double)),
			   *f = NULL;
	dpb_status	st = DPB_ENOMEM;

	if (y == NULL)
		return DPB_ENOMEM;
	if (folded)
	{
		if ((f = sorted_copy(x, N)) == NULL)
			goto fail;
		double		med = median_sorted(f, N);

		for (size_t i = 0; i < N; i++)
			f[i] = fabs(x[i] - med);
	}
	split_chains(folded ? f : x, chains, n, y);
	free(f);
	if ((st = z_scale(y, S)) != DPB_OK)
		goto fail;
	*out = y;
	return DPB_OK;
fail:
	free(y);
	return st;
}

/* ------------------------------------------------------------------ R-hat */

/* posterior's .rhat on m chains of h draws; means: scratch for m doubles */
static double
rhat_basic(const double *y, int m, size_t h, double *means)
{
	double		w = 0.0,
				b;

	if (h < 2 || is_constant(y, (size_t) m * h))
		return NAN;
	for (int c = 0; c < m; c++)
	{
		means[c] = mean_of(y + c * h, h);
		w += var_of(y + c * h, h) / m;	/* W: mean within-chain variance */
	}
	b = (double) h * var_of(means, (size_t) m); /* B: h var(chain means) */
	if (w == 0.0)
		return INFINITY;		/* every split chain constant, not all equal */
	return sqrt((b / w + (double) h - 1.0) / (double) h);
}

/* bulk and tail (folded) R-hat; NaN when undefined */
static dpb_status
rhat_impl(const double *x, int chains, int n, double *bulk, double *tail)
{
	size_t		h = (size_t) n / 2;
	double	   *y;
	dpb_status	st;

	*bulk = *tail = NAN;
	if (chains < 1 || n < 4 || !all_finite(x, (size_t) chains * n))
		return DPB_OK;
	for (int folded = 0; folded < 2; folded++)
	{
		if ((st = split_z(x, chains, n, folded, &y)) != DPB_OK)
			return st;
		*(folded ? tail : bulk) = rhat_basic(y, 2 * chains, h, y + 2 * chains * h);
		free(y);
	}
	return DPB_OK;
}

/* R's max() propagates NA */
static double
max_na(double a, double b)
{
	return (isnan(a) || isnan(b)) ? NAN : fmax(a, b);
}

/* -------------------------------------------------------------------- ESS */

/*
 * posterior's .ess on m chains of h draws (y chain-major).
 * Autocovariances per chain by FFT: the centred chain, zero-padded to a
 * power of two L >= 2h (so lags < h do not wrap around), transformed,
 * squared to its power spectrum and transformed back gives
 * sum_i yc_i yc_{i+t}; divided by h this is posterior's "biased" acov_t.
 */
static dpb_status
ess_basic(const double *y, int m, size_t h, double *out)
{
	size_t		S = (size_t) m * h,
				L = 1;
	double	   *buf,
			   *acm,
			   *rho,
			   *cmean;
	dpb_status	st = DPB_ENOMEM;

	*out = NAN;
	if (h < 3 || is_constant(y, S))
		return DPB_OK;
	while (L < 2 * h)
		L *= 2;
	buf = malloc(L * sizeof(double));
	acm = calloc(h, sizeof(double));
	rho = calloc(h, sizeof(double));
	cmean = malloc((size_t) m * sizeof(double));
	if (!buf || !acm || !rho || !cmean)
		goto done;

	/* 1. acm[t] = mean over chains of the lag-t autocovariance */
	for (int c = 0; c < m; c++)
	{
		const double *yc = y + c * h;
		double		ss = 0.0;

		cmean[c] = mean_of(yc, h);
		if (is_constant(yc, h))
			continue;			/* a constant chain: all autocovariances 0 */
		for (size_t i = 0; i < h; i++)
		{
			buf[i] = yc[i] - cmean[c];
			ss += buf[i] * buf[i];
		}
		memset(buf + h, 0, (L - h) * sizeof(double));
		st = DPB_ENUMERIC;
		if (gsl_fft_real_radix2_transform(buf, 1, L) != GSL_SUCCESS)
			goto done;
		/* |F_k|^2; radix-2 half-complex layout: Re F_k in buf[k] (k <= L/2),
		 * Im F_k in buf[L - k] (0 < k < L/2) */
		buf[0] *= buf[0];
		buf[L / 2] *= buf[L / 2];
		for (size_t k = 1; k < L / 2; k++)
		{
			buf[k] = buf[k] * buf[k] + buf[L - k] * buf[L - k];
			buf[L - k] = 0.0;
		}
		if (gsl_fft_halfcomplex_radix2_backward(buf, 1, L) != GSL_SUCCESS)
			goto done;
		/* buf[t] = L sum_i yc_i yc_{i+t}: rescale so that lag 0 is ss / h */
		for (size_t t = 0; t < h; t++)
			acm[t] += buf[t] / buf[0] * (ss / (double) h) / m;
	}

	/* 2. mean_var = W (the mean within-chain variance), var_plus =
	 * (h-1)/h W + var(chain means), the pooled estimate of var(y) */
	double		mean_var = acm[0] * (double) h / ((double) h - 1.0);
	double		var_plus = mean_var * ((double) h - 1.0) / (double) h;

	if (m > 1)
		var_plus += var_of(cmean, (size_t) m);

	/* 3. rho_t = 1 - (W - acov_t) / var_plus; Geyer's initial positive
	 * sequence: take lags in pairs (t, t+1) while their sum is positive,
	 * stopping before lag h - 4 (posterior's loop, lags 0-based) */
	long		t = 0,
				max_t;
	double		even = 1.0,
				odd = 1.0 - (mean_var - acm[1]) / var_plus;

	rho[0] = even;
	rho[1] = odd;
	while (t < (long) h - 5 && !isnan(even + odd) && even + odd > 0.0)
	{
		t += 2;
		even = 1.0 - (mean_var - acm[t]) / var_plus;
		odd = 1.0 - (mean_var - acm[t + 1]) / var_plus;
		if (even + odd >= 0.0)
		{
			rho[t] = even;
			rho[t + 1] = odd;
		}
	}
	max_t = t;
	if (even > 0.0)				/* used by the improved estimate below */
		rho[max_t] = even;

	/* 4. Geyer's initial monotone sequence: pair sums must not increase */
	for (t = 2; t <= max_t - 2; t += 2)
		if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1])
			rho[t] = rho[t + 1] = (rho[t - 2] + rho[t - 1]) / 2.0;

	/* 5. tau = -1 + 2 sum_{t < max_t} rho_t + rho_{max_t} (R's 1:max_t with
	 * max_t = 0 selects rho_0 alone: reproduced), bounded below by
	 * 1/log10(S), i.e. ESS = S / tau <= S log10(S) */
	double		sum = 0.0,
				tau;

	for (t = 0; t < (max_t > 0 ? max_t : 1); t++)
		sum += rho[t];
	tau = fmax(-1.0 + 2.0 * sum + rho[max_t], 1.0 / log10((double) S));
	*out = (double) S / tau;
	st = DPB_OK;
done:
	free(cmean);
	free(rho);
	free(acm);
	free(buf);
	return st;
}

static dpb_status
ess_bulk_impl(const double *x, int chains, int n, double *out)
{
	double	   *y;
	dpb_status	st;

	*out = NAN;
	if (chains < 1 || n < 6 || !all_finite(x, (size_t) chains * n))
		return DPB_OK;
	if ((st = split_z(x, chains, n, 0, &y)) != DPB_OK)
		return st;
	st = ess_basic(y, 2 * chains, (size_t) n / 2, out);
	free(y);
	return st;
}

static dpb_status
ess_tail_impl(const double *x, int chains, int n, double *out)
{
	size_t		N = (size_t) chains * n;
	double	   *s,
			   *ind,
			   *y,
				e[2] = {NAN, NAN};
	dpb_status	st = DPB_ENOMEM;

	*out = NAN;
	if (chains < 1 || n < 6 || !all_finite(x, N) || is_constant(x, N))
		return DPB_OK;
	s = sorted_copy(x, N);
	ind = malloc(N * sizeof(double));
	y = malloc(N * sizeof(double));
	for (int k = 0; s && ind && y && k < 2; k++)
	{
		/* ESS of the split indicator I(x <= q_p), q_p over all draws */
		double		q = quantile7(s, N, k == 0 ? 0.05 : 0.95);

		for (size_t i = 0; i < N; i++)
			ind[i] = x[i] <= q ? 1.0 : 0.0;
		split_chains(ind, chains, n, y);
		if ((st = ess_basic(y, 2 * chains, (size_t) n / 2, &e[k])) != DPB_OK)
			break;
	}
	if (st == DPB_OK && !isnan(e[0]) && !isnan(e[1]))
		*out = fmin(e[0], e[1]);
	free(y);
	free(ind);
	free(s);
	return st;
}

/* ------------------------------------------------------------- public API */

double
dpb_rhat(const double *x, int chains, int n)
{
	double		b,
				t;

	return rhat_impl(x, chains, n, &b, &t) == DPB_OK ? max_na(b, t) : NAN;
}

dpb_status
dpb_rhat_parts(const double *x, int chains, int n, double *bulk, double *tail)
{
	if (x == NULL || bulk == NULL || tail == NULL || chains < 1 || n < 1)
		return DPB_EINVAL;
	return rhat_impl(x, chains, n, bulk, tail);
}

double
dpb_ess_bulk(const double *x, int chains, int n)
{
	double		e;

	return ess_bulk_impl(x, chains, n, &e) == DPB_OK ? e : NAN;
}

double
dpb_ess_tail(const double *x, int chains, int n)
{
	double		e;

	return ess_tail_impl(x, chains, n, &e) == DPB_OK ? e : NAN;
}

dpb_status
dpb_summarize(const double *x, int chains, int n, dpb_summary *out)
{
	size_t		N,
				pos = 0;
	double	   *s,
				rb,
				rt;
	dpb_status	st;

	if (out == NULL || x == NULL || chains < 1 || n < 1)
		return DPB_EINVAL;
	N = (size_t) chains * n;
	out->mean = mean_of(x, N);
	out->sd = N > 1 ? sqrt(var_of(x, N)) : NAN;
	for (size_t i = 0; i < N; i++)
		pos += x[i] > 0.0;
	out->prob_positive = (double) pos / (double) N;

	/* order statistics; a NaN draw (sorted last) makes them all NaN */
	if ((s = sorted_copy(x, N)) == NULL)
		return DPB_ENOMEM;
	out->median = out->mad = out->q5 = out->q95 = NAN;
	if (!isnan(s[N - 1]))
	{
		out->median = median_sorted(s, N);
		out->q5 = quantile7(s, N, 0.05);
		out->q95 = quantile7(s, N, 0.95);
		/* mad = 1.4826 median |x - median| */
		for (size_t i = 0; i < N; i++)
			s[i] = fabs(x[i] - out->median);
		qsort(s, N, sizeof(double), cmp_double);
		out->mad = 1.4826 * median_sorted(s, N);
	}
	free(s);

	if ((st = rhat_impl(x, chains, n, &rb, &rt)) != DPB_OK ||
		(st = ess_bulk_impl(x, chains, n, &out->ess_bulk)) != DPB_OK ||
		(st = ess_tail_impl(x, chains, n, &out->ess_tail)) != DPB_OK)
		return st;
	out->rhat = max_na(rb, rt);
	return DPB_OK;
}
