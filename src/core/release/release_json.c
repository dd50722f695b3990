/*
 * release_json.c — the JSON form of a release (docs/release-format.md).
 *
 * Numbers are printed with 17 significant digits, so that parsing the text
 * back gives the same doubles and the release validates again.
 */
#include "release.h"

#include <math.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dpb_buf_init(dpb_buf *b)
{
	b->cap = 1024;
	b->len = 0;
	b->oom = 0;
	b->data = malloc(b->cap);
	if (b->data == NULL)
		b->oom = 1;
	else
		b->data[0] = '\0';
}

void
dpb_buf_free(dpb_buf *b)
{
	free(b->data);
	b->data = NULL;
}

static int
reserve(dpb_buf *b, size_t more)
{
	char	   *n;
	size_t		cap;

	if (b->oom)
		return 0;
	if (b->len + more + 1 <= b->cap)
		return 1;
	cap = b->cap;
	while (b->len + more + 1 > cap)
		cap *= 2;
	n = realloc(b->data, cap);
	if (n == NULL)
	{
		b->oom = 1;
		return 0;
	}
	b->data = n;
	b->cap = cap;
	return 1;
}

void
dpb_buf_puts(dpb_buf *b, const char *s)
{
	size_t		l = strlen(s);

	if (!reserve(b, l))
		return;
	memcpy(b->data + b->len, s, l + 1);
	b->len += l;
}

void
dpb_buf_printf(dpb_buf *b, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t) n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
}

void
dpb_json_str(dpb_buf *b, const char *s)
{
	dpb_buf_puts(b, "\"");
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			dpb_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			dpb_buf_printf(b, "\\u%04x", c);
		else
		{
			char		t[2] = {(char) c, 0};

			dpb_buf_puts(b, t);
		}
	}
	dpb_buf_puts(b, "\"");
}

void
dpb_json_num(dpb_buf *b, double v)
{
	if (dpb_isfinite(v))
		dpb_buf_printf(b, "%.17g", v);
	else
		dpb_buf_puts(b, "null");
}

void
dpb_json_nums(dpb_buf *b, const double *v, int n)
{
	int			i;

	dpb_buf_puts(b, "[");
	for (i = 0; i < n; i++)
	{
		if (i)
			dpb_buf_puts(b, ", ");
		dpb_json_num(b, v[i]);
	}
	dpb_buf_puts(b, "]");
}

static void
hex_out(dpb_buf *b, const unsigned char *v, int n)
{
	int			k;

	dpb_buf_puts(b, "\"");
	for (k = 0; k < n; k++)
		dpb_buf_printf(b, "%02x", v[k]);
	dpb_buf_puts(b, "\"");
}

void
dpb_sig_to_json(dpb_buf *b, const dpb_release_sig *sig)
{
	if (!sig->present)
		return;
	/* version 1 prints as in 0.1.0 (no version key), so that its text
	 * form is unchanged */
	dpb_buf_puts(b, ", \"signature\": {\"alg\": \"ed25519\", ");
	if (sig->version != DPB_SIG_V1)
		dpb_buf_printf(b, "\"version\": %d, ", sig->version);
	dpb_buf_puts(b, "\"key_id\": ");
	hex_out(b, sig->key_id, DPB_SIG_KEYID_BYTES);
	dpb_buf_puts(b, ", \"request_id\": ");
	dpb_json_str(b, sig->request_id);
	dpb_buf_puts(b, ", \"dataset\": ");
	dpb_json_str(b, sig->dataset);
	if (sig->version == DPB_SIG_V2)
	{
		dpb_buf_puts(b, ", \"binding\": ");
		hex_out(b, sig->binding, DPB_SIG_BINDING_BYTES);
	}
	dpb_buf_puts(b, ", \"value\": ");
	hex_out(b, sig->value, DPB_SIG_BYTES);
	dpb_buf_puts(b, "}");
}

dpb_status
dpb_release_to_json(const dpb_release *r, dpb_buf *out)
{
	dpb_layout	L;
	const char *names[DPB_MAX_D];
	double	   *sd;
	char		label[4 * DPB_NAME_LEN];
	int			j,
				b,
				k;

	if (dpb_release_layout(r, &L) != DPB_OK || L.nstats != r->nstats ||
		L.nblocks != r->nblocks)
		return DPB_ECORRUPT;	/* r->stats and the layout disagree */
	sd = malloc(sizeof(double) * (r->nstats > 0 ? r->nstats : 1));
	if (sd == NULL)
		return DPB_ENOMEM;
	dpb_release_noise_sd(r, sd);
	for (j = 0; j < r->d; j++)
		names[j] = r->p.has_names ? r->p.names[j] : NULL;

	dpb_buf_printf(out, "{\"format\": \"dpbayes.release\", \"version\": %d, ", r->version);
	dpb_buf_printf(out, "\"model\": \"%s\", \"neighbours\": \"%s\", \"n\": ",
				   dpb_model_name(r->model), dpb_neighbours_name(r->p.neighbours));
	/* under add/remove N is private: only the count block holds it */
	if (r->p.neighbours == DPB_NB_REPLACE)
		dpb_buf_printf(out, "%lld", (long long) r->n);
	else
		dpb_buf_puts(out, "null");
	dpb_buf_printf(out, ", \"d\": %d, \"intercept\": %s, ", r->d,
				   r->p.intercept ? "true" : "false");
	dpb_buf_puts(out, "\"features\": ");
	if (r->p.has_names)
	{
		dpb_buf_puts(out, "[");
		for (j = 0; j < r->d; j++)
		{
			if (j)
				dpb_buf_puts(out, ", ");
			dpb_json_str(out, r->p.names[j]);
		}
		dpb_buf_puts(out, "]");
	}
	else
		dpb_buf_puts(out, "null");
	dpb_buf_printf(out, ", \"scaling\": \"%s\", \"lower\": ", dpb_scaling_name(r->p.scaling));
	if (r->p.has_bounds)
		dpb_json_nums(out, r->p.lower, r->d);
	else
		dpb_buf_puts(out, "null");
	dpb_buf_puts(out, ", \"upper\": ");
	if (r->p.has_bounds)
		dpb_json_nums(out, r->p.upper, r->d);
	else
		dpb_buf_puts(out, "null");
	dpb_buf_puts(out, ", \"clip\": ");
	dpb_json_num(out, r->p.clip);
	dpb_buf_puts(out, ", \"y_bound\": ");
	if (r->p.y_bound != 0)
		dpb_json_num(out, r->p.y_bound);
	else
		dpb_buf_puts(out, "null");
	dpb_buf_printf(out, ", \"mechanism\": \"%s\", \"epsilon\": ",
				   dpb_mechanism_name(r->p.mechanism));
	dpb_json_num(out, r->p.epsilon);
	dpb_buf_puts(out, ", \"delta\": ");
	dpb_json_num(out, r->p.delta);
	dpb_buf_puts(out, ", \"x_moments\": ");
	dpb_json_num(out, r->p.x_moments);
	/* the clamped-response count's share (format version 4) */
	dpb_buf_puts(out, ", \"y_clamped\": ");
	dpb_json_num(out, r->p.y_clamped);
	dpb_buf_printf(out, ", \"sensitivity_norm\": \"%s\", \"sensitivity\": ",
				   dpb_mech_gaussian(r->p.mechanism) ? "l2" : "l1");
	dpb_json_num(out, r->sensitivity);
	dpb_buf_puts(out, ", \"noise_scale\": ");
	dpb_json_num(out, r->noise_scale);
	/* the zCDP parameter the release satisfies (gaussian), or eps^2 / 2
	 * (laplace): what a ledger adds up */
	dpb_buf_puts(out, ", \"zcdp_rho\": ");
	dpb_json_num(out, r->rho);
	dpb_buf_printf(out, ", \"noise_weights\": %s, \"insecure_test_noise\": %s, \"blocks\": [",
				   r->p.nweights ? "\"given\"" : "\"auto\"",
				   r->insecure ? "true" : "false");
	for (b = 0; b < L.nblocks; b++)
	{
		dpb_buf_printf(out, "%s{\"kind\": \"%s\", \"noise_weight\": ", b ? ", " : "",
					   dpb_block_kind_name(L.kind[b]));
		dpb_json_num(out, r->block_weight[b]);
		dpb_buf_puts(out, ", \"sensitivity\": ");
		dpb_json_num(out, r->block_sens[b]);
		dpb_buf_puts(out, ", \"noise_scale\": ");
		dpb_json_num(out, r->block_weight[b] * r->noise_scale);
		/* every value is an integer multiple of the grid (0: exact sums) */
		dpb_buf_puts(out, ", \"grid\": ");
		dpb_json_num(out, r->p.mechanism == DPB_MECH_NONE ? 0.0 : ldexp(1.0, r->grid_exp[b]));
		dpb_buf_puts(out, ", \"entries\": [");
		for (k = 0; k < L.len[b]; k++)
		{
			dpb_layout_label(&L, L.start[b] + k, names, label, sizeof(label));
			if (k)
				dpb_buf_puts(out, ", ");
			dpb_json_str(out, label);
		}
		dpb_buf_puts(out, "], \"values\": ");
		dpb_json_nums(out, r->stats + L.start[b], L.len[b]);
		dpb_buf_puts(out, ", \"noise_sd\": ");
		dpb_json_nums(out, sd + L.start[b], L.len[b]);
		dpb_buf_puts(out, "}");
	}
	dpb_buf_puts(out, "]");
	/* governed releases: the signature (release_sig.c) */
	dpb_sig_to_json(out, &r->sig);
	dpb_buf_puts(out, "}");
	free(sd);
	return out->oom ? DPB_ENOMEM : DPB_OK;
}
