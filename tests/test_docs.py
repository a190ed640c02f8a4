#!/usr/bin/env python3
"""CPU test of the documentation: the READMEs and docs/ must not point at things that are not there.

  - every relative link and image in every .md resolves (the file, and the #anchor if one is given);
  - every marker pair of run_all.sh --update-readme exists exactly once, in the file it writes it to
    (tools/progression.py MARKER_FILES), and in no other .md;
  - every stage folder (vN_*/, mxfp8/) has a README.md that names each of its source files;
  - every command quoted in a README (a code block line or a `span` that starts with ./ or names a script or a
    binary) names a script that exists or a binary that is a CMake target.

Usage: test_docs.py [ROOT]   (ROOT defaults to the repository this file is in). Exits non-zero on the first
kind of failure, after printing every failure found."""
import os
import re
import sys

root = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from progression import MARKER_FILES  # noqa: E402

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


SKIP_DIRS = {".git", "results", "node_modules", "__pycache__"}


def md_files():
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build") and not x.startswith(".")]
        out += [os.path.join(d, f) for f in files if f.endswith(".md")]
    return sorted(out)


def rel(p):
    return os.path.relpath(p, root)


def strip_code(text):
    """The text without fenced code blocks (links inside them are code, not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped (but - and _), spaces to hyphens."""
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    text = strip_code(open(path, encoding="utf-8").read())
    seen, out = {}, set()
    for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


# ---- 1. links and images ----
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
mds = md_files()
for md in mds:
    text = strip_code(open(md, encoding="utf-8").read())
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code is not a link either
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        if not os.path.exists(dest):
            fail(f"{rel(md)}: link to {target}: {rel(dest)} does not exist")
            continue
        if anchor and dest.endswith(".md") and anchor not in anchors(dest):
            fail(f"{rel(md)}: link to {target}: no heading with anchor #{anchor} in {rel(dest)}")

# ---- 2. markers: exactly once, in the file run_all.sh writes them to ----
for name, where in MARKER_FILES.items():
    begin, end = f"<!-- {name}-BEGIN -->", f"<!-- {name}-END -->"
    path = os.path.join(root, where)
    if not os.path.exists(path):
        fail(f"marker {name}: {where} does not exist")
        continue
    text = open(path, encoding="utf-8").read()
    nb, ne = text.count(begin), text.count(end)
    if nb != 1 or ne != 1:
        fail(f"marker {name}: {where} holds {nb} BEGIN and {ne} END markers (want 1 and 1)")
    elif text.index(begin) > text.index(end):
        fail(f"marker {name}: END before BEGIN in {where}")
    for md in mds:
        if os.path.abspath(md) != os.path.abspath(path) and begin in open(md, encoding="utf-8").read():
            fail(f"marker {name}: also in {rel(md)}, which run_all.sh never writes")
for md in mds:
    for m in re.finditer(r"<!-- ([A-Z0-9-]+)-BEGIN -->", open(md, encoding="utf-8").read()):
        if m.group(1) not in MARKER_FILES:
            fail(f"{rel(md)}: marker {m.group(1)} is not in tools/progression.py MARKER_FILES")

# ---- 3. every stage folder has a README that names its files ----
stage_dirs = sorted(d for d in os.listdir(root) if re.match(r"^v\d+_\w+$", d) or d == "mxfp8")
for d in stage_dirs:
    if not os.path.isdir(os.path.join(root, d)):
        continue
    readme = os.path.join(root, d, "README.md")
    if not os.path.exists(readme):
        fail(f"{d}/ has no README.md")
        continue
    text = open(readme, encoding="utf-8").read()
    for f in sorted(os.listdir(os.path.join(root, d))):
        if re.search(r"\.(cu|cuh|h|cpp)$", f) and f not in text:
            fail(f"{d}/README.md does not name {f}")

# ---- 4. commands quoted in READMEs name scripts or binaries that exist ----
def cmake_targets():
    names = set()
    for cm in ("CMakeLists.txt", "tests/CMakeLists.txt"):
        p = os.path.join(root, cm)
        if not os.path.exists(p):
            continue
        text = open(p, encoding="utf-8").read()
        names |= {n for n in re.findall(r"add_executable\(\s*([A-Za-z0-9_]+)", text)}
        names |= {f"matmul_{n}" for n in re.findall(r"^\s*add_stage\(\s*([A-Za-z0-9_]+)", text, flags=re.M)}
    return names


targets = cmake_targets()
# A binary named bare (`matmul_v5 --trace ...`) or under build/: the stage binaries and the tools. Test
# binaries are named through ctest, never run by hand in the READMEs.
BINARY = re.compile(r"^(?:\./)?(?:build/)?(matmul_[A-Za-z0-9_]+|mx_quant_bench|racecheck_mbarrier_ring)(?=\s|$)")


def check_command(md, cmd):
    cmd = cmd.strip()
    if not cmd or cmd.startswith("#"):
        return
    first = cmd.split()[0]
    if first.startswith("build/") and not BINARY.match(first):
        fail(f"{rel(md)}: `{cmd}` names {first}, which is no CMake target")
        return
    if first in ("python3", "python", "bash", "sh") and len(cmd.split()) > 1:
        first = cmd.split()[1]
        if re.search(r"\.(py|sh)$", first) and not os.path.exists(os.path.join(root, first.lstrip("./"))):
            fail(f"{rel(md)}: `{cmd}` names {first}, which does not exist")
        return
    m = BINARY.match(first)
    if m and (first.startswith("./build/") or first.startswith("build/") or "/" not in first):
        if m.group(1) not in targets:
            fail(f"{rel(md)}: `{cmd}` names the binary {m.group(1)}, which is no CMake target")
        return
    if first.startswith("./"):
        path = first[2:]
        if path.startswith("build/"):
            fail(f"{rel(md)}: `{cmd}` names {first}, which is no CMake target")
        elif not os.path.exists(os.path.join(root, path)):
            fail(f"{rel(md)}: `{cmd}` names {first}, which does not exist")


for md in mds:
    if not os.path.basename(md) == "README.md" and not rel(md).startswith("docs"):
        continue
    text = open(md, encoding="utf-8").read()
    for block in re.findall(r"^```(?:bash|sh|console)?\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.splitlines():
            check_command(md, line)
    for span in re.findall(r"`([^`\n]+)`", strip_code(text)):
        if span.startswith("./") or BINARY.match(span):
            check_command(md, span)

print("test_docs:", f"FAILED ({len(failures)})" if failures else
      f"all checks passed ({len(mds)} .md files, {len(MARKER_FILES)} marker pairs, {len(stage_dirs)} stage folders)")
sys.exit(1 if failures else 0)
