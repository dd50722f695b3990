# PGXS build of the dpbayes extension (driven by the top-level Makefile).
EXTENSION = dpbayes
EXTVERSION = 0.1.0
MODULE_big = dpbayes
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/core/*.c src/core/*/*.c)) $(sort $(wildcard src/pg/*.c)))
DATA = dpbayes--$(EXTVERSION).sql
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=dpbayes
PG_CPPFLAGS = -Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/inference -Isrc/core/accounting -Isrc/core/ldp -Isrc/core/betad $(shell pkg-config --cflags openblas 2>/dev/null)
# libmvec (glibc's vector math, x86-64): the betaD kernel's AVX2 path
MVEC_LIBS := $(shell sh test/mvec_probe.sh cc)
PG_CPPFLAGS += $(if $(MVEC_LIBS),-DDPB_HAVE_LIBMVEC)
PG_CFLAGS = -std=gnu99 -Wno-declaration-after-statement
# Build-path independent objects: two clones of the same commit build the same
# dpbayes.so, so `make check` in a second clone finds it already installed.
PG_CFLAGS += -ffile-prefix-map=$(CURDIR)=.
# libcrypto: SHA-256 of the LDP protocol id (src/core/ldp; PostgreSQL links
# OpenSSL anyway).
# GSL's own CBLAS (gslcblas) is not linked: OpenBLAS provides the cblas_*
# symbols GSL needs, and LAPACK.
SHLIB_LINK = -lgsl -lopenblas -lcrypto $(MVEC_LIBS) -lm
EXTRA_CLEAN = results/ regression.diffs regression.out

# no LLVM bitcode: the JIT gains nothing here and clang may be absent
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild everything when a header
# changes (struct layouts are shared between src/core and src/pg).
$(OBJS): $(wildcard src/core/*.h src/core/*/*.h src/pg/*.h)
