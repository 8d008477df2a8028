# SPDX-License-Identifier: MIT
# The Python package `kyu` (issue 23): python/kyu/*.py and a cffi extension in API mode, built
# into $(BUILD)/python (use it with PYTHONPATH=$(BUILD)/python).
#   make python    builds $(BUILD)/python/kyu (needs Debian's python3-cffi, python3-numpy,
#                  python3-dev and libcjson-dev)
# python/build_kyu.py writes the extension's C source; it is compiled with python/shim.c, the scene
# loader and the frame writers, and linked with kyu's position-independent objects (a static
# archive, $(BUILD)/pic/libkyu.a), so nothing but libcjson is looked up at run time.
# tests/tools/python.sh runs the package's tests (pytest); it reports a skip when a package is
# missing, and in sanitizer builds (the extension would need the sanitizer's runtime preloaded).

# Debian's interpreter, where Debian's python3-* packages are (a python3 earlier in PATH may not
# see them).
PYTHON ?= /usr/bin/python3
PY_DIR := $(BUILD)/python
PY_SRC := $(wildcard python/kyu/*.py python/kyu/py.typed)
PY_HAVE := $(if $(SANITIZE),,$(shell $(PYTHON) -c "import cffi, numpy, sysconfig, os; \
	assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null && \
	pkg-config --exists libcjson 2>/dev/null && echo yes))

.PHONY: python
TOOL_TESTS += tests/tools/python.sh

ifeq ($(PY_HAVE),yes)
PY_EXT := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
PY_INC := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PY_CJSON_CFLAGS := $(shell pkg-config --cflags libcjson)
PY_CJSON_LIBS := $(shell pkg-config --libs libcjson)
PY_MODULE := $(PY_DIR)/kyu/_kyu$(PY_EXT)
PY_OBJ := $(PY_DIR)/obj/shim.o $(SCENE_SRC:tools/%.c=$(PY_DIR)/obj/%.o) $(PY_DIR)/obj/frame_files.o
PY_HDR := python/shim.h $(SCENE_HDR) tools/frame_files.h $(HEADERS)

all: python
python: $(PY_MODULE) $(PY_SRC:python/%=$(PY_DIR)/%)
TOOL_TEST_DEPS += python $(BUILD)/tools/bench

$(BUILD)/pic/libkyu.a: $(PIC_OBJ)
	rm -f $@ && ar rcs $@ $^

$(PY_DIR)/_kyu.c: python/build_kyu.py
	@mkdir -p $(dir $@)
	$(PYTHON) python/build_kyu.py $@

# kyu's own C: the project's warnings, as errors.
$(PY_DIR)/obj/shim.o: python/shim.c $(PY_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -Ipython -Itools -c $< -o $@
$(PY_DIR)/obj/%.o: tools/%.c $(PY_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PY_CJSON_CFLAGS) $(SCENE_CFLAGS) -fPIC -c $< -o $@

# cffi's generated C is not written to kyu's warnings (nor -std=c11: Python's headers want more).
$(PY_DIR)/obj/_kyu.o: $(PY_DIR)/_kyu.c $(PY_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -fPIC -I$(PY_INC) -Iinclude -Ipython -Itools $(CGLM_CFLAGS) -c $< -o $@

$(PY_MODULE): $(PY_DIR)/obj/_kyu.o $(PY_OBJ) $(BUILD)/pic/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(PY_CJSON_LIBS) $(SCENE_LIBS) $(LDLIBS_ALL)

$(PY_DIR)/kyu/%: python/kyu/%
	@mkdir -p $(dir $@)
	cp $< $@
else
python:
	@echo "python: it needs Debian's python3-cffi, python3-numpy, python3-dev and libcjson-dev" \
		"(apt-get install -y python3-cffi python3-numpy python3-dev libcjson-dev)$(if $(SANITIZE), and no SANITIZE): not built"
	@exit 1
endif
