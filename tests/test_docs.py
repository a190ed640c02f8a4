#!/usr/bin/env python3
"""CPU test of the documentation: the READMEs and docs/ must not point at things that are not there.

  - every relative link and image in every .md resolves (the file, and the #anchor if one is given);
  - every marker pair of run_all.sh --update-readme exists exactly once, in the file it writes it to
    (tools/progression.py MARKER_FILES), and in no other .md;
  - every stage folder (vN_*/, mxfp8/) has a README.md that names each of its source files;
  - every command quoted in a README (a code block line or a `span` that starts with ./ or names a script or a
    binary) names a script that exists or a binary that is a CMake target.
The stage pages (vN_*/README.md, mxfp8/README.md) follow the template (docs/page-template.md):
  - length: v1-v6 at most 300 lines, later stages and mxfp8 at most 400;
  - the section order: the `# ` title, a first-read summary of at most 12 non-blank lines, then exactly the
    level-2 headings of SECTIONS in that order (### subsections anywhere);
  - no lab notebook: no dates, run numbers, lending, "as landed", "tried, not kept", issue numbers, sessions,
    goals/targets headings or table headers (outside code blocks and generated tables);
  - every quoted `path:line` still points at the quoted text (the three forms are in check 8), and every
    `path:line` naming a file that exists is within the file;
and the top README's diff-size table, between <!-- DIFF-LINES-BEGIN --> and <!-- DIFF-LINES-END -->, is the
table of `python3 tools/diff_lines.py --series`, and the mxfp8 page's lines-changed rows are its `--count`s.

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
# Marker pairs written by something other than run_all.sh: checked in their own section below.
OTHER_MARKERS = {"DIFF-LINES": "README.md"}  # tools/diff_lines.py --series, check 9
for md in mds:
    for m in re.finditer(r"<!-- ([A-Z0-9-]+)-BEGIN -->", open(md, encoding="utf-8").read()):
        if m.group(1) in OTHER_MARKERS:
            if os.path.abspath(md) != os.path.join(root, OTHER_MARKERS[m.group(1)]):
                fail(f"{rel(md)}: marker {m.group(1)} belongs in {OTHER_MARKERS[m.group(1)]} only")
        elif m.group(1) not in MARKER_FILES:
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


# ---- 5-8. the stage pages follow the template (docs/page-template.md) ----
stage_pages = [os.path.join(d, "README.md") for d in stage_dirs if os.path.exists(os.path.join(root, d, "README.md"))]


def page_fail(page, rule, what):
    fail(f"{page}: [{rule}] {what}")


def masked_lines(text, tables=True):
    """The page's lines with fenced code blocks (fences included) and, if `tables`, everything between a
    <!-- X-BEGIN --> / <!-- X-END --> marker pair (generated tables, markers included) blanked: line
    numbers stay those of the page."""
    out, in_code, in_table = [], False, None
    for line in text.split("\n"):
        if line.startswith("```"):
            in_code = not in_code
            out.append("")
            continue
        if in_code:
            out.append("")
            continue
        m = re.match(r"^<!-- ([A-Z0-9-]+)-(BEGIN|END) -->", line.strip())
        if tables and m and m.group(2) == "BEGIN":
            in_table = m.group(1)
        if tables and in_table:
            if m and m.group(2) == "END" and m.group(1) == in_table:
                in_table = None
            out.append("")
            continue
        out.append(line)
    return out


def budget(page):
    m = re.match(r"^v(\d+)_", page)
    return 300 if m and int(m.group(1)) <= 6 else 400


SECTIONS = ["The idea", "The picture", "The key lines", "The step", "Barriers", "Measured", "What bounds it",
            "Ideas that did not pay", "Exercises"]
SUMMARY_MAX = 12  # non-blank lines between the title and "## The idea" (the template's "~10")

for page in stage_pages:
    text = open(os.path.join(root, page), encoding="utf-8").read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    # ---- 5. length budget ----
    if len(lines) > budget(page):
        page_fail(page, "length budget", f"{len(lines)} lines, budget {budget(page)} "
                  f"({'v1-v6' if budget(page) == 300 else 'v7, v8, mxfp8'})")
    # ---- 6. section order, and the first-read summary ----
    masked = masked_lines(text, tables=False)
    heads = [(i + 1, len(m.group(1)), m.group(2).strip()) for i, l in enumerate(masked)
             for m in [re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", l)] if m]
    titles = [h for h in heads if h[1] == 1]
    h2 = [h for h in heads if h[1] == 2]
    if not titles or titles[0][0] != 1 or len(titles) > 1:
        page_fail(page, "section order", "want one `# ` title, on line 1; found "
                  + (", ".join(f"line {n}" for n, _, _ in titles) or "none"))
    names = [t for _, _, t in h2]
    if names != SECTIONS:
        # name the first heading that is out of place
        for k in range(max(len(names), len(SECTIONS))):
            got = h2[k] if k < len(h2) else None
            want = SECTIONS[k] if k < len(SECTIONS) else None
            if (got and got[2]) != want:
                where = f"line {got[0]}: `## {got[2]}`" if got else "end of page"
                page_fail(page, "section order", f"{where} where the template has "
                          + (f"`## {want}`" if want else "no more level-2 headings")
                          + f" (want, in order: {', '.join(SECTIONS)})")
                break
    if h2 and titles and h2[0][2] == SECTIONS[0]:
        summary = [l for l in masked[titles[0][0]:h2[0][0] - 1] if l.strip()]
        if len(summary) > SUMMARY_MAX:
            page_fail(page, "first-read summary", f"{len(summary)} non-blank lines between the title and "
                      f"`## The idea` (at most {SUMMARY_MAX})")
    # ---- 7. no lab notebook ----
    body = masked_lines(text)
    joined = "\n".join(body)
    COUNTED = (r"CTAs?|warps?|warpgroups?|threads?|blocks?|tiles?|units?|times|wgmmas?|MMAs?|iterations?|"
               r"stages?|clusters?|kernels?|boxes|loads?|stores?|instructions?|bytes|KB|MB|GB|SMs?")
    NOTEBOOK = [
        ("a date", r"\b\d{4}-\d{2}-\d{2}\b"),
        ("a run number", r"\bruns?\s+#?\d+\b(?![.,]?\d|\s*[×x*]|[³²])(?!\s+(?:" + COUNTED + r")\b)"),
        ("machine lending", r"\b(?:lent|lending|lend|lends)\b"),
        ("\"as landed\"", r"\bas\s+landed\b"),
        ("\"tried, not kept\"", r"\btried,?\s+(?:and\s+|but\s+)?not\s+kept\b"),
        ("an issue number", r"\bissue\s+#?\d+\b|\bissues\s+#?\d+(?:\s*(?:,|and)\s*#?\d+)+|(?<![\w&/])#\d+\b"),
        ("a session", r"\bsessions?\b"),
    ]
    for what, pat in NOTEBOOK:
        for m in re.finditer(pat, joined, flags=re.I):
            n = joined.count("\n", 0, m.start()) + 1
            page_fail(page, "no lab notebook", f"line {n}: {what} ({m.group(0)!r}): {lines[n - 1].strip()[:100]}")
    GOAL = re.compile(r"\b(?:goals?|targets?)\b", re.I)
    for i, l in enumerate(body):
        if re.match(r"^#{1,6}\s", l) and GOAL.search(l):
            page_fail(page, "no lab notebook", f"line {i + 1}: a goals/targets heading: {l.strip()[:100]}")
        elif re.match(r"^\s*(?:[-*]\s+)?(?:\*\*|__)?(?:goals?|targets?)(?:\*\*|__)?\s*[:.]", l, flags=re.I):
            page_fail(page, "no lab notebook", f"line {i + 1}: a goals/targets block: {l.strip()[:100]}")
        elif (l.lstrip().startswith("|") and i + 1 < len(body)
              and re.match(r"^\s*\|?\s*:?-{3,}", body[i + 1]) and GOAL.search(l)):
            page_fail(page, "no lab notebook", f"line {i + 1}: a goals/targets table: {l.strip()[:100]}")

# ---- 8. a quoted path:line still points at the quoted text ----
# Three forms in a stage page:
#   (a) a comment line in a code block, `// path:line` or `// path:first-last`, optionally followed by text: the
#       first code line after it (not blank, not a comment) is contained in line `line` of `path`, stripped;
#       with first-last, each of the code lines up to the next such comment is in that range (so there are
#       at most last-first+1 of them), the first in `first`;
#   (b) a code block without (a)'s comments right after a paragraph that names `path:line`s: with as many
#       references as code blocks follow the paragraph, the k-th block's first code line is in the k-th
#       reference's line; otherwise it is in one of the referenced lines;
#   (c) inline, "(`snippet`, `path:line`)": the snippet is contained in that line.
# And every path:line of a stage page (outside generated tables) whose file exists is within the file.
PATHLINE = re.compile(r"(?<![\w./-])([A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:cu|cuh|h|hpp|cpp|c|py|sh|cmake|txt))"
                      r":(\d+)(?:-(\d+))?\b")
_sources = {}
quotes_checked = 0


def source_lines(page, path):
    """The lines of `path` (repository-relative, else relative to the page's folder), or None."""
    for cand in (os.path.join(root, path), os.path.join(root, os.path.dirname(page), path)):
        cand = os.path.normpath(cand)
        if os.path.isfile(cand):
            if cand not in _sources:
                _sources[cand] = open(cand, encoding="utf-8", errors="replace").read().split("\n")
                if _sources[cand] and _sources[cand][-1] == "":
                    _sources[cand].pop()
            return _sources[cand]
    return None


def check_quote(page, where, path, first, last, quoted, rule="quoted path:line", whole=False):
    """`quoted`: the code lines quoted for path:first[-last]; the first must be in line `first`; `whole`: they
    are all the code lines under the reference, so the range must cover each of them."""
    global quotes_checked
    quotes_checked += 1
    src = source_lines(page, path)
    ref = f"{path}:{first}" + (f"-{last}" if last != first else "")
    if src is None:
        page_fail(page, rule, f"line {where}: {ref}: {path} does not exist")
        return
    if not quoted:
        page_fail(page, rule, f"line {where}: {ref} quotes no code line")
        return
    if not (1 <= first <= last <= len(src)):
        page_fail(page, rule, f"line {where}: {ref} is past the end of {path} ({len(src)} lines)")
        return
    if whole and len(quoted) > last - first + 1:
        page_fail(page, rule, f"line {where}: {ref} names {last - first + 1} line(s) and quotes {len(quoted)} code "
                  f"lines: the range must cover every quoted line")
        return
    for k, q in enumerate(quoted[:last - first + 1]):
        q = q.strip()
        span = [first] if k == 0 else range(first + k, last + 1)
        if not any(q in src[n - 1].strip() for n in span):
            at = f"line {first}" if k == 0 else f"lines {first + k}-{last}"
            page_fail(page, rule, f"line {where}: {ref}: `{q[:80]}` is not in {path} {at}, which reads "
                      f"`{src[first + k - 1].strip()[:80]}`")
            return


def code_of(block):
    return [l for l in block if l.strip() and not l.strip().startswith("//")]


QUOTE_COMMENT = re.compile(r"^\s*//\s*" + PATHLINE.pattern + r"(?:\s.*)?$")
for page in stage_pages:
    text = open(os.path.join(root, page), encoding="utf-8").read()
    lines = text.split("\n")
    # the page as paragraphs and code blocks: ("para", first line, text) / ("code", fence line, lang, lines)
    items, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            items.append(("code", i + 1, lines[i][3:].strip(), lines[i + 1:j]))
            i = j + 1
        elif not lines[i].strip():
            i += 1
        else:
            j = i
            while j < len(lines) and lines[j].strip() and not lines[j].startswith("```"):
                j += 1
            items.append(("para", i + 1, "\n".join(lines[i:j])))
            i = j
    for k, item in enumerate(items):
        if item[0] != "code" or item[2] in ("bash", "sh", "shell", "console"):
            continue
        _, fence, _, block = item
        marks = [(n, QUOTE_COMMENT.match(l)) for n, l in enumerate(block) if QUOTE_COMMENT.match(l)]
        if marks:  # form (a)
            for idx, (n, m) in enumerate(marks):
                end = marks[idx + 1][0] if idx + 1 < len(marks) else len(block)
                first = int(m.group(2))
                last = int(m.group(3)) if m.group(3) else first
                check_quote(page, fence + 1 + n, m.group(1), first, last, code_of(block[n + 1:end]),
                            whole=m.group(3) is not None)
            continue
        # form (b): the paragraph before this run of code blocks
        p = k - 1
        while p >= 0 and items[p][0] == "code":
            p -= 1
        if p < 0 or items[p][0] != "para":
            continue
        refs = PATHLINE.findall(items[p][2])
        if not refs:
            continue
        run = [x for x in range(p + 1, len(items)) if all(items[y][0] == "code" for y in range(p + 1, x + 1))]
        quoted = code_of(block)[:1]
        if len(refs) == len(run):
            path, first, last = refs[run.index(k)]
            check_quote(page, fence + 1, path, int(first), int(last or first), quoted)
        elif quoted and not any(source_lines(page, path) is not None and
                                int(first) <= len(source_lines(page, path)) and
                                quoted[0].strip() in source_lines(page, path)[int(first) - 1].strip()
                                for path, first, _ in refs):
            page_fail(page, "quoted path:line", f"line {fence + 1}: `{quoted[0].strip()[:80]}` is in none of "
                      f"the lines the paragraph at line {items[p][1]} names "
                      f"({', '.join(f'{a}:{b}' for a, b, _ in refs)})")
    # form (c), and every path:line within its file
    body = masked_lines(text)  # code blocks are checked above; generated tables are left alone
    joined = "\n".join(body)
    INLINE = re.compile(r"`([^`]+)`,\s*`" + PATHLINE.pattern + r"`\s*\)")
    for m in INLINE.finditer(joined):
        if PATHLINE.fullmatch(m.group(1).strip()):
            continue  # a list of references, not a snippet
        n = joined.count("\n", 0, m.start(2)) + 1
        check_quote(page, n, m.group(2), int(m.group(3)), int(m.group(4) or m.group(3)), [m.group(1)])
    for m in PATHLINE.finditer(joined):
        src = source_lines(page, m.group(1))
        last = int(m.group(3) or m.group(2))
        if src is not None and not (1 <= int(m.group(2)) <= last <= len(src)):
            n = joined.count("\n", 0, m.start()) + 1
            page_fail(page, "path:line in range", f"line {n}: {m.group(0)} is past the end of {m.group(1)} "
                      f"({len(src)} lines)")

# ---- 9. the top README's diff-size table is tools/diff_lines.py --series ----
readme = os.path.join(root, "README.md")
tool = os.path.join(root, "tools", "diff_lines.py")
if os.path.exists(readme):
    text = open(readme, encoding="utf-8").read()
    begin, end = "<!-- DIFF-LINES-BEGIN -->", "<!-- DIFF-LINES-END -->"
    if begin not in text or end not in text:
        fail(f"README.md has no DIFF-LINES markers ({begin} ... {end}): [diff-size table] the table of "
             f"`python3 tools/diff_lines.py --series` must stand between them")
    elif text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        fail(f"README.md: [diff-size table] want one {begin} before one {end}")
    elif not os.path.exists(tool):
        fail("README.md: [diff-size table] tools/diff_lines.py does not exist")
    else:
        import subprocess
        res = subprocess.run([sys.executable, tool, "--series"], capture_output=True, text=True)
        want = [l.strip() for l in res.stdout.splitlines() if l.strip().startswith("|")]
        block = text[text.index(begin) + len(begin):text.index(end)]
        got = [l.strip() for l in block.splitlines() if l.strip().startswith("|")]
        if res.returncode != 0 or not want:
            fail(f"README.md: [diff-size table] `python3 tools/diff_lines.py --series` failed: "
                 f"{res.stderr.strip()[-200:]}")
        elif got != want:
            k = next(i for i in range(max(len(got), len(want)))
                     if (got[i] if i < len(got) else None) != (want[i] if i < len(want) else None))
            fail(f"README.md: [diff-size table] row {k + 1} between the DIFF-LINES markers is "
                 f"{got[k] if k < len(got) else '(missing)'!r}; `python3 tools/diff_lines.py --series` says "
                 f"{want[k] if k < len(want) else '(no such row)'!r}")

# ---- 10. the mxfp8 page's lines-changed table is tools/diff_lines.py --count's, row by row ----
MXFP8_DIFFS = {"v6 → mxfp8, Blackwell": ("v6_persistent/matmul_v6.cu", "mxfp8/matmul_mxfp8.cu"),
               "v6 → mxfp8, Hopper": ("v6_persistent/matmul_v6_sm90.cu", "mxfp8/matmul_mxfp8_sm90.cu"),
               "`mx` → `bw`, Hopper": ("mxfp8/matmul_mxfp8_sm90.cu", "mxfp8/matmul_bw_sm90.cu")}
mx_page = os.path.join(root, "mxfp8", "README.md")
if os.path.exists(mx_page) and os.path.exists(tool):
    import subprocess
    rows = {}
    for l in open(mx_page, encoding="utf-8").read().splitlines():
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] in MXFP8_DIFFS:
            rows[cells[0]] = cells[1]
    for label, (old, new) in MXFP8_DIFFS.items():
        res = subprocess.run([sys.executable, tool, "--count", os.path.join(root, old), os.path.join(root, new)],
                             capture_output=True, text=True)
        m = re.match(r"(\d+) lines of code changed: (\d+) removed, (\d+) added", res.stdout)
        want = f"{m.group(1)} (−{m.group(2)} +{m.group(3)})" if m else None
        if label not in rows:
            fail(f"mxfp8/README.md: [lines-changed table] no row `{label}`")
        elif want is None:
            fail(f"mxfp8/README.md: [lines-changed table] `python3 tools/diff_lines.py --count {old} {new}` failed")
        elif rows[label] != want:
            fail(f"mxfp8/README.md: [lines-changed table] row `{label}` says {rows[label]}; "
                 f"`python3 tools/diff_lines.py --count {old} {new}` says {want}")

print("test_docs:", f"FAILED ({len(failures)})" if failures else
      f"all checks passed ({len(mds)} .md files, {len(MARKER_FILES)} marker pairs, {len(stage_dirs)} stage folders, "
      f"{len(stage_pages)} stage pages in the template, {quotes_checked} quoted path:lines)")
sys.exit(1 if failures else 0)
