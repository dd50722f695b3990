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
	}
	return 0;
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
		case DPB_BLK_T2:
		case DPB_BLK_YT2:
			e->ypow = L->kind[b] == DPB_BLK_YT2 ? 1 : 0;
			tri_pair(m, L->p, L->kind[b] == DPB_BLK_T2 && L->intercept,
					 &e->i, &e->j);
			if (e->i != e->j)
				e->weight = M_SQRT2;
			break;
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
