// The betaD posterior of logistic regression (docs/betad.md; the model of
// src/core/betad/betad_model.c): y in {0, 1}, u = a + X w, p = inv_logit(u),
// q = p when y = 1, 1 - p otherwise, b = beta - 1:
//   log pi = log prior + sum_i [ q_i^b / b - (p_i^beta + (1 - p_i)^beta) / beta ]
// with a, w ~ N(0, prior_sd^2).  Used by bench/betad_stan.sh to compare
// Stan's NUTS with dpbayes's on the same model and data.
data {
  int<lower=1> N;
  int<lower=1> d;
  matrix[N, d] X;
  vector<lower=0, upper=1>[N] y;
  real<lower=1> beta;
  real<lower=0> prior_sd;
}
parameters {
  real a;
  vector[d] w;
}
model {
  vector[N] u = a + X * w;
  vector[N] lp = log_inv_logit(u);
  vector[N] lpm = log1m_inv_logit(u);
  real b = beta - 1;
  a ~ normal(0, prior_sd);
  w ~ normal(0, prior_sd);
  target += sum(exp(b * (y .* lp + (1 - y) .* lpm))) / b
            - sum(exp(beta * lp) + exp(beta * lpm)) / beta;
}
