#!/usr/bin/env python3
"""CPU self-test of test_docs.py's page checks: each rule, shown failing once on a broken copy of the tree.

The tree (without .git, build*/, results/) is copied to a temporary folder; for each case one page (or a source
a page quotes, or the top README) is broken, test_docs.py runs on the copy, and the case passes when a FAIL
line appears that the unbroken copy does not print and that names the page and the rule. Cases marked
`clean` are the opposite: text the rule must NOT flag (inside a code block or a generated table) adds no
failure. Compared with the unbroken copy, so a page that fails a rule today does not make this test fail.

Usage: test_docs_selftest.py [-v]   (-v prints each case's new FAIL lines). Runs in a few seconds."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TEST = os.path.join(HERE, "test_docs.py")
VERBOSE = "-v" in sys.argv[1:]


def ignore(d, names):
    return [n for n in names if n in (".git", "results", "__pycache__", "node_modules") or n.startswith("build")
            or (n.startswith(".") and os.path.isdir(os.path.join(d, n)))]


def run(root):
    res = subprocess.run([sys.executable, TEST, root], capture_output=True, text=True, timeout=120)
    return res.returncode, [l for l in res.stdout.splitlines() if l.startswith("FAIL:")]


def diff_table(root):
    out = subprocess.run([sys.executable, os.path.join(root, "tools", "diff_lines.py"), "--series"],
                         capture_output=True, text=True, check=True).stdout
    return "<!-- DIFF-LINES-BEGIN -->\n" + out + "<!-- DIFF-LINES-END -->\n"


def with_markers(root, text):
    """The README with the tool's diff-size table between its markers: where the README has them, else at
    its end."""
    pat = r"<!-- DIFF-LINES-BEGIN -->.*?<!-- DIFF-LINES-END -->\n?"
    if re.search(pat, text, flags=re.S):
        return re.sub(pat, lambda m: diff_table(root), text, count=1, flags=re.S)
    return text.rstrip("\n") + "\n\n" + diff_table(root)


def shift_first(pattern):
    """An edit: the line number in the first match of `pattern` (its group 1) moved one line on, so that
    the quote points at the line after the quoted one; the pattern must match."""
    def edit(text, root):
        m = re.search(pattern, text, flags=re.M)
        assert m, f"self-test edit found no {pattern!r}"
        return text[:m.start(1)] + str(int(m.group(1)) + 1) + text[m.end(1):]
    return edit


def sub1(pattern, repl, flags=re.M):
    """An edit: replace the first match of `pattern`; it must match."""
    def edit(text, root):
        new, n = re.subn(pattern, repl, text, count=1, flags=flags)
        assert n == 1, f"self-test edit found no {pattern!r}"
        return new
    return edit


def append(extra):
    return lambda text, root: text.rstrip("\n") + "\n" + extra


def in_summary(extra):
    return lambda text, root: re.sub(r"^## The idea", extra + "\n## The idea", text, count=1, flags=re.M)


def swap(a, b):
    def edit(text, root):
        assert f"\n## {a}\n" in text and f"\n## {b}\n" in text
        return text.replace(f"\n## {a}\n", "\n@@A@@\n").replace(f"\n## {b}\n", f"\n## {a}\n").replace(
            "\n@@A@@\n", f"\n## {b}\n")
    return edit


NOTEBOOK = ("The table below was measured on 2025-11-25, in run 7 on a lent H100 (issue 35, this session).\n"
            "The tree as landed keeps it; a swizzle was tried, not kept.\n\n### Goals\n\n"
            "| shape | target |\n|---|---|\n| 4096³ | 0.9× |\n")

# (name, file to break, edit, what a new FAIL line must contain; or None for a `clean` case)
CASES = [
    ("length budget (v1-v6: 300)", "v2_swizzle128/README.md", append("filler line\n" * 300),
     ["v2_swizzle128/README.md: [length budget]"]),
    ("length budget (v7, v8, mxfp8: 400)", "mxfp8/README.md", append("filler line\n" * 400),
     ["mxfp8/README.md: [length budget]"]),
    ("section order: two sections swapped", "v3_pipeline/README.md", swap("Barriers", "Measured"),
     ["v3_pipeline/README.md: [section order]"]),
    ("section order: a heading not in the template", "v3_pipeline/README.md",
     sub1(r"^## What bounds it$", "## Where the time goes\n\n## What bounds it"),
     ["v3_pipeline/README.md: [section order]"]),
    ("first-read summary too long", "v4_warpspec/README.md", in_summary("one more line of summary\n" * 10),
     ["v4_warpspec/README.md: [first-read summary]"]),
    ("lab notebook", "v5_2sm/README.md", sub1(r"^## What bounds it$", NOTEBOOK + "\n## What bounds it"),
     ["v5_2sm/README.md: [no lab notebook]", ": a date", ": a run number", ": machine lending",
      ": an issue number", ": a session", ': "as landed"', ': "tried, not kept"', ": a goals/targets heading",
      ": a goals/targets table"]),
    ("lab notebook: inside a code block and a generated table is fine", "v5_2sm/README.md",
     lambda t, r: sub1(r"^<!-- V5-TABLE-BEGIN -->$", "<!-- V5-TABLE-BEGIN -->\nrun 7 on 2025-11-25, lent")(
         sub1(r"^## Exercises$", "```\nrun 7 on 2025-11-25, issue 35, a lent H100\n```\n\n## Exercises")(t, r), r),
     None),
    ("quote (a): `// path:line` in a code block", "v7_streamk/README.md",
     shift_first(r"^// v7_streamk/matmul_v7\.cu:(\d+)"),
     ["v7_streamk/README.md: [quoted path:line]", "v7_streamk/matmul_v7.cu:"]),
    ("quote (a): a `first-last` range shorter than the code lines it quotes", "mxfp8/README.md",
     sub1(r"^// (mxfp8/matmul_bw_sm90\.cu):(\d+)-(\d+)$", r"// \1:\2-\2"),
     ["mxfp8/README.md: [quoted path:line]", "the range must cover every quoted line"]),
    ("mxfp8's lines-changed table: a count that is not the tool's", "mxfp8/README.md",
     sub1(r"^(\| `mx` → `bw`, Hopper \| )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1)),
     ["mxfp8/README.md: [lines-changed table]", "diff_lines.py --count"]),
    ("quote (b): a paragraph's `path:line`, then the code block", "v1_basic/README.md",
     shift_first(r"(?<!// )(?<!`, `)v1_basic/matmul_v1\.cu:(\d+)"),
     ["v1_basic/README.md: [quoted path:line]", "v1_basic/matmul_v1.cu:"]),
    ("quote (c): (`snippet`, `path:line`)", "v7_streamk/README.md",
     shift_first(r"`, `v7_streamk/matmul_v7\.cu:(\d+)`"),
     ["v7_streamk/README.md: [quoted path:line]", "v7_streamk/matmul_v7.cu:"]),
    ("quote: the source moved under the page (a line added at the top of matmul_v3.cu)",
     "v3_pipeline/matmul_v3.cu", lambda t, r: "// one line more\n" + t,
     ["v3_pipeline/README.md: [quoted path:line]", "v3_pipeline/matmul_v3.cu:"]),
    ("path:line past the end of its file", "v6_persistent/README.md",
     sub1(r"^## Exercises$", "See `common/ptx.cuh:99999`.\n\n## Exercises"),
     ["v6_persistent/README.md: [path:line in range]", "common/ptx.cuh:99999"]),
    ("diff-size table: README without the markers", "README.md",
     lambda t, r: t.replace("<!-- DIFF-LINES-BEGIN -->", "").replace("<!-- DIFF-LINES-END -->", ""),
     ["README.md has no DIFF-LINES markers"]),
    ("diff-size table: a row that is not the tool's", "README.md",
     lambda t, r: re.sub(r"^\| v1 -> v2 \| \d+", "| v1 -> v2 | 1", t, count=1, flags=re.M),
     ["README.md: [diff-size table] row 3"]),
]


def run_case(tmp, k, bases, case):
    """One case in its own copy of the tree: (ok, the new FAIL lines)."""
    name, rel, edit, want = case
    # the top README's cases start from a copy with the diff-size table; the others from one without it
    # (test_docs.py then skips running tools/diff_lines.py, the slow part, and the README's one FAIL line
    # is in their baseline)
    which = "marked" if rel == "README.md" else "plain"
    base = bases[which]
    root = os.path.join(tmp, f"case{k}")
    shutil.copytree(os.path.join(tmp, which), root)
    path = os.path.join(root, rel)
    text = open(path, encoding="utf-8").read()
    open(path, "w", encoding="utf-8").write(edit(text, root))
    rc, fails = run(root)
    new = [f for f in fails if f not in base]
    if want is None:
        return not new, new
    # every wanted piece in some new FAIL line; where a page was broken, every new FAIL line about that page
    page = want[0].split(":")[0].split(" ")[0]
    return rc != 0 and all(any(w in f for f in new) for w in want) and (
        not rel.endswith(".md") or all(f.startswith(f"FAIL: {page}") for f in new)), new


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="docs_selftest_") as tmp:
        plain, marked = os.path.join(tmp, "plain"), os.path.join(tmp, "marked")
        shutil.copytree(REPO, marked, ignore=ignore)
        readme = os.path.join(marked, "README.md")
        text = open(readme, encoding="utf-8").read()
        open(readme, "w", encoding="utf-8").write(with_markers(marked, text))
        shutil.copytree(marked, plain)
        open(os.path.join(plain, "README.md"), "w", encoding="utf-8").write(
            re.sub(r"<!-- DIFF-LINES-BEGIN -->.*?<!-- DIFF-LINES-END -->\n?", "",
                   open(readme, encoding="utf-8").read(), flags=re.S))
        bases = {name: set(run(os.path.join(tmp, name))[1]) for name in ("plain", "marked")}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            results = list(pool.map(lambda kc: run_case(tmp, kc[0], bases, kc[1]), enumerate(CASES)))
        for (name, _, _, want), (ok, new) in zip(CASES, results):
            print(("ok   " if ok else "FAIL ") + name)
            if VERBOSE or not ok:
                for f in new:
                    print("       " + f)
                if not ok:
                    print("       wanted a new FAIL line with each of: " + (" | ".join(want) if want else
                                                                           "(none: no new FAIL line)"))
            failed += not ok
    print("test_docs_selftest:", f"FAILED ({failed} of {len(CASES)})" if failed else
          f"every check fails on its broken page ({len(CASES)} cases)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
