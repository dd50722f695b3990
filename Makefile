# dpbayes — top-level make targets.
#
#   make            build the extension (PGXS, see dpbayes.mk)
#   make install    install it into the PostgreSQL found by pg_config
#   make check      every test: C unit tests, then pg_regress on a throwaway
#                   cluster started and stopped by test/run_checks.sh
#   make demo       end to end on a throwaway cluster (test/demo.sh); writes
#                   demo-output/intervals.png
#   make playground psql on a throwaway cluster with dpbayes and the demo
#                   tables (test/playground.sh); removed when psql exits
#   make setup      the one privileged step (root or sudo): Debian packages,
#                   build, install (test/setup.sh; `sudo bash test/setup.sh`
#                   works before make is installed)
#   make uninstall  remove the installed extension files
#   make unit       only the C unit tests of src/core (builds the LDP CLI too)
#   make check-citus  only the Citus test: a coordinator and two workers
#                   (test/citus.sh; builds and installs Citus when missing;
#                   part of make check too, docs/scale-out.md)
#   make ldp-cli    the local-DP client src/cli/dpbayes-ldp (docs/ldp-client.md;
#                   built from the slim library alone: libcrypto and libm)
#   make install-ldp-client  its static library, headers, CLI and pkg-config file
#   make libdpbayes-ldp  the slim client library src/cli/libdpbayes-ldp.a
#                   (only the client's modules; needs libcrypto, libm and
#                   pthreads (in libc since glibc 2.34), no GSL, no BLAS)
#   make bench      the benchmarks in bench/
#   make figures    redraw docs/figures/*.png from bench/results (gnuplot)
#
# `make check` and `make demo` install missing Debian packages first
# (apt-get, when run as root; otherwise they print the command to run).

PG_CONFIG ?= pg_config
PGXS_MAKE = $(MAKE) -f dpbayes.mk PG_CONFIG=$(PG_CONFIG)

CORE_SRCS = $(sort $(wildcard src/core/*.c src/core/*/*.c))
# the core is in sub-folders by concern (common, release, inference,
# accounting, ldp, betad); its sources include headers by bare name
CORE_INC = -Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/inference -Isrc/core/accounting -Isrc/core/ldp -Isrc/core/betad
UNIT_SRCS = $(sort $(wildcard test/*.c))
CC ?= cc
# glibc's vector math library (libmvec, x86-64): the AVX2 path of the betaD
# kernel (src/core/betad/betad_kernel.c); without it the scalar path is built
MVEC_LIBS := $(shell sh test/mvec_probe.sh $(CC))
MVEC_CFLAGS := $(if $(MVEC_LIBS),-DDPB_HAVE_LIBMVEC)
UNIT_CFLAGS = -O2 -g -std=gnu99 -Wall -Wextra -Wno-unused-parameter $(CORE_INC) \
	$(shell pkg-config --cflags openblas 2>/dev/null) $(MVEC_CFLAGS)
# -pthread: the bit source's fork detection (pthread_once, pthread_atfork)
# and the thread test; part of libc from glibc 2.34 on
UNIT_LIBS = -lgsl -lopenblas -lcrypto $(MVEC_LIBS) -lm -pthread

LDP_CLI = src/cli/dpbayes-ldp
LDP_CLI_INSECURE = test/dpbayes-ldp-insecure

.PHONY: ldp-cli libdpbayes-ldp install-ldp-client all install uninstall clean installcheck check check-citus demo playground setup unit bench deps figures

all:
	$(PGXS_MAKE) all

install:
	$(PGXS_MAKE) install

uninstall:
	$(PGXS_MAKE) uninstall

installcheck:
	$(PGXS_MAKE) installcheck

clean:
	$(PGXS_MAKE) clean
	rm -f test/unit_run $(LDP_CLI) $(LDP_CLI_INSECURE) $(LDP_LIB) $(LDP_SLIM_CHECK)
	rm -rf build/ldp

deps:
	bash test/deps.sh

test/unit_run: $(CORE_SRCS) $(UNIT_SRCS) $(wildcard src/core/*.h src/core/*/*.h) test/unit.h
	$(CC) $(UNIT_CFLAGS) -o $@ $(CORE_SRCS) $(UNIT_SRCS) $(UNIT_LIBS)

# The slim client library: the protocol, the randomizers, the samplers
# self-test and the core modules they use (the same sources as the server's),
# nothing else: libc, libm, libcrypto and pthreads, no GSL, no BLAS.
LDP_LIB_SRCS = src/core/common/dpb.c src/core/release/params.c src/core/release/layout.c src/core/release/clip.c \
	src/core/release/accum.c src/core/common/names.c src/core/release/sensitivity.c src/core/release/dnoise.c \
	src/core/release/release.c src/core/release/release_json.c src/core/release/release_sig.c src/core/ldp/ldp_protocol.c \
	src/core/ldp/ldp_rand.c src/core/ldp/ldp_input.c src/core/ldp/ldp_selftest.c
LDP_LIB = src/cli/libdpbayes-ldp.a
LDP_SLIM_CHECK = src/cli/ldp-slim-check
LDP_CFLAGS = -O2 -g -std=gnu99 -Wall $(CORE_INC)
LDP_LIBS = -lcrypto -lm -pthread

$(LDP_LIB): $(LDP_LIB_SRCS) $(wildcard src/core/*.h src/core/*/*.h)
	rm -rf build/ldp && mkdir -p build/ldp
	for f in $(LDP_LIB_SRCS); do \
		$(CC) $(LDP_CFLAGS) -fPIC -c $$f -o build/ldp/$$(basename $$f .c).o || exit 1; \
	done
	rm -f $@ && ar rcs $@ build/ldp/*.o

# The LDP client CLI (docs/ldp-client.md; not installed into PostgreSQL):
# its source and the slim library only, so it needs what a device has.  The
# insecure variant, with a --insecure-seed option whose reports are stamped
# insecure, exists only for the tests.  test/ldp_cli.sh checks the linked
# libraries of both.
$(LDP_CLI): src/cli/dpbayes_ldp.c $(LDP_LIB)
	$(CC) $(LDP_CFLAGS) -o $@ src/cli/dpbayes_ldp.c $(LDP_LIB) $(LDP_LIBS)

$(LDP_CLI_INSECURE): src/cli/dpbayes_ldp.c $(LDP_LIB)
	$(CC) $(LDP_CFLAGS) -DDPB_LDP_INSECURE_TEST -o $@ src/cli/dpbayes_ldp.c $(LDP_LIB) $(LDP_LIBS)

ldp-cli: $(LDP_CLI)

# links the library with libcrypto, libm and pthreads only: proves it needs
# no GSL
$(LDP_SLIM_CHECK): src/cli/ldp_slim_check.c $(LDP_LIB)
	$(CC) $(LDP_CFLAGS) -o $@ src/cli/ldp_slim_check.c $(LDP_LIB) $(LDP_LIBS)

libdpbayes-ldp: $(LDP_LIB) $(LDP_SLIM_CHECK)

# Installs the client side for applications and devices (docs/ldp.md, "The
# slim client library"): the static library, the headers ldp.h needs (found
# by the compiler, not listed by hand), the CLI and a pkg-config file.
#   make install-ldp-client [PREFIX=/usr/local] [DESTDIR=...]
PREFIX ?= /usr/local
install-ldp-client: $(LDP_LIB) $(LDP_CLI)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/dpbayes-ldp $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LDP_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $$($(CC) $(CORE_INC) -MM src/core/ldp/ldp.h src/core/ldp/ldp_selftest.h | tr -d '\\' | tr ' ' '\n' | grep '\.h$$' | sort -u) \
		$(DESTDIR)$(PREFIX)/include/dpbayes-ldp/
	install -m 755 $(LDP_CLI) $(DESTDIR)$(PREFIX)/bin/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		'Name: dpbayes-ldp' 'Description: dpbayes local-DP client: protocols and randomizers' \
		'Version: $(shell sed -n "s/^EXTVERSION = //p" dpbayes.mk)' \
		'Cflags: -I$${includedir}/dpbayes-ldp' 'Libs: -L$${libdir} -ldpbayes-ldp -lcrypto -lm -pthread' \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/dpbayes-ldp.pc

unit: test/unit_run $(LDP_CLI) $(LDP_CLI_INSECURE) $(LDP_SLIM_CHECK)
	./test/unit_run

check:
	bash test/run_checks.sh

check-citus:
	bash test/citus.sh

demo:
	bash test/demo.sh

playground:
	bash test/playground.sh

setup:
	bash test/setup.sh

bench:
	bash bench/run_all.sh

figures:
	bash bench/plots/figures.sh
