/*
 * ldp_protocol.c — the LDP protocol object: a strict parser of its JSON,
 * validation, the canonical form, its SHA-256 id, and the calibration
 * (docs/ldp.md).
 */
#include "ldp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <openssl/sha.h>

/* ---- a strict JSON reader for a flat object ---- */

typedef enum
{
	JV_STR = 1, JV_NUM, JV_BOOL, JV_ARR
} jv_type;

#define JMAX_KEYS 24
#define JMAX_ARR DPB_MAX_D

typedef struct
{
	char		key[32];
	jv_type		type;
	char		str[96];
	double		num;
	int			b;
	int			n;
	double		arr[JMAX_ARR];
} jv;

typedef struct
{
	const char *s;
	const char *start;
	const char *longnum;		/* a number of more than 63 characters */
	int			nkeys;
	jv			kv[JMAX_KEYS];
} jreader;

static void
skip_ws(jreader *r)
{
	while (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')
		r->s++;
}

/* a JSON string without escapes other than \" and \\ (keys and names are
 * plain ASCII) */
static int
read_str(jreader *r, char *out, size_t cap)
{
	size_t		n = 0;

	if (*r->s != '"')
		return 0;
	r->s++;
	while (*r->s != '"')
	{
		char		ch = *r->s;

		if (ch == '\0' || (unsigned char) ch < 0x20)
			return 0;
		if (ch == '\\')
		{
			r->s++;
			if (*r->s != '"' && *r->s != '\\')
				return 0;
			ch = *r->s;
		}
		if (n + 1 >= cap)
			return 0;
		out[n++] = ch;
		r->s++;
	}
	r->s++;
	out[n] = '\0';
	return 1;
}

/* the JSON number grammar, then strtod on the checked token */
static int
read_num(jreader *r, double *v)
{
	const char *p = r->s;
	char		tok[64];
	size_t		len;
	char	   *end;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.')
	{
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	len = (size_t) (p - r->s);
	if (len >= sizeof(tok))
	{
		r->longnum = r->s;
		return 0;
	}
	memcpy(tok, r->s, len);
	tok[len] = '\0';
	*v = strtod(tok, &end);
	if (*end != '\0' || !dpb_isfinite(*v))
		return 0;
	r->s = p;
	return 1;
}

static int
read_value(jreader *r, jv *v)
{
	skip_ws(r);
	if (*r->s == '"')
	{
		v->type = JV_STR;
		return read_str(r, v->str, sizeof(v->str));
	}
	if (strncmp(r->s, "true", 4) == 0 || strncmp(r->s, "false", 5) == 0)
	{
		v->type = JV_BOOL;
		v->b = r->s[0] == 't';
		r->s += v->b ? 4 : 5;
		return 1;
	}
	if (*r->s == '[')
	{
		v->type = JV_ARR;
		v->n = 0;
		r->s++;
		skip_ws(r);
		if (*r->s == ']')
		{
			r->s++;
			return 1;
		}
		for (;;)
		{
			skip_ws(r);
			if (v->n >= JMAX_ARR || !read_num(r, &v->arr[v->n]))
				return 0;
			v->n++;
			skip_ws(r);
			if (*r->s == ',')
			{
				r->s++;
				continue;
			}
			if (*r->s != ']')
				return 0;
			r->s++;
			return 1;
		}
	}
	v->type = JV_NUM;
	return read_num(r, &v->num);
}

static dpb_status
read_object(jreader *r, dpb_err *err)
{
	skip_ws(r);
	if (*r->s != '{')
		goto bad;
	r->s++;
	skip_ws(r);
	if (*r->s == '}')
		r->s++;
	else
		for (;;)
		{
			jv		   *v;
			int			i;

			if (r->nkeys >= JMAX_KEYS)
			{
				dpb_err_set(err, "invalid protocol", "The protocol has too many keys.");
				return DPB_EINVAL;
			}
			v = &r->kv[r->nkeys];
			memset(v, 0, sizeof(*v));
			skip_ws(r);
			if (!read_str(r, v->key, sizeof(v->key)))
				goto bad;
			for (i = 0; i < r->nkeys; i++)
				if (strcmp(r->kv[i].key, v->key) == 0)
				{
					dpb_err_set(err, "invalid protocol",
								"The key \"%s\" appears twice.", v->key);
					return DPB_EINVAL;
				}
			skip_ws(r);
			if (*r->s != ':')
				goto bad;
			r->s++;
			if (!read_value(r, v))
				goto bad;
			r->nkeys++;
			skip_ws(r);
			if (*r->s == ',')
			{
				r->s++;
				continue;
			}
			if (*r->s != '}')
				goto bad;
			r->s++;
			break;
		}
	skip_ws(r);
	if (*r->s != '\0')
		goto bad;
	return DPB_OK;
bad:
	if (r->longnum != NULL)
	{
		/* the server and the client read the same text (a protocol cast
		 * through jsonb may spell a small number out in full) */
		dpb_err_set(err, "invalid protocol",
					"The number at byte %ld has more than 63 characters: write it in exponent form, such as 2.5e-40.",
					(long) (r->longnum - r->start));
		return DPB_EINVAL;
	}
	dpb_err_set(err, "invalid protocol",
				"The protocol is not a flat JSON object of strings, numbers, booleans and arrays of numbers (error near byte %ld).",
				(long) (r->s - r->start));
	return DPB_EINVAL;
}

static jv *
find_key(jreader *r, const char *key, int *used)
{
	int			i;

	for (i = 0; i < r->nkeys; i++)
		if (strcmp(r->kv[i].key, key) == 0)
		{
			used[i] = 1;
			return &r->kv[i];
		}
	return NULL;
}

/* ---- names ---- */

static const char *const mech_names[] = {
	NULL, "rr", "oue", "scalar_laplace", "ss_linear", "ss_logistic", "ss_poisson",
	"scalar_gaussian", "linear_input", "logistic_input"
};

static int
is_scalar(dpb_ldp_mech m)
{
	return m == DPB_LDP_SCALAR_LAPLACE || m == DPB_LDP_SCALAR_GAUSSIAN;
}

const char *
dpb_ldp_mech_name(dpb_ldp_mech m)
{
	return (m >= DPB_LDP_RR && m <= DPB_LDP_MECH_MAX) ? mech_names[m] : "?";
}

static int
is_ss(dpb_ldp_mech m)
{
	return m == DPB_LDP_SS_LINEAR || m == DPB_LDP_SS_LOGISTIC || m == DPB_LDP_SS_POISSON;
}

static dpb_model
ss_model(dpb_ldp_mech m)
{
	return m == DPB_LDP_SS_LINEAR ? DPB_MODEL_LINEAR :
		m == DPB_LDP_SS_LOGISTIC ? DPB_MODEL_LOGISTIC : DPB_MODEL_POISSON;
}

/* ---- parse ---- */

#define NEED(cond, ...) \
	do { if (!(cond)) { dpb_err_set(err, "invalid protocol", __VA_ARGS__); \
		return DPB_EINVAL; } } while (0)

static dpb_status
get_num(jreader *r, const char *key, int *used, int required, double *out,
		dpb_err *err)
{
	jv		   *v = find_key(r, key, used);

	if (v == NULL)
	{
		NEED(!required, "The key \"%s\" is required for this mechanism.", key);
		return DPB_OK;
	}
	NEED(v->type == JV_NUM, "The key \"%s\" must be a number.", key);
	*out = v->num;
	return DPB_OK;
}

static dpb_status
get_int(jreader *r, const char *key, int *used, int lo, int hi, int *out,
		dpb_err *err)
{
	double		x = 0;
	dpb_status	st = get_num(r, key, used, 1, &x, err);

	if (st != DPB_OK)
		return st;
	NEED(x == floor(x) && x >= lo && x <= hi,
		 "The key \"%s\" must be an integer from %d to %d.", key, lo, hi);
	*out = (int) x;
	return DPB_OK;
}

dpb_status
dpb_ldp_protocol_parse(const char *json, dpb_ldp_protocol *p, dpb_err *err)
{
	jreader    *r;
	int			used[JMAX_KEYS] = {0};
	jv		   *v;
	char		given_id[DPB_LDP_ID_LEN + 1] = "";
	dpb_status	st = DPB_EINVAL;
	int			i,
				m;

	memset(p, 0, sizeof(*p));
	r = calloc(1, sizeof(*r));
	if (r == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	r->s = r->start = json;
	if ((st = read_object(r, err)) != DPB_OK)
		goto done;
	st = DPB_EINVAL;

	if ((v = find_key(r, "format", used)) != NULL &&
		(v->type != JV_STR || strcmp(v->str, "dpbayes-ldp-protocol") != 0))
	{
		dpb_err_set(err, "invalid protocol", "The key \"format\" must be \"dpbayes-ldp-protocol\".");
		goto done;
	}
	if ((v = find_key(r, "version", used)) != NULL &&
		(v->type != JV_NUM || v->num != DPB_LDP_PROTOCOL_VERSION))
	{
		dpb_err_set(err, "unsupported protocol version", "This client reads version %d.",
					DPB_LDP_PROTOCOL_VERSION);
		goto done;
	}
	v = find_key(r, "mechanism", used);
	if (v == NULL || v->type != JV_STR)
	{
		dpb_err_set(err, "invalid protocol", "The key \"mechanism\" (a string) is required.");
		goto done;
	}
	for (m = DPB_LDP_RR; m <= DPB_LDP_MECH_MAX; m++)
		if (strcmp(v->str, mech_names[m]) == 0)
			p->mech = (dpb_ldp_mech) m;
	if (p->mech == 0)
	{
		dpb_err_set(err, "invalid protocol",
					"The mechanism must be one of rr, oue, scalar_laplace, scalar_gaussian, ss_linear, ss_logistic, ss_poisson, linear_input, logistic_input.");
		goto done;
	}
	if ((st = get_num(r, "epsilon", used, 1, &p->epsilon, err)) != DPB_OK)
		goto done;

	if (p->mech == DPB_LDP_OUE &&
		(st = get_int(r, "categories", used, 2, DPB_LDP_MAX_CATEGORIES,
					  &p->categories, err)) != DPB_OK)
		goto done;
	if (is_scalar(p->mech) &&
		((st = get_num(r, "lower", used, 1, &p->lower, err)) != DPB_OK ||
		 (st = get_num(r, "upper", used, 1, &p->upper, err)) != DPB_OK))
		goto done;
	if (p->mech == DPB_LDP_SCALAR_GAUSSIAN &&
		(st = get_num(r, "delta", used, 1, &p->delta, err)) != DPB_OK)
		goto done;
	if (dpb_ldp_is_input(p->mech))
	{
		p->clip = 1;
		p->y_noise_ratio = NAN;
		p->label_share = 0.5;
		/* the features' public scale (issue 25, item 1): no default */
		if (find_key(r, "clip", used) == NULL)
		{
			dpb_err_set(err, "the protocol needs the public scale of its features",
						"Each client clips its record x to the L2 ball of radius \"clip\": give \"clip\", a public bound "
						"on the norm of the features in their own units (never from the data); a default of 1 would "
						"distort features on other scales.");
			st = DPB_EINVAL;
			goto done;
		}
		if ((st = get_int(r, "d", used, 1, DPB_MAX_D, &p->d, err)) != DPB_OK ||
			(st = get_num(r, "delta", used, 1, &p->delta, err)) != DPB_OK ||
			(st = get_num(r, "clip", used, 1, &p->clip, err)) != DPB_OK)
			goto done;
		if (p->mech == DPB_LDP_LINEAR_INPUT &&
			((st = get_num(r, "y_bound", used, 1, &p->y_bound, err)) != DPB_OK ||
			 (st = get_num(r, "y_noise_ratio", used, 0, &p->y_noise_ratio, err)) != DPB_OK))
			goto done;
		if (p->mech == DPB_LDP_LOGISTIC_INPUT &&
			(st = get_num(r, "label_share", used, 0, &p->label_share, err)) != DPB_OK)
			goto done;
	}
	if (is_ss(p->mech))
	{
		jv		   *lo,
				   *hi,
				   *nw;

		dpb_params_default(&p->p);
		p->p.mechanism = DPB_MECH_GAUSSIAN;
		p->p.neighbours = DPB_NB_REPLACE;
		p->p.scaling = DPB_SCALE_BOX;
		if ((st = get_int(r, "d", used, 1, DPB_MAX_D, &p->d, err)) != DPB_OK ||
			(st = get_num(r, "delta", used, 1, &p->p.delta, err)) != DPB_OK ||
			(st = get_num(r, "clip", used, 0, &p->p.clip, err)) != DPB_OK ||
			(st = get_num(r, "y_bound", used, p->mech != DPB_LDP_SS_LOGISTIC,
						  &p->p.y_bound, err)) != DPB_OK)
			goto done;
		st = DPB_EINVAL;
		if ((v = find_key(r, "intercept", used)) != NULL)
		{
			if (v->type != JV_BOOL)
			{
				dpb_err_set(err, "invalid protocol", "The key \"intercept\" must be true or false.");
				goto done;
			}
			p->p.intercept = v->b;
		}
		lo = find_key(r, "lower", used);
		hi = find_key(r, "upper", used);
		if ((lo == NULL) != (hi == NULL) ||
			(lo != NULL && (lo->type != JV_ARR || hi->type != JV_ARR ||
							lo->n != p->d || hi->n != p->d)))
		{
			dpb_err_set(err, "invalid protocol",
						"The keys \"lower\" and \"upper\" must both be given, as arrays of d numbers, or both be absent.");
			goto done;
		}
		if (lo != NULL)
		{
			p->p.has_bounds = 1;
			memcpy(p->p.lower, lo->arr, sizeof(double) * p->d);
			memcpy(p->p.upper, hi->arr, sizeof(double) * p->d);
		}
		/*
		 * Public bounds are what make the summed statistics mean something
		 * (issue 25, item 1): a protocol without them must say so with
		 * "scaling":"none" (the features are used as given, clipped to the
		 * ball of radius clip), part of its canonical text and id.
		 */
		if ((v = find_key(r, "scaling", used)) != NULL)
		{
			if (v->type != JV_STR || strcmp(v->str, "none") != 0)
			{
				dpb_err_set(err, "invalid protocol",
							"The key \"scaling\" can only be \"none\" (no bounds: the features are used as given); with bounds, leave it out.");
				goto done;
			}
			if (lo != NULL)
			{
				dpb_err_set(err, "invalid protocol",
							"\"scaling\":\"none\" uses the features as given and cannot be combined with \"lower\" and \"upper\".");
				goto done;
			}
			p->p.unscaled = 1;
		}
		else if (lo == NULL && find_key(r, "id", used) == NULL)
		{
			/*
			 * A published protocol (one that carries its id, checked
			 * below) from before this rule keeps its meaning and its id:
			 * its clients and reports exist.  A new one must choose.
			 */
			dpb_err_set(err, "the protocol needs public bounds on its features",
						"Without \"lower\" and \"upper\" each client projects its record onto the ball of radius clip. "
						"Give \"lower\" and \"upper\" (public, never from the data), or \"scaling\":\"none\" for "
						"features already on that scale.");
			st = DPB_EINVAL;
			goto done;
		}
		if ((nw = find_key(r, "noise_weights", used)) != NULL)
		{
			if (nw->type != JV_ARR || nw->n < 1 || nw->n > DPB_MAX_MODEL_BLOCKS)
			{
				dpb_err_set(err, "invalid protocol", "The key \"noise_weights\" must be an array of one weight per block.");
				goto done;
			}
			p->p.nweights = nw->n;
			memcpy(p->p.noise_weights, nw->arr, sizeof(double) * nw->n);
		}
		p->p.epsilon = p->epsilon;
		p->p.d = p->d;
	}
	st = DPB_EINVAL;
	if ((v = find_key(r, "id", used)) != NULL)
	{
		if (v->type != JV_STR || strlen(v->str) != DPB_LDP_ID_LEN)
		{
			dpb_err_set(err, "invalid protocol", "The key \"id\" must be the 64 hex digits of the protocol's id.");
			goto done;
		}
		strcpy(given_id, v->str);
	}
	for (i = 0; i < r->nkeys; i++)
		if (!used[i])
		{
			dpb_err_set(err, "invalid protocol",
						"The key \"%s\" is not a parameter of the mechanism %s.",
						r->kv[i].key, mech_names[p->mech]);
			goto done;
		}
	if ((st = dpb_ldp_protocol_finish(p, err)) != DPB_OK)
		goto done;
	if (given_id[0] != '\0' && strcmp(given_id, p->id) != 0)
	{
		dpb_err_set(err, "protocol id mismatch",
					"The \"id\" key does not match the SHA-256 of the protocol's canonical form; the protocol was changed after publication.");
		st = DPB_EINVAL;
	}
done:
	free(r);
	return st;
}

dpb_status
dpb_ldp_protocol_finish(dpb_ldp_protocol *p, dpb_err *err)
{
	dpb_buf		b;
	dpb_ldp_calib *c;
	dpb_status	st;

	NEED(dpb_isfinite(p->epsilon) && p->epsilon >= DPB_LDP_EPS_MIN &&
		 p->epsilon <= DPB_LDP_EPS_MAX,
		 "epsilon must be between %g and %g.", DPB_LDP_EPS_MIN, DPB_LDP_EPS_MAX);
	switch (p->mech)
	{
		case DPB_LDP_RR:
			break;
		case DPB_LDP_OUE:
			NEED(p->categories >= 2 && p->categories <= DPB_LDP_MAX_CATEGORIES,
				 "categories must be from 2 to %d.", DPB_LDP_MAX_CATEGORIES);
			break;
		case DPB_LDP_SCALAR_GAUSSIAN:
			NEED(p->delta > 0 && p->delta < 1, "delta must be between 0 and 1 (exclusive).");
			/* FALLTHROUGH */
		case DPB_LDP_SCALAR_LAPLACE:
			NEED(dpb_isfinite(p->lower) && dpb_isfinite(p->upper) && p->lower < p->upper,
				 "lower and upper must be finite with lower < upper.");
			break;
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			NEED(p->d >= 1 && p->d <= DPB_MAX_D, "d must be from 1 to %d.", DPB_MAX_D);
			NEED(p->delta > 0 && p->delta < 1, "delta must be between 0 and 1 (exclusive).");
			NEED(dpb_isfinite(p->clip) && p->clip > 0 && p->clip <= 1e12,
				 "clip must be positive and at most 1e12.");
			if (p->mech == DPB_LDP_LINEAR_INPUT)
			{
				NEED(dpb_isfinite(p->y_bound) && p->y_bound > 0 && p->y_bound <= 1e12,
					 "y_bound must be positive and at most 1e12.");
				if (isnan(p->y_noise_ratio))
					p->y_noise_ratio = p->y_bound / p->clip;
				NEED(p->y_noise_ratio >= DPB_LDP_RATIO_MIN && p->y_noise_ratio <= DPB_LDP_RATIO_MAX,
					 "y_noise_ratio must be between %g and %g.", DPB_LDP_RATIO_MIN, DPB_LDP_RATIO_MAX);
				p->label_share = 0;
			}
			else
			{
				NEED(p->label_share > 0 && p->label_share < 1,
					 "label_share must be between 0 and 1 (exclusive).");
				p->y_bound = 0;
				p->y_noise_ratio = 0;
			}
			break;
		case DPB_LDP_SS_LINEAR:
		case DPB_LDP_SS_LOGISTIC:
		case DPB_LDP_SS_POISSON:
			if (p->mech == DPB_LDP_SS_LOGISTIC)
				p->p.y_bound = 0;
			p->p.epsilon = p->epsilon;
			p->p.d = p->d;
			p->p.mechanism = DPB_MECH_GAUSSIAN;
			p->p.neighbours = DPB_NB_REPLACE;
			if ((st = dpb_params_check(&p->p, err)) != DPB_OK ||
				(st = dpb_release_check_params(ss_model(p->mech), &p->p, p->d, err)) != DPB_OK)
				return st;
			break;
		default:
			NEED(0, "unknown mechanism.");
	}
	/* the calibration must exist (e.g. the scalar grid must fit) */
	c = malloc(sizeof(*c));
	if (c == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	st = dpb_ldp_calibrate(p, c, err);
	free(c);
	if (st != DPB_OK)
		return st;
	dpb_buf_init(&b);
	if ((st = dpb_ldp_protocol_canonical(p, &b)) == DPB_OK)
		dpb_ldp_sha256_hex(b.data, b.len, p->id);
	else
		dpb_err_set(err, "out of memory", NULL);
	dpb_buf_free(&b);
	return st;
}

/* ---- canonical form ---- */

void
dpb_ldp_format_double(double v, char *buf)
{
	int			prec;

	if (v == 0)
	{
		strcpy(buf, "0");		/* -0 too: the same number */
		return;
	}
	/*
	 * The first of %.15g, %.16g, %.17g that reads back to v.  It has the
	 * fewest significant digits of any %.Ng that reads back: if the
	 * shortest such decimal D has k <= 15 digits, |v - D| is below half an
	 * ulp of v (about 1.1e-16 |v|), less than half the spacing of 15-digit
	 * decimals (at least 5e-16 |v|), so v rounds to D at 15 digits and %g
	 * strips the zeros; at 16 and 17 the correctly rounded decimal is the
	 * nearest one, which reads back if any does.  (Unlike %.kg for small
	 * k it never switches to an exponent for integers below 1e15.)
	 */
	for (prec = 15; prec <= 17; prec++)
	{
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void
put_double(dpb_buf *b, const char *key, double v, int first)
{
	char		num[32];

	dpb_ldp_format_double(v, num);
	dpb_buf_printf(b, "%s\"%s\":%s", first ? "" : ",", key, num);
}

static void
put_array(dpb_buf *b, const char *key, const double *v, int n)
{
	char		num[32];
	int			i;

	dpb_buf_printf(b, ",\"%s\":[", key);
	for (i = 0; i < n; i++)
	{
		dpb_ldp_format_double(v[i], num);
		dpb_buf_printf(b, "%s%s", i ? "," : "", num);
	}
	dpb_buf_puts(b, "]");
}

dpb_status
dpb_ldp_protocol_canonical(const dpb_ldp_protocol *p, dpb_buf *b)
{
	dpb_buf_printf(b, "{\"format\":\"dpbayes-ldp-protocol\",\"version\":%d,\"mechanism\":\"%s\"",
				   DPB_LDP_PROTOCOL_VERSION, dpb_ldp_mech_name(p->mech));
	put_double(b, "epsilon", p->epsilon, 0);
	if (p->mech == DPB_LDP_OUE)
		dpb_buf_printf(b, ",\"categories\":%d", p->categories);
	if (is_scalar(p->mech))
	{
		put_double(b, "lower", p->lower, 0);
		put_double(b, "upper", p->upper, 0);
	}
	if (p->mech == DPB_LDP_SCALAR_GAUSSIAN)
		put_double(b, "delta", p->delta, 0);
	if (dpb_ldp_is_input(p->mech))
	{
		put_double(b, "delta", p->delta, 0);
		dpb_buf_printf(b, ",\"d\":%d", p->d);
		put_double(b, "clip", p->clip, 0);
		if (p->mech == DPB_LDP_LINEAR_INPUT)
		{
			put_double(b, "y_bound", p->y_bound, 0);
			put_double(b, "y_noise_ratio", p->y_noise_ratio, 0);
		}
		else
			put_double(b, "label_share", p->label_share, 0);
	}
	if (is_ss(p->mech))
	{
		put_double(b, "delta", p->p.delta, 0);
		dpb_buf_printf(b, ",\"d\":%d,\"intercept\":%s", p->d,
					   p->p.intercept ? "true" : "false");
		put_double(b, "clip", p->p.clip, 0);
		if (p->mech != DPB_LDP_SS_LOGISTIC)
			put_double(b, "y_bound", p->p.y_bound, 0);
		if (p->p.has_bounds)
		{
			put_array(b, "lower", p->p.lower, p->d);
			put_array(b, "upper", p->p.upper, p->d);
		}
		else if (p->p.unscaled)
			dpb_buf_puts(b, ",\"scaling\":\"none\"");
		if (p->p.nweights > 0)
			put_array(b, "noise_weights", p->p.noise_weights, p->p.nweights);
	}
	dpb_buf_puts(b, "}");
	return b->oom ? DPB_ENOMEM : DPB_OK;
}

dpb_status
dpb_ldp_protocol_to_json(const dpb_ldp_protocol *p, dpb_buf *b)
{
	dpb_status	st = dpb_ldp_protocol_canonical(p, b);

	if (st != DPB_OK)
		return st;
	/* replace the closing brace by the id */
	b->len--;
	b->data[b->len] = '\0';
	dpb_buf_printf(b, ",\"id\":\"%s\"}", p->id);
	return b->oom ? DPB_ENOMEM : DPB_OK;
}

void
dpb_ldp_sha256_hex(const void *data, size_t len, char *hex)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	int			i;

	SHA256((const unsigned char *) data, len, md);
	for (i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* ---- calibration ---- */

/* epsilon = num / 2^k exactly (a double is a dyadic rational) */
void
dpb_ldp_eps_dyadic(double eps, dpb_u128 *num, int *k)
{
	int			e;
	double		f = frexp(eps, &e); /* eps = f 2^e, f in [0.5, 1) */
	uint64_t	n = (uint64_t) ldexp(f, 53);	/* exact */
	int			kk = 53 - e;

	while ((n & 1) == 0 && kk > 0)
	{
		n >>= 1;
		kk--;
	}
	/* eps <= 50 < 2^6: kk >= 0 after reduction unless eps is an integer
	 * multiple of a power of two above 1, handled by the loop above */
	*num = n;
	*k = kk;
}

dpb_status
dpb_ldp_calibrate(const dpb_ldp_protocol *p, dpb_ldp_calib *c, dpb_err *err)
{
	memset(c, 0, sizeof(*c));
	dpb_ldp_eps_dyadic(p->epsilon, &c->eps_num, &c->eps_log2den);
	c->p_keep = 1.0 / (1.0 + exp(-p->epsilon));
	switch (p->mech)
	{
		case DPB_LDP_RR:
			c->report_len = 1;
			c->epsilon_used = p->epsilon;
			return DPB_OK;
		case DPB_LDP_OUE:
			c->report_len = p->categories;
			c->q_keep = 0.5;
			c->epsilon_used = p->epsilon;
			return DPB_OK;
		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			{
				int			e;
				double		lo_g,
							hi_g,
							rho = 0,
							scale;
				dpb_u128	W,
							t;
				dpb_status	st;

				c->report_len = 1;
				/* the noise scale: (b - a) / eps (Laplace) or
				 * (b - a) / sqrt(2 rho*) (Gaussian) */
				if (p->mech == DPB_LDP_SCALAR_GAUSSIAN)
				{
					if ((st = dpb_zcdp_rho(p->epsilon, p->delta, &rho, err)) != DPB_OK)
						return st;
					scale = (p->upper - p->lower) / sqrt(2 * rho);
				}
				else
					scale = (p->upper - p->lower) / p->epsilon;
				NEED(dpb_isfinite(scale) && scale > 0, "The noise scale is not finite.");
				/* g = 2^m at most 2^-20 of the noise scale */
				(void) frexp(scale, &e);
				c->grid_exp = (e - 1) - DPB_LDP_SCALAR_GRID_BITS;
				lo_g = ceil(ldexp(p->lower, -c->grid_exp));
				hi_g = floor(ldexp(p->upper, -c->grid_exp));
				NEED(fabs(lo_g) <= 0x1p50 && fabs(hi_g) <= 0x1p50 && hi_g > lo_g,
					 "The interval [lower, upper] is too narrow for its distance from zero; shift it towards zero.");
				c->vlo = (int64_t) lo_g;
				c->vhi = (int64_t) hi_g;
				W = (dpb_u128) (c->vhi - c->vlo);
				if (p->mech == DPB_LDP_SCALAR_GAUSSIAN)
				{
					/*
					 * Two inputs give v's at most W apart: N_Z(0, sigma2)
					 * on the integer v is W^2 / (2 sigma2)-zCDP (CKS
					 * 2020).  sigma2 = ceil(W^2 / (2 rho*)), then raised
					 * until W^2 / (2 sigma2) <= rho* holds in double
					 * arithmetic with a margin of 1e-12 (rho* itself is a
					 * valid value from below).
					 */
					double		W2 = (double) W * (double) W;
					double		s2 = ceil(W2 / (2 * rho) * (1 + 1e-12));

					NEED(s2 >= 1 && s2 <= (double) DPB_DGAUSS_MAX_SIGMA2,
						 "The scalar grid does not fit the noise scale.");
					c->gauss_sigma2 = (uint64_t) s2;
					while (W2 / (2 * (double) c->gauss_sigma2) > rho * (1 - 1e-12))
						c->gauss_sigma2++;
					c->rho_used = W2 / (2 * (double) c->gauss_sigma2);
					c->epsilon_used = p->epsilon;
					return DPB_OK;
				}
				/* smallest t with W / t <= eps, i.e. W 2^k <= t num */
				t = ((W << c->eps_log2den) + c->eps_num - 1) / c->eps_num;
				if (t < 1)
					t = 1;
				NEED(t <= DPB_DLAPLACE_MAX_T, "epsilon is too small for the scalar grid.");
				c->lap_t = (uint64_t) t;
				c->epsilon_used = (double) W / (double) c->lap_t;
				return DPB_OK;
			}
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			return dpb_ldp_input_calibrate(p, c, err);
		default:
			{
				dpb_status	st;

				c->rel.version = DPB_RELEASE_VERSION;
				c->rel.model = ss_model(p->mech);
				c->rel.d = p->d;
				c->rel.n = 1;
				c->rel.p = p->p;
				if ((st = dpb_release_calibrate(&c->rel, err)) != DPB_OK ||
					(st = dpb_release_layout(&c->rel, &c->L)) != DPB_OK)
					return st;
				c->report_len = c->L.nstats;
				c->epsilon_used = p->epsilon;
				return DPB_OK;
			}
	}
}

dpb_status
dpb_ldp_calib_to_json(const dpb_ldp_protocol *p, const dpb_ldp_calib *c, dpb_buf *b)
{
	char		num[32];
	int			k;

	dpb_buf_printf(b, "{\"id\":\"%s\",\"mechanism\":\"%s\",\"report_len\":%d",
				   p->id, dpb_ldp_mech_name(p->mech), c->report_len);
	put_double(b, "epsilon", p->epsilon, 0);
	switch (p->mech)
	{
		case DPB_LDP_RR:
			put_double(b, "p_keep", c->p_keep, 0);
			break;
		case DPB_LDP_OUE:
			put_double(b, "p_zero_stays_zero", c->p_keep, 0);
			put_double(b, "q_one_stays_one", c->q_keep, 0);
			break;
		case DPB_LDP_SCALAR_LAPLACE:
			dpb_buf_printf(b, ",\"grid_exp\":%d", c->grid_exp);
			dpb_buf_printf(b, ",\"v_lower\":%lld,\"v_upper\":%lld,\"laplace_t\":%llu",
						   (long long) c->vlo, (long long) c->vhi,
						   (unsigned long long) c->lap_t);
			put_double(b, "laplace_scale", ldexp((double) c->lap_t, c->grid_exp), 0);
			put_double(b, "epsilon_used", c->epsilon_used, 0);
			break;
		case DPB_LDP_SCALAR_GAUSSIAN:
			put_double(b, "delta", p->delta, 0);
			dpb_buf_printf(b, ",\"grid_exp\":%d", c->grid_exp);
			dpb_buf_printf(b, ",\"v_lower\":%lld,\"v_upper\":%lld,\"sigma2\":%llu",
						   (long long) c->vlo, (long long) c->vhi,
						   (unsigned long long) c->gauss_sigma2);
			put_double(b, "noise_sd", ldexp(sqrt((double) c->gauss_sigma2), c->grid_exp), 0);
			put_double(b, "rho", c->rho_used, 0);
			break;
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			put_double(b, "delta", p->delta, 0);
			put_double(b, "epsilon_features", c->eps_features, 0);
			if (p->mech == DPB_LDP_LOGISTIC_INPUT)
			{
				put_double(b, "epsilon_label", c->eps_label, 0);
				put_double(b, "p_keep", c->p_keep, 0);
			}
			put_double(b, "sensitivity", c->in_sens, 0);
			put_double(b, "rho", c->rho_used, 0);
			dpb_buf_printf(b, ",\"grid_exp_x\":%d,\"sigma2_x\":%llu", c->in_gexp[0],
						   (unsigned long long) c->in_sigma2[0]);
			put_double(b, "noise_sd_x", c->in_sd[0], 0);
			if (p->mech == DPB_LDP_LINEAR_INPUT)
			{
				dpb_buf_printf(b, ",\"grid_exp_y\":%d,\"sigma2_y\":%llu", c->in_gexp[1],
							   (unsigned long long) c->in_sigma2[1]);
				put_double(b, "noise_sd_y", c->in_sd[1], 0);
			}
			break;
		default:
			{
				double	   *sd = malloc(sizeof(double) * (c->rel.nstats + 1));

				if (sd == NULL)
					return DPB_ENOMEM;

				put_double(b, "delta", p->p.delta, 0);
				put_double(b, "sensitivity", c->rel.sensitivity, 0);
				put_double(b, "sigma0", c->rel.noise_scale, 0);
				put_double(b, "rho", c->rel.rho, 0);
				dpb_buf_puts(b, ",\"blocks\":[");
				for (k = 0; k < c->L.nblocks; k++)
				{
					dpb_buf_printf(b, "%s{\"kind\":\"%s\",\"start\":%d,\"len\":%d,\"grid_exp\":%d",
								   k ? "," : "", dpb_block_kind_name(c->L.kind[k]),
								   c->L.start[k], c->L.len[k], c->rel.grid_exp[k]);
					put_double(b, "weight", c->rel.block_weight[k], 0);
					put_double(b, "sensitivity", c->rel.block_sens[k], 0);
					dpb_buf_puts(b, "}");
				}
				dpb_buf_puts(b, "],\"noise_sd\":[");
				dpb_release_noise_sd(&c->rel, sd);
				for (k = 0; k < c->rel.nstats; k++)
				{
					dpb_ldp_format_double(sd[k], num);
					dpb_buf_printf(b, "%s%s", k ? "," : "", num);
				}
				free(sd);
				dpb_buf_puts(b, "]");
			}
	}
	dpb_buf_puts(b, "}");
	return b->oom ? DPB_ENOMEM : DPB_OK;
}
