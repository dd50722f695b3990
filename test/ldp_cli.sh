#!/usr/bin/env bash
# test/ldp_cli.sh — the dpbayes-ldp CLI end to end (run by test_ldp_cli in
# `make unit`, from the repository root).  Prints "ldp_cli: N passed, N
# failed" and exits non-zero on any failure.
set -u
CLI=src/cli/dpbayes-ldp
TCLI=test/dpbayes-ldp-insecure
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ldp_cli: $*"; }
# expect STATUS DESCRIPTION -- command...
expect() {
	local want=$1 what=$2
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, want $want ($(head -c 300 "$T/err"))"; fi
}

for b in "$CLI" "$TCLI"; do
	[ -x "$b" ] || { echo "FAIL ldp_cli: $b not built (make unit builds it)"; exit 1; }
done

cat >"$T/lin.json" <<'EOF'
{"mechanism":"ss_linear","epsilon":1,"delta":1e-5,"d":2,"intercept":false,"clip":1,"y_bound":2,"noise_weights":[1,1,1],"scaling":"none"}
EOF
echo '{"mechanism":"rr","epsilon":1}' >"$T/rr.json"
echo '{"mechanism":"oue","epsilon":1.3,"categories":4}' >"$T/oue.json"
echo '{"mechanism":"scalar_laplace","epsilon":0.7,"lower":-1,"upper":3}' >"$T/lap.json"

# protocol: canonical JSON with its id; the id round-trips through the file
expect 0 "protocol" -- "$CLI" protocol --protocol "$T/lin.json"
id=$(sed -n 's/.*"id":"\([0-9a-f]\{64\}\)".*/\1/p' "$T/out")
[ -n "$id" ] && ok || bad "protocol prints no id"
cp "$T/out" "$T/published.json"
expect 0 "published protocol (with id) accepted" -- "$CLI" protocol --protocol "$T/published.json"
cmp -s "$T/out" "$T/published.json" && ok || bad "protocol output is not a fixed point"
sed 's/"epsilon":1,/"epsilon":2,/' "$T/published.json" >"$T/tampered.json"
expect 1 "tampered protocol refused" -- "$CLI" protocol --protocol "$T/tampered.json"
grep -q "id mismatch" "$T/err" && ok || bad "tampering message"

# calibration: the tight sensitivity sqrt(22) = 4.6904157598
expect 0 "calibration" -- "$CLI" calibration --protocol "$T/lin.json"
grep -q '"sensitivity":4.690415760' "$T/out" && ok || bad "calibration sensitivity: $(cat "$T/out")"
grep -q "\"id\":\"$id\"" "$T/out" && ok || bad "calibration id"

# randomize: header, one report per record, the protocol id first
printf 'x1,x2,y\n0.3,-0.4,1.5\n\n5,5,9\n-1,0,-2\n' >"$T/lin.csv"
expect 0 "randomize linear" -- "$CLI" randomize --protocol "$T/lin.json" --input "$T/lin.csv" --output "$T/rep.csv"
[ "$(head -1 "$T/rep.csv")" = "protocol_id,x1^2,x1*x2,x2^2,y*x1,y*x2,y^2" ] && ok || bad "header: $(head -1 "$T/rep.csv")"
[ "$(grep -c "^$id," "$T/rep.csv")" -eq 3 ] && ok || bad "three reports with the id"
[ "$(awk -F, 'NR > 1 && NF != 7' "$T/rep.csv" | wc -l)" -eq 0 ] && ok || bad "report width"
grep -q insecure "$T/rep.csv" && bad "secure reports stamped insecure" || ok

# the production binary has no seed option; the test build's seeded reports
# are reproducible and stamped insecure
expect 2 "no --insecure-seed in the production CLI" -- "$CLI" randomize --protocol "$T/rr.json" --insecure-seed 1
printf '1\n%.0s' $(seq 20000) >"$T/ones.csv"
expect 0 "seeded rr" -- "$TCLI" randomize --protocol "$T/rr.json" --input "$T/ones.csv" --output "$T/a.csv" --insecure-seed 7
expect 0 "seeded rr again" -- "$TCLI" randomize --protocol "$T/rr.json" --input "$T/ones.csv" --output "$T/b.csv" --insecure-seed 7
cmp -s "$T/a.csv" "$T/b.csv" && ok || bad "seeded reports differ"
[ "$(grep -c '^insecure_test:' "$T/a.csv")" -eq 20000 ] && ok || bad "seeded reports not stamped insecure"
grep -q "NOT private" "$T/err" && ok || bad "no insecure warning"
# the OS source: the fraction of 1s is within 6 sd of e/(1+e) = 0.7311
expect 0 "rr" -- "$CLI" randomize --protocol "$T/rr.json" --input "$T/ones.csv" --output "$T/c.csv"
awk -F, 'NR > 1 { n++; s += $2 } END { p = 0.7310585786; sd = sqrt(p * (1 - p) / n);
	d = s / n - p; exit !(n == 20000 && d < 6 * sd && d > -6 * sd) }' "$T/c.csv" && ok || bad "rr frequency"
cmp -s "$T/a.csv" "$T/c.csv" && bad "OS reports equal seeded ones" || ok

# oue and scalar laplace
printf '1\n4\n2\n' | "$CLI" randomize --protocol "$T/oue.json" >"$T/o.csv" 2>"$T/err" && ok || bad "oue"
[ "$(head -1 "$T/o.csv")" = "protocol_id,z1,z2,z3,z4" ] && ok || bad "oue header"
[ "$(awk -F, 'NR > 1 { for (i = 2; i <= 5; i++) if ($i != 0 && $i != 1) b++ } END { print b + 0 }' "$T/o.csv")" -eq 0 ] && ok || bad "oue bits"
printf '0.5\n100\n-7\n' | "$CLI" randomize --protocol "$T/lap.json" >"$T/l.csv" 2>"$T/err" && ok || bad "laplace"
[ "$(wc -l <"$T/l.csv")" -eq 4 ] && ok || bad "laplace: out-of-range values are clipped, not dropped"
echo '{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-6,"lower":-1,"upper":3}' >"$T/sg.json"
printf '0.5\n100\n' | "$CLI" randomize --protocol "$T/sg.json" >"$T/g.csv" 2>"$T/err" && ok || bad "scalar gaussian"
[ "$(wc -l <"$T/g.csv")" -eq 3 ] && ok || bad "scalar gaussian reports"
expect 0 "scalar gaussian calibration" -- "$CLI" calibration --protocol "$T/sg.json"
grep -q '"sigma2":' "$T/out" && ok || bad "scalar gaussian calibration output"

# input perturbation: layout x1..xd,y; logistic labels stay 0/1
echo '{"mechanism":"linear_input","epsilon":1,"delta":1e-6,"d":2,"clip":1,"y_bound":3}' >"$T/li.json"
echo '{"mechanism":"logistic_input","epsilon":2,"delta":1e-6,"d":3,"clip":1}' >"$T/gi.json"
printf '0.3,-0.4,1.5\n3,4,-7\n' | "$CLI" randomize --protocol "$T/li.json" >"$T/li.csv" 2>"$T/err" && ok || bad "linear_input"
[ "$(head -1 "$T/li.csv")" = "protocol_id,x1,x2,y" ] && ok || bad "linear_input header: $(head -1 "$T/li.csv")"
[ "$(awk -F, 'NR > 1 && NF == 4' "$T/li.csv" | wc -l)" -eq 2 ] && ok || bad "linear_input width"
printf '0.3,0.2,0.1,1\n5,5,5,0\n0,0,0,-1\n' | "$CLI" randomize --protocol "$T/gi.json" >"$T/gi.csv" 2>"$T/err" && ok || bad "logistic_input"
[ "$(awk -F, 'NR > 1 && NF == 5 && ($5 == 0 || $5 == 1)' "$T/gi.csv" | wc -l)" -eq 3 ] && ok || bad "logistic_input labels"
expect 0 "logistic_input calibration" -- "$CLI" calibration --protocol "$T/gi.json"
grep -q '"epsilon_label":1,' "$T/out" && ok || bad "logistic_input budget split: $(cat "$T/out")"
printf '0.3,0.2,0.1,0.5\n' >"$T/gbad.csv"
expect 1 "logistic_input label 0.5" -- "$CLI" randomize --protocol "$T/gi.json" --input "$T/gbad.csv"

# client and server agree byte for byte: the server's canonical texts and
# calibrations of these protocols (built there with dpbayes.ldp_protocol) are
# lines of expected/22_ldp_server.out, which pg_regress checks against the
# server's actual output
EXP=expected/22_ldp_server.out
i=0
while IFS= read -r proto; do
	i=$((i + 1))
	echo "$proto" >"$T/x$i.json"
	slim=$(src/cli/ldp-slim-check "$T/x$i.json" 2>/dev/null)
	full=$("$CLI" protocol --protocol "$T/x$i.json" | sed -n 's/.*"id":"\([0-9a-f]\{64\}\)".*/\1/p')
	[ -n "$full" ] && [ "${slim%% *}" = "$full" ] && [ "${slim##* }" = 1 ] && ok || bad "slim library on protocol $i: $slim vs $full"
	for cmd in protocol calibration; do
		line=$("$CLI" "$cmd" --protocol "$T/x$i.json" 2>"$T/err")
		if [ -n "$line" ] && grep -qxF -- "$line" "$EXP"; then ok; else bad "server $cmd of protocol $i differs: $line"; fi
	done
done <<'EOF'
{"mechanism":"rr","epsilon":1}
{"mechanism":"oue","epsilon":1.3,"categories":4}
{"mechanism":"scalar_laplace","epsilon":0.7,"lower":-1,"upper":3}
{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-6,"lower":-1,"upper":3}
{"mechanism":"ss_linear","epsilon":1,"delta":1e-5,"d":2,"intercept":false,"clip":1,"y_bound":2,"noise_weights":[1,1,1],"scaling":"none"}
{"mechanism":"ss_logistic","epsilon":0.5,"delta":1e-6,"d":3,"lower":[0,0,0],"upper":[1,2,3]}
{"mechanism":"ss_poisson","epsilon":2,"delta":1e-6,"d":1,"y_bound":10,"noise_weights":[1,2],"scaling":"none"}
{"mechanism":"linear_input","epsilon":1,"delta":1e-6,"d":2,"clip":1,"y_bound":3}
{"mechanism":"logistic_input","epsilon":2,"delta":1e-6,"d":3,"clip":2,"label_share":0.25}
EOF
[ "$i" -eq 9 ] && ok || bad "protocol list"

# client and server agree on every protocol input (issue 24, item 5): the
# server takes the protocol as text and reads it with the client's parser;
# expected/22_ldp_server.out holds its answers to these texts (a refusal's
# DETAIL line, or the canonical text and calibration), and the CLI must give
# the same: a duplicated key refused, a delta of 1e-70 accepted, the same
# delta as jsonb spells it (74 characters) refused
echo '{"mechanism":"rr","epsilon":1,"epsilon":2}' >"$T/dup.json"
tiny='{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-70,"lower":0,"upper":1}'
echo "$tiny" >"$T/tiny.json"
echo '{"delta": 0.0000000000000000000000000000000000000000000000000000000000000000000001, "lower": 0, "upper": 1, "epsilon": 1, "mechanism": "scalar_gaussian"}' >"$T/tinyjsonb.json"
for f in dup tinyjsonb; do
	expect 1 "protocol $f refused" -- "$CLI" protocol --protocol "$T/$f.json"
	msg=$(sed -n 's/^dpbayes-ldp: [^:]*: invalid protocol: //p' "$T/err")
	[ -n "$msg" ] && grep -qxF "DETAIL:  $msg" "$EXP" && ok || bad "the server refuses $f otherwise: $(cat "$T/err")"
done
for cmd in protocol calibration; do
	line=$("$CLI" "$cmd" --protocol "$T/tiny.json" 2>"$T/err")
	if [ -n "$line" ] && grep -qxF -- "$line" "$EXP"; then ok; else bad "server $cmd of delta 1e-70 differs: $line"; fi
done

# the installed client (make install-ldp-client): its headers, library and
# pkg-config file alone build a program that computes the same ids
if make -s --no-print-directory install-ldp-client DESTDIR="$T/inst" PREFIX=/usr >"$T/inst.log" 2>&1 &&
	cc -std=gnu99 -o "$T/slim-installed" src/cli/ldp_slim_check.c \
		$(PKG_CONFIG_PATH="$T/inst/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/inst" \
			pkg-config --cflags --libs dpbayes-ldp) 2>>"$T/inst.log"; then
	same=1
	for j in $(seq 1 9); do
		[ "$("$T/slim-installed" "$T/x$j.json" 2>&1)" = "$(src/cli/ldp-slim-check "$T/x$j.json" 2>&1)" ] || same=0
	done
	[ "$same" = 1 ] && ok || bad "the installed client library computes other ids"
else
	bad "install-ldp-client: $(tail -3 "$T/inst.log")"
fi

# the client is slim (docs/ldp-client.md): the CLI, its test variant and a
# program linked against the static library need libc, libm, libcrypto (and
# libpthread, ld-linux) only -- no GSL, BLAS, LAPACK, gfortran, quadmath, no
# libmvec -- both directly (NEEDED) and after the loader resolves them (ldd)
slim_libs() {
	local f=$1 what=$2 needed extra
	needed=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	[ -n "$needed" ] || { bad "$what: readelf -d lists no NEEDED entries"; return; }
	extra=$(printf '%s\n' $needed | grep -Ev '^(libc|libm|libcrypto|libpthread|ld-linux[-.a-z0-9_]*)\.so(\.[0-9]+)*$')
	[ -z "$extra" ] && ok || bad "$what needs $(echo $extra)"
	extra=$(ldd "$f" 2>/dev/null | grep -Ei 'libgsl|openblas|libblas|lapack|gfortran|quadmath|libmvec')
	[ -z "$extra" ] && ok || bad "$what loads $(echo $extra | tr -s ' ')"
}
slim_libs "$CLI" "the CLI"
slim_libs "$TCLI" "the insecure test CLI"
slim_libs src/cli/ldp-slim-check "a program linked against libdpbayes-ldp.a"
# ... and its sources (the library's objects in build/ldp, and the CLI)
# include no header of those libraries, so libc, libssl-dev's headers and
# libm build it
srcs=src/cli/dpbayes_ldp.c
for o in build/ldp/*.o; do srcs="$srcs $(find src/core -name "$(basename "$o" .o).c")"; done
[ "$(echo $srcs | wc -w)" -ge 15 ] && ok || bad "client sources: $srcs"
hdrs=$(cc -std=gnu99 -Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/ldp -M $srcs 2>&1 |
	tr ' \\' '\n\n' | grep -Ei 'gsl|cblas|openblas|lapack|postgres|inference|betad|accounting|fatal|error' | sort -u)
[ -z "$hdrs" ] && ok || bad "the client's sources include $(echo $hdrs)"

# a target without __int128 (32-bit) stops at a clear #error naming the
# reason (simulated by undefining the compiler's __SIZEOF_INT128__)
printf '#include "ldp.h"\nint main(void) { return 0; }\n' >"$T/i128.c"
cc -std=gnu99 -U__SIZEOF_INT128__ -Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/ldp \
	-fsyntax-only "$T/i128.c" >"$T/i128.log" 2>&1 && bad "ldp.h compiled without __int128" || ok
grep -m1 'error' "$T/i128.log" | grep -q '#error "dpbayes needs unsigned __int128.*32-bit targets are not supported' &&
	ok || bad "no clear #error without __int128: $(grep -m1 error "$T/i128.log")"

# docs/ldp-client.md cannot rot: its complete program compiles against the
# built static library without warnings and prints the CLI's header and id;
# its worked example's published protocol is the CLI's
DOC=docs/ldp-client.md
sed -n '/<!-- ldp-client-example: begin -->/,/<!-- ldp-client-example: end -->/p' "$DOC" |
	sed '1,2d;$d' | sed '$d' >"$T/randomize_one.c"
if cc -std=gnu99 -Wall -Wextra -Werror -Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/ldp \
	-o "$T/randomize_one" "$T/randomize_one.c" src/cli/libdpbayes-ldp.a -lcrypto -lm -pthread 2>"$T/doc.log"; then
	ok
	"$CLI" randomize --protocol "$T/lin.json" --input "$T/lin.csv" --output "$T/rep1.csv" 2>/dev/null
	"$T/randomize_one" "$T/lin.json" 0.3 -0.4 1.5 >"$T/one.csv" 2>"$T/err" && ok || bad "the guide's program: $(cat "$T/err")"
	[ "$(head -1 "$T/one.csv")" = "$(head -1 "$T/rep1.csv")" ] && ok || bad "the guide's program prints another header"
	[ "$(sed -n 2p "$T/one.csv" | cut -d, -f1)" = "$id" ] && [ "$(sed -n 2p "$T/one.csv" | awk -F, '{ print NF }')" -eq 7 ] &&
		ok || bad "the guide's program's report: $(sed -n 2p "$T/one.csv")"
	"$T/randomize_one" "$T/lin.json" 0.3 nan 1.5 >/dev/null 2>"$T/err"
	[ $? -eq 1 ] && ok || bad "the guide's program accepts a NaN"
	slim_libs "$T/randomize_one" "the guide's program"
else
	bad "the program in $DOC does not compile: $(head -5 "$T/doc.log")"
fi
dproto=$(sed -n "s/^    \$ echo '\(.*\)' > protocol.json$/\1/p" "$DOC")
echo "$dproto" >"$T/doc.json"
dpub=$("$CLI" protocol --protocol "$T/doc.json" 2>&1)
[ -n "$dproto" ] && grep -qxF "    $dpub" "$DOC" && ok || bad "the guide's published protocol is not the CLI's: $dpub"
dhdr=$(printf '0.3,-0.4,1.5\n' | "$CLI" randomize --protocol "$T/doc.json" 2>/dev/null | head -1)
[ "$(grep -c -xF "    $dhdr" "$DOC")" -ge 2 ] && ok || bad "the guide's report header is not the CLI's: $dhdr"

# errors: clear message, non-zero status, no data value echoed
printf '0.3,-0.4,1.5\n0.1,zz,1\n' >"$T/badnum.csv"
expect 1 "non-number" -- "$CLI" randomize --protocol "$T/lin.json" --input "$T/badnum.csv"
grep -q "line 2, column 2: not a number" "$T/err" && ok || bad "non-number message: $(cat "$T/err")"
printf '0.3,-0.4\n' >"$T/short.csv"
expect 1 "short record" -- "$CLI" randomize --protocol "$T/lin.json" --input "$T/short.csv"
grep -q "expected 3 values" "$T/err" && ok || bad "short record message"
printf '0.31415,nan,1\n' >"$T/nan.csv"
expect 1 "NaN feature" -- "$CLI" randomize --protocol "$T/lin.json" --input "$T/nan.csv"
grep -q "0.31415" "$T/err" && bad "a data value was echoed" || ok
printf '1\n7\n' >"$T/cat.csv"
expect 1 "oue category out of range" -- "$CLI" randomize --protocol "$T/oue.json" --input "$T/cat.csv"
echo '{"mechanism":"rr"}' >"$T/noeps.json"
expect 1 "protocol without epsilon" -- "$CLI" calibration --protocol "$T/noeps.json"
grep -q '"epsilon" is required' "$T/err" && ok || bad "missing-epsilon message"
expect 1 "missing protocol file" -- "$CLI" calibration --protocol "$T/none.json"
expect 2 "no --protocol" -- "$CLI" calibration
expect 2 "unknown command" -- "$CLI" frobnicate
expect 2 "no command" -- "$CLI"
expect 0 "help" -- "$CLI" --help

# selftest on the OS source
expect 0 "selftest" -- "$CLI" selftest --draws 20000
grep -q "5 checks, 0 failed" "$T/out" && ok || bad "selftest output"

echo "ldp_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
