#!/usr/bin/env python3
"""Count the instructions of a kernel's K loop in its SASS: the innermost loop (backward branch) that holds a
wgmma (HGMMA/QGMMA). The "instructions per K tile" tables of docs/performance (small-shapes.md, "The K loop's
instructions"; mxfp8-bw-k-loop.md) come from this.

  python3 tools/sass_loops.py OBJECT_OR_BINARY [--cuobjdump PATH] [--kernel REGEX]
      prints, per kernel: the loop's address range, its instructions, its wgmmas, its R2UR (moves of a
      per-thread register into a uniform one) and its uniform-datapath instructions (U*), and the opcodes
  python3 tools/sass_loops.py OBJECT --check REGEX MAX_INSTRS MAX_R2UR [--check ...]
      fails (exit 1) unless exactly one kernel matches each REGEX and its loop has at most MAX_INSTRS
      instructions and MAX_R2UR R2UR: a guard that the loop's bookkeeping stays on the uniform datapath

A loop body may hold more than one K tile (mxfp8's bw: two); the counts are per body.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys


def kernels(sass):
    """{mangled name: [(address, instruction text)]} from cuobjdump -sass output."""
    out = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name = part.split("\n", 1)[0].strip()
        ins = []
        for line in part.split("\n"):
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
            if m:
                ins.append((int(m.group(1), 16), m.group(2)))
        out[name] = ins
    return out


def find_cuobjdump():
    """cuobjdump on the PATH, in the toolkit, or from the PyPI wheel nvidia-cuda-cuobjdump."""
    import glob
    import os
    import site
    found = shutil.which("cuobjdump")
    if found:
        return found
    for d in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
        if d and os.path.exists(os.path.join(d, "bin", "cuobjdump")):
            return os.path.join(d, "bin", "cuobjdump")
    dirs = site.getsitepackages() + [site.getusersitepackages()]
    wheel = sorted(p for d in dirs for p in glob.glob(d + "/nvidia/cu*/bin/cuobjdump"))
    return wheel[-1] if wheel else "cuobjdump"


def short(name):
    """matmul_v8_kernelILb0ELi2ELi64E from the mangled name, or the name's start."""
    m = re.search(r"(matmul_(?:(?!_cu_)\w)*?kernel\w*?E)E*v", name)
    return m.group(1) if m else name[:100]


def opcode(text):
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def k_loop(ins):
    """The smallest loop (a backward branch and its target) holding a wgmma: (start, end, body) or None."""
    best = None
    for addr, text in ins:
        m = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= addr:
            continue
        body = [t for a, t in ins if target <= a <= addr]
        if any("GMMA" in t for t in body) and (best is None or len(body) < len(best[2])):
            best = (target, addr, body)
    return best


def summary(body):
    ops = collections.Counter(opcode(t) for t in body)
    return {
        "instrs": len(body),
        "mma": sum(1 for t in body if "GMMA" in opcode(t)),
        "r2ur": ops["R2UR"],
        "uniform": sum(v for k, v in ops.items() if k.startswith("U") and k not in ("UTMALDG", "UTMASTG")),
        "ops": ops,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("object")
    ap.add_argument("--cuobjdump", default=None, help="default: on the PATH, the toolkit's, or the wheel's")
    ap.add_argument("--kernel", default=".", help="regex over the mangled kernel names (listing only)")
    ap.add_argument("--check", nargs=3, action="append", metavar=("REGEX", "MAX_INSTRS", "MAX_R2UR"))
    args = ap.parse_args()
    sass = subprocess.run([args.cuobjdump or find_cuobjdump(), "-sass", args.object], check=True, capture_output=True,
                          text=True).stdout
    ks = kernels(sass)
    if not ks:
        sys.exit(f"no SASS functions in {args.object}")
    if not args.check:
        for name, ins in sorted(ks.items()):
            if not re.search(args.kernel, name):
                continue
            loop = k_loop(ins)
            if loop is None:
                print(f"{short(name)}: no loop holds a wgmma")
                continue
            s = summary(loop[2])
            print(f"{short(name)}: loop {loop[0]:#x}-{loop[1]:#x}: {s['instrs']} instructions, {s['mma']} wgmma, "
                  f"R2UR {s['r2ur']}, uniform {s['uniform']}; " +
                  ", ".join(f"{k} {v}" for k, v in s["ops"].most_common(12)))
        return 0
    failed = 0
    for regex, max_instrs, max_r2ur in args.check:
        names = [n for n in ks if re.search(regex, n)]
        if len(names) != 1:
            print(f"FAIL {regex}: {len(names)} kernels match (want 1): {[short(n) for n in names[:4]]}")
            failed += 1
            continue
        loop = k_loop(ks[names[0]])
        if loop is None:
            print(f"FAIL {regex}: no loop holds a wgmma")
            failed += 1
            continue
        s = summary(loop[2])
        ok = s["instrs"] <= int(max_instrs) and s["r2ur"] <= int(max_r2ur)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {regex}: K loop {s['instrs']} instructions (at most {max_instrs}), "
              f"{s['mma']} wgmma, R2UR {s['r2ur']} (at most {max_r2ur}), uniform-datapath {s['uniform']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
