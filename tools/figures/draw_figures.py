#!/usr/bin/env python3
"""draw_figures.py: the teaching figures of the stage pages, drawn from the stages' own constants.

    python3 tools/figures/draw_figures.py            # check the constants against the sources, draw every figure
    python3 tools/figures/draw_figures.py --check    # only check the constants
    python3 tools/figures/draw_figures.py --only tmem_map timelines

Writes PNGs next to this file (tools/figures/). One function per figure:

    v1_core_matrices.png   the no-swizzle K-major layout of v1: core matrices, LBO, SBO, the K steps
    v2_swizzle128_atom.png the 128B-swizzle atom of v2: the XOR of the 16-byte chunks, SBO, the K steps
    tmem_map.png           tensor memory: lane quarters per warp, the accumulators of v1-v5, v6 and mxfp8
    timelines.png          schematic timelines of v1/v2 (serial), v3 (ring) and v4 (warp-specialised)
    v5_2sm_split.png       the 2-SM MMA of v5: which CTA holds which operand rows, who signals which barrier

Every number drawn comes from the constants below; each block names the file it mirrors, and check_sources()
greps those files for them before anything is drawn, so a changed kernel fails here instead of leaving a
picture that no longer matches it. The timelines are schematic: a model of each stage's loop with assumed
durations (SCHEMATIC_* below), not a measurement. The measured traces beside this file (v4_sm90_trace.png,
...) come from tools/plot_trace.py.
Needs matplotlib (pip install matplotlib).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DPI = 150

# ---- v1: the no-swizzle K-major tile (v1_basic/matmul_v1.cu; common/descriptors.cuh kmajor_*) ----
V1_BLOCK_M = 128  # matmul_v1.cu BLOCK_M: rows of the A tile
V1_BLOCK_N = 128  # matmul_v1.cu BLOCK_N: rows of the B tile
V1_BLOCK_K = 64   # matmul_v1.cu BLOCK_K: bf16 elements of K per tile
V1_SLICE_K = 8    # matmul_v1.cu SLICE_K: one 16-byte slice of K, the width of a core matrix
BF16_BYTES = 2
CORE_ROWS = 8     # a core matrix: 8 rows x 16 bytes (descriptors.cuh, [canonical])
CHUNK_BYTES = 16  # 16 bytes: a core matrix's row, and the unit the swizzle permutes
KSTEP_BYTES = 32  # descriptors.cuh kmajor_kstep_offset: one MMA K step (k16 bf16) covers 32 bytes of K

# ---- v2: the 128B swizzle (v2_swizzle128/matmul_v2.cu; common/descriptors.cuh) ----
V2_BLOCK_M = 128     # matmul_v2.cu BLOCK_M
V2_BLOCK_K = 64      # matmul_v2.cu BLOCK_K
V2_SLICE_K = 64      # matmul_v2.cu SLICE_K: one 128-byte swizzle span of K
SWIZZLE_SPAN = 128   # descriptors.cuh Swizzle::B128: bytes of one swizzled row
SM100_SWIZZLE_CODE_128B = 2  # descriptors.cuh sm100_swizzle_code(Swizzle::B128)


# The arithmetic of common/descriptors.cuh, for a K-major tile of `rows` rows (span 16 = no swizzle).
def kmajor_lbo(rows, span):
    return rows * 16 if span == 16 else 16  # kmajor_lbo: the next 16-B slice along K; unused when swizzled


def kmajor_sbo(span):
    return 8 * span  # kmajor_sbo: the next 8 rows


def kmajor_kstep_offset(rows, span, k_step):
    k_bytes = k_step * KSTEP_BYTES  # kmajor_kstep_offset
    return (k_bytes // span) * rows * span + k_bytes % span


# ---- TMEM (common/descriptors.cuh tmem_warp_lane_base; the stage files' TMEM_COLS) ----
TMEM_LANES = 128       # PTX ISA "Tensor Memory": 128 lanes x 512 columns of 32 bits per SM
TMEM_COLUMNS = 512
LANES_PER_WARP = 32    # tmem_warp_lane_base: warp w reaches lanes 32 * (w % 4) .. +31
V1_TMEM_COLS = 128     # v1_basic/matmul_v1.cu TMEM_COLS = BLOCK_N (v2-v4 the same)
V5_TMEM_COLS = 256     # v5_2sm/matmul_v5.cu TMEM_COLS = BLOCK_N
V6_BLOCK_N = 256       # v6_persistent/matmul_v6.cu BLOCK_N: one accumulator's columns
V6_NUM_ACCUMULATORS = 2     # matmul_v6.cu NUM_ACCUMULATORS: accumulator a at columns a * BLOCK_N
V6_EPILOGUE_WARP0 = 2       # matmul_v6.cu EPILOGUE_WARP0: warps 2..5 are the epilogue
V6_NUM_EPILOGUE_WARPS = 4   # matmul_v6.cu NUM_EPILOGUE_WARPS
MX_BLOCK_M = 128       # mxfp8/matmul_mxfp8.cu BLOCK_M
MX_BLOCK_N = 256       # matmul_mxfp8.cu BLOCK_N
MX_ACC_OVERLAP = 128   # matmul_mxfp8.cu ACC_OVERLAP: columns the two accumulators share (region Y)
MX_TMEM_COLS = 512     # matmul_mxfp8.cu TMEM_COLS
MX_NUM_STAGES = 6      # matmul_mxfp8.cu NUM_STAGES (static_assert)
MX_SF_TILE_ROWS = 128  # common/mx_scale_layout.h MX_SF_TILE_ROWS: rows of one scale tile
MX_SF_TMEM_COLS = 4    # common/mx_scale_layout.h MX_SF_TMEM_COLS: TMEM columns one scale tile fills
# Derived as matmul_mxfp8.cu derives them:
MX_ACC_STRIDE = MX_BLOCK_N - MX_ACC_OVERLAP                # accumulator a starts at column a * 128
MX_ACC_SPAN = MX_ACC_STRIDE + MX_BLOCK_N                   # 384: X, Y, Z
MX_SFA_TILES = MX_BLOCK_M // MX_SF_TILE_ROWS               # 1
MX_SFB_TILES = MX_BLOCK_N // MX_SF_TILE_ROWS               # 2: the pair's whole N
MX_SF_COLS_PER_STAGE = (MX_SFA_TILES + MX_SFB_TILES) * MX_SF_TMEM_COLS  # 12
MX_SF_TMEM_COL0 = MX_ACC_SPAN                              # the scale slots follow the accumulators

# ---- the loops of v1-v4 (the stage files' NUM_STAGES) ----
V3_NUM_STAGES = 7  # v3_pipeline/matmul_v3.cu NUM_STAGES (static_assert)
V4_NUM_STAGES = 7  # v4_warpspec/matmul_v4.cu NUM_STAGES (static_assert)
# Schematic durations, in units of the tensor core's time for one K tile (BLOCK_K / 16 = 4 MMAs). ASSUMED, not
# measured: they only set the proportions of the picture.
SCHEMATIC_K_TILES = 10      # K tiles drawn (K = 4096 would be 64)
SCHEMATIC_MMA = 1.0         # the tensor core busy with one K tile
SCHEMATIC_LOAD = 2.5        # a TMA load, issue to last byte landed
# Two slow loads (e.g. L2 misses), NUM_STAGES - 1 = 6 tiles apart, longer than the ring can hide. They are
# what tells v3 from v4: v3's one thread waits for tile 2 before it refills the stage that tile 8 goes into,
# so tile 8's load starts only once tile 2 has landed and the tensor core stalls twice; v4's producer issues
# tile 8's load as soon as that stage is empty, during the MMA issuer's wait for tile 2. With no slow load, or
# one alone past the ring's first lap, the 7-stage rings of v3 and v4 keep the tensor core equally busy here.
SCHEMATIC_SLOW_TILES = (2, 8)  # K tiles whose loads are slow ...
SCHEMATIC_SLOW_LOAD = 8.0      # ... and their latency
SCHEMATIC_ISSUE = 0.08      # one thread issuing a tile's TMA copies, or its MMAs
SCHEMATIC_EPILOGUE = 2.0    # TMEM -> registers -> global memory, the 4 warps

# ---- v5: the 2-SM MMA (v5_2sm/matmul_v5.cu) ----
V5_BLOCK_M = 128       # matmul_v5.cu BLOCK_M: this CTA's rows of A and of C
V5_BLOCK_N = 256       # matmul_v5.cu BLOCK_N: the MMA's N, the pair's
V5_BLOCK_K = 64        # matmul_v5.cu BLOCK_K
V5_CLUSTER_SIZE = 2    # matmul_v5.cu CLUSTER_SIZE
V5_NUM_STAGES = 7      # matmul_v5.cu NUM_STAGES (static_assert)
V5_MMA_M = V5_CLUSTER_SIZE * V5_BLOCK_M          # 256
V5_B_ROWS = V5_BLOCK_N // V5_CLUSTER_SIZE        # B_TILE.rows: this CTA's half of B
V5_A_TILE_BYTES = V5_BLOCK_M * V5_BLOCK_K * BF16_BYTES   # 16384
V5_B_TILE_BYTES = V5_B_ROWS * V5_BLOCK_K * BF16_BYTES    # 16384
V5_CLUSTER_MASK = (1 << V5_CLUSTER_SIZE) - 1     # 0b11

# Each entry: a file, and a regular expression that must match in it. Keeps the constants above honest.
SOURCE_CHECKS = [
    ("v1_basic/matmul_v1.cu", rf"BLOCK_M\s*=\s*{V1_BLOCK_M};"),
    ("v1_basic/matmul_v1.cu", rf"BLOCK_N\s*=\s*{V1_BLOCK_N};"),
    ("v1_basic/matmul_v1.cu", rf"BLOCK_K\s*=\s*{V1_BLOCK_K};"),
    ("v1_basic/matmul_v1.cu", rf"SLICE_K\s*=\s*{V1_SLICE_K};"),
    ("v1_basic/matmul_v1.cu", r"TMEM_COLS\s*=\s*BLOCK_N;"),
    ("v1_basic/matmul_v1.cu", r"Swizzle SWIZZLE = Swizzle::None;"),
    ("v2_swizzle128/matmul_v2.cu", rf"BLOCK_M\s*=\s*{V2_BLOCK_M};"),
    ("v2_swizzle128/matmul_v2.cu", rf"BLOCK_K\s*=\s*{V2_BLOCK_K};"),
    ("v2_swizzle128/matmul_v2.cu", rf"SLICE_K\s*=\s*{V2_SLICE_K};"),
    ("v2_swizzle128/matmul_v2.cu", r"KMajorTile A_TILE\{BLOCK_M, BLOCK_K, 2, Swizzle::B128\};"),
    ("common/descriptors.cuh", r"return t\.swizzle == Swizzle::None \? uint32_t\(t\.rows\) \* 16u : 16u;"),
    ("common/descriptors.cuh", r"kmajor_sbo\(KMajorTile t\) \{ return 8u \* swizzle_span_bytes"),
    ("common/descriptors.cuh", r"k_bytes = uint32_t\(k_step\) \* 32u"),
    ("common/descriptors.cuh", rf"s == Swizzle::B128 \? {SM100_SWIZZLE_CODE_128B}u : s == Swizzle::B64 \? 4u"),
    ("common/descriptors.cuh", r"return 32u \* uint32_t\(warp_id % 4\);"),
    ("v3_pipeline/matmul_v3.cu", rf"NUM_STAGES == {V3_NUM_STAGES}"),
    ("v4_warpspec/matmul_v4.cu", rf"NUM_STAGES == {V4_NUM_STAGES}"),
    ("v5_2sm/matmul_v5.cu", rf"BLOCK_M\s*=\s*{V5_BLOCK_M};"),
    ("v5_2sm/matmul_v5.cu", rf"BLOCK_N\s*=\s*{V5_BLOCK_N};"),
    ("v5_2sm/matmul_v5.cu", rf"BLOCK_K\s*=\s*{V5_BLOCK_K};"),
    ("v5_2sm/matmul_v5.cu", rf"CLUSTER_SIZE\s*=\s*{V5_CLUSTER_SIZE};"),
    ("v5_2sm/matmul_v5.cu", rf"NUM_STAGES == {V5_NUM_STAGES}"),
    ("v5_2sm/matmul_v5.cu", r"mbarrier_init\(&tma_full_bar\[s\], CLUSTER_SIZE\)"),
    ("v5_2sm/matmul_v5.cu", r"mbarrier_init\(&mma_done_bar\[s\], 1\)"),
    ("v5_2sm/matmul_v5.cu", r"mbarrier_init\(&mainloop_done_bar, 1\)"),
    ("v5_2sm/matmul_v5.cu", r"mapa_shared_cluster\(&tma_full_bar\[s\], 0\)"),
    ("v5_2sm/matmul_v5.cu", r"mbarrier_arrive_expect_tx_cluster\(full_bar_cta0, A_TILE_BYTES \+ B_TILE_BYTES\)"),
    ("v5_2sm/matmul_v5.cu", r"commit_multicast<CTA_GROUP>\(&mma_done_bar\[stage\], CLUSTER_MASK\)"),
    ("v5_2sm/matmul_v5.cu", r"commit_multicast<CTA_GROUP>\(&mainloop_done_bar, CLUSTER_MASK\)"),
    ("v5_2sm/matmul_v5.cu", r"warp_id == 1 && cta_rank == 0"),
    ("v5_2sm/matmul_v5.cu", r"n0 \+ cta_rank \* B_TILE\.rows"),
    ("v5_2sm/matmul_v5.cu", r"\(blockIdx\.y \* CLUSTER_SIZE \+ cta_rank\) \* BLOCK_M"),
    ("v5_2sm/matmul_v5.cu", rf"TMEM_COLS\s*=\s*BLOCK_N;"),
    ("v6_persistent/matmul_v6.cu", rf"BLOCK_N\s*=\s*{V6_BLOCK_N};"),
    ("v6_persistent/matmul_v6.cu", rf"NUM_ACCUMULATORS\s*=\s*{V6_NUM_ACCUMULATORS};"),
    ("v6_persistent/matmul_v6.cu", rf"EPILOGUE_WARP0\s*=\s*{V6_EPILOGUE_WARP0};"),
    ("v6_persistent/matmul_v6.cu", rf"NUM_EPILOGUE_WARPS\s*=\s*{V6_NUM_EPILOGUE_WARPS};"),
    ("v6_persistent/matmul_v6.cu", r"tmem_acc = tmem_base \+ uint32_t\(acc \* BLOCK_N\)"),
    ("mxfp8/matmul_mxfp8.cu", rf"BLOCK_M\s*=\s*{MX_BLOCK_M};"),
    ("mxfp8/matmul_mxfp8.cu", rf"BLOCK_N\s*=\s*{MX_BLOCK_N};"),
    ("mxfp8/matmul_mxfp8.cu", rf"ACC_OVERLAP\s*=\s*{MX_ACC_OVERLAP};"),
    ("mxfp8/matmul_mxfp8.cu", rf"TMEM_COLS\s*=\s*{MX_TMEM_COLS};"),
    ("mxfp8/matmul_mxfp8.cu", rf"NUM_STAGES == {MX_NUM_STAGES}"),
    ("mxfp8/matmul_mxfp8.cu", r"SF_TMEM_COL0\s*=\s*ACC_SPAN;"),
    ("mxfp8/matmul_mxfp8.cu", r"SF_COLS_PER_STAGE = \(SFA_TILES \+ SFB_TILES\) \* int\(MX_SF_TMEM_COLS\)"),
    ("mxfp8/matmul_mxfp8.cu", r"SF_TMEM_COL0 \+ stage \* SF_COLS_PER_STAGE"),
    ("common/mx_scale_layout.h", rf"MX_SF_TILE_ROWS\s*=\s*{MX_SF_TILE_ROWS};"),
    ("common/mx_scale_layout.h", rf"MX_SF_TMEM_COLS\s*=\s*{MX_SF_TMEM_COLS};"),
]


def check_sources():
    """The constants above against the files they mirror: a list of mismatches (empty when they agree)."""
    bad = []
    for path, pattern in SOURCE_CHECKS:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            bad.append(f"{path}: missing")
        elif not re.search(pattern, open(full, encoding="utf-8").read()):
            bad.append(f"{path}: no match for /{pattern}/")
    return bad


# ----------------------------------------------------------------------------------------------------------
# drawing helpers
# ----------------------------------------------------------------------------------------------------------
def plt_module():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, name):
    path = os.path.join(HERE, name)
    fig.savefig(path, dpi=DPI)
    # 256 colours are plenty for flat fills and anti-aliased text, and take a third of the bytes. Re-saved by
    # Pillow, the file carries no matplotlib version: it changes only when the picture does.
    from PIL import Image  # installed with matplotlib
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, optimize=True)
    print("wrote", os.path.relpath(path, ROOT), f"({os.path.getsize(path) // 1024} KB)")


def rect(ax, x, y, w, h, fc, ec="black", lw=0.6, **kw):
    from matplotlib.patches import Rectangle
    r = Rectangle((x, y), w, h, facecolor=fc, edgecolor=ec, linewidth=lw, **kw)
    ax.add_patch(r)
    return r


def arrow(ax, x0, y0, x1, y1, color="black", lw=1.4, style="-|>", ls="-", rad=0.0, **kw):
    from matplotlib.patches import FancyArrowPatch
    a = FancyArrowPatch((x0, y0), (x1, y1), arrowstyle=style, mutation_scale=12, color=color, linewidth=lw,
                        linestyle=ls, connectionstyle=f"arc3,rad={rad}", **kw)
    ax.add_patch(a)
    return a


def dimension(ax, x0, y0, x1, y1, text, color="black", text_offset=(0, 0), fontsize=9, **text_kw):
    """A two-headed dimension arrow with a label at its middle."""
    arrow(ax, x0, y0, x1, y1, color=color, lw=1.6, style="<|-|>")
    ax.text((x0 + x1) / 2 + text_offset[0], (y0 + y1) / 2 + text_offset[1], text, color=color,
            fontsize=fontsize, ha="center", va="center", **text_kw)


# Four hues, one per MMA K step (two 16-byte chunks of K each), light and dark for the chunk pair.
KSTEP_COLOURS = ["#c6dbef", "#6baed6", "#c7e9c0", "#74c476", "#fdd0a2", "#fd8d3c", "#dadaeb", "#9e9ac8"]


# ----------------------------------------------------------------------------------------------------------
# figure 1a: the no-swizzle core-matrix layout of v1
# ----------------------------------------------------------------------------------------------------------
def fig_v1_core_matrices():
    plt = plt_module()
    rows, span = V1_BLOCK_M, CHUNK_BYTES
    slices = V1_BLOCK_K * BF16_BYTES // CHUNK_BYTES  # 8 slices of 16 B along K
    groups = rows // CORE_ROWS                         # 16 groups of 8 rows
    lbo, sbo = kmajor_lbo(rows, span), kmajor_sbo(span)
    kstep_bytes = [kmajor_kstep_offset(rows, span, s) for s in range(V1_BLOCK_K * BF16_BYTES // KSTEP_BYTES)]

    fig = plt.figure(figsize=(14, 9.5))
    fig.suptitle(f"v1: the no-swizzle K-major layout of a {rows} x {V1_BLOCK_K} bf16 tile in shared memory "
                 f"(A; B's tile is the same, BLOCK_N = {V1_BLOCK_N} rows)", fontsize=13)
    ax = fig.add_axes([0.02, 0.1, 0.6, 0.82])
    for g in range(groups):
        for j in range(slices):
            rect(ax, j, g, 1, 1, KSTEP_COLOURS[j % 8], lw=0.5)
            ax.text(j + 0.5, g + 0.5, f"{j * lbo + g * sbo}", ha="center", va="center", fontsize=7.5)
        ax.text(-0.1, g + 0.5, f"rows {g * CORE_ROWS}-{g * CORE_ROWS + CORE_ROWS - 1}", ha="right",
                va="center", fontsize=7.5)
    for j in range(slices):
        ax.text(j + 0.5, -0.12, f"K bytes\n{j * 16}-{j * 16 + 15}", ha="center", va="bottom", fontsize=7)
    # the MMA K steps along the top: each spans two slices
    for s, off in enumerate(kstep_bytes):
        x0, x1 = s * 2 + 0.06, s * 2 + 1.94
        ax.plot([x0, x0, x1, x1], [-0.95, -1.1, -1.1, -0.95], color="black", lw=1)
        ax.text((x0 + x1) / 2, -1.2, f"MMA K step {s}\nstart +{off}", ha="center", va="bottom", fontsize=8)
    ax.text(slices / 2, -2.35, "each cell: one core matrix, 8 rows x 16 B = 128 contiguous bytes; "
            "the number is its byte offset in the tile", ha="center", fontsize=9, style="italic")
    # LBO below the grid, SBO to its right: both are the same between any two neighbours
    dimension(ax, 0.5, groups + 0.35, 1.5, groups + 0.35, "", color="#b2182b")
    ax.text(1.7, groups + 0.37, f"LBO = {lbo} B = {rows} rows x 16 B: the next core matrix along K",
            color="#b2182b", fontsize=10, fontweight="bold", va="center")
    dimension(ax, slices + 0.3, 0.5, slices + 0.3, 1.5, "", color="#2166ac")
    ax.text(slices + 0.45, 1.0, f"SBO = {sbo} B:\nthe next\n8 rows", color="#2166ac", fontsize=10,
            fontweight="bold", va="center")
    for (g, j) in [(0, 0), (0, 1), (1, 0)]:
        rect(ax, j, g, 1, 1, "none", lw=2.2)
    ax.set_xlim(-1.9, slices + 2.2)
    ax.set_ylim(groups + 0.9, -2.6)
    ax.axis("off")

    # right top: one core matrix
    ax2 = fig.add_axes([0.66, 0.6, 0.32, 0.3])
    ax2.set_title("one core matrix: row r at +16 r", fontsize=10)
    elems = CHUNK_BYTES // BF16_BYTES
    for r in range(CORE_ROWS):
        for e in range(elems):
            rect(ax2, e, r, 1, 1, KSTEP_COLOURS[0], lw=0.4)
        ax2.text(-0.15, r + 0.5, f"row {r}: +{r * CHUNK_BYTES}", ha="right", va="center", fontsize=8)
    for e in range(elems):
        ax2.text(e + 0.5, -0.15, f"k{e}", ha="center", va="bottom", fontsize=7.5)
    ax2.text(elems / 2, CORE_ROWS + 0.35, f"{elems} bf16 = {CHUNK_BYTES} B per row, "
             f"{CORE_ROWS * CHUNK_BYTES} B in all", ha="center", va="top", fontsize=8.5)
    ax2.set_xlim(-3.2, elems + 0.2)
    ax2.set_ylim(CORE_ROWS + 1.1, -1.0)
    ax2.axis("off")

    # right bottom: the order in shared memory
    ax3 = fig.add_axes([0.66, 0.1, 0.32, 0.42])
    ax3.set_title("the same tile in address order: 8 slices of [128 rows x 16 B]", fontsize=10)
    for j in range(slices):
        rect(ax3, 0, j, lbo, 0.7, KSTEP_COLOURS[j % 8], lw=0.5)
        for g in range(1, groups):
            ax3.plot([g * sbo, g * sbo], [j, j + 0.7], color="black", lw=0.3)
        ax3.text(-40, j + 0.35, f"slice {j}: +{j * lbo}", ha="right", va="center", fontsize=8)
    ax3.annotate(f"each cell: one core matrix (8 rows x 16 B);\nthe next 8 rows follow at +SBO = {sbo} B",
                 xy=(sbo / 2, 0.02), xytext=(-650, -0.55), color="#2166ac", fontsize=8.5, va="center",
                 arrowprops=dict(arrowstyle="-|>", color="#2166ac", lw=1.0))
    dimension(ax3, lbo + 60, 0.35, lbo + 60, 1.35, "", color="#b2182b")
    ax3.text(lbo + 100, 0.85, f"LBO\n{lbo} B", color="#b2182b", fontsize=8.5, va="center")
    ax3.set_xlim(-700, lbo + 420)
    ax3.set_ylim(slices + 0.1, -0.9)
    ax3.axis("off")
    fig.text(0.05, 0.012, f"Descriptor of K step k (kmajor_desc_sm100): start address a + {kstep_bytes[1]} k, "
             f"LBO field {lbo} >> 4 = {lbo >> 4}, SBO field {sbo} >> 4 = {sbo >> 4}, swizzle 0.\n"
             f"TMA writes this layout as v1a: {slices} 2D boxes {{8, {rows}}}, box j at +{lbo} j; "
             f"v1b: one 3D box {{8, {rows}, {slices}}} whose third dimension steps 16 B along K.",
             fontsize=9, va="bottom")
    save(fig, "v1_core_matrices.png")
    plt.close(fig)


# ----------------------------------------------------------------------------------------------------------
# figure 1b: the 128B-swizzle atom of v2
# ----------------------------------------------------------------------------------------------------------
def fig_v2_swizzle_atom():
    plt = plt_module()
    chunks = SWIZZLE_SPAN // CHUNK_BYTES  # 8 chunks of 16 B per row
    atom_rows = CORE_ROWS                 # 8 rows: the XOR pattern repeats every 8 rows
    atom_bytes = atom_rows * SWIZZLE_SPAN
    sbo = kmajor_sbo(SWIZZLE_SPAN)
    ksteps = V2_BLOCK_K * BF16_BYTES // KSTEP_BYTES
    kstep_off = [kmajor_kstep_offset(V2_BLOCK_M, SWIZZLE_SPAN, s) for s in range(ksteps)]
    highlight = 1  # the K step outlined in both views (chunks 2 and 3; the v2 README's exercise 2)
    atoms = V2_BLOCK_M // atom_rows

    fig = plt.figure(figsize=(15, 6.6))
    fig.suptitle(f"v2: the 128B swizzle. One atom = {atom_rows} rows x {SWIZZLE_SPAN} B = {atom_bytes} B; "
                 f"16-byte chunk c of row r is stored at chunk c XOR (r % 8)", fontsize=13)

    def draw_atom(ax, physical, title):
        for r in range(atom_rows):
            for p in range(chunks):
                c = (p ^ r) if physical else p  # the logical chunk held at position p
                patch = rect(ax, p, r, 1, 1, KSTEP_COLOURS[c], lw=0.5)
                ax.text(p + 0.5, r + 0.5, f"c{c}", ha="center", va="center", fontsize=9)
                if c // 2 == highlight:
                    patch.set_linewidth(2.4)
            ax.text(-0.15, r + 0.5, f"row {r}" + (f"  (+{r * SWIZZLE_SPAN})" if physical else ""), ha="right",
                    va="center", fontsize=8.5)
        for p in range(chunks):
            ax.text(p + 0.5, atom_rows + 0.15, f"{p * 16}-{p * 16 + 15}", ha="center", va="top", fontsize=6.3)
        ax.text(chunks / 2, atom_rows + 0.75, "byte of the row", ha="center", va="top", fontsize=8)
        ax.set_title(title, fontsize=10.5)
        ax.set_xlim(-2.6, chunks + 0.1)
        ax.set_ylim(atom_rows + 2.6, -1.5)
        ax.axis("off")

    ax1 = fig.add_axes([0.04, 0.07, 0.29, 0.81])
    draw_atom(ax1, False, "what the MMA reads: chunk c = K bytes 16c..16c+15 of the row")
    for s in range(ksteps):
        ax1.plot([2 * s + 0.05, 2 * s + 0.05, 2 * s + 1.95, 2 * s + 1.95], [-0.2, -0.35, -0.35, -0.2],
                 color="black", lw=1)
        ax1.text(2 * s + 1, -0.45, f"K step {s}", ha="center", va="bottom", fontsize=8)

    ax2 = fig.add_axes([0.39, 0.07, 0.29, 0.81])
    draw_atom(ax2, True, "where TMA writes it (SWIZZLE_128B): position p holds c = p XOR r")
    for s, off in enumerate(kstep_off):
        ax2.annotate(f"+{off}", xy=(off / CHUNK_BYTES, 0), xytext=(off / CHUNK_BYTES, -0.75), ha="center",
                     fontsize=8, arrowprops=dict(arrowstyle="-|>", lw=0.9))
    ax2.text(chunks / 2, -1.2, "descriptor start address of K step j: +32 j (row 0 is not permuted)",
             ha="center", fontsize=8)
    r_ex = 3
    pos = [(2 * highlight) ^ r_ex, (2 * highlight + 1) ^ r_ex]
    ax2.annotate(f"row {r_ex}: c{2 * highlight}, c{2 * highlight + 1} at positions {pos[0]}, {pos[1]} "
                 f"(bytes {pos[0] * 16}-{pos[0] * 16 + 15}, {pos[1] * 16}-{pos[1] * 16 + 15})",
                 xy=(0.3, r_ex + 0.8), xytext=(-2.4, atom_rows + 1.9), fontsize=8.5,
                 arrowprops=dict(arrowstyle="-|>", lw=1.0, connectionstyle="arc3,rad=-0.25"), ha="left")

    # the tile: 16 atoms, SBO apart
    ax3 = fig.add_axes([0.78, 0.07, 0.2, 0.81])
    ax3.set_title(f"the {V2_BLOCK_M} x {V2_BLOCK_K} bf16 tile: {atoms} atoms", fontsize=10.5)
    for a in range(atoms):
        rect(ax3, 0, a, 3, 0.85, "#eeeeee" if a else "#bdbdbd", lw=0.5)
        ax3.text(1.5, a + 0.43, f"rows {a * atom_rows}-{a * atom_rows + atom_rows - 1}: +{a * sbo}",
                 ha="center", va="center", fontsize=7)
    arrow(ax3, 3.2, 0.43, 3.2, 1.43, color="#2166ac", lw=2)
    ax3.text(3.35, 0.93, f"SBO = {sbo} B", color="#2166ac", fontsize=9.5, fontweight="bold", va="center")
    ax3.text(1.5, atoms + 0.4, f"LBO is unused for a swizzled K-major\noperand (kmajor_lbo writes "
             f"{kmajor_lbo(V2_BLOCK_M, SWIZZLE_SPAN)});\nswizzle code {SM100_SWIZZLE_CODE_128B} "
             f"(tcgen05 descriptor).\nTiles start 1024-B aligned.", ha="center", va="top", fontsize=8)
    ax3.set_xlim(-0.2, 5.2)
    ax3.set_ylim(atoms + 3.3, -0.5)
    ax3.axis("off")
    fig.text(0.04, 0.02, f"Outlined: the two chunks K step {highlight} reads in every row. The tensor core "
             "applies the same XOR when it reads (it is a function of the address bits, so the atom must be "
             "1024-B aligned); no code computes it.", fontsize=9)
    save(fig, "v2_swizzle128_atom.png")
    plt.close(fig)


# ----------------------------------------------------------------------------------------------------------
# figure 2: the TMEM map
# ----------------------------------------------------------------------------------------------------------
LABEL_BOX = dict(fc="white", ec="none", alpha=0.7, pad=1.5)


def fig_tmem_map():
    plt = plt_module()
    quarters = TMEM_LANES // LANES_PER_WARP
    fig, axes = plt.subplots(3, 1, figsize=(14, 13), gridspec_kw=dict(hspace=0.42))
    fig.suptitle(f"Tensor memory per SM: {TMEM_LANES} lanes x {TMEM_COLUMNS} columns of 32 bits; "
                 f"warp w may access only lanes 32 (w % 4) .. +31", fontsize=13, y=0.975)
    fig.subplots_adjust(left=0.12, right=0.985, top=0.92, bottom=0.1)

    def frame(ax, title, warp_of_quarter):
        rect(ax, 0, 0, TMEM_COLUMNS, TMEM_LANES, "#f4f4f4", lw=0.8)
        for q in range(quarters):
            y = q * LANES_PER_WARP
            if q:
                ax.plot([0, TMEM_COLUMNS], [y, y], color="black", lw=0.8, ls=":")
            ax.text(-6, y + LANES_PER_WARP / 2, f"lanes {y}-{y + LANES_PER_WARP - 1}\n{warp_of_quarter(q)}",
                    ha="right", va="center", fontsize=8.5)
        ax.set_xlim(0, TMEM_COLUMNS)
        ax.set_ylim(TMEM_LANES + 2, -34)
        ax.set_xticks(range(0, TMEM_COLUMNS + 1, 64))
        ax.tick_params(axis="x", labelsize=8)
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.set_xlabel("column", fontsize=9)
        ax.set_title(title, fontsize=11, loc="left")

    def bracket(ax, x0, x1, y, text, color="black"):
        ax.plot([x0 + 1, x0 + 1, x1 - 1, x1 - 1], [y + 4, y, y, y + 4], color=color, lw=1.3)
        ax.text((x0 + x1) / 2, y - 1.5, text, ha="center", va="bottom", fontsize=8.5, color=color)

    # (a) v1-v5: one accumulator, warps 0-3
    ax = axes[0]
    frame(ax, "v1-v5: one accumulator; lane i holds row i of the CTA's tile of D, column j its column j (fp32)",
          lambda q: f"warp {q}")
    rect(ax, 0, 0, V5_TMEM_COLS, TMEM_LANES, "#fdd0a2", lw=0.8)
    rect(ax, 0, 0, V1_TMEM_COLS, TMEM_LANES, "#6baed6", lw=0.8)
    ax.text(V1_TMEM_COLS / 2, TMEM_LANES / 2, f"v1-v4\naccumulator\n{V1_TMEM_COLS} columns\n(BLOCK_N)",
            ha="center", va="center", fontsize=9, bbox=LABEL_BOX)
    ax.text((V1_TMEM_COLS + V5_TMEM_COLS) / 2, TMEM_LANES / 2,
            f"v5: {V5_TMEM_COLS} columns\n(this CTA's {V5_BLOCK_M} rows\nof the M = {V5_MMA_M} MMA)", ha="center",
            va="center", fontsize=9, bbox=LABEL_BOX)
    ax.text((V5_TMEM_COLS + TMEM_COLUMNS) / 2, TMEM_LANES / 2, "not allocated", ha="center", va="center",
            fontsize=9, color="#777777", bbox=LABEL_BOX)
    bracket(ax, 0, V1_TMEM_COLS, -6, "tcgen05.alloc 128 (v1-v4)")
    bracket(ax, 0, V5_TMEM_COLS, -22, "tcgen05.alloc.cta_group::2 256 (v5)")

    # (b) v6: two accumulators, epilogue warps 2-5
    ax = axes[1]
    ep_warps = list(range(V6_EPILOGUE_WARP0, V6_EPILOGUE_WARP0 + V6_NUM_EPILOGUE_WARPS))
    frame(ax, f"v6: two accumulators (the TMEM double buffer); the epilogue is warps {ep_warps[0]}-{ep_warps[-1]}",
          lambda q: "warp " + ", ".join(str(w) for w in ep_warps if (w % 4) == q))
    acc_colours = ["#6baed6", "#74c476"]
    for a in range(V6_NUM_ACCUMULATORS):
        x = a * V6_BLOCK_N
        rect(ax, x, 0, V6_BLOCK_N, TMEM_LANES, acc_colours[a], lw=0.8)
        ax.text(x + V6_BLOCK_N / 2, TMEM_LANES / 2,
                f"accumulator {a}: turns {a}, {a + 2}, {a + 4}, ... of the cluster\n"
                f"tmem_full_bar[{a}] / tmem_empty_bar[{a}]",
                ha="center", va="center", fontsize=9, bbox=LABEL_BOX)
        bracket(ax, x, x + V6_BLOCK_N, -6, f"columns {x}-{x + V6_BLOCK_N - 1} (acc * BLOCK_N)")
    ax.text(TMEM_COLUMNS / 2, -22, "while the epilogue warps read one accumulator, the MMAs of the next tile "
            "fill the other", ha="center", va="bottom", fontsize=9, style="italic")

    # (c) mxfp8: X | Y | Z and the scale slots
    ax = axes[2]
    frame(ax, "mxfp8: accumulators overlapping by 128 columns, then the scales of each ring stage",
          lambda q: "warp " + ", ".join(str(w) for w in ep_warps if (w % 4) == q))
    regions = [("X", "#6baed6", "accumulator 0 only"), ("Y", "#9ecae1", "shared"), ("Z", "#74c476",
                                                                                    "accumulator 1 only")]
    for i, (name, colour, what) in enumerate(regions):
        x = i * MX_ACC_STRIDE
        rect(ax, x, 0, MX_ACC_STRIDE, TMEM_LANES, colour, lw=0.8)
        ax.text(x + MX_ACC_STRIDE / 2, TMEM_LANES / 2, f"{name}: {what}\ntmem_empty_bar[{i}]", ha="center",
                va="center", fontsize=9, bbox=LABEL_BOX)
    ax.text(MX_ACC_STRIDE * 1.5, TMEM_LANES / 2 + 26, "acc 0's tile columns 128-255\nacc 1's tile columns 0-127",
            ha="center", va="center", fontsize=7.5, bbox=LABEL_BOX)
    bracket(ax, 0, MX_BLOCK_N, -6, "accumulator 0: columns 0-255")
    bracket(ax, MX_ACC_STRIDE, MX_ACC_STRIDE + MX_BLOCK_N, -22, "accumulator 1: columns 128-383")
    sf_end = MX_SF_TMEM_COL0 + MX_NUM_STAGES * MX_SF_COLS_PER_STAGE
    for s in range(MX_NUM_STAGES):
        x = MX_SF_TMEM_COL0 + s * MX_SF_COLS_PER_STAGE
        sfa = MX_SFA_TILES * MX_SF_TMEM_COLS
        rect(ax, x, 0, sfa, TMEM_LANES, "#fd8d3c", lw=0.4)
        for t in range(MX_SFB_TILES):
            rect(ax, x + sfa + t * MX_SF_TMEM_COLS, 0, MX_SF_TMEM_COLS, TMEM_LANES, "#fdd0a2", lw=0.4)
        for q in range(quarters):
            ax.text(x + MX_SF_COLS_PER_STAGE / 2, q * LANES_PER_WARP + 16, f"s{s}", ha="center", va="center",
                    fontsize=7)
    ax.text((sf_end + TMEM_COLUMNS) / 2, TMEM_LANES / 2, "unused", ha="center", va="center", fontsize=9,
            color="#777777", bbox=LABEL_BOX)
    bracket(ax, MX_SF_TMEM_COL0, sf_end, -6, f"scales: {MX_SF_TMEM_COL0} + {MX_SF_COLS_PER_STAGE} s")
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(fc="#fd8d3c", ec="black", label=f"SFA: {MX_SFA_TILES * MX_SF_TMEM_COLS} columns "
                              f"(this CTA's {MX_BLOCK_M} rows)"),
                        Patch(fc="#fdd0a2", ec="black",
                              label=f"SFB: {MX_SFB_TILES} x {MX_SF_TMEM_COLS} columns (the pair's whole N = "
                              f"{MX_BLOCK_N})")],
               loc="lower left", bbox_to_anchor=(0.12, 0.045), fontsize=8.5, ncol=2, frameon=False)
    fig.text(0.12, 0.012, f"Scales of ring stage s (s = 0..{MX_NUM_STAGES - 1}) at column {MX_SF_TMEM_COL0} + "
             f"{MX_SF_COLS_PER_STAGE} s: tcgen05.cp .32x128b.warpx4 writes each 512-B scale tile into "
             f"{MX_SF_TMEM_COLS} columns of all four lane quarters alike\n(the scale of row r, scale column j: "
             "lane r % 32 of every quarter, column r / 32 of the tile's 4, byte j).", fontsize=8.5, va="bottom")
    save(fig, "tmem_map.png")
    plt.close(fig)


# ----------------------------------------------------------------------------------------------------------
# figure 3: schematic timelines of v1/v2, v3 and v4
# ----------------------------------------------------------------------------------------------------------
# Colours of tools/plot_trace.py, so that the schematic reads like the measured traces.
TRACE_COLOURS = {
    "wait empty": "#ff9896", "issue TMA": "#d62728", "wait full": "#aec7e8", "issue MMA": "#1f77b4",
    "wait MMA": "#ffbb78", "MMA in flight": "#2ca02c", "epilogue": "#9467bd", "TMA in flight": "#f7b6d2",
}


def load_latency(k):
    return SCHEMATIC_SLOW_LOAD if k in SCHEMATIC_SLOW_TILES else SCHEMATIC_LOAD


def simulate_serial(n):
    """v1/v2: warp 0's one thread loads a K tile, waits, issues its MMAs, waits for them, repeats."""
    ev, t = [], 0.0
    for k in range(n):
        ev.append(("thread", "issue TMA", t, SCHEMATIC_ISSUE, None))
        t += SCHEMATIC_ISSUE
        ev.append(("TMA", "TMA in flight", t, load_latency(k), k))
        ev.append(("thread", "wait full", t, load_latency(k), None))
        t += load_latency(k)
        ev.append(("thread", "issue MMA", t, SCHEMATIC_ISSUE, None))
        t += SCHEMATIC_ISSUE
        ev.append(("tensor core", "MMA in flight", t, SCHEMATIC_MMA, k))
        ev.append(("thread", "wait MMA", t, SCHEMATIC_MMA, None))
        t += SCHEMATIC_MMA
    return ev, t


def simulate_ring(n, stages):
    """v3: one thread; NUM_STAGES - 1 tiles in flight; MMAs of k issued, then the stage of k - 1 refilled once
    its MMAs are done (matmul_v3.cu's loop)."""
    ev, t, arrive, done, tc_free = [], 0.0, {}, {}, 0.0

    def load(k):
        nonlocal t
        ev.append(("thread", "issue TMA", t, SCHEMATIC_ISSUE, None))
        t += SCHEMATIC_ISSUE
        arrive[k] = t + load_latency(k)
        ev.append(("TMA", "TMA in flight", t, load_latency(k), k))

    for k in range(min(stages - 1, n)):
        load(k)
    for k in range(n):
        if arrive[k] > t:
            ev.append(("thread", "wait full", t, arrive[k] - t, None))
            t = arrive[k]
        ev.append(("thread", "issue MMA", t, SCHEMATIC_ISSUE, None))
        t += SCHEMATIC_ISSUE
        start = max(t, tc_free)
        done[k] = tc_free = start + SCHEMATIC_MMA
        ev.append(("tensor core", "MMA in flight", start, SCHEMATIC_MMA, k))
        if k > 0 and done[k - 1] > t:
            ev.append(("thread", "wait MMA", t, done[k - 1] - t, None))
            t = done[k - 1]
        if k + stages - 1 < n:
            load(k + stages - 1)
    if done[n - 1] > t:
        ev.append(("thread", "wait MMA", t, done[n - 1] - t, None))
        t = done[n - 1]
    return ev, t


def simulate_warpspec(n, stages):
    """v4: warp 0's producer waits for an empty stage and loads; warp 1's MMA thread waits for a full stage,
    issues and commits; neither waits for the other's instructions (matmul_v4.cu's two loops)."""
    ev, p, q, arrive, done, tc_free = [], 0.0, 0.0, {}, {}, 0.0
    for k in range(n):
        free = done[k - stages] if k >= stages else 0.0  # the commit of the stage's previous use
        if free > p:
            ev.append(("producer", "wait empty", p, free - p, None))
            p = free
        ev.append(("producer", "issue TMA", p, SCHEMATIC_ISSUE, None))
        p += SCHEMATIC_ISSUE
        arrive[k] = p + load_latency(k)
        ev.append(("TMA", "TMA in flight", p, load_latency(k), k))
        if arrive[k] > q:
            ev.append(("MMA issuer", "wait full", q, arrive[k] - q, None))
            q = arrive[k]
        ev.append(("MMA issuer", "issue MMA", q, SCHEMATIC_ISSUE, None))
        q += SCHEMATIC_ISSUE
        start = max(q, tc_free)
        done[k] = tc_free = start + SCHEMATIC_MMA
        ev.append(("tensor core", "MMA in flight", start, SCHEMATIC_MMA, k))
    # the producer's exit tail: the release of its last NUM_STAGES loads; the MMA thread, after its commit to
    # mainloop_done_bar, waits on that barrier like every warp before the epilogue
    last = done[n - 1]
    if last > p:
        ev.append(("producer", "wait empty", p, last - p, None))
    ev.append(("MMA issuer", "wait MMA", q, last - q, None))
    return ev, last


def fig_timelines():
    plt = plt_module()
    from matplotlib.patches import Patch
    n = SCHEMATIC_K_TILES
    late, early = SCHEMATIC_SLOW_TILES[1], SCHEMATIC_SLOW_TILES[0]
    # (title, simulation, tracks, track names, mark the issue of the late slow tile's load)
    panels = [
        ("v1, v2: serial. One thread loads a K tile, waits for it, issues its MMAs, waits for them",
         simulate_serial(n), ["thread", "TMA", "tensor core", "epilogue"],
         {"thread": "warp 0 (one thread)"}, False),
        (f"v3: a ring of {V3_NUM_STAGES} stages, one thread. It refills a stage only after its blocking wait "
         f"for tile k, so tile {late}'s load (dashed) waits for tile {early} to land",
         simulate_ring(n, V3_NUM_STAGES), ["thread", "TMA", "tensor core", "epilogue"],
         {"thread": "warp 0 (one thread)"}, True),
        (f"v4: warp-specialised, {V4_NUM_STAGES} stages. The producer refills a stage as soon as it is empty: "
         f"tile {late}'s load (dashed) is issued during the wait for tile {early}",
         simulate_warpspec(n, V4_NUM_STAGES), ["producer", "MMA issuer", "TMA", "tensor core", "epilogue"],
         {"producer": "warp 0: producer", "MMA issuer": "warp 1: MMA issuer"}, True),
    ]
    end = max(res[1] for _, res, _, _, _ in panels) + SCHEMATIC_EPILOGUE + 0.5
    fig, axes = plt.subplots(3, 1, figsize=(14, 10.5), gridspec_kw=dict(hspace=0.55, height_ratios=[4, 5.5, 6.5]))
    fig.suptitle(f"Schematic timelines of one CTA over {n} K tiles (a model of each Blackwell file's loop, "
                 "not a measurement)", fontsize=13, y=0.985)
    fig.subplots_adjust(left=0.13, right=0.985, top=0.92, bottom=0.1)
    for ax, (title, (events, loop_end), tracks, names, mark) in zip(axes, panels):
        # TMA loads in flight overlap: one sub-row per load that is still in flight when the next starts
        sub_end, rows = [], {}
        for i, (track, kind, t0, d, k) in enumerate(events):
            if track != "TMA":
                continue
            for s, e in enumerate(sub_end):
                if e <= t0 + 1e-9:
                    sub_end[s] = t0 + d
                    rows[i] = s
                    break
            else:
                rows[i] = len(sub_end)
                sub_end.append(t0 + d)
        labels, y = [], 0
        ypos = {}
        for tr in tracks:
            height = len(sub_end) if tr == "TMA" else 1
            ypos[tr] = y
            label = {"TMA": "TMA (loads in flight)", "tensor core": "tensor core",
                     "epilogue": "warps 0-3: epilogue", **names}[tr]
            labels.append((y + height / 2 - 0.5, label))
            y += height + 0.3
        for i, (track, kind, t0, d, k) in enumerate(events):
            row = ypos[track] + rows.get(i, 0)
            ax.barh(row, d, left=t0, height=0.8, color=TRACE_COLOURS[kind], edgecolor="white", linewidth=0.4)
            if k is not None:
                colour = "black" if kind == "TMA in flight" else "white"
                ax.text(t0 + d / 2, row, f"{k}", ha="center", va="center", fontsize=7.5, color=colour,
                        fontweight="bold" if k in SCHEMATIC_SLOW_TILES else None)
        ax.barh(ypos["epilogue"], SCHEMATIC_EPILOGUE, left=loop_end, height=0.8, color=TRACE_COLOURS["epilogue"])
        if mark:  # when the late slow tile's load is issued: after the wait for the early one (v3), or during it
            for track, kind, t0, d, k in events:
                if kind == "TMA in flight" and k == late:
                    ax.axvline(t0, color="#444444", ls="--", lw=0.9)
        ax.set_yticks([p for p, _ in labels])
        ax.set_yticklabels([name for _, name in labels], fontsize=8.5)
        ax.set_ylim(y - 0.3, -0.7)
        ax.set_xlim(0, end)
        busy = n * SCHEMATIC_MMA / loop_end
        ax.set_title(title + f"\nmain loop ends at {loop_end:.1f}; tensor core busy {busy:.0%} of it "
                     "(in this model)", fontsize=9.5, loc="left")
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_axisbelow(True)
    axes[-1].set_xlabel("time, in units of one K tile's MMAs (BLOCK_K / 16 = 4 tcgen05.mma)", fontsize=9)
    kinds = ["issue TMA", "TMA in flight", "wait full", "issue MMA", "MMA in flight", "wait MMA", "wait empty",
             "epilogue"]
    fig.legend(handles=[Patch(color=TRACE_COLOURS[k], label=k) for k in kinds], loc="lower center", ncol=8,
               fontsize=8.5, frameon=False, bbox_to_anchor=(0.5, 0.035))
    slow = " and ".join(str(t) for t in SCHEMATIC_SLOW_TILES)
    fig.text(0.5, 0.008, f"Assumed durations: a load {SCHEMATIC_LOAD:g}, the loads of tiles {slow} "
             f"{SCHEMATIC_SLOW_LOAD:g} (as if they missed in L2), issuing {SCHEMATIC_ISSUE:g}, the epilogue "
             f"{SCHEMATIC_EPILOGUE:g}. Numbers on the bars: the K tile.", ha="center", fontsize=8.5)
    save(fig, "timelines.png")
    plt.close(fig)


# ----------------------------------------------------------------------------------------------------------
# figure 4: the 2-SM MMA of v5
# ----------------------------------------------------------------------------------------------------------
CTA_COLOURS = ["#6baed6", "#fd8d3c"]


def fig_v5_2sm_split():
    plt = plt_module()
    cta_tx = V5_A_TILE_BYTES + V5_B_TILE_BYTES
    fig = plt.figure(figsize=(16, 13.5))
    fig.suptitle(f"v5: the 2-SM MMA. A cluster of {V5_CLUSTER_SIZE} CTAs on two SMs computes a {V5_MMA_M} x "
                 f"{V5_BLOCK_N} block of C with one tcgen05.mma.cta_group::2 stream, issued by CTA 0", fontsize=13)

    # ---- top left: the operands and the result, by CTA ----
    ax = fig.add_axes([0.01, 0.5, 0.36, 0.44])
    ax.set_xlim(-16, 112)
    ax.set_ylim(124, -4)
    ax.axis("off")
    ax.set_title("one K tile of the pair's operands, and the result", fontsize=11)
    u = 0.22                                # plot units per matrix row or column
    kw = V5_BLOCK_K * u                     # K extent drawn
    half_m, half_n = V5_BLOCK_M * u, V5_B_ROWS * u
    a_x, c_x, bt_y, c_y = 10, 10 + kw + 4, 0, kw + 4
    for r in range(V5_CLUSTER_SIZE):
        rect(ax, a_x, c_y + r * half_m, kw, half_m, CTA_COLOURS[r])
        ax.text(a_x + kw / 2, c_y + (r + 0.5) * half_m, f"A rows\n{r * V5_BLOCK_M}-{(r + 1) * V5_BLOCK_M - 1}\n"
                f"CTA {r}", ha="center", va="center", fontsize=8.5)
        rect(ax, c_x + r * half_n, bt_y, half_n, kw, CTA_COLOURS[r])
        ax.text(c_x + (r + 0.5) * half_n, bt_y + kw / 2, f"B rows {r * V5_B_ROWS}-{(r + 1) * V5_B_ROWS - 1}\n"
                f"CTA {r}", ha="center", va="center", fontsize=8.5)
        rect(ax, c_x, c_y + r * half_m, 2 * half_n, half_m, CTA_COLOURS[r], alpha=0.5)
        ax.text(c_x + half_n, c_y + (r + 0.5) * half_m, f"C rows {r * V5_BLOCK_M}-{(r + 1) * V5_BLOCK_M - 1},\n"
                f"all {V5_BLOCK_N} columns:\nin CTA {r}'s TMEM", ha="center", va="center", fontsize=8.5)
    ax.text(a_x - 1.5, c_y + half_m, f"A\n{V5_MMA_M} x {V5_BLOCK_K}", ha="right", va="center", fontsize=8.5)
    ax.text(c_x - 1.5, bt_y + kw / 2, f"B ({V5_BLOCK_N} x {V5_BLOCK_K}),\ndrawn as Bᵀ", ha="right",
            va="center", fontsize=8.5)
    ax.text(a_x, c_y + 2 * half_m + 3, f"CTA r (cluster rank r) loads M tile 2p + r of A and B rows "
            f"n0 + {V5_B_ROWS} r .. +{V5_B_ROWS - 1}:\n{V5_A_TILE_BYTES // 1024} KB of A + "
            f"{V5_B_TILE_BYTES // 1024} KB of B per stage. Its rows of C need all {V5_BLOCK_N} columns\nof B: "
            "the MMA reads the other half from the peer's shared memory.", ha="left", va="top", fontsize=8.5)

    # ---- top right: where the data lives, and the one MMA over both SMs ----
    ax = fig.add_axes([0.39, 0.5, 0.6, 0.44])
    ax.set_xlim(0, 100)
    ax.set_ylim(44, 0)
    ax.axis("off")
    ax.set_title(f"stage s of the ring ({V5_NUM_STAGES} stages), at the same shared-memory offsets in both CTAs",
                 fontsize=11)
    for r in range(V5_CLUSTER_SIZE):
        x0 = 2 + r * 52
        rect(ax, x0, 2, 44, 40, "#fbfbfb", ec=CTA_COLOURS[r], lw=2.2)
        ax.text(x0 + 1, 3.2, f"CTA {r} (cluster rank {r}), on its own SM", fontsize=10, fontweight="bold",
                va="top")
        rect(ax, x0 + 3, 8, 18.5, 6, CTA_COLOURS[r])
        ax.text(x0 + 12.25, 11, f"A rows {r * V5_BLOCK_M}-{(r + 1) * V5_BLOCK_M - 1}\n"
                f"{V5_A_TILE_BYTES // 1024} KB",
                ha="center", va="center", fontsize=8.5)
        rect(ax, x0 + 22.5, 8, 18.5, 6, CTA_COLOURS[r])
        ax.text(x0 + 31.75, 11, f"B rows {r * V5_B_ROWS}-{(r + 1) * V5_B_ROWS - 1}\n{V5_B_TILE_BYTES // 1024} KB",
                ha="center", va="center", fontsize=8.5)
        ax.text(x0 + 22, 15.2, "shared memory, written by this CTA's own TMA", ha="center", va="top", fontsize=8)
        rect(ax, x0 + 3, 30, 38, 6.5, CTA_COLOURS[r], alpha=0.5)
        ax.text(x0 + 22, 33.25, f"TMEM: {V5_BLOCK_M} lanes x {V5_TMEM_COLS} columns = C rows "
                f"{r * V5_BLOCK_M}-{(r + 1) * V5_BLOCK_M - 1}", ha="center", va="center", fontsize=8.5)
        ax.text(x0 + 22, 38.5, "read by this CTA's warps 0-3 (tcgen05.ld), lanes 32w..+31", ha="center",
                va="center", fontsize=8)
        for xa in (x0 + 12.25, x0 + 31.75):
            arrow(ax, xa, 17.3, xa, 20.2, color="#2166ac", lw=1.6)
            arrow(ax, xa, 25.8, xa, 29.8, color="#2166ac", lw=1.6)
    rect(ax, 6, 20.5, 88, 5, "#deebf7", ec="#2166ac", lw=1.5, zorder=3)
    ax.text(50, 23, f"tcgen05.mma.cta_group::2, M = {V5_MMA_M}, N = {V5_BLOCK_N}, K = 16 (4 per K tile): "
            "issued by ONE thread, CTA 0's warp 1, with CTA 0's descriptors;\nthe pair's tensor cores read "
            "stage s of both CTAs and write each CTA's 128 rows of D into that CTA's TMEM", ha="center",
            va="center", fontsize=8.5, zorder=4)

    # ---- bottom: who signals which barrier, in order (a sequence diagram) ----
    ax = fig.add_axes([0.01, 0.01, 0.98, 0.46])
    ax.set_xlim(0, 104)
    ax.set_ylim(54, -6.5)
    ax.axis("off")
    ax.set_title("who signals which barrier, for one K tile in stage s (and once at the end)", fontsize=11)
    lanes = [  # (x, CTA, name)
        (5, 0, "warp 0: producer"), (15, 1, "warp 0: producer"),
        (27, 0, f"tma_full_bar[s]\ncount {V5_CLUSTER_SIZE}, {V5_CLUSTER_SIZE * cta_tx} B"),
        (40, 0, "warp 1: MMA thread"),
        (52, 0, "mma_done_bar[s]\ncount 1"), (62, 1, "mma_done_bar[s]\ncount 1"),
        (74, 0, "mainloop_done_bar\ncount 1"), (84, 1, "mainloop_done_bar\ncount 1"),
        (94, 0, "warps 0-3:\nepilogue"), (102, 1, "warps 0-3:\nepilogue"),
    ]
    for x, r, name in lanes:
        ax.text(x, -3.6, f"CTA {r}\n{name}", ha="center", va="center", fontsize=8,
                bbox=dict(boxstyle="round,pad=0.35", fc=CTA_COLOURS[r], ec="black", lw=0.6, alpha=0.85))
        ax.plot([x, x], [-0.6, 49], color="#999999", lw=0.8, ls="--", zorder=0)
    X = {name: x for name, x in zip(["P0", "P1", "full0", "MMA", "done0", "done1", "main0", "main1", "E0", "E1"],
                                      [lane[0] for lane in lanes])}
    box = dict(fc="white", ec="none", pad=0.6)
    red, grey, blue, green, purple = "#b2182b", "#555555", "#2166ac", "#238b45", "#6a3d9a"

    def msg(a, b, y, text, colour, ls="-", above=True, side=None):
        arrow(ax, X[a], y, X[b], y, color=colour, lw=1.6, ls=ls)
        xt = (X[a] + X[b]) / 2 if side is None else side
        ax.text(xt, y - 0.35 if above else y + 0.35, text, ha="center", va="bottom" if above else "top",
                fontsize=8, color=colour, bbox=box)

    msg("P0", "full0", 3, f"arrive.expect_tx {cta_tx} B (mapa: rank 0)", red)
    msg("P0", "full0", 6.2, "TMA .cta_group::2 into CTA 0: complete_tx", grey, ls="--")
    msg("P1", "full0", 9.4, f"arrive.expect_tx {cta_tx} B (remote)", red)
    msg("P1", "full0", 12.6, "TMA .cta_group::2 into CTA 1: complete_tx", grey, ls="--")
    msg("full0", "MMA", 16.5, f"2 arrivals + {V5_CLUSTER_SIZE * cta_tx} B:\nthe wait returns", blue, ls=":")
    ax.text(X["MMA"] + 1, 20.3, "4 x tcgen05.mma.cta_group::2\n(stage s of both CTAs)", fontsize=8, color=blue,
            va="center", ha="left", bbox=dict(fc="#deebf7", ec=blue, pad=2))
    ax.plot([X["MMA"], X["MMA"]], [18.5, 22.2], color=blue, lw=5, solid_capstyle="butt")
    msg("MMA", "done0", 25.5, "", green)
    msg("MMA", "done1", 25.5, "", green)
    ax.text(X["done1"] + 1, 25.5, f"tcgen05.commit.cta_group::2 multicast::cluster, mask {V5_CLUSTER_MASK:#04b}:\n"
            "arrives in both CTAs once the MMAs have read stage s", fontsize=8, color=green, va="center",
            ha="left", bbox=box)
    msg("done0", "P0", 29.5, "stage s empty: CTA 0's producer may refill it", green, ls=":")
    msg("done1", "P1", 33.0, "stage s empty: CTA 1's producer may refill it", green, ls=":", side=38.5)
    ax.plot([0, 104], [36.0, 36.0], color="black", lw=0.8, ls="-.")
    ax.text(52, 36.0, f"the above once per K tile, round the ring of {V5_NUM_STAGES} stages; then, after the "
            "last K tile:", ha="center", va="center", fontsize=8.5, style="italic", bbox=box)
    msg("MMA", "main0", 40, "", purple)
    msg("MMA", "main1", 40, "", purple)
    ax.text(X["MMA"] - 1, 40, "tcgen05.commit, multicast 0b11", fontsize=8, color=purple, va="center",
            ha="right", bbox=box)
    msg("main0", "E0", 44, "every MMA done", purple, ls=":")
    msg("main1", "E1", 47, "every MMA done", purple, ls=":")
    ax.text(1, 51.5, "The two producers' arrivals and bytes come in any order; each producer announces its bytes "
            f"before it issues the copies. CTA 1's tma_full_bar[s] is initialised (count {V5_CLUSTER_SIZE}) but "
            "never used;\nCTA 1's warp 1 allocates and frees TMEM together with CTA 0's and issues nothing. "
            "Cluster barriers (not mbarriers): after setup, after the TMEM allocation, before TMEM dealloc.",
            fontsize=8.5, va="center", ha="left")
    save(fig, "v5_2sm_split.png")
    plt.close(fig)


FIGURES = {
    "v1_core_matrices": fig_v1_core_matrices,
    "v2_swizzle128_atom": fig_v2_swizzle_atom,
    "tmem_map": fig_tmem_map,
    "timelines": fig_timelines,
    "v5_2sm_split": fig_v5_2sm_split,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check the constants against the sources")
    ap.add_argument("--only", nargs="+", choices=sorted(FIGURES), help="draw only these figures")
    args = ap.parse_args()
    bad = check_sources()
    for b in bad:
        print("MISMATCH:", b, file=sys.stderr)
    if bad:
        print("draw_figures: the constants at the top of this script no longer match the sources; update them "
              "(and look at the pictures again)", file=sys.stderr)
        return 1
    print(f"draw_figures: {len(SOURCE_CHECKS)} constants match their sources")
    if args.check:
        return 0
    for name in args.only or FIGURES:
        FIGURES[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
