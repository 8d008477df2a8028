# SPDX-License-Identifier: MIT
# Pictures without a window (issue 7): tools/kyu-render (PNG frames and GIFs of recordings, scenes
# and a demo, drawn with cairo; kyu-sim's records read with cJSON and, the VTK ones, expat) and tools/kyu-lesson (one collision,
# step by step, as one self-contained HTML page; needs nothing but libkyu).
#   make render-tools   builds $(BUILD)/tools/kyu-render and $(BUILD)/tools/kyu-lesson
# Without cairo, cJSON or expat, kyu-render is skipped (one line says what to install) and
# tests/tools/render.sh reports skips.

RENDER_PKGS := cairo libcjson expat
RENDER_HAVE := $(shell pkg-config --exists $(RENDER_PKGS) 2>/dev/null && echo yes)
RENDER_SRC := tools/kyu-render.c tools/render_view.c tools/render_input.c tools/render_formats.c $(SCENE_SRC)
RENDER_HDR := tools/render_view.h tools/render_input.h $(SCENE_HDR)
LESSON_SRC := tools/kyu-lesson.c tools/lesson_capture.c tools/lesson_analysis.c tools/lesson_page.c \
	tools/lesson_svg.c
LESSON_HDR := tools/lesson_capture.h tools/lesson_page.h tools/lesson_svg.h

.PHONY: render-tools
all: render-tools
render-tools: $(BUILD)/tools/kyu-lesson
TOOL_TESTS += tests/tools/render.sh tests/tools/lesson.sh
TOOL_TEST_DEPS += $(BUILD)/tools/kyu-lesson

$(BUILD)/tools/kyu-lesson: $(LESSON_SRC) $(LESSON_HDR) $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LESSON_SRC) $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)

ifeq ($(RENDER_HAVE),yes)
# kyu-render reads scene files (and a recording's colliders) with the scene loader of kyu-sim.
RENDER_CFLAGS := $(shell pkg-config --cflags $(RENDER_PKGS))
RENDER_LIBS := $(shell pkg-config --libs $(RENDER_PKGS))
render-tools: $(BUILD)/tools/kyu-render
TOOL_TEST_DEPS += $(BUILD)/tools/kyu-render

$(BUILD)/tools/kyu-render: $(RENDER_SRC) $(RENDER_HDR) $(BUILD)/libkyu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RENDER_CFLAGS) $(SCENE_CFLAGS) $(RENDER_SRC) $(BUILD)/libkyu.a -o $@ $(RENDER_LIBS) $(SCENE_LIBS) $(LDLIBS_ALL)
else ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
$(info kyu-render skipped: it needs cairo, cJSON and expat (apt-get install -y libcairo2-dev libcjson-dev libexpat1-dev pkg-config))
endif
