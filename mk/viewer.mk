# SPDX-License-Identifier: MIT
# The interactive viewer (samples/viewer/, issue 7): SDL2 + OpenGL 2.1, built only when pkg-config
# finds both (Debian: libsdl2-dev, which brings libgl-dev); the library never needs them.
#   make viewer    builds $(BUILD)/samples/viewer, or says in one line how to get SDL2
# tests/tools/viewer.sh runs it under Xvfb and checks a screenshot (it skips without Xvfb).

VIEWER_SRC := $(wildcard samples/viewer/*.c)
VIEWER_HDR := $(wildcard samples/viewer/*.h)
VIEWER_HAVE := $(shell pkg-config --exists sdl2 gl 2>/dev/null && echo yes)

.PHONY: viewer
# It reports a skip when the viewer or Xvfb is missing. Not under SANITIZE: there Mesa's software
# OpenGL, intercepted call by call, took 43 s of CI (22 s without), and what the viewer asks of kyu,
# the debug draw and the bulk reads, the unit tests run under the sanitizers already.
ifeq ($(SANITIZE),)
TOOL_TESTS += tests/tools/viewer.sh
endif

ifeq ($(VIEWER_HAVE),yes)
# SDL's headers as system headers: kyu's -Wpedantic -Werror is for kyu's code, not theirs.
VIEWER_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags sdl2 gl))
VIEWER_LIBS := $(shell pkg-config --libs sdl2 gl)
all: viewer
viewer: $(BUILD)/samples/viewer
TOOL_TEST_DEPS += $(BUILD)/samples/viewer

$(BUILD)/samples/viewer: $(VIEWER_SRC) $(VIEWER_HDR) $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(VIEWER_CFLAGS) $(VIEWER_SRC) $(BUILD)/libkyu.a -o $@ $(VIEWER_LIBS) $(LDLIBS_ALL)
else
viewer:
	@echo "viewer: it needs SDL2 and OpenGL (sudo apt-get install -y libsdl2-dev pkg-config): not built"
	@exit 1
endif
