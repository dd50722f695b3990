/*
 * ks.h — one-sample Kolmogorov-Smirnov test against the uniform
 * distribution, and the two-sample KS distance (used by the calibration
 * tests and by dpbayes.ks_distance()).
 */
#ifndef DPB_KS_H
#define DPB_KS_H

/* D = sup |F_n(u) - u| for u in [0, 1]; u is sorted in place. */
double		dpb_ks_uniform_stat(double *u, int n);

/* Asymptotic p-value of D for n samples (Kolmogorov distribution with
 * Stephens' small-sample correction). */
double		dpb_ks_pvalue(double D, int n);

/* Two-sample KS distance sup |F_a - F_b|; a and b are sorted in place. */
double		dpb_ks_two_sample(double *a, int na, double *b, int nb);

#endif
