# bench/tools/core.sh — sourced (from the repo root) by the bench scripts that
# build C drivers against src/core without the server: the include flags, the
# sources and the libraries of the core (in sub-folders by concern).
# shellcheck disable=SC2034
DPB_MVEC_LIBS="$(sh test/mvec_probe.sh cc)"
DPB_CORE_INC="-Isrc/core -Isrc/core/common -Isrc/core/release -Isrc/core/inference -Isrc/core/accounting -Isrc/core/ldp -Isrc/core/betad $(pkg-config --cflags openblas 2>/dev/null)${DPB_MVEC_LIBS:+ -DDPB_HAVE_LIBMVEC}"
DPB_CORE_SRCS="$(ls src/core/*/*.c)"
DPB_CORE_LIBS="-lgsl -lopenblas -lcrypto $DPB_MVEC_LIBS -lm"
