/*
 * dpb.c — error messages and enum names.
 */
#include "dpb.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
dpb_err_set(dpb_err *err, const char *msg, const char *detailfmt,...)
{
	va_list		ap;

	if (err == NULL)
		return;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	err->detail[0] = '\0';
	if (detailfmt != NULL)
	{
		va_start(ap, detailfmt);
		vsnprintf(err->detail, sizeof(err->detail), detailfmt, ap);
		va_end(ap);
	}
}

const char *
dpb_model_name(dpb_model m)
{
	switch (m)
	{
		case DPB_MODEL_LINEAR:
			return "linear";
		case DPB_MODEL_LOGISTIC:
			return "logistic";
		case DPB_MODEL_POISSON:
			return "poisson";
	}
	return "unknown";
}

const char *
dpb_mechanism_name(dpb_mechanism m)
{
	switch (m)
	{
		case DPB_MECH_GAUSSIAN:
			return "gaussian";
		case DPB_MECH_LAPLACE:
			return "laplace";
		case DPB_MECH_NONE:
			return "none";
		case DPB_MECH_LDP_GAUSSIAN:
			return "ldp_gaussian";
	}
	return "unknown";
}

const char *
dpb_scaling_name(dpb_scaling s)
{
	switch (s)
	{
		case DPB_SCALE_BOX:
			return "box";
		case DPB_SCALE_BALL:
			return "ball";
	}
	return "unknown";
}

dpb_model
dpb_model_from_name(const char *s)
{
	if (strcmp(s, "linear") == 0)
		return DPB_MODEL_LINEAR;
	if (strcmp(s, "logistic") == 0)
		return DPB_MODEL_LOGISTIC;
	if (strcmp(s, "poisson") == 0)
		return DPB_MODEL_POISSON;
	return (dpb_model) 0;
}

dpb_mechanism
dpb_mechanism_from_name(const char *s)
{
	if (strcmp(s, "gaussian") == 0)
		return DPB_MECH_GAUSSIAN;
	if (strcmp(s, "laplace") == 0)
		return DPB_MECH_LAPLACE;
	if (strcmp(s, "none") == 0)
		return DPB_MECH_NONE;
	if (strcmp(s, "ldp_gaussian") == 0)
		return DPB_MECH_LDP_GAUSSIAN;
	return (dpb_mechanism) 0;
}

dpb_scaling
dpb_scaling_from_name(const char *s)
{
	if (strcmp(s, "box") == 0)
		return DPB_SCALE_BOX;
	if (strcmp(s, "ball") == 0)
		return DPB_SCALE_BALL;
	return (dpb_scaling) 0;
}

const char *
dpb_neighbours_name(dpb_neighbours n)
{
	switch (n)
	{
		case DPB_NB_ADD_REMOVE:
			return "add_remove";
		case DPB_NB_REPLACE:
			return "replace";
	}
	return "unknown";
}

dpb_neighbours
dpb_neighbours_from_name(const char *s)
{
	if (strcmp(s, "add_remove") == 0)
		return DPB_NB_ADD_REMOVE;
	if (strcmp(s, "replace") == 0)
		return DPB_NB_REPLACE;
	return (dpb_neighbours) 0;
}
