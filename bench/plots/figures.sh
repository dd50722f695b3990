#!/usr/bin/env bash
# bench/plots/figures.sh — `make figures`: redraw docs/figures/*.png from the
# stored benchmark results in bench/results (no benchmark is run; gnuplot-nox).
# docs/figures/demo_intervals.png is a copy of one `make demo` picture
# (demo-output/intervals.png) and is not redrawn here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
R=bench/results F=docs/figures
mkdir -p "$F"
bash bench/plots/sbc_ranks.sh $R/sbc_linear.md "thinned by 100" $F/sbc_linear.png \
	"SBC rank histograms, linear regression (Gibbs-SS), d = 2, N = 100, epsilon = 0.5, 1000 replications ($R/sbc_linear.md)" \
	"noise-aware Gaussian,naive Gaussian,noise-aware Laplace" "theta0 (intercept),theta1,theta2,sigma"
bash bench/plots/sbc_ranks.sh $R/sbc_glm_ranks.md "" $F/sbc_glm.png \
	"SBC ranks, noise-aware logistic/Poisson (NUTS), N = 2000, epsilon = 1, 200 replications" \
	"logistic,Poisson" "theta0 (intercept),theta1,theta2"
bash bench/plots/accuracy.sh $R/glm_accuracy_sweep.md $R/glm_accuracy_eps.md $F/accuracy.png
bash bench/plots/betad_mlp_utility.sh $R/betad_mlp_utility.md $F/betad_mlp_utility.png
