/*
 * layout.c — the statistics of each model's release (see layout.h).
 */
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int
block_len(dpb_block_kind kind, int p, int intercept)
{
	switch (kind)
	{
		case DPB_BLK_T1:
			return p;
		case DPB_BLK_T2:
			return p * (p + 1) / 2 - (intercept ? 1 : 0);
		case DPB_BLK_YT1:
			return p;
		case DPB_BLK_YY:
			return 1;
		case DPB_BLK_YT2:
			return p * (p + 1) / 2;
		case DPB_BLK_X3:
			return dpb_multisets(p - intercept, 3);
		case DPB_BLK_X4:
			return dpb_multisets(p - intercept, 4);
		case DPB_BLK_COUNT:
		case DPB_BLK_YCLAMP:
			return 1;
	}
	return 0;
}

int
dpb_multisets(int n, int k)
{
	long		c = 1;
	int			i;

	/* C(n + k - 1, k), exact in integers step by step */
	for (i = 1; i <= k; i++)
		c = c * (n + i - 1) / i;
	return (int) c;
}

dpb_status
dpb_layout_init(dpb_layout *L, dpb_model model, int d, int intercept)
{
	int			b,
				off;

	memset(L, 0, sizeof(*L));
	if (d < 1 || d > DPB_MAX_D)
		return DPB_EINVAL;
	L->model = model;
	L->d = d;
	L->intercept = intercept ? 1 : 0;
	L->p = d + L->intercept;
	switch (model)
	{
		case DPB_MODEL_LINEAR:
			L->nblocks = 3;
			L->kind[0] = DPB_BLK_T2;
			L->kind[1] = DPB_BLK_YT1;
			L->kind[2] = DPB_BLK_YY;
			break;
		case DPB_MODEL_LOGISTIC:
			L->nblocks = 2;
			L->kind[0] = DPB_BLK_YT1;
			L->kind[1] = DPB_BLK_T2;
			break;
		case DPB_MODEL_POISSON:
			if (L->intercept)
			{
				L->nblocks = 2;
				L->kind[0] = DPB_BLK_T2;
				L->kind[1] = DPB_BLK_YT2;
			}
			else
			{
				L->nblocks = 4;
				L->kind[0] = DPB_BLK_T1;
				L->kind[1] = DPB_BLK_T2;
				L->kind[2] = DPB_BLK_YT1;
				L->kind[3] = DPB_BLK_YT2;
			}
			break;
		default:
			return DPB_EINVAL;
	}
	off = 0;
	for (b = 0; b < L->nblocks; b++)
	{
		L->start[b] = off;
		L->len[b] = block_len(L->kind[b], L->p, L->intercept);
		off += L->len[b];
	}
	L->nstats = off;
	L->nmodel_blocks = L->nblocks;
	L->nmodel = off;
	return DPB_OK;
}

dpb_status
dpb_layout_add_count(dpb_layout *L)
{
	int			b = L->nblocks;

	if (L->add_remove || L->xmoments || b != L->nmodel_blocks ||
		b >= DPB_MAX_MODEL_BLOCKS || L->d < 1)
		return DPB_EINVAL;
	L->kind[b] = DPB_BLK_COUNT;
	L->start[b] = L->nstats;
	L->len[b] = 1;
	L->nblocks++;
	L->nstats++;
	L->nmodel_blocks = L->nblocks;
	L->nmodel = L->nstats;
	L->add_remove = 1;
	return DPB_OK;
}

int
dpb_layout_count_index(const dpb_layout *L)
{
	return L->add_remove ? L->start[L->nmodel_blocks - 1] : -1;
}

dpb_status
dpb_layout_add_yclamp(dpb_layout *L)
{
	int			b = L->nblocks;

	if (L->model != DPB_MODEL_LINEAR || L->yclamp || L->d < 1 ||
		b >= DPB_MAX_BLOCKS)
		return DPB_EINVAL;
	L->kind[b] = DPB_BLK_YCLAMP;
	L->start[b] = L->nstats;
	L->len[b] = 1;
	L->nblocks++;
	L->nstats++;
	L->yclamp = 1;
	return DPB_OK;
}

int
dpb_layout_yclamp_index(const dpb_layout *L)
{
	return L->yclamp ? L->start[L->nblocks - 1] : -1;
}

dpb_status
dpb_layout_add_xmoments(dpb_layout *L)
{
	int			b;

	if (L->model != DPB_MODEL_LINEAR || L->xmoments || L->yclamp ||
		L->d < 1 || L->d > DPB_MAX_D_XMOM)
		return DPB_EINVAL;
	b = L->nblocks;
	if (L->intercept)
		L->kind[b++] = DPB_BLK_X3;
	L->kind[b++] = DPB_BLK_X4;
	for (; L->nblocks < b; L->nblocks++)
	{
		L->start[L->nblocks] = L->nstats;
		L->len[L->nblocks] = block_len(L->kind[L->nblocks], L->p, L->intercept);
		L->nstats += L->len[L->nblocks];
	}
	L->xmoments = 1;
	return DPB_OK;
}

dpb_ydomain
dpb_model_ydomain(dpb_model model)
{
	switch (model)
	{
		case DPB_MODEL_LOGISTIC:
			return DPB_Y_BINARY;
		case DPB_MODEL_POISSON:
			return DPB_Y_NONNEG;
		default:
			return DPB_Y_SIGNED;
	}
}

/* The m-th pair (i <= j) of a p x p upper triangle, row by row, skipping
 * (0, 0) when skip00. */
static void
tri_pair(int m, int p, int skip00, int *i, int *j)
{
	int			r = 0;

	if (skip00)
		m++;
	while (m >= p - r)
	{
		m -= p - r;
		r++;
	}
	*i = r;
	*j = r + m;
}

/*
 * The m-th non-decreasing index tuple idx[0] <= ... <= idx[k-1] over
 * 0..n-1, in lexicographic order: the first index is the largest a such
 * that the tuples starting below a number fewer than m + 1.
 */
static void
multiset_unrank(int m, int n, int k, int *idx)
{
	int			pos,
				lo = 0;

	for (pos = 0; pos < k; pos++)
	{
		int			a = lo;

		/* tuples of the remaining k - pos - 1 positions over a..n-1 */
		for (;;)
		{
			int			cnt = dpb_multisets(n - a, k - pos - 1);

			if (m < cnt)
				break;
			m -= cnt;
			a++;
		}
		idx[pos] = a;
		lo = a;
	}
}

/* sqrt(k! / prod m_i!) for a sorted index tuple */
static double
multinomial_weight(const int *idx, int k)
{
	double		f = 1.0;
	int			i,
				run = 1;

	for (i = 1; i <= k; i++)
		f *= i;
	for (i = 1; i <= k; i++)
	{
		if (i < k && idx[i] == idx[i - 1])
			run++;
		else
		{
			int			r;

			for (r = 2; r <= run; r++)
				f /= r;
			run = 1;
		}
	}
	return sqrt(f);
}

void
dpb_layout_entry(const dpb_layout *L, int k, dpb_entry *e)
{
	int			b = 0;
	int			m;

	while (b + 1 < L->nblocks && k >= L->start[b + 1])
		b++;
	m = k - L->start[b];
	e->block = b;
	e->i = -1;
	e->j = -1;
	e->k = -1;
	e->l = -1;
	e->weight = 1.0;
	switch (L->kind[b])
	{
		case DPB_BLK_T1:
			e->ypow = 0;
			e->i = m;
			break;
		case DPB_BLK_YT1:
			e->ypow = 1;
			e->i = m;
			break;
		case DPB_BLK_YY:
			e->ypow = 2;
			break;
		case DPB_BLK_COUNT:
		case DPB_BLK_YCLAMP:
			e->ypow = 0;		/* the monomial 1 (YCLAMP: an indicator of
								 * the raw y, not a monomial) */
			break;
		case DPB_BLK_T2:
		case DPB_BLK_YT2:
			e->ypow = L->kind[b] == DPB_BLK_YT2 ? 1 : 0;
			tri_pair(m, L->p, L->kind[b] == DPB_BLK_T2 && L->intercept,
					 &e->i, &e->j);
			if (e->i != e->j)
				e->weight = M_SQRT2;
			break;
		case DPB_BLK_X3:
		case DPB_BLK_X4:
			{
				int			deg = L->kind[b] == DPB_BLK_X3 ? 3 : 4;
				int			idx[4],
							t;

				e->ypow = 0;
				multiset_unrank(m, L->d, deg, idx);
				e->weight = multinomial_weight(idx, deg);
				for (t = 0; t < deg; t++)
					idx[t] += L->intercept;	/* feature -> w index */
				e->i = idx[0];
				e->j = idx[1];
				e->k = idx[2];
				e->l = deg == 4 ? idx[3] : -1;
			}
			break;
	}
}

void
dpb_layout_linear_factors(const dpb_layout *L, int k, int *a, int *b)
{
	dpb_entry	e;

	dpb_layout_entry(L, k, &e);
	if (e.ypow == 2)
		*a = *b = L->p;
	else if (e.ypow == 1)
	{
		*a = e.i;
		*b = L->p;
	}
	else
	{
		*a = e.i;
		*b = e.j;
	}
}

const char *
dpb_block_kind_name(dpb_block_kind kind)
{
	switch (kind)
	{
		case DPB_BLK_T1:
			return "t1";
		case DPB_BLK_T2:
			return "t2";
		case DPB_BLK_YT1:
			return "y*t1";
		case DPB_BLK_YY:
			return "y^2";
		case DPB_BLK_YT2:
			return "y*t2";
		case DPB_BLK_X3:
			return "x3";
		case DPB_BLK_X4:
			return "x4";
		case DPB_BLK_COUNT:
			return "count";
		case DPB_BLK_YCLAMP:
			return "y_clamped";
	}
	return "unknown";
}

/* Appends the name of w_i (nothing for the intercept's constant 1). */
static void
append_w(const dpb_layout *L, int i, const char *const *names,
		 char *buf, size_t buflen, int *nfac)
{
	size_t		used = strlen(buf);
	int			f = i - L->intercept;	/* feature index, or -1 for the 1 */
	char		tmp[32];
	const char *nm;

	if (f < 0)
		return;
	if (names != NULL && names[f] != NULL && names[f][0] != '\0')
		nm = names[f];
	else
	{
		snprintf(tmp, sizeof(tmp), "x%d", f + 1);
		nm = tmp;
	}
	snprintf(buf + used, buflen - used, "%s%s", *nfac > 0 ? "*" : "", nm);
	(*nfac)++;
}

void
dpb_layout_label(const dpb_layout *L, int k, const char *const *names,
				 char *buf, size_t buflen)
{
	dpb_entry	e;
	int			nfac = 0;
	size_t		used;

	dpb_layout_entry(L, k, &e);
	buf[0] = '\0';
	if (L->kind[e.block] == DPB_BLK_COUNT)
	{
		snprintf(buf, buflen, "n");
		return;
	}
	if (L->kind[e.block] == DPB_BLK_YCLAMP)
	{
		snprintf(buf, buflen, "n_y_clamped");
		return;
	}
	if (e.k >= 0)
	{
		/* a moment: each distinct feature once, with its power */
		int			idx[4] = {e.i, e.j, e.k, e.l};
		int			deg = e.l >= 0 ? 4 : 3,
					t = 0;

		while (t < deg)
		{
			int			run = 1;

			while (t + run < deg && idx[t + run] == idx[t])
				run++;
			append_w(L, idx[t], names, buf, buflen, &nfac);
			if (run > 1)
			{
				used = strlen(buf);
				snprintf(buf + used, buflen - used, "^%d", run);
			}
			t += run;
		}
		return;
	}
	if (e.ypow == 2)
	{
		snprintf(buf, buflen, "y^2");
		return;
	}
	if (e.ypow == 1)
	{
		snprintf(buf, buflen, "y");
		nfac = 1;
	}
	if (e.i >= 0 && e.j >= 0 && e.i == e.j && e.i >= L->intercept)
	{
		/* a square: name^2 */
		append_w(L, e.i, names, buf, buflen, &nfac);
		used = strlen(buf);
		snprintf(buf + used, buflen - used, "^2");
		return;
	}
	if (e.i >= 0)
		append_w(L, e.i, names, buf, buflen, &nfac);
	if (e.j >= 0)
		append_w(L, e.j, names, buf, buflen, &nfac);
	if (nfac == 0)
		snprintf(buf, buflen, "1");
}
