/*
 * release_agg.h — the transition steps of the release aggregates, shared by
 * the array form (release_agg.c) and the column form (release_cols.c).  The
 * state is opaque: its exact sums never leave release_agg.c except through
 * the final functions.
 */
#ifndef DPBAYES_RELEASE_AGG_H
#define DPBAYES_RELEASE_AGG_H

#include "dpbayes_pg.h"

#include "utils/array.h"

typedef struct RelState RelState;

/* Checks the call context and that argument p_arg (the privacy parameters)
 * is not null; returns the group's state (new on its first row) after
 * reading or checking the parameters. */
RelState   *dpb_rel_trans_state(FunctionCallInfo fcinfo, dpb_model model,
								int p_arg, MemoryContext *aggcxt);

/* The number of features fixed by the group's first row, 0 before it;
 * dpb_rel_setup fixes it (and checks it against the parameters). */
int			dpb_rel_d(const RelState *s);
void		dpb_rel_setup(RelState *s, MemoryContext cxt, int d);

/* The response of argument y_arg (not null), checked for the model. */
double		dpb_rel_response(FunctionCallInfo fcinfo, dpb_model model, int y_arg);

/* Clips the record (x: dpb_rel_d values; an error if one is not finite)
 * and adds it to the sums. */
void		dpb_rel_add(RelState *s, const double *x, double y);

/* The length of a feature array (any element type), checked: one
 * dimension, 1 to DPB_MAX_D elements, no nulls. */
int			dpb_rel_array_len(ArrayType *a);

/* A float8[] of features (checked like dpb_rel_array_len): its length,
 * and its values in *values (pointing into the array). */
int			dpb_rel_feature_array(ArrayType *a, double **values);

/* The column form's features (arguments 3.. of the transition function:
 * state, y, p, VARIADIC x), converted to double and checked for nulls;
 * agg names the aggregate in hints.  Returns a buffer of *d values that
 * the next row overwrites. */
double	   *dpb_rel_cols_features(FunctionCallInfo fcinfo, const char *agg, int *d);
/* the same under the governed row policy: *skip set for a row to drop */
double	   *dpb_rel_cols_features_governed(FunctionCallInfo fcinfo, const char *agg, int *d,
										   bool *skip);

/* The error of a row whose feature count differs from the group's. */
pg_attribute_noreturn()
void		dpb_rel_d_error(int d0, int d);

/* "<what> must not be null", with the NULL policy's hint. */
pg_attribute_noreturn()
void		dpb_rel_null_error(const char *what);

#endif
