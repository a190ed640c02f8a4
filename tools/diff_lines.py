#!/usr/bin/env python3
"""The code-only diff between two stage files, and how many lines of code it changes.

A stage's header comment is rewritten at every step, so `diff vN vN+1` is long even where the code changes
little. This strips `//` and `/* */` comments and blank lines from both files, diffs what is left with
`diff`, and prints that diff (with the files' own line numbers) and a count of removed and added lines:

  tools/diff_lines.py v1_basic/matmul_v1.cu v2_swizzle128/matmul_v2.cu   the code-only diff, then its count
  tools/diff_lines.py --count v1_basic/matmul_v1.cu v2_swizzle128/matmul_v2.cu   the count only
  tools/diff_lines.py --series                  a table: every consecutive pair of stages, both architectures

Whitespace counts, as in `diff` (a re-aligned `=` is a changed line); -b ignores changes in the amount of
white space, as `diff -b` does. Only the standard library and a `diff` on the PATH are needed.
"""
import argparse
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_lines(path):
    """(line number, code) for each line of `path` that holds code once comments are removed."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out, line, lineno, i, n = [], [], 1, 0, len(text)
    in_block = False
    while i < n:
        c = text[i]
        if c == "\n":
            code = "".join(line).rstrip()
            if code.strip():
                out.append((lineno, code))
            line, lineno, i = [], lineno + 1, i + 1
            continue
        if in_block:
            if text.startswith("*/", i):
                in_block, i = False, i + 2
            else:
                i += 1
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            in_block, i = True, i + 2
            continue
        if c in "\"'":  # a string or character literal: copy it whole, escapes included
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            line.append(text[i : j + 1])
            i = j + 1
            continue
        line.append(c)
        i += 1
    code = "".join(line).rstrip()
    if code.strip():
        out.append((lineno, code))
    return out


HUNK = re.compile(r"^(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?$")


def code_diff(old, new, ignore_space=False):
    """(removed, added, diff text with the original files' line numbers) of the code-only lines."""
    a, b = code_lines(old), code_lines(new)
    with tempfile.TemporaryDirectory() as tmp:
        fa, fb = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        for name, lines in ((fa, a), (fb, b)):
            with open(name, "w", encoding="utf-8") as f:
                f.writelines(code + "\n" for _, code in lines)
        cmd = ["diff"] + (["-b"] if ignore_space else []) + [fa, fb]
        res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode > 1:
        sys.exit(f"diff failed: {res.stderr.strip()}")

    def span(lines, first, last):  # diff's 1-based indices into the stripped file -> original line numbers
        lo, hi = lines[first - 1][0], lines[(last or first) - 1][0]
        return str(lo) if lo == hi else f"{lo},{hi}"

    removed = added = 0
    out = []
    for row in res.stdout.splitlines():
        m = HUNK.match(row)
        if m:
            a1, a2, op, b1, b2 = m.groups()
            # an 'a' hunk names the old line it follows, a 'd' hunk the new one: 0 means "before the first"
            left = span(a, int(a1), a2 and int(a2)) if int(a1) > 0 else "0"
            right = span(b, int(b1), b2 and int(b2)) if int(b1) > 0 else "0"
            out.append(f"{left}{op}{right}")
        else:
            removed += row.startswith("< ")
            added += row.startswith("> ")
            out.append(row)
    return removed, added, "\n".join(out)


def stage_files(suffix):
    """The stage files v1, v2, ... of one architecture, in order: matmul_vN.cu or matmul_vN_sm90.cu."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "v[0-9]*_*", f"matmul_v*{suffix}.cu")):
        m = re.fullmatch(rf"matmul_v(\d+){re.escape(suffix)}\.cu", os.path.basename(path))
        if m:
            found[int(m.group(1))] = path
    return [found[k] for k in sorted(found)]


def series(ignore_space):
    blackwell, hopper = stage_files(""), stage_files("_sm90")
    print("| diff | Blackwell (matmul_vN.cu) | Hopper (matmul_vN_sm90.cu) |")
    print("|---|---|---|")
    for files in zip(zip(blackwell, blackwell[1:]), zip(hopper, hopper[1:])):
        cells = []
        for old, new in files:
            r, a, _ = code_diff(old, new, ignore_space)
            cells.append(f"{r + a} (-{r} +{a})")
        name = lambda p: re.search(r"matmul_(v\d+)", p).group(1)
        print(f"| {name(files[0][0])} -> {name(files[0][1])} | {cells[0]} | {cells[1]} |")
    print("\nlines of code changed (removed + added), comments and blank lines left out")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", nargs="?")
    p.add_argument("new", nargs="?")
    p.add_argument("--count", action="store_true", help="print the count only")
    p.add_argument("--series", action="store_true", help="count every consecutive pair of stage files")
    p.add_argument("-b", dest="ignore_space", action="store_true", help="ignore changes in white space")
    args = p.parse_args()
    if args.series:
        series(args.ignore_space)
        return
    if not (args.old and args.new):
        p.error("name two files, or --series")
    removed, added, text = code_diff(args.old, args.new, args.ignore_space)
    if not args.count and text:
        print(text)
    print(f"{removed + added} lines of code changed: {removed} removed, {added} added "
          f"({os.path.relpath(args.old)} -> {os.path.relpath(args.new)}, comments and blank lines left out)")


if __name__ == "__main__":
    main()
