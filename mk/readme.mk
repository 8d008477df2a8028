# SPDX-License-Identifier: MIT
# README.md's C example, cut out of the README and built with the project's flags (sanitizers
# included), so that tests/tools/readme.sh runs the very text a reader copies. (The Python example
# is run by the package's pytest suite, the browser example by tests/tools/wasm.sh.)

TOOL_TESTS += tests/tools/readme.sh
TOOL_TEST_DEPS += $(BUILD)/readme/example

$(BUILD)/readme/example.c: README.md
	@mkdir -p $(dir $@)
	awk '/^```c$$/ { on = 1; next } /^```$$/ { if (on) exit } on' README.md > $@

$(BUILD)/readme/example: $(BUILD)/readme/example.c $(BUILD)/libkyu.a
	$(CC) $(CFLAGS_ALL) $< $(BUILD)/libkyu.a -o $@ $(LDLIBS_ALL)
