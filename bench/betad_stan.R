# bench/betad_stan.R CSV WARMUP ITERS — Stan's NUTS (rstan, 4 chains one
# after the other on one core) on the betaD logistic posterior of
# bench/stan/betad_logistic.stan, for bench/betad_stan.sh.  Prints the
# sampling time (compilation excluded), the leapfrog steps (= gradient
# evaluations) and the posterior means and sds.
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
D <- as.matrix(read.csv(args[1], header = FALSE))
warmup <- as.integer(args[2]); iters <- as.integer(args[3])
data <- list(N = nrow(D), d = ncol(D) - 1, X = D[, -1, drop = FALSE], y = D[, 1],
             beta = 3, prior_sd = 3)
mod <- stan_model("bench/stan/betad_logistic.stan")
t0 <- proc.time()[["elapsed"]]
fit <- sampling(mod, data = data, chains = 4, cores = 1, warmup = warmup,
                iter = warmup + iters, seed = 1, refresh = 0,
                init = function() list(a = rnorm(1, 0, 3), w = rnorm(data$d, 0, 3)))
el <- proc.time()[["elapsed"]] - t0
sp <- get_sampler_params(fit, inc_warmup = TRUE)
leap <- sum(sapply(sp, function(m) sum(m[, "n_leapfrog__"])))
s <- summary(fit, pars = c("a", "w"))$summary
cat(sprintf("stan_seconds %.2f\nstan_gradients %d\nstan_max_rhat %.4f\nstan_min_ess %.0f\n",
            el, leap, max(s[, "Rhat"]), min(s[, "n_eff"])))
cat("stan_mean", sprintf("%.6f", s[, "mean"]), "\n")
cat("stan_sd", sprintf("%.6f", s[, "sd"]), "\n")
