/*
 * nuts.c — the No-U-Turn sampler (multinomial form) with Stan's warmup.
 *
 * The sampler (Hoffman & Gelman 2014, in the form of Betancourt 2017 and of
 * Stan's base_nuts.hpp):
 *
 *  - A transition draws a momentum p ~ N(0, M) (M^-1 = minv, diagonal) and
 *    grows a trajectory of leapfrog steps by doubling: each doubling builds a
 *    new subtree of 2^depth steps, forwards or backwards in time at random.
 *  - Each point z of the trajectory has weight exp(H0 - H(z)), H the
 *    Hamiltonian.  Subtrees are built recursively from two halves; the
 *    proposal of a subtree is drawn from its points with these weights
 *    ("multinomial"), progressively: the second half's proposal replaces the
 *    first's with probability w_final / (w_init + w_final).  At the top level
 *    the new subtree's proposal replaces the current sample with probability
 *    min(1, w_new / w_old) ("biased progressive sampling", which favours
 *    moving away from the start).
 *  - Generalized no-U-turn criterion (Betancourt 2013): with rho the sum of
 *    the momenta over a (sub)trajectory and p# = M^-1 p at its two ends, the
 *    trajectory continues while p#_minus . rho > 0 and p#_plus . rho > 0.
 *    As in Stan >= 2.21 it is also checked across every merge: on the first
 *    half extended by the first point of the second half and vice versa,
 *    which catches U-turns that the two halves hide from each other.
 *  - A point whose energy error H - H0 exceeds 1000, or whose log density
 *    is not finite, is a divergence: the new subtree is discarded and the
 *    trajectory stops.  The depth is limited by max_depth.
 *  - The acceptance statistic of a transition is the mean over all leapfrog
 *    steps (discarded subtrees included) of min(1, exp(H0 - H)).
 *
 * Warmup (Stan's adapt_diag_e_nuts):
 *
 *  - Step-size heuristic (Stan's init_stepsize): double (or halve) eps until
 *    one leapfrog step from the current point with a fresh momentum has an
 *    acceptance probability crossing 0.8.  Run at the start from eps = 1,
 *    and after every metric update from the current eps.  A step size
 *    beyond 1e7 (improper density) or of 0 is an error, as in Stan.
 *  - Dual averaging (Nesterov 2009, Hoffman & Gelman 2014 sec. 3.2) of
 *    log eps towards mean acceptance statistic delta = target_accept, with
 *    gamma = 0.05, t0 = 10, kappa = 0.75, mu = log(10 eps0), eps0 the step
 *    size of the latest heuristic (Stan sets mu from the user's initial step
 *    size once; we follow the paper).  Restarted after each metric update;
 *    at the end of warmup eps = exp(x_bar), the averaged iterate.
 *    With warm_restart, the restarts after a metric update that another
 *    slow window follows use mu = log eps0 (the heuristic's step size, not
 *    10 times it) and t0 = 200: Stan's restart, made for an unknown step
 *    size, swings log eps by about 20 (delta - accept) / sqrt(t) per
 *    iteration (sd 0.3 to 0.7 within a window at d = 8, N = 1e3, step
 *    sizes from 0.06 to 0.6), and every dip to a small step size costs a
 *    tree of depth 5 or 6.  With t0 = 200 the first steps are 20 times
 *    smaller; an error of the heuristic by a factor of 2 is still corrected
 *    within a window of 25 iterations at a mean acceptance of 0.74 instead
 *    of 0.8.  The restart before the terminal buffer stays Stan's: its x_bar
 *    lands at a mean acceptance of ~0.89 (the average of the swings), and
 *    the warm one's at ~0.8, with the same tree depth but more divergent
 *    transitions (Poisson, d = 8, N = 1e4, eps = 0.1, 4 seeds: 67 against
 *    9 with Stan's).
 *  - Windowed metric adaptation: the positions of the draws in the slow
 *    windows are accumulated (Welford); at the end of a window the inverse
 *    metric becomes the regularized variance (n/(n+5)) var + 1e-3 (5/(n+5))
 *    min(1, minv0), minv0 the initial inverse metric: 1 as in Stan, or with
 *    curvature_init 1 / the curvature at init (curvature_metric).  Below 1
 *    this is Stan's rule in the coordinates that minv0 makes unit-scale
 *    (Stan's absolute 1e-3 would floor a posterior variance of 1e-6 at
 *    ~1e-5); the cap at Stan's
 *    value keeps a point of near-zero curvature at init (minv0 huge) from
 *    inflating the metric for the whole warmup.
 *    Windows: an initial fast buffer of 75 iterations (step size only), slow
 *    windows of 25, 50, 100, ... iterations, the last one stretched to the
 *    terminal buffer of 50 iterations (step size only).  When
 *    75 + 25 + 50 > warmup: 15% / 75% / 10% of the warmup, one slow window;
 *    below 20 warmup iterations no metric adaptation (Stan's schedule).
 *  - Dense metric (o->dense): the windows accumulate the co-moment matrix
 *    (Welford), and the inverse metric becomes the sample covariance shrunk
 *    towards its diagonal, (1 - lambda) S + lambda diag(S) with lambda =
 *    dim / (n + dim), then regularised as above on the diagonal; kept only
 *    if its Cholesky factor L exists.  Momenta are drawn as L^-T u.  Stan
 *    has no shrinkage: with windows of 25 and 50 draws in dozens of
 *    dimensions its estimate is singular, and the 1e-3 floor in the null
 *    space cut the step size of the next window.
 *  - init_max_depth: the tree depth limit until the first metric update
 *    (the initial fast buffer and the first slow window).
 *  - recoord (with recoord_window k, recoord_last l >= k): the draws of the
 *    slow windows up to the l-th are kept; at the end of windows k, ..., l,
 *    until it returns nonzero, the model may map them and the current
 *    point to other coordinates (and ask for a dense metric); the metric of
 *    that window is then estimated from all of them, in the new
 *    coordinates, the density re-evaluated at the mapped point, and the
 *    step-size heuristic run as after every window.
 *
 * Memory: one calloc'ed block holding every vector, including per-level
 * scratch for the recursion, so that a transition allocates nothing.
 */
#include "nuts.h"
#include "progress.h"

#include "linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#define MAX_DELTA_H 1000.0		/* energy error of a divergence (Stan) */

#define DA_GAMMA 0.05			/* dual averaging */
#define DA_T0 10.0
#define DA_KAPPA 0.75
#define DA_T0_WARM 200.0		/* t0 of a warm restart (warm_restart) */

#define WIN_INIT_BUFFER 75		/* windowed metric adaptation */
#define WIN_BASE 25
#define WIN_TERM_BUFFER 50

/* A point of phase space: position, momentum, gradient of the log density
 * at q, log density (-inf at an invalid point). */
typedef struct point
{
	double	   *q, *p, *g;
	double		logp;
} point;

/* Scratch of one level of the subtree recursion (used while a subtree of
 * that depth merges its two halves, "init" and "final"). */
typedef struct level
{
	point		final;			/* proposal of the final half */
	/* (sharp) momenta at the end of the init half, at the beginning of the
	 * final half; summed momenta of each half; scratch */
	double	   *p_init_end, *ps_init_end, *p_final_beg, *ps_final_beg;
	double	   *rho_init, *rho_final, *rho_ext;
} level;

typedef struct sampler
{
	int			dim, max_depth;
	dpb_logp_fn f;
	void	   *ctx;
	gsl_rng    *rng;
	double	   *minv;			/* inverse metric, diagonal (with dense: its
								 * diagonal) */
	double	   *minv0;			/* the initial one (regularisation target) */
	int			dense;			/* dense metric: Mden, Lden, w_cov below */
	double	   *Mden;			/* dim x dim inverse metric (full) */
	double	   *Lden;			/* its Cholesky factor (lower) */
	double	   *w_cov;			/* dim x dim Welford co-moment */
	double	   *tmp;			/* dim scratch */
	double		eps;			/* step size */

	/* the current transition */
	double		H0;				/* energy of the starting point */
	long		n_leapfrog;
	double		sum_metro;		/* sum of min(1, exp(H0 - H)) */
	int			divergent;
	point		z;				/* the point the integrator moves */
	point		cur;			/* the current sample */
	point		fwd, bck;		/* ends of the trajectory */
	point		propose;		/* proposal of the newest subtree */
	/* (sharp) momenta p_<subtree>_<end> at both ends of the backward subtree
	 * (the trajectory before the latest doubling, or the new subtree when
	 * going backwards) and of the forward subtree; summed momenta */
	double	   *p_ff, *ps_ff, *p_fb, *ps_fb, *p_bf, *ps_bf, *p_bb, *ps_bb;
	double	   *rho, *rho_f, *rho_b, *rho_ext;
	level	   *lv;				/* lv[d] for subtrees of depth d >= 1 */

	long		w_n;			/* Welford accumulators of the metric */
	double	   *w_mean, *w_m2;	/* adaptation */
	double	   *hist;			/* the slow windows' draws (recoord_window) */
	long		hist_n;

	long		invalid, grad_evals;

	/* the host's interrupt poll (may be NULL), called before every density
	 * evaluation; once it fired, stop is set, every later evaluation is
	 * invalid without calling f (so trajectories end at once) and the run
	 * returns DPB_EINTR */
	dpb_interrupt_fn interrupt;
	int			stop;
} sampler;

/* ---------------------------------------------------------------- helpers */

static double
log_sum_exp(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

static double
dot(const double *a, const double *b, int n)
{
	double		s = 0.0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

static void
vcopy(double *dst, const double *src, int n)
{
	memcpy(dst, src, sizeof(double) * (size_t) n);
}

static void
vadd(double *out, const double *a, const double *b, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = a[i] + b[i];
}

static void
point_copy(const sampler *s, point *dst, const point *src)
{
	vcopy(dst->q, src->q, s->dim);
	vcopy(dst->p, src->p, s->dim);
	vcopy(dst->g, src->g, s->dim);
	dst->logp = src->logp;
}

/* ------------------------------------------------------------ Hamiltonian */

/* log density and gradient at z->q; an invalid point gets logp = -inf */
static void
evaluate(sampler *s, point *z)
{
	double		lp;
	int			i;

	if (s->stop || (s->interrupt != NULL && s->interrupt()))
	{
		s->stop = 1;
		z->logp = -INFINITY;
		return;
	}
	for (i = 0; i < s->dim; i++)
		if (!dpb_isfinite(z->q[i]))
			break;
	if (i < s->dim)
	{
		s->invalid++;			/* never call f at a non-finite x */
		z->logp = -INFINITY;
		return;
	}
	s->grad_evals++;
	lp = s->f(z->q, z->g, s->ctx);
	if (dpb_isfinite(lp))
		for (i = 0; i < s->dim; i++)
			if (!dpb_isfinite(z->g[i]))
			{
				lp = NAN;
				break;
			}
	if (!dpb_isfinite(lp))
	{
		s->invalid++;
		lp = -INFINITY;
	}
	z->logp = lp;
}

/* H = -log p(q) + p' M^-1 p / 2; +inf for invalid points (and NaN) */
static double
hamiltonian(const sampler *s, const point *z)
{
	double		k = 0.0, h;

	if (s->dense)
	{
		dpb_symv(s->Mden, s->dim, z->p, s->tmp);
		k = dot(z->p, s->tmp, s->dim);
	}
	else
		for (int i = 0; i < s->dim; i++)
			k += s->minv[i] * z->p[i] * z->p[i];
	h = -z->logp + 0.5 * k;
	return h == h ? h : INFINITY;
}

/* sharp momentum p# = dH/dp = M^-1 p */
static void
sharp(const sampler *s, const double *p, double *out)
{
	if (s->dense)
		dpb_symv(s->Mden, s->dim, p, out);
	else
		for (int i = 0; i < s->dim; i++)
			out[i] = s->minv[i] * p[i];
}

/* p ~ N(0, M): with M^-1 = L L^T, p = L^-T u, u standard normal */
static void
draw_momentum(sampler *s, point *z)
{
	if (s->dense)
	{
		for (int i = 0; i < s->dim; i++)
			z->p[i] = gsl_ran_ugaussian(s->rng);
		dpb_tri_solve_t(s->Lden, s->dim, z->p);
	}
	else
		for (int i = 0; i < s->dim; i++)
			z->p[i] = gsl_ran_ugaussian(s->rng) / sqrt(s->minv[i]);
}

/* one leapfrog step of size eps (negative: backwards in time) */
static void
leapfrog(sampler *s, point *z, double eps)
{
	int			i;

	for (i = 0; i < s->dim; i++)
		z->p[i] += 0.5 * eps * z->g[i];
	if (s->dense)
	{
		dpb_symv(s->Mden, s->dim, z->p, s->tmp);
		for (i = 0; i < s->dim; i++)
			z->q[i] += eps * s->tmp[i];
	}
	else
		for (i = 0; i < s->dim; i++)
			z->q[i] += eps * s->minv[i] * z->p[i];
	evaluate(s, z);
	if (z->logp > -INFINITY)
		for (i = 0; i < s->dim; i++)
			z->p[i] += 0.5 * eps * z->g[i];
}

/* ------------------------------------------------------------------- NUTS */

/* generalized no-U-turn criterion: nonzero while the trajectory goes on */
static int
no_u_turn(const sampler *s, const double *ps_minus, const double *ps_plus,
		  const double *rho)
{
	return dot(ps_plus, rho, s->dim) > 0 && dot(ps_minus, rho, s->dim) > 0;
}

/*
 * Builds a subtree of 2^depth leapfrog steps from s->z in direction sign.
 * Returns 0 when the subtree diverges or contains a U-turn (it must then be
 * discarded).  Outputs: its proposal, the (sharp) momenta at its beginning
 * and end, its momenta added to rho, its log weight added to *lsw.
 */
static int
build_tree(sampler *s, int depth, point *propose, double *ps_beg,
		   double *ps_end, double *rho, double *p_beg, double *p_end,
		   double sign, double *lsw)
{
	int			n = s->dim;
	level	   *L;
	double		lsw_init = -INFINITY, lsw_final = -INFINITY, lsw_sub;

	if (depth == 0)
	{
		double		h;

		leapfrog(s, &s->z, sign * s->eps);
		s->n_leapfrog++;
		h = hamiltonian(s, &s->z);
		if (h - s->H0 > MAX_DELTA_H)
			s->divergent = 1;
		*lsw = log_sum_exp(*lsw, s->H0 - h);
		s->sum_metro += s->H0 - h > 0 ? 1.0 : exp(s->H0 - h);
		point_copy(s, propose, &s->z);
		sharp(s, s->z.p, ps_beg);
		vcopy(ps_end, ps_beg, n);
		for (int i = 0; i < n; i++)
			rho[i] += s->z.p[i];
		vcopy(p_beg, s->z.p, n);
		vcopy(p_end, s->z.p, n);
		return !s->divergent;
	}

	/* two halves of depth - 1, the second continuing from the first */
	L = &s->lv[depth];
	memset(L->rho_init, 0, sizeof(double) * (size_t) n);
	memset(L->rho_final, 0, sizeof(double) * (size_t) n);
	if (!build_tree(s, depth - 1, propose, ps_beg, L->ps_init_end,
					L->rho_init, p_beg, L->p_init_end, sign, &lsw_init))
		return 0;
	if (!build_tree(s, depth - 1, &L->final, L->ps_final_beg, ps_end,
					L->rho_final, L->p_final_beg, p_end, sign, &lsw_final))
		return 0;

	/* multinomial sampling: keep the final half's proposal w.p.
	 * w_final / (w_init + w_final) */
	lsw_sub = log_sum_exp(lsw_init, lsw_final);
	*lsw = log_sum_exp(*lsw, lsw_sub);
	if (lsw_final > lsw_sub ||
		gsl_rng_uniform(s->rng) < exp(lsw_final - lsw_sub))
		point_copy(s, propose, &L->final);

	/* no U-turn over the merged subtree ... */
	vadd(L->rho_ext, L->rho_init, L->rho_final, n);
	for (int i = 0; i < n; i++)
		rho[i] += L->rho_ext[i];
	if (!no_u_turn(s, ps_beg, ps_end, L->rho_ext))
		return 0;
	/* ... and between its halves */
	vadd(L->rho_ext, L->rho_init, L->p_final_beg, n);
	if (!no_u_turn(s, ps_beg, L->ps_final_beg, L->rho_ext))
		return 0;
	vadd(L->rho_ext, L->rho_final, L->p_init_end, n);
	return no_u_turn(s, L->ps_init_end, ps_end, L->rho_ext);
}

/* One NUTS transition from s->cur, which receives the new sample. */
static void
transition(sampler *s, double *accept, int *depth)
{
	int			n = s->dim, d = 0;
	double		lsw = 0.0;		/* log sum of weights, log(exp(H0 - H0)) */

	draw_momentum(s, &s->cur);
	s->H0 = hamiltonian(s, &s->cur);
	s->n_leapfrog = 0;
	s->sum_metro = 0.0;
	s->divergent = 0;
	point_copy(s, &s->fwd, &s->cur);
	point_copy(s, &s->bck, &s->cur);
	vcopy(s->rho, s->cur.p, n);
	vcopy(s->p_ff, s->cur.p, n);
	vcopy(s->p_fb, s->cur.p, n);
	vcopy(s->p_bf, s->cur.p, n);
	vcopy(s->p_bb, s->cur.p, n);
	sharp(s, s->cur.p, s->ps_ff);
	vcopy(s->ps_fb, s->ps_ff, n);
	vcopy(s->ps_bf, s->ps_ff, n);
	vcopy(s->ps_bb, s->ps_ff, n);

	while (d < s->max_depth)
	{
		double		lsw_sub = -INFINITY;
		int			valid;

		memset(s->rho_f, 0, sizeof(double) * (size_t) n);
		memset(s->rho_b, 0, sizeof(double) * (size_t) n);
		if (gsl_rng_uniform(s->rng) > 0.5)
		{
			/* forwards: the trajectory so far becomes the backward subtree */
			vcopy(s->rho_b, s->rho, n);
			vcopy(s->p_bf, s->p_ff, n);
			vcopy(s->ps_bf, s->ps_ff, n);
			point_copy(s, &s->z, &s->fwd);
			valid = build_tree(s, d, &s->propose, s->ps_fb, s->ps_ff,
							   s->rho_f, s->p_fb, s->p_ff, 1.0, &lsw_sub);
			point_copy(s, &s->fwd, &s->z);
		}
		else
		{
			/* backwards: the trajectory so far becomes the forward subtree */
			vcopy(s->rho_f, s->rho, n);
			vcopy(s->p_fb, s->p_bb, n);
			vcopy(s->ps_fb, s->ps_bb, n);
			point_copy(s, &s->z, &s->bck);
			valid = build_tree(s, d, &s->propose, s->ps_bf, s->ps_bb,
							   s->rho_b, s->p_bf, s->p_bb, -1.0, &lsw_sub);
			point_copy(s, &s->bck, &s->z);
		}
		if (!valid)
			break;
		d++;

		/* biased progressive sampling: move to the new subtree's proposal
		 * w.p. min(1, w_new / w_old) */
		if (lsw_sub > lsw || gsl_rng_uniform(s->rng) < exp(lsw_sub - lsw))
			point_copy(s, &s->cur, &s->propose);
		lsw = log_sum_exp(lsw, lsw_sub);

		/* no U-turn over the whole trajectory and between its two parts */
		vadd(s->rho, s->rho_b, s->rho_f, n);
		if (!no_u_turn(s, s->ps_bb, s->ps_ff, s->rho))
			break;
		vadd(s->rho_ext, s->rho_b, s->p_fb, n);
		if (!no_u_turn(s, s->ps_bb, s->ps_fb, s->rho_ext))
			break;
		vadd(s->rho_ext, s->rho_f, s->p_bf, n);
		if (!no_u_turn(s, s->ps_bf, s->ps_ff, s->rho_ext))
			break;
	}
	*accept = s->sum_metro / (double) s->n_leapfrog;
	*depth = d;
}

/* ---------------------------------------------------------------- warmup */

/* energy change H0 - H of one leapfrog step from s->cur, fresh momentum */
static double
trial_step(sampler *s)
{
	double		H0;

	point_copy(s, &s->z, &s->cur);
	draw_momentum(s, &s->z);
	H0 = hamiltonian(s, &s->z);
	leapfrog(s, &s->z, s->eps);
	return H0 - hamiltonian(s, &s->z);
}

/* Stan's step-size heuristic: double or halve s->eps until the acceptance
 * probability of one step crosses 0.8 */
static dpb_status
init_stepsize(sampler *s)
{
	const double log08 = log(0.8);
	int			dir;

	if (!(s->eps > 0.0 && s->eps <= 1e7))
		return DPB_ENUMERIC;
	dir = trial_step(s) > log08 ? 1 : -1;
	for (;;)
	{
		double		dH = trial_step(s);

		if (s->stop)
			return DPB_EINTR;
		if (dir == 1 ? !(dH > log08) : !(dH < log08))
			return DPB_OK;
		s->eps *= dir == 1 ? 2.0 : 0.5;
		if (!(s->eps > 0.0 && s->eps <= 1e7))
			return DPB_ENUMERIC;
	}
}

/*
 * Inverse metric from the curvature at s->cur: minv_i = 1 / c_i, c_i =
 * -d2 log p / dq_i^2 by central differences of the (exact) gradient with
 * step h_i = 1e-5 (1 + |q_i|); min(1, 1 / |c_i|) where c_i < 0; entries
 * where |c_i| is not finite (or below 1e-12, or above 1e30) keep 1.  Far
 * from the posterior (a starting point) log p may be locally convex in a
 * coordinate; 1 / |c_i| is still the scale on which the gradient changes,
 * so a leapfrog step of order 1 stays stable there (as the SoftAbs metric
 * of Betancourt 2013 takes |eigenvalue|), but unlike 1 / c_i > 0 it says
 * nothing about the posterior's width: hence at most 1, Stan's identity
 * (what such entries had before).  With 1 instead, the slopes of a Poisson
 * regression at d = 8, N = 1e6 (curvature -450 to -4e5 at the start,
 * posterior variance 2e-5) forced a step size of 0.002 on the first 100
 * iterations, whose draws then gave the slow windows a metric off by up to
 * 1e3 either way: 340 000-510 000 gradients for the chain against 17 000.
 * Uses s->z as scratch.
 */
static void
curvature_metric(sampler *s)
{
	for (int i = 0; i < s->dim && !s->stop; i++)
	{
		double		q = s->cur.q[i],
					h = 1e-5 * (1.0 + fabs(q)),
					gp,
					gm,
					c;

		vcopy(s->z.q, s->cur.q, s->dim);
		s->z.q[i] = q + h;
		evaluate(s, &s->z);
		gp = s->z.g[i];
		if (s->z.logp == -INFINITY)
			continue;
		s->z.q[i] = q - h;
		evaluate(s, &s->z);
		gm = s->z.g[i];
		if (s->z.logp == -INFINITY)
			continue;
		c = (gm - gp) / (2.0 * h);
		if (dpb_isfinite(c) && fabs(c) > 1e-12 && fabs(c) < 1e30)
			s->minv[i] = c > 0 ? 1.0 / c : fmin(1.0, -1.0 / c);
	}
}

/* dual averaging of log eps */
typedef struct dual_avg
{
	double		mu, delta, t, s_bar, x_bar, t0;
} dual_avg;

/* Stan's restart: mu = log(10 eps), t0 = 10; warm (after a metric update,
 * with warm_restart): mu = log eps, t0 = DA_T0_WARM (see the header) */
static void
da_restart(dual_avg *a, double eps, int warm)
{
	a->mu = log((warm ? 1.0 : 10.0) * eps);
	a->t0 = warm ? DA_T0_WARM : DA_T0;
	a->t = a->s_bar = a->x_bar = 0.0;
}

/* one update with acceptance statistic stat; returns the next step size */
static double
da_update(dual_avg *a, double stat)
{
	double		eta, x, w;

	a->t += 1.0;
	stat = stat > 1.0 ? 1.0 : stat;
	eta = 1.0 / (a->t + a->t0);
	a->s_bar = (1.0 - eta) * a->s_bar + eta * (a->delta - stat);
	x = a->mu - a->s_bar * sqrt(a->t) / DA_GAMMA;
	w = pow(a->t, -DA_KAPPA);
	a->x_bar = (1.0 - w) * a->x_bar + w * x;
	return exp(x);
}

/* Stan's adaptation windows; counter counts the warmup iterations */
typedef struct windows
{
	int			on;				/* metric adaptation at all */
	int			warmup, init, term;	/* warmup, fast buffers */
	int			size, next;		/* current slow window: size, last iteration */
} windows;

static void
windows_init(windows *w, int warmup)
{
	w->warmup = warmup;
	w->on = warmup >= 20;
	w->init = WIN_INIT_BUFFER;
	w->term = WIN_TERM_BUFFER;
	w->size = WIN_BASE;
	if (WIN_INIT_BUFFER + WIN_BASE + WIN_TERM_BUFFER > warmup)
	{
		w->init = (int) (0.15 * warmup);
		w->term = (int) (0.10 * warmup);
		w->size = warmup - (w->init + w->term);
	}
	w->next = w->init + w->size - 1;	/* last iteration of the window */
}

/* after the window ending at counter: the next one doubles, and takes the
 * rest when the one after it would overrun the terminal buffer */
static void
windows_advance(windows *w, int counter)
{
	int			last = w->warmup - w->term - 1;

	if (w->next == last)
		return;
	w->size *= 2;
	w->next = counter + w->size;
	if (w->next != last && w->next + 2 * w->size >= w->warmup - w->term)
		w->next = last;
}

/* end of a slow window: inverse metric <- regularized variance */
static void
update_metric_diag(sampler *s)
{
	double		n = (double) s->w_n;
	int			ok = s->w_n >= 2;

	/* into w_mean (done with), then into minv if all usable */
	for (int i = 0; ok && i < s->dim; i++)
	{
		s->w_mean[i] = (n / (n + 5.0)) * (s->w_m2[i] / (n - 1.0)) +
			1e-3 * (5.0 / (n + 5.0)) * fmin(1.0, s->minv0[i]);
		ok = dpb_isfinite(s->w_mean[i]) && s->w_mean[i] > 0.0;
	}
	if (ok)						/* else keep the old metric */
		vcopy(s->minv, s->w_mean, s->dim);
}

/*
 * The same for the dense metric: the sample covariance S of the window's n
 * draws, shrunk towards its diagonal, S_lambda = (1 - lambda) S +
 * lambda diag(S) with lambda = dim / (n + dim) (a window shorter than dim
 * has a singular S; without shrinkage its null space would get the 1e-3
 * floor as variance and the next window a needlessly small step size),
 * then regularized as the diagonal metric.  Kept when its Cholesky factor
 * exists.  The result overwrites w_cov.
 */
static void
update_metric_dense(sampler *s)
{
	int			dim = s->dim;
	double		n = (double) s->w_n,
				lambda = (double) dim / (n + (double) dim);
	double	   *A = s->w_cov;
	int			ok = s->w_n >= 2;

	/* O(dim^3) below: poll first (dim <= a few hundred in practice) */
	if (s->interrupt != NULL && s->interrupt())
	{
		s->stop = 1;
		return;
	}

	for (int i = 0; ok && i < dim; i++)
	{
		for (int j = 0; j < i; j++)
		{
			double		v = (1.0 - lambda) * (n / (n + 5.0)) *
				A[(size_t) i * dim + j] / (n - 1.0);

			A[(size_t) i * dim + j] = A[(size_t) j * dim + i] = v;
		}
		A[(size_t) i * dim + i] = (n / (n + 5.0)) * A[(size_t) i * dim + i] / (n - 1.0) +
			1e-3 * (5.0 / (n + 5.0)) * fmin(1.0, s->minv0[i]);
		ok = dpb_isfinite(A[(size_t) i * dim + i]) && A[(size_t) i * dim + i] > 0.0;
	}
	for (size_t k = 0; ok && k < (size_t) dim * dim; k++)
		ok = dpb_isfinite(A[k]);
	if (!ok)
		return;
	/* factor a copy (in the co-moment's place: w_cov is reset anyway) */
	vcopy(s->Lden + (size_t) dim * dim, A, dim * dim);	/* scratch */
	if (dpb_chol(s->Lden + (size_t) dim * dim, dim, NULL) != DPB_OK)
		return;					/* keep the old metric */
	vcopy(s->Mden, A, dim * dim);
	vcopy(s->Lden, s->Lden + (size_t) dim * dim, dim * dim);
	for (int i = 0; i < dim; i++)
		s->minv[i] = s->Mden[(size_t) i * dim + i];
}

static void
update_metric(sampler *s)
{
	if (s->dense)
		update_metric_dense(s);
	else
		update_metric_diag(s);
	s->w_n = 0;
	memset(s->w_mean, 0, sizeof(double) * (size_t) s->dim);
	memset(s->w_m2, 0, sizeof(double) * (size_t) s->dim);
	if (s->dense)
		memset(s->w_cov, 0, sizeof(double) * (size_t) s->dim * (size_t) s->dim);
}

static void
welford_add(sampler *s, const double *q)
{
	int			dim = s->dim;

	s->w_n++;
	if (s->dense)
	{
		/* co-moment += (q - mean_old)(q - mean_new)^T, lower triangle */
		for (int i = 0; i < dim; i++)
			s->tmp[i] = q[i] - s->w_mean[i];
		for (int i = 0; i < dim; i++)
			s->w_mean[i] += s->tmp[i] / (double) s->w_n;
		for (int i = 0; i < dim; i++)
		{
			double		di = q[i] - s->w_mean[i];
			double	   *row = s->w_cov + (size_t) i * dim;

			for (int j = 0; j <= i; j++)
				row[j] += di * s->tmp[j];
		}
		return;
	}
	for (int i = 0; i < dim; i++)
	{
		double		d = q[i] - s->w_mean[i];

		s->w_mean[i] += d / (double) s->w_n;
		s->w_m2[i] += d * (q[i] - s->w_mean[i]);
	}
}

/* ------------------------------------------------------------------- run */

void
dpb_nuts_opts_default(dpb_nuts_opts *o)
{
	o->warmup = 1000;
	o->draws = 1000;
	o->target_accept = 0.8;
	o->max_depth = 10;
	o->curvature_init = 0;
	o->dense = 0;
	o->init_max_depth = 0;
	o->interrupt = NULL;
	o->gibbs = NULL;
	o->recoord_window = 0;
	o->recoord_last = 0;
	o->warm_restart = 0;
	o->recoord = NULL;
}

/* carves n doubles from *cur */
static double *
take(double **cur, int n)
{
	double	   *v = *cur;

	*cur += n;
	return v;
}

static void
take_point(double **cur, int n, point *z)
{
	z->q = take(cur, n);
	z->p = take(cur, n);
	z->g = take(cur, n);
	z->logp = -INFINITY;
}

dpb_status
dpb_nuts_run(int dim, dpb_logp_fn f, void *ctx, const double *init,
			 const dpb_nuts_opts *o, gsl_rng *rng, double *draws,
			 dpb_nuts_stats *stats)
{
	return dpb_nuts_run_metric(dim, f, ctx, init, o, rng, draws, stats, NULL);
}

dpb_status
dpb_nuts_run_metric(int dim, dpb_logp_fn f, void *ctx, const double *init,
					const dpb_nuts_opts *o, gsl_rng *rng, double *draws,
					dpb_nuts_stats *stats, double *inv_metric)
{
	dpb_nuts_opts defaults;
	sampler		S, *s = &S;
	dual_avg	da;
	windows		win;
	double	   *block, *cur;
	dpb_status	st = DPB_OK;
	long		div_warm = 0, div_draws = 0, kept = 0, warm_grads = 0, hist_cap = 0;
	int			nwindow = 0, recoord, recoord_last, recoord_done = 0, capped_until;
	double		sum_accept = 0.0, sum_depth = 0.0;

	if (o == NULL)
	{
		dpb_nuts_opts_default(&defaults);
		o = &defaults;
	}
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if (dim < 1 || dim > (1 << 20) || f == NULL || init == NULL ||
		rng == NULL || o->warmup < 0 || o->draws < 0 ||
		(o->draws > 0 && draws == NULL) ||
		!(o->target_accept > 0.0 && o->target_accept < 1.0) ||
		o->max_depth < 1 || o->max_depth > 30)
		return DPB_EINVAL;

	memset(s, 0, sizeof(*s));
	s->dim = dim;
	s->f = f;
	s->ctx = ctx;
	s->rng = rng;
	s->max_depth = o->max_depth;
	s->interrupt = o->interrupt;
	/* 5 points, 12 trajectory vectors, minv, minv0 and 2 Welford vectors,
	 * and per level a point and 7 vectors */
	block = calloc((size_t) dim * (15 + 12 + 4 + 10 * (size_t) o->max_depth),
				   sizeof(double));
	s->lv = malloc(sizeof(level) * (size_t) o->max_depth);
	s->dense = o->dense != 0;
	recoord = o->recoord_window > 0 && o->recoord != NULL;
	recoord_last = o->recoord_last > o->recoord_window ? o->recoord_last : o->recoord_window;
	if (s->dense || recoord)
		/* Mden, Lden and its scratch, w_cov, tmp */
		s->Mden = calloc((size_t) dim * (4 * (size_t) dim + 1), sizeof(double));
	windows_init(&win, o->warmup);
	if (recoord && win.on)
	{
		/* the slow windows up to recoord_window: 25, 50, ... */
		long		len = 0;

		for (int k = 0; k < recoord_last; k++)
			len += (long) WIN_BASE << k;
		if (len > o->warmup)
			len = o->warmup;
		s->hist = malloc(sizeof(double) * (size_t) len * (size_t) dim);
		hist_cap = len;
	}
	if (block == NULL || s->lv == NULL || ((s->dense || recoord) && s->Mden == NULL) ||
		(hist_cap > 0 && s->hist == NULL))
	{
		free(block);
		free(s->lv);
		free(s->Mden);
		free(s->hist);
		return DPB_ENOMEM;
	}
	if (s->Mden != NULL)
	{
		s->Lden = s->Mden + (size_t) dim * dim;
		s->w_cov = s->Lden + 2 * (size_t) dim * dim;
		s->tmp = s->w_cov + (size_t) dim * dim;
	}
	cur = block;
	{
		point	   *pts[] = {&s->z, &s->cur, &s->fwd, &s->bck, &s->propose};
		double	  **vecs[] = {&s->p_ff, &s->ps_ff, &s->p_fb, &s->ps_fb,
			&s->p_bf, &s->ps_bf, &s->p_bb, &s->ps_bb, &s->rho, &s->rho_f,
		&s->rho_b, &s->rho_ext, &s->minv, &s->minv0, &s->w_mean, &s->w_m2};

		for (int i = 0; i < 5; i++)
			take_point(&cur, dim, pts[i]);
		for (int i = 0; i < 16; i++)
			*vecs[i] = take(&cur, dim);
	}
	for (int d = 0; d < o->max_depth; d++)
	{
		level	   *L = &s->lv[d];
		double	  **vecs[] = {&L->p_init_end, &L->ps_init_end, &L->p_final_beg,
		&L->ps_final_beg, &L->rho_init, &L->rho_final, &L->rho_ext};

		take_point(&cur, dim, &L->final);
		for (int i = 0; i < 7; i++)
			*vecs[i] = take(&cur, dim);
	}
	for (int i = 0; i < dim; i++)
		s->minv[i] = 1.0;

	/* the starting point must be valid */
	vcopy(s->cur.q, init, dim);
	evaluate(s, &s->cur);
	if (s->cur.logp == -INFINITY)
	{
		st = DPB_EINVAL;
		goto done;
	}

	if (o->curvature_init)
		curvature_metric(s);
	vcopy(s->minv0, s->minv, dim);
	if (s->dense)
		for (int i = 0; i < dim; i++)
		{
			s->Mden[(size_t) i * dim + i] = s->minv[i];
			s->Lden[(size_t) i * dim + i] = sqrt(s->minv[i]);
		}
	s->eps = 1.0;
	if ((st = init_stepsize(s)) != DPB_OK)
		goto done;
	da.delta = o->target_accept;
	da_restart(&da, s->eps, 0);
	/* init_max_depth holds until the first metric update */
	capped_until = win.on ? win.next + 1 : win.init;

	dpb_progress_run(o->warmup, o->warmup + o->draws);
	for (int it = 0; it < o->warmup + o->draws; it++)
	{
		double		accept;
		int			depth;

		dpb_progress_iter(it);
		if (s->stop || (o->interrupt != NULL && o->interrupt()))
		{
			st = DPB_EINTR;
			goto done;
		}
		if (it == o->warmup)
			warm_grads = s->grad_evals;
		/* before the first metric update: at most init_max_depth */
		s->max_depth = o->init_max_depth > 0 && o->init_max_depth < o->max_depth &&
			it < capped_until ? o->init_max_depth : o->max_depth;
		transition(s, &accept, &depth);
		if (o->gibbs != NULL)
		{
			/* the rest | x, then the density at x under the new state */
			if (o->gibbs(s->cur.q, ctx) != 0)
			{
				st = DPB_ENUMERIC;
				goto done;
			}
			evaluate(s, &s->cur);
			if (s->cur.logp == -INFINITY && !s->stop)
			{
				st = DPB_ENUMERIC;
				goto done;
			}
		}

		if (it >= o->warmup)
		{
			/* sampling */
			vcopy(draws + (size_t) kept * (size_t) dim, s->cur.q, dim);
			kept++;
			div_draws += s->divergent;
			sum_accept += accept;
			sum_depth += depth;
			continue;
		}

		/* warmup: step size, then the metric in the slow windows */
		div_warm += s->divergent;
		s->eps = da_update(&da, accept);
		if (win.on && it >= win.init && it < win.warmup - win.term)
		{
			welford_add(s, s->cur.q);
			if (s->hist_n < hist_cap)
				vcopy(s->hist + (size_t) s->hist_n++ * dim, s->cur.q, dim);
		}
		if (win.on && it == win.next)
		{
			windows_advance(&win, it);
			if (++nwindow >= o->recoord_window && nwindow <= recoord_last &&
				recoord && !recoord_done && s->hist_n >= 2)
			{
				/* coordinates, then the metric, from all the slow windows'
				 * draws (until the model changes something) */
				int			rc = o->recoord((int) s->hist_n, s->hist, s->cur.q, ctx);

				recoord_done = rc != 0;

				if (rc & DPB_RECOORD_MAPPED)
				{
					evaluate(s, &s->cur);
					if (s->cur.logp == -INFINITY)
					{
						st = s->stop ? DPB_EINTR : DPB_ENUMERIC;
						goto done;
					}
				}
				if ((rc & DPB_RECOORD_DENSE) && !s->dense)
				{
					s->dense = 1;
					for (int i = 0; i < dim; i++)
						s->Lden[(size_t) i * dim + i] = sqrt(s->Mden[(size_t) i * dim + i] = s->minv[i]);
				}
				if (rc != 0)
				{
					s->w_n = 0;
					memset(s->w_mean, 0, sizeof(double) * (size_t) dim);
					memset(s->w_m2, 0, sizeof(double) * (size_t) dim);
					for (long k = 0; k < s->hist_n; k++)
						welford_add(s, s->hist + (size_t) k * dim);
				}
			}
			update_metric(s);
			/* heuristic from the current step size, as Stan */
			if ((st = init_stepsize(s)) != DPB_OK)
				goto done;
			/* warm only when another slow window follows: the terminal
			 * buffer, which sets the sampling phase's step size, restarts
			 * as Stan's */
			da_restart(&da, s->eps, o->warm_restart && it < win.warmup - win.term - 1);
		}
		if (it == o->warmup - 1 && da.t > 0)
			s->eps = exp(da.x_bar);	/* end of warmup: averaged iterate */
	}

done:
	if (s->stop)
		st = DPB_EINTR;
	if (stats != NULL)
	{
		stats->divergences = div_draws;
		stats->warmup_divergences = div_warm;
		stats->invalid = s->invalid;
		stats->step_size = s->eps;
		stats->mean_accept = kept > 0 ? sum_accept / (double) kept : 0.0;
		stats->mean_tree_depth = kept > 0 ? sum_depth / (double) kept : 0.0;
		stats->gradient_evals = s->grad_evals;
		stats->warmup_gradient_evals = kept > 0 ? warm_grads : s->grad_evals;
	}
	if (inv_metric != NULL)
		vcopy(inv_metric, s->minv, dim);
	free(block);
	free(s->lv);
	free(s->Mden);
	free(s->hist);
	return st;
}
