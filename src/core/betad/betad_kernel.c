/*
 * betad_kernel.c — per-record terms of the betaD log density (see
 * betad_kernel.h): a scalar reference and, with DPB_HAVE_LIBMVEC on
 * x86-64, the same arithmetic four records at a time calling libmvec's
 * AVX2 exp and log (_ZGVdN4v_exp, _ZGVdN4v_log; glibc >= 2.22), chosen at
 * run time by the CPU's features.
 */
#include "betad_kernel.h"

#include <math.h>

#if defined(DPB_HAVE_LIBMVEC) && defined(__x86_64__) && defined(__GNUC__)
#define DPB_BETAD_AVX2 1
#include <immintrin.h>
#endif

static int	force_scalar = 0;

void
dpb_betad_kernel_force_scalar(int on)
{
	force_scalar = on;
}

/* ---- scalar reference ---- */

/*
 * a = |u|, e = e^-a, l = log(1 + e): sigma(|u|) = 1 / (1 + e) and
 * -log sigma(|u|) = l, -log sigma(-|u|) = a + l.  log(1 + e) rather than
 * log1p(e): l only enters through exp(-b l), where an absolute error of an
 * ulp of 1 is a relative error of b ulps, and so both paths use the same
 * formula.
 */
static double
logistic_scalar(const double *u, const double *y, int64_t n, double b, double beta,
				double *g)
{
	double		s = 0;
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		double		a = fabs(u[i]),
					e = exp(-a),
					l = log(1.0 + e),
					inv = 1.0 / (1.0 + e),
					ei = e * inv,
					pos = u[i] >= 0,
					p = pos ? inv : ei,		/* sigma(u) */
					pm = pos ? ei : inv,	/* 1 - p */
					pb = exp(-b * (pos ? l : a + l)),	/* p^b */
					rb = exp(-b * (pos ? a + l : l)),	/* (1 - p)^b */
					qb = y[i] > 0 ? pb : rb,
					q1 = y[i] > 0 ? pm : p; /* 1 - q */

		s += qb / b - (p * pb + pm * rb) / beta;
		/* d/du: y q^b (1 - q) - p (1 - p) (p^b - (1 - p)^b) */
		if (g)
			g[i] = y[i] * qb * q1 - p * pm * (pb - rb);
	}
	return s;
}

static double
gauss_scalar(const double *lin, const double *y, int64_t n, double b, double s2,
			 double *g, double *dsum)
{
	double		lc = -0.5 * b * log(2.0 * M_PI * s2),
				h = -0.5 * b / s2,
				s = 0,
				ds = 0;
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		double		r = y[i] - lin[i],
					fb = exp(lc + h * r * r);

		s += fb;
		if (g)
		{
			g[i] = fb * r / s2;
			ds += fb * (r * r - s2);
		}
	}
	if (g)
		*dsum += ds / (2.0 * s2 * s2);
	return s / b;
}

/* ---- AVX2 + libmvec ---- */

#ifdef DPB_BETAD_AVX2

/* glibc's vector math library, x86-64 vector ABI, AVX2 variants */
extern __m256d _ZGVdN4v_exp(__m256d x);
extern __m256d _ZGVdN4v_log(__m256d x);

__attribute__((target("avx2,fma")))
static double
hsum(__m256d v)
{
	__m128d		lo = _mm256_castpd256_pd128(v),
				hi = _mm256_extractf128_pd(v, 1);

	lo = _mm_add_pd(lo, hi);
	return _mm_cvtsd_f64(lo) + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
}

/* the records 0 .. n - n % 4 - 1; returns the sum, *done the count */
__attribute__((target("avx2,fma")))
static double
logistic_avx2(const double *u, const double *y, int64_t n, double b, double beta,
			  double *g, int64_t *done)
{
	const __m256d one = _mm256_set1_pd(1.0),
				zero = _mm256_setzero_pd(),
				sign = _mm256_set1_pd(-0.0),
				negb = _mm256_set1_pd(-b),
				invb = _mm256_set1_pd(1.0 / b),
				invbeta = _mm256_set1_pd(1.0 / beta);
	__m256d		acc = zero;
	int64_t		i;

	for (i = 0; i + 4 <= n; i += 4)
	{
		__m256d		vu = _mm256_loadu_pd(u + i),
					vy = _mm256_loadu_pd(y + i),
					a = _mm256_andnot_pd(sign, vu),
					e = _ZGVdN4v_exp(_mm256_xor_pd(a, sign)),
					ope = _mm256_add_pd(one, e),
					l = _ZGVdN4v_log(ope),
					inv = _mm256_div_pd(one, ope),
					ei = _mm256_mul_pd(e, inv),
					al = _mm256_add_pd(a, l),
					pos = _mm256_cmp_pd(vu, zero, _CMP_GE_OQ),
					ypos = _mm256_cmp_pd(vy, zero, _CMP_GT_OQ),
					/* blendv(x, z, m): z where m is set */
					p = _mm256_blendv_pd(ei, inv, pos),
					pm = _mm256_blendv_pd(inv, ei, pos),
					pb = _ZGVdN4v_exp(_mm256_mul_pd(negb, _mm256_blendv_pd(al, l, pos))),
					rb = _ZGVdN4v_exp(_mm256_mul_pd(negb, _mm256_blendv_pd(l, al, pos))),
					qb = _mm256_blendv_pd(rb, pb, ypos),
					q1 = _mm256_blendv_pd(p, pm, ypos),
					t;

		t = _mm256_fmadd_pd(p, pb, _mm256_mul_pd(pm, rb));
		acc = _mm256_add_pd(acc, _mm256_fmsub_pd(qb, invb, _mm256_mul_pd(t, invbeta)));
		if (g)
		{
			__m256d		gi = _mm256_mul_pd(_mm256_mul_pd(vy, qb), q1);

			gi = _mm256_fnmadd_pd(_mm256_mul_pd(p, pm), _mm256_sub_pd(pb, rb), gi);
			_mm256_storeu_pd(g + i, gi);
		}
	}
	*done = i;
	return hsum(acc);
}

__attribute__((target("avx2,fma")))
static double
gauss_avx2(const double *lin, const double *y, int64_t n, double b, double s2,
		   double *g, double *dsum, int64_t *done)
{
	const __m256d lc = _mm256_set1_pd(-0.5 * b * log(2.0 * M_PI * s2)),
				h = _mm256_set1_pd(-0.5 * b / s2),
				vs2 = _mm256_set1_pd(s2),
				inv2 = _mm256_set1_pd(1.0 / s2);
	__m256d		acc = _mm256_setzero_pd(),
				dacc = _mm256_setzero_pd();
	int64_t		i;

	for (i = 0; i + 4 <= n; i += 4)
	{
		__m256d		r = _mm256_sub_pd(_mm256_loadu_pd(y + i), _mm256_loadu_pd(lin + i)),
					r2 = _mm256_mul_pd(r, r),
					fb = _ZGVdN4v_exp(_mm256_fmadd_pd(h, r2, lc));

		acc = _mm256_add_pd(acc, fb);
		if (g)
		{
			_mm256_storeu_pd(g + i, _mm256_mul_pd(_mm256_mul_pd(fb, r), inv2));
			dacc = _mm256_fmadd_pd(fb, _mm256_sub_pd(r2, vs2), dacc);
		}
	}
	*done = i;
	if (g)
		*dsum += hsum(dacc) / (2.0 * s2 * s2);
	return hsum(acc) / b;
}

static int
have_avx2(void)
{
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	}
	return known;
}
#endif

int
dpb_betad_kernel_vector(void)
{
#ifdef DPB_BETAD_AVX2
	return !force_scalar && have_avx2();
#else
	return 0;
#endif
}

double
dpb_betad_logistic_terms(const double *u, const double *y, int64_t n, double beta,
						 double *g)
{
	double		b = beta - 1.0,
				s = 0;
	int64_t		done = 0;

#ifdef DPB_BETAD_AVX2
	if (dpb_betad_kernel_vector())
		s = logistic_avx2(u, y, n, b, beta, g, &done);
#endif
	return s + logistic_scalar(u + done, y + done, n - done, b, beta, g ? g + done : NULL);
}

double
dpb_betad_gauss_terms(const double *lin, const double *y, int64_t n, double beta,
					  double s2, double *g, double *dsum)
{
	double		b = beta - 1.0,
				s = 0;
	int64_t		done = 0;

#ifdef DPB_BETAD_AVX2
	if (dpb_betad_kernel_vector())
		s = gauss_avx2(lin, y, n, b, s2, g, dsum, &done);
#endif
	return s + gauss_scalar(lin + done, y + done, n - done, b, s2, g ? g + done : NULL, dsum);
}
