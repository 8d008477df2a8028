# SPDX-License-Identifier: MIT
# The API reference from the public headers' /// comments (docs/Doxyfile):
#   make docs    writes build/docs/html/index.html with doxygen (apt-get install -y doxygen); any
#                doxygen warning (an undocumented declaration, a broken reference) fails it.
.PHONY: docs
docs:
	@command -v doxygen > /dev/null || { echo "docs: doxygen is missing (apt-get install -y doxygen)"; exit 1; }
	@rm -rf build/docs
	doxygen docs/Doxyfile
	@echo "docs: build/docs/html/index.html"
