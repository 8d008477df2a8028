# SPDX-License-Identifier: MIT
# kyu: make | make run | make test | make samples | make bench | make install PREFIX=/usr/local | make deps
#   (headers, libkyu.a, libkyu.so, kyu.pc and the CMake package lib/cmake/kyu)
#   SANITIZE=1  build everything with AddressSanitizer + UndefinedBehaviorSanitizer (in build-san/)
#   SANITIZE=thread  ThreadSanitizer (in build-tsan/)
#   SANITIZE=strict  with CC=clang: ASan + UBSan + float-cast-overflow + implicit-conversion (build-strict/)
#   CC=clang    any C11 compiler

CC      ?= cc
PREFIX  ?= /usr/local
# The version is written once, in include/kyu/base.h; the soname follows its major number.
version_of = $(shell sed -n 's/^.define KYU_VERSION_$(1)  *\([0-9][0-9]*\)\( .*\)\{0,1\}$$/\1/p' include/kyu/base.h)
VERSION := $(call version_of,MAJOR).$(call version_of,MINOR).$(call version_of,PATCH)
SONAME  := libkyu.so.$(call version_of,MAJOR)
ifneq ($(words $(subst ., ,$(VERSION))),3)
$(error include/kyu/base.h: KYU_VERSION_MAJOR, _MINOR and _PATCH not found (read "$(VERSION)"))
endif

# cglm is the library's one dependency: tools/deps.sh finds it (or installs it when run as root on
# Debian). `make test` (or test-tools) run as root first installs every package the tool tests need
# (tools/packages; KYU_NO_DEPS=1 leaves them alone), here, before mk/*.mk below look for the tools'
# libraries.
# `make deps` installs every package of tools/packages (CI's tools too), or says how without root.
DEPS_FOR := $(if $(or $(filter test-tools,$(MAKECMDGOALS)),$(and $(filter test,$(MAKECMDGOALS)),$(if $(TESTS),,yes))),test,build)
CGLM_CFLAGS := $(shell sh tools/deps.sh $(DEPS_FOR) || echo KYU_DEPS_FAILED)
ifneq ($(filter KYU_DEPS_FAILED,$(CGLM_CFLAGS)),)
$(error cglm is missing (see the line above))
endif

# The sanitizer builds also check the world's invariants after every stage of every step
# (engine/validate.c; KYU_VALIDATE= turns that off, KYU_VALIDATE=1 turns it on in any build).
VALIDATE := $(if $(KYU_VALIDATE),-DKYU_VALIDATE,$(if $(SANITIZE),$(if $(filter KYU_VALIDATE,$(.VARIABLES)),,-DKYU_VALIDATE)))
WARN    := -std=c11 -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes
OPT     ?= -O2 -g
ifeq ($(SANITIZE),1)
BUILD   := build-san
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDSAN   := -fsanitize=address,undefined
else ifeq ($(SANITIZE),strict)
# clang only: UBSan's checks of float-to-int overflow and of implicit conversions that change a value
BUILD   := build-strict
STRICT  := -fsanitize=address,undefined,float-cast-overflow,implicit-conversion
OPT     := -O1 -g -fno-omit-frame-pointer $(STRICT) -fno-sanitize-recover=all
LDSAN   := $(STRICT)
else ifeq ($(SANITIZE),thread)
BUILD   := build-tsan
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
LDSAN   := -fsanitize=thread
else
BUILD   ?= build
endif
# No fused multiply-adds (gcc contracts a * b + c by default where the target has FMA, clang with
# -march=native): the answer must be the same from gcc, clang and emscripten (tests compare them).
FPFLAGS := -ffp-contract=off
CFLAGS_ALL := $(WARN) $(FPFLAGS) $(OPT) $(VALIDATE) -Iinclude $(CGLM_CFLAGS) -D_POSIX_C_SOURCE=200809L $(CFLAGS)
LDLIBS_ALL := -lm -lpthread $(LDSAN) $(LDFLAGS)

LIB_SRC  := $(wildcard engine/*.c engine/geometry/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
PIC_OBJ  := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
TEST_SRC := $(wildcard tests/*.c)
SAMPLES  := $(patsubst samples/%.c,$(BUILD)/samples/%,$(wildcard samples/*.c))
HEADERS  := $(wildcard include/kyu/*.h)

# `make` alone builds on every processor (-j N, unless the command line gives -j): a fresh build of
# everything took 70 s on one core of a 2-core machine, 38 s on both.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

.PHONY: all lib test test-tools samples bench install clean run tools/bench deps
all: lib tools/bench samples $(BUILD)/tools/physics-check $(BUILD)/tools/floor
lib: $(BUILD)/libkyu.a $(BUILD)/libkyu.so

# Tools and samples with their own dependencies (scene files, viewer, renderer, lesson) keep their
# rules in mk/*.mk; each may add a script to TOOL_TESTS, which `make test` runs after the unit tests.
# symbols.sh: libkyu.so exports exactly the functions include/kyu/*.h declares with KYU_API.
# cxx.sh: the README's program and tests/cxx/use.cpp built as C++ (they link libkyu.a with LDSAN).
# install.sh: make install into a scratch DESTDIR; the version in every place, the soname, the
# CMake package (tests/cmake-consumer).
# iso.sh: the engine is ISO C11 without GNU C or SSE (what MSVC or another compiler would accept).
# hashes.sh: the benchmark scenes, run short, end in pinned state hashes for 1, 2, 3 and 8 workers.
# deps.sh: tools/packages is the one list (CI, `make deps`, the skip lines), `make test` as root
# installs what is missing, and the closing summary names every skipped test.
# samples.sh: the samples that check their own numbers (games, billiards; chute outside sanitizers)
# run and pass.
# A sanitizer build runs only the tests that run its code: the exports, the install, the package
# list and the ISO build are the same in every build, and the hashes would come 5-10 times slower
# (its unit tests already compare worker counts).
ifeq ($(SANITIZE),)
TOOL_TESTS := tests/tools/symbols.sh tests/tools/cxx.sh tests/tools/install.sh tests/tools/deps.sh \
              tests/tools/iso.sh tests/tools/samples.sh tests/tools/hashes.sh
else
TOOL_TESTS := tests/tools/cxx.sh tests/tools/samples.sh
endif
# The scene loader (tools/scene.h; its files by concern in tools/scene_internal.h), linked into
# kyu-sim, kyu-render, the scene fuzzer and the Python extension (mk/*.mk).
SCENE_SRC := tools/scene.c tools/scene_json.c tools/scene_bodies.c tools/scene_colliders.c \
	tools/scene_generators.c tools/scene_inserters.c tools/scene_mesh_file.c tools/scene_settings.c
SCENE_HDR := tools/scene.h tools/scene_internal.h
# A mesh collider may come from a file (STL, OBJ, PLY...) read by assimp when it is there
# (libassimp-dev, in tools/packages): the tools that link the scene loader are then built with it.
SCENE_ASSIMP := $(shell pkg-config --exists assimp 2>/dev/null && echo yes)
SCENE_CFLAGS := $(if $(SCENE_ASSIMP),-DKYU_HAVE_ASSIMP $(shell pkg-config --cflags assimp))
SCENE_LIBS := $(if $(SCENE_ASSIMP),$(shell pkg-config --libs assimp))
TOOL_TEST_DEPS := $(BUILD)/libkyu.so $(BUILD)/tools/bench $(BUILD)/samples/games $(BUILD)/samples/billiards \
                  $(BUILD)/samples/chute
-include $(sort $(wildcard mk/*.mk))

# The library's own objects: only what include/kyu/*.h declares with KYU_API is exported (base.h).
# -Wdouble-promotion: where the engine computes in double is written out, (double)x, so an
# accidental float -> double promotion (a double constant, a double local) fails the build.
LIB_CFLAGS := -DKYU_BUILD -fvisibility=hidden -Wdouble-promotion -Wconversion -Wcast-qual
# No SLP vectorization in the contact solve: gcc packs the three floats of a vector into pairs and
# back with shuffles, which made its row 14% more instructions (callgrind, PILE 2000). Elsewhere
# it pays. Same answers either way (no reassociation, no contraction).
$(BUILD)/engine/contact_solver.o $(BUILD)/pic/engine/contact_solver.o: LIB_CFLAGS += -fno-tree-slp-vectorize

$(BUILD)/%.o: %.c $(HEADERS) $(wildcard engine/*.h engine/geometry/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c $(HEADERS) $(wildcard engine/*.h engine/geometry/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LIB_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/libkyu.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^ # afresh: a renamed source must not leave its old object inside

$(BUILD)/libkyu.so: $(PIC_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $(BUILD)/$(SONAME) $^ $(LDLIBS_ALL)
	ln -sf $(SONAME) $@

$(BUILD)/tests/run_tests: $(TEST_SRC) tests/test.h tests/oracle.h $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests $(TEST_SRC) $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

# TESTS=name runs only the unit tests whose names contain it; plain `make test` also runs TOOL_TESTS.
test: $(BUILD)/tests/run_tests $(if $(TESTS),,$(TOOL_TEST_DEPS))
ifneq ($(TESTS),)
	./$(BUILD)/tests/run_tests $(TESTS)
else
	BUILD=$(BUILD) CC="$(CC)" LDSAN="$(LDSAN)" sh tests/run-all.sh ./$(BUILD)/tests/run_tests $(TOOL_TESTS)
endif

# The tool tests alone.
test-tools: $(TOOL_TEST_DEPS)
	BUILD=$(BUILD) CC="$(CC)" LDSAN="$(LDSAN)" sh tests/run-all.sh - $(TOOL_TESTS)

deps:
	@sh tools/deps.sh install

$(BUILD)/tools/bench: tools/bench.c $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O3 $< $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

# physics-check: pours, deep beds, a frictionless pile and a long elastic gas, measured against what
# the physics allows (packing fractions, overlaps, energy drift); not part of `make test` (minutes).
$(BUILD)/tools/physics-check: tools/physics-check.c $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O3 $< $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

# floor: the least work any engine can do on PILE (integrate, bin, push pairs once), the yardstick
# the benchmark table sets beside each PILE row (docs/benchmarks.md). It does not use kyu.
$(BUILD)/tools/floor: tools/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O3 $< -o $@ -lm

tools/bench: $(BUILD)/tools/bench
	@ln -sf ../$(BUILD)/tools/bench tools/bench

bench: $(BUILD)/tools/bench $(BUILD)/tools/floor
	./tools/bench-table.sh ./$(BUILD)/tools/bench ./$(BUILD)/tools/floor

$(BUILD)/samples/%: samples/%.c $(wildcard samples/*.h) $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

samples: $(SAMPLES)

# The main job: a sample simulation (2000 spheres poured into a box), with a progress line a second.
run: $(BUILD)/samples/pour
	./$(BUILD)/samples/pour

install: lib
	install -d $(DESTDIR)$(PREFIX)/include/kyu $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/kyu/
	install -m 644 $(BUILD)/libkyu.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/$(SONAME) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libkyu.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' kyu.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/kyu.pc
	@# The CMake package (find_package(kyu) gives kyu::kyu); tests/cmake-consumer uses it.
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/kyu
	sed -e 's|@SONAME@|$(SONAME)|g' -e 's|@VERSION@|$(VERSION)|g' cmake/kyuConfig.cmake.in \
		> $(DESTDIR)$(PREFIX)/lib/cmake/kyu/kyuConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(call version_of,MAJOR)|g' \
		-e "s|@SIZEOF_VOID_P@|$$(echo | $(CC) -dM -E - | sed -n 's/^.define __SIZEOF_POINTER__ //p')|g" \
		cmake/kyuConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/kyu/kyuConfigVersion.cmake
	@# The dynamic loader's cache must learn the new libkyu.so.0 (/usr/local/lib is searched, but
	@# only through the cache). Other prefixes: see docs/building.md (LD_LIBRARY_PATH, or link --static).
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig > /dev/null 2>&1; then ldconfig; fi

# Every C and C++ file in git, or new and not ignored, laid out as .clang-format says: `make format`
# rewrites them, `make format-check` (CI) fails on the first file that differs and shows how.
FORMAT_FILES = $(shell git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cpp')
.PHONY: format format-check
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "clang-format: $(words $(FORMAT_FILES)) files as .clang-format says"

clean:
	rm -rf build build-san build-tsan build-strict build-clang build-dev tools/bench
