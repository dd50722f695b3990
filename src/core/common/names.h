/*
 * names.h — the one rule for feature names, and the quoting of untrusted
 * input echoed in messages (docs/release-format.md, "Validation").
 *
 * A feature name is 1 to DPB_NAME_LEN - 1 bytes of valid UTF-8 (shortest
 * form, no surrogates, at most U+10FFFF) without control characters (C0,
 * DEL, C1), without the characters that build the output's own labels
 * (* ^ [ ] ,), is none of the output's own names (y, 1, intercept, sigma),
 * and the names of a release are distinct.  dpbayes.privacy(), the JSON and
 * binary input of dpbayes.release and dpb_release_validate (so every unpack
 * of a stored value) apply it.
 */
#ifndef DPB_NAMES_H
#define DPB_NAMES_H

#include "params.h"

/* Checks one name of len bytes; j (0-based) is its position, for the
 * message.  DPB_EINVAL with a message that does not echo the name. */
dpb_status	dpb_name_check(const char *s, size_t len, int j, dpb_err *err);

/* Checks the d names of p (when p->has_names): each one, and that they are
 * distinct. */
dpb_status	dpb_names_check(const dpb_params *p, dpb_err *err);

/* Bytes of untrusted input echoed at most, and the size of dpb_quote's
 * output buffer. */
#define DPB_ECHO_MAX 64
#define DPB_QUOTE_SIZE (4 * DPB_ECHO_MAX + 8)

/*
 * Makes untrusted input (len bytes) safe to echo in a message: at most
 * DPB_ECHO_MAX bytes of it, cut only between UTF-8 characters, control
 * characters, backslashes and bytes that are not valid UTF-8 written as
 * \xNN, and "..." appended when something was cut.  out has DPB_QUOTE_SIZE
 * bytes; returns out.
 */
const char *dpb_quote(const char *s, size_t len, char *out);

/* Length of the valid UTF-8 character at s (at most left bytes), 0 when the
 * bytes there are not one. */
int			dpb_utf8_char_len(const unsigned char *s, size_t left);

#endif
