/*
 * ldp_collect.h — the collected local-DP reports (dpbayes.ldp_collect) shared by
 * ldp_collect.c and ldp_posterior.c.
 */
#ifndef DPBAYES_LDP_COLLECT_H
#define DPBAYES_LDP_COLLECT_H

#include "dpbayes_pg.h"

#include "funcapi.h"

#include "ldp.h"
#include "ldp_models.h"

/*
 * A collection: the protocol (its published JSON, id included), the number
 * of reports and the already-private summaries the models need:
 *   scalar_laplace  n_low, n_high (reports below / above the grid's clipping
 *                   interval) and the in-range reports z
 *   scalar_gaussian every report in z (n_low = n_high = 0)
 *   rr              the number of reports 1 (ones)
 *   oue             the distinct report patterns (K bits packed in W 64-bit
 *                   words) and their counts
 *   linear_input    the sums of w = (z_x, z_y) and of w w' (O(1) in N)
 *   logistic_input  the same sums and every report (z_x, z_y)
 */
typedef struct ldpc_state
{
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	char	   *proto_json;		/* dpb_ldp_protocol_to_json */
	int			proto_len;
	char	   *raw;			/* the last protocol argument's bytes */
	Size		raw_len;
	int64		n;
	bool		insecure;		/* a report was stamped insecure_test: */
	/* scalar_*: [a, b] = [vlo, vhi] 2^grid_exp */
	double		a,
				b;
	int64		n_low,
				n_high,
				nz,
				zcap;
	/* rr */
	int64		ones;
	double	   *z;
	/* oue */
	int			K,
				W;
	int64		np,				/* entries in pw / pc */
				ncomp,			/* ... of which sorted and distinct */
				pcap;
	uint64	   *pw;
	int64	   *pc;
	/* *_input: d features, k = d + 1 values per report */
	int			d,
				k;
	double	   *sw,				/* k */
			   *sww;			/* k x k */
	int64		nr,
				rcap;
	double	   *rep;			/* logistic_input: nr x k */
	/* the transition's plausible ranges (ldp_pg.h, as ldp_check and
	 * ldp_release apply them; a parsed collection checks its reports and
	 * sums with them) */
	struct LdpProto *lp;
} ldpc_state;

/* Parses a collection (the bytea of ldp_collect); errors are raised. */
ldpc_state *dpb_pg_ldpc_parse(bytea *b);

/* The WARNING of every inference on a collection holding reports stamped
 * insecure_test: (a no-op for other collections). */
void		dpb_pg_ldpc_warn_insecure(const ldpc_state *st);

/* infer_opts.c: an option error (22023) naming the key; a finite number */
pg_attribute_noreturn()
void		dpb_pg_bad_option(const char *key, const char *what);
double		dpb_pg_option_number(JsonbValue *v, const char *key);

/* posterior.c: the output paths of dpbayes.posterior, shared */
int			dpb_pg_interrupt(void);
void		dpb_pg_sampler_finish(dpb_status st, dpb_err *err, dpb_draws *dr);
void		dpb_pg_progress_stop(dpb_status st, dpb_draws *dr);
void		dpb_pg_emit_draws(ReturnSetInfo *rsinfo, dpb_draws *dr);
void		dpb_pg_emit_summary(ReturnSetInfo *rsinfo, dpb_draws *dr);

#endif
