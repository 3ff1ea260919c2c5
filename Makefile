# rwkv-tui -- GNU Makefile.
#
#   make            build ./rwkv-tui (CPU; CUDA parts when nvcc is found, see CUDA)
#   make test       build, then run every test (unit, reference, CLI, TUI, fuzz corpus);
#                   ends with "N passed, N failed"
#   make asan       the same under AddressSanitizer + UBSan (separate build dir)
#   make deps       install the Debian packages the build and tests need
#   make bench      benchmark (see bench/)
#   make install    PREFIX=/usr/local DESTDIR= : binary, man pages, themes
#   make check-deps fail if a layer includes one it may not (docs/architecture.md)
#   make man-keys   rewrite rwkv-tui(1)'s KEYS section from --help-ui (after a key changes)
#   make check-size fail if a function is over 150 lines (tests/size_allow.txt)
#
# Objects go to $(BUILD)/ (out of tree), with automatic header dependencies.

CC       ?= cc
BUILD    ?= build
BIN      ?= rwkv-tui
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN      = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wundef -Wvla
ifeq ($(WERROR),1)
WARN     += -Werror
endif
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -MMD -MP
LDLIBS   += -lsqlite3 -lncursesw -lcyaml -lyaml -lpthread -lm
PREFIX   ?= /usr/local
# Reference fixtures for the tests ($RWKV_FIXTURES; without them the checks
# that need them are skipped and counted, see docs/testing.md).
FIXTURES ?= $(or $(RWKV_FIXTURES),../shared/fixtures)

# Per-file SIMD flags: kernels named *_avx2.c / *_avx512.c are compiled for
# that ISA and only called after a run-time CPU check.
AVX2_FLAGS   = -mavx2 -mfma -mf16c
AVXVNNI_FLAGS = $(AVX2_FLAGS) -mavxvnni
AVX512_FLAGS = -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mavx512vnni -mfma -mf16c

CORE_SRC    := $(wildcard core/*.c core/*/*.c)
STORAGE_SRC := $(wildcard storage/*.c)
TUI_SRC     := $(wildcard tui/*.c)
CLI_SRC     := $(filter-out cli/main.c,$(wildcard cli/*.c))
TEST_SRC    := $(wildcard tests/unit/test_*.c)

# CUDA (gpu/): CUDA=auto (default) builds it when nvcc is on PATH or at
# /usr/local/cuda/bin/nvcc; CUDA=0 compiles gpu/gpu_stub.c instead (every
# gpu_ call then says "built without CUDA").  The gpu objects go to
# $(BUILD)/libgpu.a; core/ never includes gpu/ or CUDA headers.
CUDA      ?= auto
NVCC_FOUND := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(CUDA),auto)
override CUDA := $(if $(NVCC_FOUND),1,0)
endif
NVCC      ?= $(or $(NVCC_FOUND),nvcc)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC_FOUND))
# SASS for A100 (sm_80) and H100/H200 (sm_90), PTX for compute_90 so newer
# GPUs JIT it.  Each extra architecture adds compile time.
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra
ifeq ($(WERROR),1)
NVCCFLAGS += -Werror all-warnings -Xcompiler -Werror
endif
ifeq ($(CUDA),1)
GPU_OBJ    := $(patsubst %.c,$(BUILD)/%.o,$(filter-out gpu/gpu_stub.c,$(wildcard gpu/*.c))) \
              $(patsubst %.cu,$(BUILD)/%.cu.o,$(wildcard gpu/*.cu))
LDLIBS     += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
              -Wl,--as-needed -lcublas -lcudart -lstdc++ -Wl,--no-as-needed
EXTRA_CFLAGS_gpu_device = -isystem $(CUDA_HOME)/include
EXTRA_CFLAGS_gpu_blas   = -isystem $(CUDA_HOME)/include
# core/model/strategy.c only says which build it is in (no CUDA header, no call).
EXTRA_CFLAGS_strategy   = -DRWKV_CUDA_BUILD
else
GPU_OBJ    := $(BUILD)/gpu/gpu_stub.o
endif
GPU_TEST_SRC  := $(wildcard tests/gpu/test_gpu_*.c)
GPU_TEST_BINS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/%,$(GPU_TEST_SRC))
# Remembers which kind of libgpu.a the build dir holds, so switching CUDA
# rebuilds it.
GPU_STAMP     := $(BUILD)/gpu/.cuda-$(CUDA)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBCORE    := $(BUILD)/libcore.a
LIBSTORAGE := $(BUILD)/libstorage.a
LIBTUI     := $(BUILD)/libtui.a
LIBCLI     := $(BUILD)/libcli.a
LIBGPU     := $(BUILD)/libgpu.a
LIBS       := $(LIBCLI) $(LIBTUI) $(LIBSTORAGE) $(LIBGPU) $(LIBCORE)
TEST_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))

.PHONY: man-keys
man-keys: $(BIN)
	python3 man/keys.py ./$(BIN) --write

.PHONY: all test asan ubsan debug deps bench install clean check-deps unit-tests
.PHONY: check-size
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS_$(notdir $*)) -c $< -o $@

$(BUILD)/%_avx2.o: %_avx2.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(AVX2_FLAGS) -c $< -o $@

$(BUILD)/%_avxvnni.o: %_avxvnni.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(AVXVNNI_FLAGS) -c $< -o $@

$(BUILD)/%_avx512.o: %_avx512.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(AVX512_FLAGS) -c $< -o $@

$(LIBCORE): $(call obj,$(CORE_SRC))
$(LIBSTORAGE): $(call obj,$(STORAGE_SRC))
$(LIBTUI): $(call obj,$(TUI_SRC)) $(BUILD)/gen/i18n_zh.o $(BUILD)/gen/themes.o
$(LIBCLI): $(call obj,$(CLI_SRC))
$(LIBGPU): $(GPU_OBJ) $(GPU_STAMP)
$(LIBS):
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

# The Chinese interface strings (tui/i18n.h): po/zh_CN.po as a sorted C
# table; po2c.py refuses a translation whose printf conversions differ.
$(BUILD)/gen/i18n_zh.c: po/zh_CN.po po/po2c.py
	@mkdir -p $(dir $@)
	python3 po/po2c.py po/zh_CN.po $@
$(BUILD)/gen/i18n_zh.o: $(BUILD)/gen/i18n_zh.c tui/i18n.h
	$(CC) $(CPPFLAGS) -I. $(WARN) $(CFLAGS) -c $< -o $@

# The shipped themes built in (tui/theme.h), so a binary copied anywhere
# finds `--theme mono`; `make install` still puts the files beside it.
$(BUILD)/gen/themes.c: $(wildcard themes/*.yaml) themes/themes2c.py
	@mkdir -p $(dir $@)
	python3 themes/themes2c.py $@ $(wildcard themes/*.yaml)
$(BUILD)/gen/themes.o: $(BUILD)/gen/themes.c tui/theme.h
	$(CC) $(CPPFLAGS) -I. $(WARN) $(CFLAGS) -c $< -o $@

# strategy.c's message about cuda stages depends on the kind of build.
$(BUILD)/core/model/strategy.o: $(GPU_STAMP)

$(GPU_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/gpu/.cuda-*
	@touch $@

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(BIN): $(BUILD)/cli/main.o $(LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/cli/main.o $(LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/harness.h $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(LIBS) $(LDLIBS)
# (it counts the states and buffers an open makes: the libraries' calls
# go through its own __wrap_ functions)
$(BUILD)/tests/test_session_open_alloc: LDLIBS += -Wl,--wrap=rwkv_state_create,--wrap=malloc

$(BUILD)/tests/test_gpu_%: tests/gpu/test_gpu_%.c tests/gpu/gpu_ref.h tests/harness.h $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(LIBS) $(LDLIBS)

# GPU benchmarks for tests/gpu/device_check.sh (not test runners; built with
# the tests so CI compiles them): kernels and copy bandwidth, and the model
# benchmark that needs only core + gpu.
GPU_BENCH_BINS = $(BUILD)/tests/gpu_bench $(BUILD)/tests/gpu_model_bench
$(GPU_BENCH_BINS): $(BUILD)/tests/gpu_%: tests/gpu/gpu_%.c tests/gpu/gpu_ref.h $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(LIBS) $(LDLIBS)
.PHONY: gpu-bench
gpu-bench: $(GPU_BENCH_BINS)

# The CUDA kernels (gpu/gpu_kernels.cuh) run on the CPU through an emulation
# of the CUDA constructs they use (tests/gpu/emu_cuda.h): in every build, CUDA
# or not, so CI checks them without a GPU.  C++20 (std::barrier) for the test
# alone; the kernels' own `#pragma unroll` means nothing to g++.
CXX       ?= g++
GPU_EMU_BIN = $(BUILD)/tests/test_gpu_emu
$(GPU_EMU_BIN): tests/gpu/test_gpu_emu.cpp tests/gpu/emu_cuda.h gpu/gpu_kernels.cuh gpu/gpu.h \
                tests/gpu/gpu_ref.h tests/harness.h $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -Wall -Wextra -Wno-unknown-pragmas $(if $(WERROR),-Werror) $(CFLAGS) \
	    -pthread -o $@ $< $(LIBCORE) $(LDFLAGS) -lpthread -lm

unit-tests: $(TEST_BINS) $(GPU_TEST_BINS) $(GPU_BENCH_BINS) $(GPU_EMU_BIN)

test: all unit-tests check-deps check-size
	@BUILD=$(BUILD) RWKV_TUI=$(abspath $(BIN)) RWKV_FIXTURES=$(FIXTURES) tests/run.sh

SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
asan:
	$(MAKE) BUILD=build-asan BIN=build-asan/rwkv-tui OPT=-O1 \
	    CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" RWKV_ASAN=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp test

ubsan:
	$(MAKE) BUILD=build-ubsan BIN=build-ubsan/rwkv-tui \
	    CFLAGS="-O1 -g -fsanitize=undefined -fno-sanitize-recover=undefined" \
	    LDFLAGS="-fsanitize=undefined" test

debug:
	$(MAKE) BUILD=build-debug BIN=build-debug/rwkv-tui CFLAGS="-O0 -g3"

# Debian packages needed to build and test (CI runs this first).
DEB_PKGS = build-essential pkg-config libsqlite3-dev sqlite3 libncurses-dev libcyaml-dev libyaml-dev tmux python3 gettext gdb
deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PKGS)

bench: all $(BUILD)/bench_store
	sh bench/run.sh ./$(BIN) "$(BENCH_SHAPES)" "$(BENCH_STRATEGIES)"
	RWKV_FIXTURES=$(FIXTURES) $(BUILD)/bench_store

# The layer arrows (docs/architecture.md): core <- gpu, core <- storage <- tui
# <- cli; core includes only core/ and libc; nothing includes cli/.
check-deps:
	@bash tests/check_deps.sh

# No function over 150 lines but those tests/size_allow.txt names, with why.
check-size:
	@bash tests/check_size.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/rwkv-tui/themes
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rwkv-tui
	-install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	-install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	-install -m 644 themes/*.yaml $(DESTDIR)$(PREFIX)/share/rwkv-tui/themes/

clean:
	rm -rf build build-asan build-ubsan build-debug $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Kernel micro-benchmark (bench/bench_kernels.c): GFLOP/s and GB/s of the
# core/kernels/simd.h kernels at the RWKV-7 1.5B shapes, with a memcpy baseline; adds
# an OpenBLAS sgemm comparison when libopenblas is installed (not a build
# dependency of rwkv-tui).  BENCH_ARGS=--quick skips the AVX2 variants.
.PHONY: bench-kernels
BENCH_BLAS_SO := $(shell $(CC) -print-file-name=libopenblas.so)
BENCH_BLAS    := $(if $(filter /%,$(BENCH_BLAS_SO)),-DBENCH_OPENBLAS,)
$(BUILD)/bench_kernels: bench/bench_kernels.c $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(BENCH_BLAS) -o $@ $< $(LIBCORE) \
	    $(if $(BENCH_BLAS),-lopenblas) -lpthread -lm
bench-kernels: $(BUILD)/bench_kernels
	$(BUILD)/bench_kernels $(BENCH_ARGS)

# Fuzzing: `make fuzz` builds every harness tests/fuzz/fuzz_*.c as
# build-fuzz/fuzz_NAME against the project's own libraries, compiled once
# more into build-fuzz/lib with sanitizers:
#   - with clang (FUZZ_CC): libFuzzer + ASan + UBSan (-fsanitize=fuzzer);
#   - without it: $(CC) with ASan + UBSan, and tests/fuzz/driver.c as main()
#     (replays the corpus, then random mutants: -runs=N / -max_total_time=S).
# Run one (new inputs go to the first directory; keep real finds in the
# corpus as regress-*):
#   mkdir -p build-fuzz/new && build-fuzz/fuzz_zipr -dict=tests/fuzz/ckpt.dict \
#       build-fuzz/new tests/fuzz/corpus/zipr
# Corpus per harness: tests/fuzz/corpus/NAME (fuzz_ prefix dropped).  `make
# test` replays every corpus without libFuzzer (tests/unit/test_ckpt_corpus.c,
# test_store_blob_corpus.c, test_tokenizer_fuzz.c, test_fuzz_corpus.c).
# `make fuzz-run FUZZ_TIME=600` runs each harness for FUZZ_TIME seconds, one
# after the other, logs in build-fuzz/logs.
.PHONY: fuzz fuzz-run fuzz-libs
FUZZ_CC       ?= clang
FUZZ_TIME     ?= 60
FUZZ_SAN       = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CLANG    := $(shell command -v $(FUZZ_CC) 2>/dev/null)
ifneq ($(FUZZ_CLANG),)
FUZZ_LIB_CC    = $(FUZZ_CC)
FUZZ_LIB_FLAGS = -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_LINK      = -fsanitize=fuzzer $(FUZZ_SAN)
FUZZ_MAIN      =
else
FUZZ_LIB_CC    = $(CC)
FUZZ_LIB_FLAGS = -g -O1 $(FUZZ_SAN)
FUZZ_LINK      = $(FUZZ_SAN)
FUZZ_MAIN      = tests/fuzz/driver.c
endif
FUZZ_SRC      := $(filter-out tests/fuzz/gen_%.c,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS     := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))
FUZZ_LIBDIR    = build-fuzz/lib
# (the fuzz libraries are built with CUDA=0: no CUDA libraries to link)
FUZZ_LDLIBS    = -lsqlite3 -lncursesw -lcyaml -lyaml -lpthread -lm
FUZZ_LIBS      = $(FUZZ_LIBDIR)/libtui.a $(FUZZ_LIBDIR)/libstorage.a $(FUZZ_LIBDIR)/libgpu.a \
                 $(FUZZ_LIBDIR)/libcore.a
fuzz: $(FUZZ_BINS)
# the libraries, rebuilt by a sub-make (it knows their dependencies)
fuzz-libs:
	$(MAKE) BUILD=$(FUZZ_LIBDIR) CC=$(FUZZ_LIB_CC) CUDA=0 WERROR= CFLAGS="$(FUZZ_LIB_FLAGS)" $(FUZZ_LIBS)
$(FUZZ_BINS): build-fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(FUZZ_MAIN) fuzz-libs
	@mkdir -p build-fuzz
	$(FUZZ_LIB_CC) -std=c11 $(CPPFLAGS) $(FUZZ_LIB_FLAGS) $(FUZZ_LINK) -o $@ $< $(FUZZ_MAIN) \
	    $(FUZZ_LIBS) $(FUZZ_LDLIBS)
# each harness for FUZZ_TIME seconds on its corpus (new inputs in build-fuzz/new-NAME)
fuzz-run: fuzz
	@mkdir -p build-fuzz/logs; bad=; \
	for b in $(FUZZ_BINS); do n=$${b#build-fuzz/fuzz_}; mkdir -p build-fuzz/new-$$n; \
	    echo "fuzz_$$n: $(FUZZ_TIME)s"; \
	    if $$b -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=4096 -artifact_prefix=build-fuzz/$$n- \
	        $$(case $$n in zipr|pickle|st|state) echo -dict=tests/fuzz/ckpt.dict;; \
	           *) [ -f tests/fuzz/$$n.dict ] && echo -dict=tests/fuzz/$$n.dict;; esac) \
	        build-fuzz/new-$$n tests/fuzz/corpus/$$n > build-fuzz/logs/$$n.log 2>&1; \
	    then tail -1 build-fuzz/logs/$$n.log; \
	    else echo "fuzz_$$n: FAILED, see build-fuzz/logs/$$n.log"; bad="$$bad $$n"; fi; done; \
	if [ -n "$$bad" ]; then echo "fuzz-run: findings in:$$bad"; exit 1; fi

# Quantized-strategy accuracy (bench/bench_quant.c): max / RMS logit error,
# KL and top-1 agreement of cpu fp32i8 and cpu fp32i4 against cpu fp32 on
# every fixture model (the accuracy table of docs/differences.md).
.PHONY: bench-quant
$(BUILD)/bench_quant: bench/bench_quant.c $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(LIBCORE) -lpthread -lm
bench-quant: $(BUILD)/bench_quant
	RWKV_FIXTURES=$(FIXTURES) $(BUILD)/bench_quant $(BENCH_ARGS)

# Session store benchmark (bench/bench_store.c): how real states compress, and
# resume / fork / replay-plan times for a 1.5B-sized state in conversations of
# 10 and 1000 turns.  BENCH_ARGS=--quick runs the 10-turn case only.
.PHONY: bench-store
$(BUILD)/bench_store: bench/bench_store.c $(LIBSTORAGE) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(LIBSTORAGE) $(LIBCORE) -lsqlite3 -lpthread -lm
bench-store: $(BUILD)/bench_store
	RWKV_FIXTURES=$(FIXTURES) $(BUILD)/bench_store $(BENCH_ARGS)

