/*
 * betad_kernel.h — the per-record terms of the betaD log density and their
 * derivatives by the linear predictor (betad_model.h has the formulas):
 * the O(N) transcendental part of every gradient, done four records at a
 * time with glibc's vector math library (libmvec, AVX2) when the build has
 * it and the CPU supports it, otherwise one record at a time.
 *
 * Both paths compute the same functions; they differ in rounding only
 * (libmvec's exp and log are within 4 ulp; the unit test `betad_kernel`
 * bounds the difference).  Which path runs does not depend on the data.
 */
#ifndef DPB_BETAD_KERNEL_H
#define DPB_BETAD_KERNEL_H

#include <stdint.h>

/*
 * Logistic, y_i = +-1, b = beta - 1: returns
 *     sum_i [ q_i^b / b - (p_i^beta + (1 - p_i)^beta) / beta ],
 * p_i = sigma(u_i), q_i = sigma(y_i u_i); with g, g_i = the derivative of
 * the i-th term by u_i.
 */
double		dpb_betad_logistic_terms(const double *u, const double *y, int64_t n,
									 double beta, double *g);

/*
 * Gaussian regression with variance s2: returns sum_i f_i^b / b, f_i^b =
 * (2 pi s2)^(-b/2) exp(-b r_i^2 / (2 s2)), r_i = y_i - lin_i (the data-free
 * integral term is the caller's); with g, g_i = f_i^b r_i / s2 (the
 * derivative by lin_i) and *dsum += sum_i f_i^b (r_i^2 - s2) / (2 s2^2).
 */
double		dpb_betad_gauss_terms(const double *lin, const double *y, int64_t n,
								  double beta, double s2, double *g, double *dsum);

/* 1 when the vector path is in use, 0 otherwise. */
int			dpb_betad_kernel_vector(void);

/* Tests and benchmarks only: force the scalar path (1) or restore the
 * default (0). */
void		dpb_betad_kernel_force_scalar(int on);

#endif
