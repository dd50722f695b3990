#!/usr/bin/env bash
# bench/posterior_grid.sh — are the default posteriors converged?  Runs the
# default posterior (4 chains x 1000 draws after 1000 warmup, seed 7) on
# simulated releases (reproducible, INSECURE seeded noise) over the grid
#   linear:            N in {100, 1e4, 1e6} x eps in {0.1, 1, 10} x d in {2, 5, 10}
#                      x {gaussian, laplace}
#   logistic, poisson: N in {100, 1e4, 1e6} x eps in {0.1, 1, 10} x d in {2, 4, 8},
#                      gaussian
# and records max R-hat, min bulk / tail ESS over the reported variables,
# divergences, wall time and PASS (R-hat <= 1.01, bulk and tail ESS >= 400)
# in bench/results/posterior_grid.md, one section per model: a run replaces
# only the sections of the models it ran.  No server needed (bench/posterior_grid.c).
#
#   MODELS=glm bash bench/posterior_grid.sh        logistic and poisson
#   MODELS=linear bash bench/posterior_grid.sh     linear only
#   MODELS="logistic" NS=100 EPS=1 DS=2,4 bash bench/posterior_grid.sh
#   (MODELS: all (default), glm, linear, logistic, poisson, space-separated
#   combinations; NS, EPS, DS, MECHS: comma-separated subsets of the grid;
#   SEED: the sampler's seed, default 7; LAPLACE_NOISE=omega|latent|latent_chol|auto:
#   options laplace_noise (default auto); OUT: the results file)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
MODELS=${MODELS:-all}
MODELS=${MODELS//all/linear logistic poisson}
MODELS=${MODELS//glm/logistic poisson}
out=${OUT:-bench/results/posterior_grid.md}
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/posterior_grid \
	bench/posterior_grid.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
if [ ! -f "$out" ]; then
	cat > "$out" <<'HDR'
# Convergence of the default posteriors over a grid

`bash bench/posterior_grid.sh` (bench/posterior_grid.c): the default posterior
(4 chains x 1000 draws after 1000 warmup, seed 7) of simulated releases
(bench/bench_util.c, `bench_release_grid`: features x_j ~ N(0, 0.25^2) for linear,
N(0, 0.36/d) for the GLMs; delta 1e-5 for the Gaussian mechanism; noise from the
insecure seeded source, so every run is reproducible).  Columns: the number of
reported variables, the largest R-hat and the smallest bulk and tail ESS over
them, divergent transitions after warmup, sampler steps per iteration (NUTS: gradient
evaluations, warmup included; Gibbs-SS: 1), wall time, and PASS when R-hat <= 1.01
and bulk and tail ESS >= 400 (divergences are listed, not part of PASS).  Each
model's section is rewritten by the run that covers it; the machine (2 cores)
was shared with other jobs, so wall times are noisy.
HDR
fi
for model in $MODELS; do
	tmp=$(mktemp)
	{
		echo "<!-- grid:$model -->"
		echo "## $model"
		echo
		echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load average at start $(cut -d' ' -f1 /proc/loadavg);"
		echo "command: \`MODELS=$model${NS:+ NS=$NS}${EPS:+ EPS=$EPS}${DS:+ DS=$DS}${MECHS:+ MECHS=$MECHS}${SEED:+ SEED=$SEED}${LAPLACE_NOISE:+ LAPLACE_NOISE=$LAPLACE_NOISE} bash bench/posterior_grid.sh\`"
		echo
		echo "| model | noise | d | N | eps | variables | max R-hat | min bulk ESS | min tail ESS | divergences | steps / iteration | wall s | result |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		OPENBLAS_NUM_THREADS=1 nice ./bench/posterior_grid "$model" | tee /dev/stderr
		echo "<!-- /grid:$model -->"
	} > "$tmp"
	# replace the model's section (or append it)
	awk -v m="$model" -v f="$tmp" '
		$0 == "<!-- grid:" m " -->" { skip = 1; while ((getline l < f) > 0) print l; done = 1; next }
		skip && $0 == "<!-- /grid:" m " -->" { skip = 0; next }
		!skip { print }
		END { if (!done) { print ""; while ((getline l < f) > 0) print l } }
	' "$out" > "$out.new"
	mv "$out.new" "$out"
	rm -f "$tmp"
done
