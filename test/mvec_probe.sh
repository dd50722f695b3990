#!/bin/sh
# test/mvec_probe.sh CC — prints -lmvec when CC can link a call to glibc's
# AVX2 vector exp and log (libmvec, x86-64), nothing otherwise.  Used by the
# Makefiles and bench/tools/core.sh to build the betaD kernel's vector path
# (src/core/betad/betad_kernel.c).
cc=${1:-cc}
[ "$(uname -m)" = x86_64 ] || exit 0
dir=$(mktemp -d) || exit 0
trap 'rm -rf "$dir"' EXIT
cat > "$dir/p.c" <<'C'
#include <immintrin.h>
extern __m256d _ZGVdN4v_exp(__m256d);
extern __m256d _ZGVdN4v_log(__m256d);
__attribute__((target("avx2"))) static double f(double x)
{
	__m256d v = _ZGVdN4v_log(_ZGVdN4v_exp(_mm256_set1_pd(x)));
	return _mm256_cvtsd_f64(v);
}
int main(void) { return f(1.0) > 2.0; }
C
"$cc" -O2 -o "$dir/p" "$dir/p.c" -lmvec -lm >/dev/null 2>&1 && echo -lmvec
exit 0
