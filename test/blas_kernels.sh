#!/usr/bin/env bash
# test/blas_kernels.sh — which of the given OpenBLAS kernels (values of
# OPENBLAS_CORETYPE) this CPU can run.
#
#   bash test/blas_kernels.sh "Prescott Haswell SkylakeX Zen"
#
# Prints the runnable ones on one line, and on stderr a note for each one
# skipped (its instructions are missing on this CPU) or unknown.  A kernel
# the CPU cannot run would crash with SIGILL, so run_checks.sh asks first.
set -euo pipefail
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
has() {
	local f
	for f in "$@"; do
		case "$flags" in *" $f "*) ;; *) return 1 ;; esac
	done
}
out=()
for k in ${1:-}; do
	case "$k" in
	native) ok=1 ;;
	Prescott) has pni && ok=1 || ok=0 ;;
	Sandybridge) has avx && ok=1 || ok=0 ;;
	Haswell | Zen) has avx2 fma && ok=1 || ok=0 ;;
	SkylakeX) has avx512f avx512cd avx512bw avx512dq avx512vl && ok=1 || ok=0 ;;
	Cooperlake) has avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16 && ok=1 || ok=0 ;;
	*)
		echo "blas_kernels.sh: unknown kernel $k (known: native Prescott Sandybridge Haswell Zen SkylakeX Cooperlake), skipped" >&2
		continue
		;;
	esac
	if [ "$ok" = 1 ]; then
		out+=("$k")
	else
		echo "blas_kernels.sh: this CPU cannot run the $k kernel, skipped" >&2
	fi
done
echo "${out[*]:-}"
