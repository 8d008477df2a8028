# SPDX-License-Identifier: MIT
# Headless simulation tools (issue 6): the scene loader, kyu-sim, kyu-plot and the scene fuzzer.
#   make sim-tools    builds $(BUILD)/tools/kyu-sim (needs libcjson: apt-get install libcjson-dev)
#   make fuzz         fuzzes the scene loader for FUZZ_SECONDS (default 60) with clang's libFuzzer
# Without libcjson the tools are skipped (one line says so) and tests/tools/sim.sh reports skips.

SIM_HAVE_CJSON := $(shell pkg-config --exists libcjson 2>/dev/null && echo yes)
SIM_SRC := tools/kyu-sim.c $(SCENE_SRC) tools/frame_files.c
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz

.PHONY: sim-tools fuzz
TOOL_TESTS += tests/tools/sim.sh tests/tools/frames.sh

ifeq ($(SIM_HAVE_CJSON),yes)
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson)
CJSON_LIBS := $(shell pkg-config --libs libcjson)
TOOL_TEST_DEPS += $(BUILD)/tools/kyu-sim

all: sim-tools
sim-tools: $(BUILD)/tools/kyu-sim

$(BUILD)/tools/kyu-sim: $(SIM_SRC) $(SCENE_HDR) tools/frame_files.h $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SCENE_CFLAGS) $(SIM_SRC) $(BUILD)/libkyu.a -o $@ $(CJSON_LIBS) $(SCENE_LIBS) $(LDLIBS_ALL)

# The corpus starts from the sample scenes and the inputs that once failed (tests/fuzz-regressions/:
# big-and-tiny-overlapping.json took 12 s a step before multi_insert stopped re-adding cells).
# The fuzzer builds the engine again with clang's coverage, so a scene that crashes the engine
# (not only the loader) is found too. The engine's warnings are the main build's business (-Werror
# there), so this build only shows them.
FUZZ_FLAGS := $(WARN) -O1 -g -fno-omit-frame-pointer -Iinclude $(CGLM_CFLAGS) \
	-D_POSIX_C_SOURCE=200809L -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)

$(FUZZ_DIR)/%.o: %.c $(HEADERS) $(wildcard engine/*.h engine/geometry/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -Werror,$(FUZZ_FLAGS)) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz_scene: tools/fuzz_scene.c $(SCENE_SRC) $(SCENE_HDR) $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer tools/fuzz_scene.c $(SCENE_SRC) $(FUZZ_OBJ) \
		-o $@ $(CJSON_LIBS) -lm -lpthread

fuzz: $(FUZZ_DIR)/fuzz_scene
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crashes
	cp samples/scenes/*.json tests/fuzz-regressions/* $(FUZZ_DIR)/corpus/
	$(FUZZ_DIR)/fuzz_scene -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-rss_limit_mb=4096 -dict=tools/fuzz_scene.dict -artifact_prefix=$(FUZZ_DIR)/crashes/ \
		$(FUZZ_DIR)/corpus
else
# `make` (all) skips them; asking for them by name fails, since nothing can be built.
sim-tools:
	@echo "kyu: libcjson not found (apt-get install -y libcjson-dev): kyu-sim cannot be built"
	@exit 1

fuzz: sim-tools
endif
