/*
 * noise.h — the privacy noise: the only module that draws it.
 *
 * Noise that protects privacy is drawn from a GSL generator whose bits come
 * from a caller-supplied secure source (pg_strong_random in the server):
 * dpb_strong_rng_alloc() wraps such a source in a gsl_rng.  Tests may instead
 * pass a seeded GSL generator; releases made that way are marked insecure by
 * the caller.  Uniforms have 53 random bits.
 *
 * Known limitation (Mironov 2012): floating-point Laplace and Gaussian
 * samples leak through their low-order bits.  Hardening (snapping, or
 * discrete sampling on a power-of-two grid) belongs here and nowhere else.
 */
#ifndef DPB_NOISE_H
#define DPB_NOISE_H

#include "dpb.h"

#include <gsl/gsl_rng.h>

/* A secure byte source: fills buf with len bytes, returns 1 on success. */
typedef int (*dpb_bytes_fn) (void *buf, size_t len);

/* A gsl_rng drawing from `fill` (malloc'ed; gsl_rng_free() it).  Returns
 * NULL when out of memory.  After any draw, dpb_strong_rng_failed() tells
 * whether the source failed (the draws are then unusable). */
gsl_rng    *dpb_strong_rng_alloc(dpb_bytes_fn fill);
int			dpb_strong_rng_failed(const gsl_rng *r);

/* N(0, sd^2) */
double		dpb_noise_gaussian(gsl_rng *r, double sd);

/* Laplace(0, b): density exp(-|v|/b) / (2b) */
double		dpb_noise_laplace(gsl_rng *r, double b);

#endif
