/*
 * names.c — feature names and quoting of echoed input (names.h).
 */
#include "names.h"

#include <stdio.h>
#include <string.h>

int
dpb_utf8_char_len(const unsigned char *s, size_t left)
{
	unsigned	c = s[0],
				lo = 0x80,
				hi = 0xBF;
	int			n,
				i;

	if (left == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
	{
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;			/* no overlong forms */
		else if (c == 0xED)
			hi = 0x9F;			/* no surrogates */
	}
	else if (c >= 0xF0 && c <= 0xF4)
	{
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;			/* at most U+10FFFF */
	}
	else
		return 0;
	if (left < (size_t) n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

/* C0, DEL and C1 (U+0080..U+009F, encoded C2 80..C2 9F) */
static int
is_control(const unsigned char *s, int n)
{
	return (n == 1 && (s[0] < 0x20 || s[0] == 0x7F)) ||
		(n == 2 && s[0] == 0xC2 && s[1] <= 0x9F);
}

/* the output's own names: the response, the constant, the noise sd of
 * linear regression and the count under add/remove neighbours ("n") */
static const char *const reserved[] = {"y", "1", "intercept", "sigma", "n", NULL};

dpb_status
dpb_name_check(const char *s, size_t len, int j, dpb_err *err)
{
	const unsigned char *u = (const unsigned char *) s;
	size_t		i = 0;
	int			k;

	if (len == 0 || len >= DPB_NAME_LEN)
	{
		dpb_err_set(err, "invalid feature name",
					"Feature %d's name must have between 1 and %d bytes; it has %zu.",
					j + 1, DPB_NAME_LEN - 1, len);
		return DPB_EINVAL;
	}
	while (i < len)
	{
		int			n = dpb_utf8_char_len(u + i, len - i);

		if (n == 0 || (n == 1 && u[i] == '\0'))
		{
			dpb_err_set(err, "invalid feature name",
						"Feature %d's name is not valid UTF-8.", j + 1);
			return DPB_EINVAL;
		}
		if (is_control(u + i, n))
		{
			dpb_err_set(err, "invalid feature name",
						"Feature %d's name contains a control character.", j + 1);
			return DPB_EINVAL;
		}
		if (n == 1 && strchr("*^[],", u[i]) != NULL)
		{
			dpb_err_set(err, "invalid feature name",
						"Feature %d's name contains \"%c\", which the output uses to build labels (a*b, a^2, theta[a]).",
						j + 1, u[i]);
			return DPB_EINVAL;
		}
		i += (size_t) n;
	}
	for (k = 0; reserved[k]; k++)
		if (strlen(reserved[k]) == len && memcmp(reserved[k], s, len) == 0)
		{
			dpb_err_set(err, "invalid feature name",
						"Feature %d is named \"%s\", a name the output uses for itself (y, 1, intercept, sigma).",
						j + 1, reserved[k]);
			return DPB_EINVAL;
		}
	return DPB_OK;
}

dpb_status
dpb_names_check(const dpb_params *p, dpb_err *err)
{
	int			j,
				i;
	dpb_status	st;

	if (!p->has_names)
		return DPB_OK;
	for (j = 0; j < p->d; j++)
	{
		const char *end = memchr(p->names[j], '\0', DPB_NAME_LEN);

		st = dpb_name_check(p->names[j],
							end ? (size_t) (end - p->names[j]) : DPB_NAME_LEN, j, err);
		if (st != DPB_OK)
			return st;
		for (i = 0; i < j; i++)
			if (strcmp(p->names[i], p->names[j]) == 0)
			{
				dpb_err_set(err, "feature names must be unique",
							"Features %d and %d have the same name.", i + 1, j + 1);
				return DPB_EINVAL;
			}
	}
	return DPB_OK;
}

const char *
dpb_quote(const char *s, size_t len, char *out)
{
	const unsigned char *u = (const unsigned char *) s;
	size_t		i = 0,
				o = 0;

	while (i < len)
	{
		int			n = dpb_utf8_char_len(u + i, len - i);

		if (i + (n > 0 ? (size_t) n : 1) > DPB_ECHO_MAX)
			break;
		if (n == 0 || is_control(u + i, n) || (n == 1 && u[i] == '\\'))
		{
			int			b,
						nb = n > 0 ? n : 1;

			for (b = 0; b < nb; b++)
				o += (size_t) snprintf(out + o, DPB_QUOTE_SIZE - o, "\\x%02X", u[i + b]);
			i += (size_t) nb;
		}
		else
		{
			memcpy(out + o, u + i, (size_t) n);
			o += (size_t) n;
			i += (size_t) n;
		}
	}
	if (i < len)
	{
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}
