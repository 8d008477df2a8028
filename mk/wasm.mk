# SPDX-License-Identifier: MIT
# kyu in the browser: the engine and web/kyu_web.c compiled to WebAssembly with emscripten (Debian's
# `apt-get install -y emscripten`, 3.1.6: its libraries come prebuilt, so the first build needs no
# cache of its own).
#   make wasm    writes $(WASM_DIR)/kyu.js (the engine, its wasm inside: -sSINGLE_FILE) and
#                $(WASM_DIR)/index.html (web/index.html with page.js and kyu.js inlined: one file,
#                no server, no network; open it in a browser)
# $(BUILD)/web/kyu-web-hash steps the page's two scenes natively; tests/tools/wasm.sh compares its
# hashes with the page's in headless Chromium. Single-threaded: the web scenes run one worker, so
# the engine never starts a pthread (emscripten's libc has the calls, as stubs, without -pthread).

EMCC ?= emcc
WASM_DIR := $(BUILD)/wasm
WASM_HAVE := $(shell command -v $(EMCC) >/dev/null 2>&1 && echo yes)
WEB_SRC := web/kyu_web.c
WEB_HDR := web/kyu_web.h samples/billiards_table.h
WASM_EXPORTS := kyu_web_lesson_create kyu_web_billiards_create kyu_web_create kyu_web_add_ball \
	kyu_web_add_plane kyu_web_add_box kyu_web_error kyu_web_destroy kyu_web_step \
	kyu_web_advance kyu_web_body_count kyu_web_step_count kyu_web_bodies kyu_web_kinetic_energy \
	kyu_web_moving_count kyu_web_shoot kyu_web_state_hash kyu_web_impact_json
comma := ,

.PHONY: wasm
# Not under SANITIZE: the wasm build has no sanitizer, so that run would only repeat it (and the
# Chromium checks); the native half, web/kyu_web.c, is plain engine API calls.
ifeq ($(SANITIZE),)
TOOL_TESTS += tests/tools/wasm.sh
endif

$(BUILD)/web/kyu-web-hash: web/hash.c $(WEB_SRC) $(WEB_HDR) $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iweb web/hash.c $(WEB_SRC) $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

ifeq ($(WASM_HAVE)$(SANITIZE),yes)
TOOL_TEST_DEPS += wasm $(BUILD)/web/kyu-web-hash
endif
ifeq ($(WASM_HAVE),yes)
wasm: $(WASM_DIR)/index.html

# The project's warnings as errors, but not OPT (it may name a sanitizer); the host's include
# directory cannot be given to emcc (its glibc headers would shadow emscripten's libc), so cglm's
# headers come through a link of their own.
CGLM_INCLUDEDIR := $(shell pkg-config --variable=includedir cglm 2>/dev/null || echo /usr/include)
WASM_CFLAGS := $(WARN) $(FPFLAGS) -O2 -Iinclude -I$(WASM_DIR)/include -D_POSIX_C_SOURCE=200809L
WASM_OBJ := $(patsubst %.c,$(WASM_DIR)/obj/%.o,$(LIB_SRC) $(WEB_SRC))
# Debian's emcc runs its JavaScript optimiser with node and the node-acorn package in
# /usr/share/nodejs, which a node from elsewhere (NodeSource's) does not search by itself.
EMCC_ENV := NODE_PATH=/usr/share/nodejs
# One file (the wasm inside kyu.js as base64: nothing to fetch, which file:// pages may not do),
# compiled synchronously: createKyu() returns the ready engine (not a promise), so a page's first
# script can use it and what it computes is in the DOM when the page has loaded (headless
# Chromium's virtual time did not wait for an asynchronous compile, and the test went flaky).
WASM_LDFLAGS := -O2 -sMODULARIZE=1 -sEXPORT_NAME=createKyu -sSINGLE_FILE=1 -sENVIRONMENT=web \
	-sALLOW_MEMORY_GROWTH=1 -sFILESYSTEM=0 -sWASM_ASYNC_COMPILATION=0 -sEXPORTED_RUNTIME_METHODS=UTF8ToString \
	-sEXPORTED_FUNCTIONS=$(subst $(eval) ,$(comma),$(patsubst %,_%,$(WASM_EXPORTS)))

$(WASM_DIR)/include/cglm:
	@mkdir -p $(dir $@)
	ln -sfn $(CGLM_INCLUDEDIR)/cglm $@

$(WASM_DIR)/obj/%.o: %.c $(HEADERS) $(WEB_HDR) $(wildcard engine/*.h engine/geometry/*.h) | $(WASM_DIR)/include/cglm
	@mkdir -p $(dir $@)
	$(EMCC_ENV) $(EMCC) $(WASM_CFLAGS) -DKYU_BUILD -c $< -o $@

$(WASM_DIR)/kyu.js: $(WASM_OBJ) mk/wasm.mk
	$(EMCC_ENV) $(EMCC) $(WASM_LDFLAGS) $(WASM_OBJ) -o $@

# tools/bench as WebAssembly for node, with threads (wasm workers in node's worker_threads), for the
# determinism table (tests/tools/determinism.sh): the pinned scenes' hashes for 1, 2, 3 and 8
# workers. The engine is compiled again with -pthread (shared memory and atomics), apart from the
# page's single-threaded objects. Run it as: node $(WASM_DIR)/bench/bench.js pile 1000 2 --steps 150
.PHONY: wasm-bench
wasm-bench: $(WASM_DIR)/bench/bench.js
WASM_MT_OBJ := $(patsubst %.c,$(WASM_DIR)/mt-obj/%.o,$(LIB_SRC) tools/bench.c)
$(WASM_DIR)/mt-obj/%.o: %.c $(HEADERS) $(wildcard engine/*.h engine/geometry/*.h) | $(WASM_DIR)/include/cglm
	@mkdir -p $(dir $@)
	$(EMCC_ENV) $(EMCC) $(WASM_CFLAGS) -pthread $(if $(filter tools/%,$<),,-DKYU_BUILD) -c $< -o $@
# A pool of 8 workers made before main (creating one later would wait for the main thread, which
# is busy in main); memory fixed at 512 MB (growth with threads is slow in wasm); one file.
$(WASM_DIR)/bench/bench.js: $(WASM_MT_OBJ) mk/wasm.mk
	@mkdir -p $(dir $@)
	$(EMCC_ENV) $(EMCC) -O2 -pthread -sPTHREAD_POOL_SIZE=8 -sINITIAL_MEMORY=536870912 -sENVIRONMENT=node,worker \
		-sEXIT_RUNTIME=1 -sSINGLE_FILE=1 $(WASM_MT_OBJ) -o $@

# The two script tags become the scripts themselves.
$(WASM_DIR)/index.html: web/index.html web/page.js $(WASM_DIR)/kyu.js
	awk '/^<script src="[a-z]+\.js"><\/script>$$/ { \
		f = $$0; sub(/^<script src="/, "", f); sub(/".*/, "", f); \
		f = (f == "kyu.js") ? "$(WASM_DIR)/kyu.js" : "web/" f; \
		print "<script>"; while ((getline l < f) > 0) print l; close(f); print "</script>"; next } \
		{ print }' web/index.html > $@.tmp
	mv $@.tmp $@
else
wasm wasm-bench:
	@echo "wasm: it needs emscripten (apt-get install -y emscripten): not built"
	@exit 1
endif
