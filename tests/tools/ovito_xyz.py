# SPDX-License-Identifier: MIT
"""A strict reader of extended XYZ, written to the grammar OVITO's XYZ reader documents.

A file is frames back to back. A frame is:

1. a line holding the number of particles N (a non-negative integer);
2. the comment line: key=value pairs separated by blanks, a value being a bare token (no blank, no
   quote) or a double-quoted string. ``Properties`` names the columns as ``name:type:count``
   triples joined by colons, type S (string), R (real), I (integer) or L (logical: T, F, True,
   False); ``Lattice`` is 9 reals (the three cell vectors), ``Origin`` 3 reals, ``pbc`` 3 logicals;
3. N rows, each exactly as many blank-separated tokens as the columns add up to.

Anything else (a missing or repeated key, a token of the wrong type, a short or long row, text
after the last frame) raises ``XyzError`` with the line number. Nothing here comes from kyu: the
test compares what this reads with what kyu wrote another way (CSV, or the arrays in memory).
"""
import re

import numpy as np

INT = re.compile(r"[+-]?[0-9]+\Z")
REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LOGICAL = {"T": True, "F": False, "True": True, "False": False}


class XyzError(ValueError):
    pass


def parse_comment(line, lineno):
    """The key=value pairs of a comment line, in a dict of strings (quotes removed)."""
    pairs, i, n = {}, 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i == n:
            return pairs
        m = KEY.match(line, i)
        if not m or m.end() == n or line[m.end()] != "=":
            raise XyzError(f"line {lineno}: expected key=value at column {i + 1}: {line[i:i + 30]!r}")
        key, i = m.group(0), m.end() + 1
        if i < n and line[i] == '"':
            end = line.find('"', i + 1)
            if end < 0:
                raise XyzError(f"line {lineno}: unterminated quote in {key}")
            value, i = line[i + 1:end], end + 1
            if i < n and line[i] not in " \t":
                raise XyzError(f"line {lineno}: text right after the quoted value of {key}")
        else:
            end = i
            while end < n and line[end] not in " \t":
                end += 1
            value = line[i:end]
            if not value or '"' in value:
                raise XyzError(f"line {lineno}: bad value of {key}: {value!r}")
            i = end
        if key in pairs:
            raise XyzError(f"line {lineno}: {key} given twice")
        pairs[key] = value


def parse_properties(value, lineno):
    """[(name, type, count)] of a Properties value."""
    parts = value.split(":")
    if len(parts) % 3 != 0 or not parts[0]:
        raise XyzError(f"line {lineno}: Properties is not name:type:count triples: {value!r}")
    columns = []
    for k in range(0, len(parts), 3):
        name, kind, count = parts[k:k + 3]
        if not KEY.fullmatch(name) or kind not in "SRIL" or len(kind) != 1 or not count.isdigit() or int(count) < 1:
            raise XyzError(f"line {lineno}: bad property {name}:{kind}:{count}")
        if any(c[0] == name for c in columns):
            raise XyzError(f"line {lineno}: property {name} twice")
        columns.append((name, kind, int(count)))
    if ("pos", "R", 3) not in columns:
        raise XyzError(f"line {lineno}: no pos:R:3 column (OVITO needs the positions)")
    return columns


def token(kind, text, lineno):
    if kind == "R":
        if not REAL.match(text):
            raise XyzError(f"line {lineno}: {text!r} is not a real")
        return float(text)
    if kind == "I":
        if not INT.match(text):
            raise XyzError(f"line {lineno}: {text!r} is not an integer")
        return int(text)
    if kind == "L":
        if text not in LOGICAL:
            raise XyzError(f"line {lineno}: {text!r} is not T or F")
        return LOGICAL[text]
    return text


def reals(value, count, key, lineno):
    items = value.split()
    if len(items) != count or not all(REAL.match(x) for x in items):
        raise XyzError(f"line {lineno}: {key} must be {count} reals, got {value!r}")
    return [float(x) for x in items]


def read(path):
    """The frames of an extended XYZ file: a list of dicts with "info" (the comment's pairs, with
    Lattice, Origin and pbc parsed when present) and "columns" (name -> numpy array, N x count)."""
    with open(path, encoding="ascii") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last row
    frames, i = [], 0
    while i < len(lines):
        count_line = lines[i].strip()
        if not INT.match(count_line) or int(count_line) < 0:
            raise XyzError(f"line {i + 1}: expected the particle count, got {lines[i]!r}")
        n = int(count_line)
        if i + 1 >= len(lines):
            raise XyzError(f"line {i + 2}: the comment line is missing")
        info = parse_comment(lines[i + 1], i + 2)
        if "Properties" not in info:
            raise XyzError(f"line {i + 2}: no Properties key")
        columns = parse_properties(info["Properties"], i + 2)
        if "Lattice" in info:
            info["Lattice"] = reals(info["Lattice"], 9, "Lattice", i + 2)
        if "Origin" in info:
            info["Origin"] = reals(info["Origin"], 3, "Origin", i + 2)
        if "pbc" in info:
            flags = info["pbc"].split()
            if len(flags) != 3 or any(x not in LOGICAL for x in flags):
                raise XyzError(f"line {i + 2}: pbc must be 3 logicals")
            info["pbc"] = [LOGICAL[x] for x in flags]
        width = sum(c[2] for c in columns)
        if i + 2 + n > len(lines):
            raise XyzError(f"line {len(lines) + 1}: the frame promises {n} rows, the file ends first")
        data = {name: [] for name, _, _ in columns}
        for r in range(n):
            lineno = i + 3 + r
            toks = lines[lineno - 1].split()
            if len(toks) != width:
                raise XyzError(f"line {lineno}: {len(toks)} columns, Properties says {width}")
            at = 0
            for name, kind, cnt in columns:
                data[name].append([token(kind, t, lineno) for t in toks[at:at + cnt]])
                at += cnt
        out = {}
        for name, kind, cnt in columns:
            dtype = {"R": np.float64, "I": np.int64, "L": bool, "S": object}[kind]
            arr = np.array(data[name], dtype=dtype).reshape(n, cnt)
            out[name] = arr[:, 0] if cnt == 1 else arr
        frames.append({"info": info, "columns": out})
        i += 2 + n
    return frames
