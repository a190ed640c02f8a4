#!/usr/bin/env python3
"""tools/sass_loops.py on synthetic cuobjdump output: the K loop it finds and the counts the sass/kloop tests
rely on. Each case can fail: the wrong loop picked (an outer loop, a loop without a wgmma), a predicated or
uniform-predicated instruction miscounted, a name shortened wrongly, --check passing a loop over its bound."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import sass_loops  # noqa: E402

FAILS = 0


def check(cond, what):
    global FAILS
    if not cond:
        FAILS += 1
        print("FAIL", what)


def function(name, lines):
    """A cuobjdump -sass function block: one instruction per 16 bytes from address 0."""
    body = "\n".join(f"        /*{16 * i:04x}*/                   {t} ;" for i, t in enumerate(lines))
    return f"\n\tcode for sm_90a\n\t\tFunction : {name}\n\t.headerflags\t@\"EF_CUDA_SM90\"\n{body}\n"


# A kernel with an outer loop (the tiles), an inner K loop (the wgmmas, 8 instructions: 0x40-0xb0) and, after
# it, a small loop without a wgmma (a spin on a flag): the K loop is the innermost loop around a wgmma.
KERNEL = "_ZN4gemm12_GLOBAL__N_116matmul_x_kernelILb0ELi2EEEv14CUtensorMap_st"
LINES = [
    "S2R R0, SR_TID.X",                                              # 0x00
    "MOV R1, RZ",                                                    # 0x10  outer loop head
    "IMAD R2, R0, 0x4, RZ",                                          # 0x20
    "UMOV UR4, 0x400",                                               # 0x30
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2",                  # 0x40  K loop head
    "R2UR UR6, R2",                                                  # 0x50
    "WARPGROUP.ARRIVE",                                              # 0x60
    "HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24",                 # 0x70
    "@P1 R2UR UR7, R3",                                              # 0x80  predicated: still an R2UR
    "@!UP0 UIADD3 UR5, UR5, 0x1, URZ",                               # 0x90  uniform, under a uniform predicate
    "ISETP.GE.AND P2, PT, R1, R5, PT",                               # 0xa0
    "@!P2 BRA 0x40",                                                 # 0xb0  K loop back edge
    "VIADD R1, R1, 0x1",                                             # 0xc0
    "LDG.E R6, desc[UR8][R8.64]",                                    # 0xd0  spin head
    "ISETP.NE.AND P3, PT, R6, RZ, PT",                               # 0xe0
    "@!P3 BRA 0xd0",                                                 # 0xf0  spin back edge (no wgmma)
    "BRA 0x10",                                                      # 0x100 outer back edge
    "EXIT",                                                          # 0x110
]
OTHER = "_ZN4gemm12_GLOBAL__N_116matmul_y_kernelILb1EEEvPf"
SASS = function(KERNEL, LINES) + function(OTHER, ["MOV R1, RZ", "EXIT"])

ks = sass_loops.kernels(SASS)
check(sorted(ks) == sorted([KERNEL, OTHER]), f"two functions parsed: {sorted(ks)}")
check(len(ks[KERNEL]) == len(LINES), f"{len(ks[KERNEL])} instructions parsed, want {len(LINES)}")
loop = sass_loops.k_loop(ks[KERNEL])
check(loop is not None and (loop[0], loop[1]) == (0x40, 0xb0), f"the K loop is 0x40-0xb0, got {loop and loop[:2]}")
s = sass_loops.summary(loop[2])
check(s["instrs"] == 8, f"8 instructions in the K loop, got {s['instrs']}")
check(s["mma"] == 1, f"1 wgmma, got {s['mma']}")
check(s["r2ur"] == 2, f"2 R2UR (one predicated), got {s['r2ur']}")
check(s["uniform"] == 1, f"1 uniform-datapath instruction (UIADD3; R2UR and the barrier are not), got {s['uniform']}")
check(sass_loops.k_loop(ks[OTHER]) is None, "no K loop in a function without a wgmma")
check(sass_loops.short(KERNEL) == "matmul_x_kernelILb0ELi2E", f"short name: {sass_loops.short(KERNEL)}")
check(sass_loops.short(OTHER) == "matmul_y_kernelILb1E", f"short name: {sass_loops.short(OTHER)}")

# --check through the command line, with a stand-in cuobjdump that prints the synthetic SASS: a bound at the
# count passes, one below fails, a regex matching no kernel or two kernels fails.
with tempfile.TemporaryDirectory() as d:
    sass_file = os.path.join(d, "x.sass")
    with open(sass_file, "w") as f:
        f.write(SASS)
    fake = os.path.join(d, "cuobjdump")
    with open(fake, "w") as f:
        f.write(f"#!/bin/sh\ncat {sass_file}\n")
    os.chmod(fake, 0o755)
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "sass_loops.py")

    def run(*args):
        return subprocess.run([sys.executable, tool, "object.o", "--cuobjdump", fake, *args],
                              capture_output=True, text=True).returncode

    check(run("--check", "matmul_x_kernel", "8", "2") == 0, "--check at the counts passes")
    check(run("--check", "matmul_x_kernel", "7", "2") == 1, "--check one instruction under fails")
    check(run("--check", "matmul_x_kernel", "8", "1") == 1, "--check one R2UR under fails")
    check(run("--check", "matmul_z_kernel", "99", "9") == 1, "--check of a kernel that is not there fails")
    check(run("--check", "matmul_", "99", "9") == 1, "--check matching two kernels fails")
    check(run() == 0, "the listing runs")

print("sass_loops: " + ("all checks passed" if FAILS == 0 else f"{FAILS} checks failed"))
sys.exit(1 if FAILS else 0)
