# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python package's tests (run by tests/tools/python.sh, with
PYTHONPATH=$BUILD/python). The closing line "N passed, N failed[, N skipped]" is the one
`make test` adds up."""
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))


@pytest.fixture
def root() -> str:
    return ROOT


@pytest.fixture
def tool():
    """The path of a built C tool (kyu-sim, bench); the test fails when it was not built."""

    def path(name: str) -> str:
        p = os.path.join(BUILD, "tools", name)
        assert os.access(p, os.X_OK), f"{p} was not built (make {p})"
        return p

    return path


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    skipped = len(stats.get("skipped", []))
    line = f"{passed} passed, {failed} failed"
    terminalreporter.write_line(line + (f", {skipped} skipped" if skipped else ""))
