/*
 * dnoise.c — exact discrete Laplace and Gaussian samplers (integer only)
 * and the zCDP calibration of the discrete Gaussian.  See dnoise.h.
 *
 * Nothing on the sampling paths uses floating point: the samplers see only
 * integers and random bits.  Floating point appears only in the calibration
 * functions at the end of the file, which depend on public parameters.
 */
#define _DEFAULT_SOURCE			/* explicit_bzero, MAP_ANONYMOUS, madvise */
#include "dnoise.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define POOL 512

struct dpb_rbits
{
	dpb_fill_fn fill;
	void	   *ctx;
	int			failed;
	int			insecure;
	uint64_t	seed_state;		/* counter of the insecure source */
	uint64_t	consumed;		/* bits handed out */
	uint64_t	gen;			/* fork generation of acc and pool */
	uint64_t	acc;			/* unused bits, least significant first */
	int			nacc;			/* number of bits in acc */
	size_t		pos;			/* next unused byte of pool */
	unsigned char pool[POOL];
};

#define U128_ONE ((dpb_u128) 1)
#define U128_2_127 (U128_ONE << 127)

/* ---------------------------------------------------------------------
 * Fork detection
 *
 * A source buffers up to 512 bytes of its fill plus up to 63 bits in acc.
 * After fork() the child holds a copy of both: were it to use them, parent
 * and child would release the same noise, and the difference of their two
 * reports would be the exact difference of two people's records.  So every
 * buffered bit is tagged with the process's fork generation, a counter that
 * strictly increases in a child over its parent's value, and take_bits()
 * discards (and wipes) the buffer of a source whose tag is not the current
 * generation before handing out a single bit.
 *
 * A fork is noticed by two independent means, either of which suffices:
 *
 *   - a page advised MADV_WIPEONFORK (Linux >= 4.14), holding a flag set
 *     to 1: the kernel gives a child of any kind (fork, _Fork, a raw clone
 *     without CLONE_VM) a zero-filled copy, whatever user-space code runs
 *     or not, so the first bit drawn in the child finds the flag 0 and
 *     advances the generation.  Reading the flag costs one load.
 *   - a pthread_atfork child handler that advances the generation; it
 *     covers fork() where the page is unavailable (an older kernel, a
 *     sandbox without madvise).  Without the page, the pid the generation
 *     belongs to is compared with getpid() on every draw as well, to catch
 *     children made without the handlers (_Fork, a raw clone); that costs
 *     a system call per draw, the price of the fallback only.
 *
 * A bare owner pid per source would not do: pids are reused, so a
 * grandchild can be given the pid of the exited process that filled the
 * pool it inherited (through a child that never drew), and would take the
 * pool for its own.  The generation is never reused: it only grows along
 * a line of descent.  (Residual gap, fallback only: two generations of
 * children made without the atfork handlers, the middle one never
 * drawing, and the younger given the pid of an exited ancestor.)
 *
 * The state is process-wide and written under pthread_once or with
 * atomics, so sources may be created, used and freed in several threads
 * at once (each thread its own source: dnoise.h).
 * ------------------------------------------------------------------- */

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static uint64_t fork_gen = 1;	/* atomic; the current fork generation */
static unsigned char *wipe_flag = NULL; /* 1, or 0 in a fresh child */
static size_t wipe_len = 0;
static int	wipe_off = 0;		/* tests: use the fallback */
static pid_t gen_pid = 0;		/* atomic; fallback: whose fork_gen */

static void
fork_child(void)
{
	/* only the forking thread runs in the child: plain atomics suffice */
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&gen_pid, getpid(), __ATOMIC_RELEASE);
}

static void
fork_init(void)
{
#ifdef MADV_WIPEONFORK
	long		pg = sysconf(_SC_PAGESIZE);
	void	   *p;

	wipe_len = pg > 0 ? (size_t) pg : 4096;
	p = mmap(NULL, wipe_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
	{
		if (madvise(p, wipe_len, MADV_WIPEONFORK) == 0)
		{
			*(unsigned char *) p = 1;
			wipe_flag = p;
		}
		else
			munmap(p, wipe_len);	/* EINVAL before Linux 4.14 */
	}
#endif
	gen_pid = getpid();
	/* on failure (ENOMEM) the page or the pid comparison still detects */
	(void) pthread_atfork(NULL, NULL, fork_child);
}

/* The current fork generation; notices a fork not yet counted. */
static inline uint64_t
fork_generation(void)
{
	if (wipe_flag != NULL && !wipe_off)
	{
		if (__builtin_expect(__atomic_load_n(wipe_flag, __ATOMIC_ACQUIRE), 1))
			return __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
		/* the kernel zeroed the page: this is a child, first draw.  Two
		 * threads may both get here and both advance the counter; that
		 * only discards a buffer once more.  The flag is set after the
		 * increment, so whoever reads 1 also sees the new generation. */
		__atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(wipe_flag, 1, __ATOMIC_RELEASE);
	}
	else
	{
		pid_t		pid = getpid();

		if (pid != __atomic_load_n(&gen_pid, __ATOMIC_ACQUIRE))
		{
			__atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&gen_pid, pid, __ATOMIC_RELEASE);
		}
	}
	return __atomic_load_n(&fork_gen, __ATOMIC_SEQ_CST);
}

/*
 * Drops the buffered bits of a source carried over a fork.  A secure
 * source refills from its fill function in this process.  The insecure
 * seeded source keeps its stream: its bytes are a function of the seed
 * and a counter the child inherits too, so the parent's next block is the
 * child's next block whether or not the buffer is dropped; keeping it
 * leaves the documented stream reproducible.
 */
static void
rbits_forked(dpb_rbits *rb, uint64_t gen)
{
	rb->gen = gen;
	if (rb->insecure)
		return;
	explicit_bzero(rb->pool, POOL);
	rb->pos = POOL;
	rb->acc = 0;
	rb->nacc = 0;
}

const char *
dpb_rbits_fork_detection(void)
{
	pthread_once(&fork_once, fork_init);
	return wipe_flag != NULL && !wipe_off ? "wipeonfork+atfork" : "atfork+getpid";
}

void
dpb_rbits_fork_fallback_for_tests(int on)
{
	pthread_once(&fork_once, fork_init);
	__atomic_store_n(&gen_pid, getpid(), __ATOMIC_RELEASE);
	wipe_off = on;
}

/* ---------------------------------------------------------------------
 * Bit source
 * ------------------------------------------------------------------- */

dpb_rbits *
dpb_rbits_new(dpb_fill_fn fill, void *ctx)
{
	dpb_rbits  *rb;

	pthread_once(&fork_once, fork_init);
	rb = calloc(1, sizeof(dpb_rbits));
	if (rb == NULL)
		return NULL;
	rb->fill = fill;
	rb->ctx = ctx;
	rb->gen = fork_generation();
	rb->pos = POOL;				/* fill on first use */
	return rb;
}

/* SplitMix64 (Steele, Lea & Flood 2014; constants of Vigna's reference
 * implementation) in counter mode: the k-th word is mix(seed + k * golden). */
static int
insecure_fill(void *ctx, void *buf, size_t len)
{
	uint64_t   *state = ctx;
	unsigned char *p = buf;
	size_t		i;

	for (i = 0; i < len; i += 8)
	{
		uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));
		unsigned char b[8];
		size_t		j;

		z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
		z ^= z >> 31;
		for (j = 0; j < 8; j++)
			b[j] = (unsigned char) (z >> (8 * j));
		memcpy(p + i, b, len - i < 8 ? len - i : 8);
	}
	return 1;
}

dpb_rbits *
dpb_rbits_new_insecure_seeded(uint64_t seed)
{
	dpb_rbits  *rb = dpb_rbits_new(insecure_fill, NULL);

	if (rb == NULL)
		return NULL;
	rb->seed_state = seed;
	rb->ctx = &rb->seed_state;
	rb->insecure = 1;
	return rb;
}

void
dpb_rbits_free(dpb_rbits *rb)
{
	if (rb == NULL)
		return;
	/* do not leave unused random bits behind in freed memory (a plain
	 * memset before free may be optimised away) */
	explicit_bzero(rb, sizeof(dpb_rbits));
	free(rb);
}

int
dpb_rbits_failed(const dpb_rbits *rb)
{
	return rb->failed;
}

int
dpb_rbits_insecure(const dpb_rbits *rb)
{
	return rb->insecure;
}

uint64_t
dpb_rbits_consumed(const dpb_rbits *rb)
{
	return rb->consumed;
}

static uint64_t
next_word(dpb_rbits *rb)
{
	uint64_t	v = 0;
	int			j;

	if (rb->pos + 8 > POOL)
	{
		if (rb->failed || !rb->fill(rb->ctx, rb->pool, POOL))
		{
			rb->failed = 1;
			explicit_bzero(rb->pool, POOL);
		}
		rb->pos = 0;
	}
	for (j = 0; j < 8; j++)
		v |= (uint64_t) rb->pool[rb->pos + j] << (8 * j);
	rb->pos += 8;
	return v;
}

static inline uint64_t
low_mask(int k)
{
	return k >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1;
}

/* k uniform bits, 1 <= k <= 64, as the low bits of the result */
static uint64_t
take_bits(dpb_rbits *rb, int k)
{
	uint64_t	v,
				w;
	int			need;
	uint64_t	gen = fork_generation();

	/* every bit goes through here: none from another process's draw */
	if (__builtin_expect(rb->gen != gen, 0))
		rbits_forked(rb, gen);
	rb->consumed += (uint64_t) k;
	if (k <= rb->nacc)
	{
		v = rb->acc & low_mask(k);
		rb->acc = k == 64 ? 0 : rb->acc >> k;
		rb->nacc -= k;
		return v;
	}
	/* use the nacc (< k <= 64) remaining bits, then k - nacc fresh ones */
	w = next_word(rb);
	need = k - rb->nacc;
	v = rb->acc | ((w & low_mask(need)) << rb->nacc);
	rb->acc = need == 64 ? 0 : w >> need;
	rb->nacc = 64 - need;
	return v;
}

static inline int
take_bit(dpb_rbits *rb)
{
	return (int) take_bits(rb, 1);
}

/* ---------------------------------------------------------------------
 * Uniform integers and Bernoulli variables
 * ------------------------------------------------------------------- */

/* number of significant bits of v (0 for v = 0) */
static int
bitlen_u64(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

static int
bitlen_u128(dpb_u128 v)
{
	uint64_t	hi = (uint64_t) (v >> 64);

	return hi != 0 ? 64 + bitlen_u64(hi) : bitlen_u64((uint64_t) v);
}

dpb_status
dpb_uniform_u64(dpb_rbits *rb, uint64_t m, uint64_t *out)
{
	/* k bits cover {0, ..., m-1}: 2^(k-1) < m <= 2^k; m = 0 means 2^64 */
	int			k = m == 0 ? 64 : bitlen_u64(m - 1);

	*out = 0;
	if (k == 0)
		return rb->failed ? DPB_ERNG : DPB_OK;
	for (;;)
	{
		uint64_t	v = take_bits(rb, k);

		if (rb->failed)
			return DPB_ERNG;
		if (m == 0 || v < m)
		{
			*out = v;
			return DPB_OK;
		}
	}
}

dpb_status
dpb_uniform_u128(dpb_rbits *rb, dpb_u128 m, dpb_u128 *out)
{
	int			k = m == 0 ? 128 : bitlen_u128(m - 1);

	*out = 0;
	if (k == 0)
		return rb->failed ? DPB_ERNG : DPB_OK;
	for (;;)
	{
		dpb_u128	v;

		if (k <= 64)
			v = take_bits(rb, k);
		else
		{
			v = take_bits(rb, 64);
			v |= (dpb_u128) take_bits(rb, k - 64) << 64;
		}
		if (rb->failed)
			return DPB_ERNG;
		if (m == 0 || v < m)
		{
			*out = v;
			return DPB_OK;
		}
	}
}

/*
 * Bernoulli(n/d), n < d <= 2^127, without checks: 1 iff U < n/d for U
 * uniform on [0, 1), comparing the bits of U, drawn one at a time, with
 * the binary digits of n/d (long division: 2n < 2^128).  The first
 * differing digit decides; when the expansion of n/d ends, U >= n/d.
 * Two bits on average.  With a failed source (zero bits) the loop ends
 * within 128 steps: the first digit 1 of n/d decides.
 */
static int
bern_frac(dpb_rbits *rb, dpb_u128 n, dpb_u128 d)
{
	while (n != 0)
	{
		int			digit = 0;
		int			b;

		n <<= 1;
		if (n >= d)
		{
			n -= d;
			digit = 1;
		}
		b = take_bit(rb);
		if (b != digit)
			return digit;		/* U < n/d iff U has the 0 */
	}
	return 0;
}

dpb_status
dpb_bernoulli(dpb_rbits *rb, dpb_u128 n, dpb_u128 d, int *out)
{
	*out = 0;
	if (d == 0 || d > U128_2_127)
		return DPB_EINVAL;
	*out = n >= d ? 1 : bern_frac(rb, n, d);
	if (rb->failed)
	{
		*out = 0;
		return DPB_ERNG;
	}
	return DPB_OK;
}

/*
 * Bernoulli(exp(-n/d)) for 0 <= n <= d <= 2^127 (CKS Algorithm 1): draw
 * A_k ~ Bernoulli(n/(d k)) for k = 1, 2, ... until the first A_k = 0 and
 * return 1 iff that k is odd; P(k odd) = exp(-n/d).  Bernoulli(n/(d k))
 * is drawn in one go while d k <= 2^127, otherwise as
 * Bernoulli(n/d) AND Bernoulli(1/k) (the same law, exact).  Returns 0 when
 * the source has failed (the caller reports it).
 */
static int
bern_exp_le1(dpb_rbits *rb, dpb_u128 n, dpb_u128 d)
{
	dpb_u128	k = 1;

	for (;;)
	{
		int			a;

		if (rb->failed)
			return 0;
		if (d <= U128_2_127 / k)
			a = n >= d * k ? 1 : bern_frac(rb, n, d * k);
		else
			a = (n >= d ? 1 : bern_frac(rb, n, d)) && bern_frac(rb, 1, k);
		if (!a)
			return (int) (k & 1);
		k++;
	}
}

dpb_status
dpb_bernoulli_exp(dpb_rbits *rb, dpb_u128 n, dpb_u128 d, int *out)
{
	dpb_u128	q,
				i;

	*out = 0;
	if (d == 0 || d > U128_2_127)
		return DPB_EINVAL;
	/* exp(-n/d) = exp(-1)^floor(n/d) * exp(-(n mod d)/d) */
	q = n / d;
	for (i = 0; i < q; i++)
	{
		if (!bern_exp_le1(rb, 1, 1))
			return rb->failed ? DPB_ERNG : DPB_OK;
	}
	*out = bern_exp_le1(rb, n % d, d);
	if (rb->failed)
	{
		*out = 0;
		return DPB_ERNG;
	}
	return DPB_OK;
}

/* ---------------------------------------------------------------------
 * Discrete Laplace and discrete Gaussian
 * ------------------------------------------------------------------- */

#define PROPOSAL_BOUND (UINT64_C(1) << 62)

/* CKS Algorithm 2 with s = 1, 1 <= t <= 2^40, no argument checks */
static dpb_status
dlaplace_core(dpb_rbits *rb, uint64_t t, int64_t *y)
{
	/* X = U + t V < t (vmax + 1) <= 2^62 */
	uint64_t	vmax = PROPOSAL_BOUND / t - 1;

	*y = 0;
	for (;;)
	{
		uint64_t	u,
					v,
					x;
		int			b;

		if (dpb_uniform_u64(rb, t, &u) != DPB_OK)
			return DPB_ERNG;
		/* accept U with probability exp(-U/t) */
		if (!bern_exp_le1(rb, u, t))
		{
			if (rb->failed)
				return DPB_ERNG;
			continue;
		}
		/* V: geometric, P(V = v) = (1 - e^-1) e^-v */
		v = 0;
		while (v <= vmax && bern_exp_le1(rb, 1, 1))
			v++;
		if (rb->failed)
			return DPB_ERNG;
		if (v > vmax)
			continue;			/* truncation, see dnoise.h */
		x = u + t * v;
		b = take_bit(rb);
		if (rb->failed)
			return DPB_ERNG;
		if (b && x == 0)
			continue;			/* -0 would count 0 twice */
		*y = b ? -(int64_t) x : (int64_t) x;
		return DPB_OK;
	}
}

dpb_status
dpb_dlaplace(dpb_rbits *rb, uint64_t t, int64_t *y)
{
	*y = 0;
	if (t < 1 || t > DPB_DLAPLACE_MAX_T)
		return DPB_EINVAL;
	return dlaplace_core(rb, t, y);
}

uint64_t
dpb_isqrt_u64(uint64_t n)
{
	uint64_t	x,
				y;

	if (n < 2)
		return n;
	/* start above the root: n < 2^b, sqrt(n) < 2^ceil(b/2) */
	x = UINT64_C(1) << ((bitlen_u64(n) + 1) / 2);
	for (;;)
	{
		y = (x + n / x) / 2;
		if (y >= x)
			return x;
		x = y;
	}
}

dpb_status
dpb_dgauss(dpb_rbits *rb, uint64_t sigma2, int64_t *y)
{
	uint64_t	t,
				ycap;
	dpb_u128	den;

	*y = 0;
	if (sigma2 < 1 || sigma2 > DPB_DGAUSS_MAX_SIGMA2)
		return DPB_EINVAL;
	t = dpb_isqrt_u64(sigma2) + 1;	/* <= 2^25 + 1 */
	ycap = (UINT64_C(1) << 63) / t;	/* |Y| t <= 2^63 */
	den = (dpb_u128) 2 * sigma2 * t * t;	/* < 2^102 */
	for (;;)
	{
		int64_t		cand;
		uint64_t	a;
		dpb_u128	at,
					diff;
		int			c;

		if (dlaplace_core(rb, t, &cand) != DPB_OK)
			return DPB_ERNG;
		a = cand < 0 ? (uint64_t) 0 - (uint64_t) cand : (uint64_t) cand;
		if (a > ycap)
			continue;			/* truncation, see dnoise.h */
		/* accept with probability exp(-(a t - sigma2)^2 / (2 sigma2 t^2)) */
		at = (dpb_u128) a * t;
		diff = at >= sigma2 ? at - sigma2 : (dpb_u128) sigma2 - at;
		if (dpb_bernoulli_exp(rb, diff * diff, den, &c) != DPB_OK)
			return DPB_ERNG;
		if (c)
		{
			*y = cand;
			return DPB_OK;
		}
	}
}

/* ---------------------------------------------------------------------
 * zCDP calibration (floating point, public parameters only)
 * ------------------------------------------------------------------- */

/*
 * log of the CKS Corollary 13 bound at alpha = 1 + x:
 *     (alpha-1)(alpha rho - eps) - log(alpha-1) + alpha log(1 - 1/alpha)
 *   = x ((1+x) rho - eps) - x log1p(1/x) - log1p(x)
 * (no cancellation between large terms).  *abserr receives a bound on the
 * absolute rounding error of the value.
 */
static double
zcdp_logbound(double rho, double eps, double x, double *abserr)
{
	double		t1 = x * ((1 + x) * rho - eps),
				t2 = x * log1p(1 / x),
				t3 = log1p(x);

	/* the products are formed as in t1, so this overflows only with it */
	*abserr = 8 * DBL_EPSILON * (x * ((1 + x) * rho + eps) + t2 + t3);
	return t1 - t2 - t3;
}

/* d/dx of the above: (1 + 2x) rho - eps - log1p(1/x), increasing in x */
static double
zcdp_slope(double rho, double eps, double x)
{
	return (1 + 2 * x) * rho - eps - log1p(1 / x);
}

double
dpb_zcdp_delta(double rho, double eps)
{
	double		lo = 1,
				hi = 1,
				best = INFINITY;
	double		cand[3];
	int			i;

	if (!isfinite(rho) || !isfinite(eps) || rho < 0 || eps < 0)
		return NAN;
	if (rho == 0)
		return 0;
	/* bracket the root of the slope in x = alpha - 1 */
	while (zcdp_slope(rho, eps, lo) >= 0 && lo > 1e-300)
		lo /= 2;
	while (zcdp_slope(rho, eps, hi) <= 0 && hi < 1e300)
		hi *= 2;
	for (i = 0; i < 400 && hi > lo * (1 + 4 * DBL_EPSILON); i++)
	{
		/* geometric midpoint while the bracket spans decades */
		double		mid = hi > 4 * lo ? sqrt(lo) * sqrt(hi) : lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (zcdp_slope(rho, eps, mid) < 0)
			lo = mid;
		else
			hi = mid;
	}
	/* every x > 0 gives an upper bound: take the smallest of a few */
	cand[0] = lo;
	cand[1] = hi;
	cand[2] = lo + (hi - lo) / 2;
	for (i = 0; i < 3; i++)
	{
		double		err,
					lb = zcdp_logbound(rho, eps, cand[i], &err);

		if (isfinite(lb) && lb + err < best)
			best = lb + err;
	}
	if (!(best < 0))
		return 1;
	/* exp() is correctly rounded to within an ulp or so: round up */
	return fmin(1.0, exp(best) * (1 + 4 * DBL_EPSILON));
}

dpb_status
dpb_zcdp_rho(double eps, double delta, double *rho, dpb_err *err)
{
	double		lo = 0,
				hi = 1;
	int			i;

	*rho = 0;
	if (!isfinite(eps) || eps <= 0)
	{
		dpb_err_set(err, "epsilon must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (!isfinite(delta) || !(delta > 0 && delta < 1))
	{
		dpb_err_set(err, "delta must be between 0 and 1 (exclusive)", NULL);
		return DPB_EINVAL;
	}
	/* dpb_zcdp_delta(lo) <= delta < dpb_zcdp_delta(hi) */
	while (dpb_zcdp_delta(hi, eps) <= delta)
	{
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
		{
			dpb_err_set(err, "could not calibrate the zCDP noise",
						"No rho up to 1e300 exceeds the requested delta.");
			return DPB_ENUMERIC;
		}
	}
	for (i = 0; i < 2000 && hi - lo > 1e-13 * hi; i++)
	{
		double		mid = lo > 0 && hi > 4 * lo ? sqrt(lo) * sqrt(hi)
			: (lo == 0 ? hi / 4 : lo + (hi - lo) / 2);

		if (dpb_zcdp_delta(mid, eps) <= delta)
			lo = mid;
		else
			hi = mid;
	}
	if (!(lo > 0))
	{
		dpb_err_set(err, "could not calibrate the zCDP noise",
					"The privacy parameters are too small for a positive rho.");
		return DPB_ENUMERIC;
	}
	*rho = lo;
	return DPB_OK;
}

dpb_status
dpb_zcdp_sigma(double eps, double delta, double sens, double *sigma,
			   dpb_err *err)
{
	double		rho;
	dpb_status	st;

	*sigma = 0;
	if (!isfinite(sens) || !(sens > 0))
	{
		dpb_err_set(err, "sensitivity must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	st = dpb_zcdp_rho(eps, delta, &rho, err);
	if (st != DPB_OK)
		return st;
	*sigma = sens / sqrt(2 * rho);
	*sigma = nextafter(*sigma * (1 + 4 * DBL_EPSILON), INFINITY);
	if (!isfinite(*sigma))
	{
		dpb_err_set(err, "could not calibrate the zCDP noise",
					"The noise scale is not finite.");
		return DPB_ENUMERIC;
	}
	return DPB_OK;
}

/* ---------------------------------------------------------------------
 * Integer parameters on a grid
 * ------------------------------------------------------------------- */

/* ceil(v + e) as an integer in [1, max], for v >= 0 finite and |e| at
 * most half an ulp of v (v + e is the exact value, v its rounding) */
static dpb_status
ceil_param(double v, double e, uint64_t max, uint64_t *out, dpb_err *err)
{
	double		c = ceil(v);

	/* v + e crosses an integer only when v is one (round to nearest) */
	if (c == v && e > 0)
		c += 1;
	*out = 0;
	if (!(c <= (double) max))
	{
		dpb_err_set(err, "the noise is too large for the grid",
					"The integer noise parameter would exceed its supported maximum; a coarser grid is needed.");
		return DPB_ERANGE;
	}
	*out = c < 1 ? 1 : (uint64_t) c;
	return DPB_OK;
}

dpb_status
dpb_dgauss_sigma2_on_grid(double sigma, int gexp, uint64_t *sigma2,
						  dpb_err *err)
{
	double		s,
				p;

	*sigma2 = 0;
	if (!isfinite(sigma) || !(sigma > 0))
	{
		dpb_err_set(err, "the noise scale must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	s = ldexp(sigma, -gexp);
	if (!(s >= DBL_MIN && s <= 1e150))
	{
		dpb_err_set(err, "the noise is too large for the grid",
					"The noise scale in grid units is outside the supported range.");
		return s < DBL_MIN ? DPB_EINVAL : DPB_ERANGE;
	}
	/* s^2 = p + fma(s, s, -p) exactly */
	p = s * s;
	return ceil_param(p, fma(s, s, -p), DPB_DGAUSS_MAX_SIGMA2, sigma2, err);
}

dpb_status
dpb_dlaplace_t_on_grid(double b, int gexp, uint64_t *t, dpb_err *err)
{
	*t = 0;
	if (!isfinite(b) || !(b > 0))
	{
		dpb_err_set(err, "the noise scale must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	/* exact unless the result underflows, which rounds to 1 anyway */
	return ceil_param(ldexp(b, -gexp), 0, DPB_DLAPLACE_MAX_T, t, err);
}
