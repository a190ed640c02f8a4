// split_k.h: how v8's decode kernels (v8s) cut K (v8_tile_shapes/decode.cuh, decode_sm90.cuh), and where v8d
// takes them at 65-256 rows (pick_token_pair and pick_turned_width, at the end). Host and device, so that
// the CPU test (tests/test_split_k.cpp) checks the very code the kernels run.
//
// At decode (M <= 32) the work is reading B once: the output has 32 rows at most, and B's N x K elements are
// all there is to move. The decode kernels turn the tile around (B's rows fill the MMA's M side, A's few
// rows its N) and give each CTA `rows` rows of B (one output tile) and a contiguous range of its K tiles (a
// split). How many splits:
//  - tiles <= slots: as many as keep one wave of CTAs, so that as many SMs as there are slots stream B and
//    none waits for a second wave: splits = resident CTAs / tiles (N = 4096: 32 tiles, 4 splits on 132 SMs);
//    more splits than that, in more waves, measured slower (11 splits in three CTAs per SM: 0.69x of
//    cuBLAS at 16 x 4096 x 4096 against 1.03x, on an H200);
//  - tiles > slots: one split, every tile a CTA that streams its whole column of K. Splitting more to fill the
//    last wave measured slower at every split count tried (448 tiles on 132 SMs, M = 1: 223 us with one
//    split, 230-249 us with 2-8; 224 tiles at K = 4096: 63 us against 66-74 us; on an H200): each split adds
//    a CTA's start and end and a partial, which cost more than the partly filled last wave.
// and never a split shorter than `min_k_tiles` K tiles: each split writes a partial (COLS x rows fp32) and
// the tile's last split reads them all, which is worth it only against a sizeable piece of B. The K tiles
// are then dealt out evenly (every split ceil(k_tiles / splits) long but the last), and the splits recounted
// so that none is empty.
//
// The fixup (the kernels): every split but one writes its partial to its slot of the workspace and counts
// itself on the tile's counter (atom.add.acq_rel); the split that counts last adds all the partials, in
// split order (bit-identical output whoever is last), stores the tile and sets the counter back to 0 for the
// next launch. No CTA waits for another, so the grid may be larger than what is resident (tiles > slots).
#pragma once

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

struct SplitK {
  int splits  = 1;  // K ranges per output tile: the grid is tiles x splits CTAs
  int k_tiles = 0;  // K tiles of every range but the last (which has the rest, at least one)
  // Split s covers K tiles [s * k_tiles, min((s + 1) * k_tiles, total)).
  GEMM_HD constexpr int begin(int s) const { return s * k_tiles; }
  GEMM_HD constexpr int end(int s, int total) const {
    return (s + 1) * k_tiles < total ? (s + 1) * k_tiles : total;
  }
};

// tiles: output tiles; total_k_tiles: K tiles of the problem (>= 1); slots: CTAs resident at once on the GPU;
// min_k_tiles: the shortest split worth its partial.
GEMM_HD constexpr SplitK pick_split_k(int tiles, int total_k_tiles, int slots, int min_k_tiles) {
  const int longest = total_k_tiles / (min_k_tiles > 0 ? min_k_tiles : 1);  // most splits of min_k_tiles
  const int most    = longest > 1 ? longest : 1;
  int splits        = tiles <= slots ? slots / tiles : 1;  // one wave; past one wave, no split
  if (splits > most) splits = most;                        // no split shorter than min_k_tiles
  SplitK s;
  s.k_tiles = (total_k_tiles + splits - 1) / splits;
  s.splits  = (total_k_tiles + s.k_tiles - 1) / s.k_tiles;  // none empty
  return s;
}

// Where a split keeps its partial (the fixup above; common/fixup.cuh adds the partials): float4 i of thread t
// of the `threads` that store it at float4 i * threads + t, so that a warp's 32 stores (and the last split's
// loads) are 512 contiguous bytes, whole 128-byte lines: the stream-K fixup's layout (common/streamk.h,
// partial_float4) for any number of threads. Each thread's float4s side by side (t * n + i) put a warp's
// 16-byte pieces 64 bytes or more apart and made the split 1.2-1.5x slower on an H200
// (docs/performance/decode.md). tests/test_split_k.cpp checks both.
GEMM_HD constexpr int split_partial_float4(int t, int i, int threads) {
  return i * threads + t;
}

// v8d's pick on Hopper where the problem is small (docs/performance/small-shapes.md): the small tile (v8g),
// the decode kernel over 64-row tiles of B (one wgmma m64n32 per K step) and row groups of 32 of A, a CTA per
// 32 x 64 block of C and K split so that each SM has one CTA: cuBLAS's tile at 512^3 (nvjet 32x64). v8d's
// other tiles are 128 rows of A by 64 or more of B: at 512^3 the narrow pair has 16 units for 66 pairs, 8 K
// tiles of 24 KB each through a quarter of the SMs, where 128 small blocks take 12 KB per K tile on all of
// them. It pays where its blocks fit the CTAs resident at once (slots: two per SM, 12 KB stages) and the
// work is small: blocks x K tiles (each 32 x 64 x 64 multiply-adds) at most SMALL_MAX_WORK. On an H200, v8g
// against v8d's pick in the same process, us (second of two runs):
//  - at most 4096: 512^3 5.66 / 6.56, 640^3 6.59 / 7.07 (200 blocks), 384 x 384 x 1024 6.59 / 8.29,
//    512 x 512 x 1024 6.59 / 8.13, 256 x 1024 x 1024 6.66 / 11.42, 1024 x 256 x 1024 6.91 / 8.45,
//    768 x 512 x 512 6.24 / 6.78, 512 x 1024 x 512 6.46 / 6.75 (256 blocks), 300 x 520 x 512 5.63 / 6.66,
//    128 x 1024 x 1024 6.40 / 8.06, 200 x 2048 x 1024 8.48 / 10.30, 64 x 1024 x 2048 8.29 / 10.05; split:
//    256 x 256 x 4096 8.96 / 19.49 and 128 x 512 x 4096 8.86 / 13.06 (4 splits of 16 K tiles), 256 x 256 x
//    8192 11.49 / 21.02 (4 of 32; 8 of 16: 12.54), 64 x 512 x 16384 14.24 / 17.54 (8 of 32; 16 of 16:
//    15.17); 128 x 2048 x 2048, the bound (4096), 9.63 / 11.01 (level in 2 splits of 16: 11.39 / 11.36);
//  - past it: 96 x 4096 x 2048 (6144) 13.41 / 11.97, 33 x 8192 x 2048 19.14 / 16.48, 512 x 512 x 4096
//    16.10 / 13.22, 384 x 384 x 8192 18.72 / 15.74, 512 x 512 x 8192 27.62 / 16.83, 128 x 1024 x 8192
//    17.44 / 15.30, level at 48 x 4096 x 4096 (17.98 / 17.82), ahead at 64 x 4096 x 4096 (16.83 / 17.76) and
//    64 x 2048 x 8192 (17.89 / 18.34);
//  - past one wave of slots: 768^3 (288 blocks) 9.89 / 7.87, 1024 x 1024 x 512 9.73 / 7.26.
constexpr int SMALL_MAX_WORK = 4096;
GEMM_HD constexpr bool pick_small_tile(long long blocks, int k_tiles, int slots) {
  return blocks <= slots && blocks * k_tiles <= SMALL_MAX_WORK;
}

// v8d's pick at M <= 16 on Hopper (docs/performance/decode.md): the decode kernel over 64-row tiles of B
// (v8h: one wgmma m64n16 per K step, 16 stages of 10 KB, the bytes of B in flight of v8s's 8 stages of 18 KB)
// rather than v8s's 128-row tiles, where its tiles (tiles64) fill one wave of the resident CTAs (slots)
// without a split and K is long: each CTA streams its tile's whole K and writes no partial, where v8s's half
// as many tiles would split K in two or more (tests/test_split_k.cpp checks that they would). On an H200
// (132 slots), v8h against v8s, us, two runs each in one call:
//  - one wave unsplit, K tiles >= 128: 8 x 8192 x 28672 110.3-110.5 / 112.1-112.3 (1.00x of cuBLAS at its
//    best against 0.99x), 16 x 8192 x 28672 110.5 / 112.2-112.3, 1 x 8192 x 28672 110.8-110.9 /
//    112.3-112.6, 16 x 8192 x 16384 66.0 / 67.1-67.2, 16 x 8192 x 8192 36.6-36.7 / 37.8-37.9;
//  - one wave unsplit at 64 K tiles: 13 x 8200 x 4104 23.4 / 23.0-23.1, 16 x 6144 x 4096 18.0-18.2 /
//    18.0-18.1;
//  - split (64 tiles or fewer): 16 x 4096 x 4096 14.5-14.6 / 14.1-14.2, 16 x 4096 x 14336 33.0-33.1 /
//    32.5-32.7, 16 x 2048 x 8192 14.7-14.8 / 14.4-14.8; faster at 5 x 1000 x 30000 (16 tiles, 8 splits
//    against 16) 21.3 / 21.8, not taken;
//  - past one wave (each CTA of a later wave starts its own ring, and there are twice as many of them):
//    16 x 10240 x 8192 51.7-51.9 / 44.4-44.5, x 12288 54.2 / 52.4-52.5, x 14336 60.8-60.9 / 59.1, x 16384
//    67.7-67.9 / 65.7, x 28672 116.9-117.0 / 112.1-112.3, x 53248 208.4 / 204.2-204.4, 16 x 28672 x 4096
//    62.9-63.1 / 60.3-60.5, 16 x 14336 x 4096 33.7-33.9 / 31.7-31.8; faster only at 16 x 24576 x 8192 97.8-98.1
//    / 98.4-98.7 and 8-16 x 57344 x 8192 216.6-217.2 / 219.6-221.0, not taken.
constexpr int SHORT_TILE_MIN_K_TILES = 128;
GEMM_HD constexpr bool pick_decode_short_tile(int tiles64, int k_tiles, int slots, int min_k_tiles) {
  return k_tiles >= SHORT_TILE_MIN_K_TILES && tiles64 <= slots &&
         pick_split_k(tiles64, k_tiles, slots, min_k_tiles).splits == 1;
}

// v8d's pick at 17-32 rows of A on Hopper (docs/performance/decode.md): the small tile (v8g: 32 wide over 64-row
// tiles of B, two CTAs per SM, no split shorter than 16 K tiles) rather than the decode kernel 32 wide (v8t:
// 128-row tiles, no split shorter than 96 K tiles), where v8t's CTAs (its tiles times its splits, wide_ctas)
// would fill at most a quarter of the SMs. On an H200 (132 SMs), v8g / v8d's v8t, us, two runs each:
//  - v8t on 16-32 CTAs: 24 x 2048 x 8192 14.9-15.2 / 22.1 (16 CTAs), 24 x 4096 x 4096 15.0 / 15.7-16.0 (32),
//    32 x 4096 x 4096 14.9 / 15.6-15.8 (32);
//  - on 64 or more: 32 x 4096 x 14336 34.6-34.9 / 34.0-34.3 (64: 32 tiles x 2 splits), 20 x 8192 x 8192
//    38.1-38.2 / 37.1 (64), 32 x 8192 x 8192 37.7-37.9 / 37.2-37.3, 32 x 10240 x 8192 45.7-45.8 / 44.5-44.6
//    (80), 24 x 57344 x 8192 228.2-228.4 / 224.9-225.2 (448); faster only at 32 x 8192 x 28672 114.0-114.1 /
//    115.3-115.4 (128), not taken.
GEMM_HD constexpr bool pick_small_tile_few_ctas(int wide_ctas, int sms) {
  return wide_ctas >= 1 && 4LL * wide_ctas <= sms;
}

// v8d's pick at 129-192 rows of A (docs/performance/one-m-tile.md): the decode kernel turned around 144 wide
// (v8u, 128 < M <= 144) or 192 wide (v8v, 144 < M <= 192), or 0 where v8d's other tiles, which multiply 256
// rows of A there, are faster. The turned tile wastes none of the MMA's N on padding, but one CTA per SM
// takes a whole 128-row tile of B (b_tiles of them, slots CTAs resident) and is bound by its own SM's MMAs:
// it pays where its tiles cover most of the SMs in every wave, and where few tiles are split along a long
// K. On an H200 (132 SMs), turned against v8d at 144-192 x {4096 .. 53248} x {2048 .. 28672}:
//  - one wave or more of 60% of the SMs at 144 wide (80 tiles: 0.81x of v8d's time), 80% at 192 (112: 0.81x;
//    80 tiles 1.00-1.03x), several waves 75% full on the whole (160 tiles at 192 wide, 2 waves 61% full:
//    1.23x; 224 tiles, 85%: 0.72x at 144 wide, 0.79x at 192);
//  - 45% of the SMs (64 tiles, 2 splits) with K of 256 K tiles (16384) at 144 wide (0.91x; K 8192: 1.00x),
//    of 384 at 192 (K 28672: 0.94x; K 16384: 1.01x);
//  - no shape with fewer than 32 K tiles (K 2048: 0.43x of v8d's ping-pong at 144 x 28672 x 2048) was timed.
constexpr int TURNED_MIN_K_TILES = 32;
GEMM_HD constexpr int pick_turned_width(long long m, int b_tiles, int k_tiles, int slots) {
  if (k_tiles < TURNED_MIN_K_TILES || slots < 1) return 0;
  const long long waves = (b_tiles + slots - 1) / slots;
  const bool waves_full = b_tiles <= slots || 100LL * b_tiles >= 75LL * waves * slots;
  const bool few_tiles  = 20LL * b_tiles >= 9LL * slots;  // 45% of the SMs, split along K
  if (m > 128 && m <= 144)
    return (10LL * b_tiles >= 6LL * slots && waves_full) || (few_tiles && k_tiles >= 256) ? 144 : 0;
  if (m > 144 && m <= 192)
    return (10LL * b_tiles >= 8LL * slots && waves_full) || (few_tiles && k_tiles >= 384) ? 192 : 0;
  return 0;
}

// v8d's pick at 65-256 rows of A on Hopper (docs/performance/one-m-tile.md): the token pair (v8q, v8x, v8y,
// v8z, v8o, v8r: two CTAs of a cluster split A's rows, 48, 64, 80, 96, 112 or 128 each, the narrowest that
// holds M, and share B's 128-row tile by multicast), or 0. It is cuBLAS's kernel at these shapes (nvjet
// 128x64 and 128x80 in clusters of 1x2): each SM asks the L2 for half of B's tile and its own rows of A, and
// the A that every pair reads alike is read plainly, so the L2's coalescer merges those reads. One cluster
// per 128-row tile of B: it pays where the tiles fit in one wave of pairs (pair_slots clusters resident). On
// an H200 (66 pair slots), against v8d's other tiles at 64-256 x {4096 .. 28672} x {2048 .. 28672}, ratio to
// cuBLAS at its best:
//  - 64 tiles of B (N = 8192): 0.94-1.04x at 72-256 rows (v8d: 0.66-0.96x; at 96 rows 64 wide 0.90x against
//    v8d's 0.95x at K = 28672, 48 wide 1.02x at K = 8192); at 64 rows 64 wide 0.81x against v8d's 0.94x;
//  - 48 tiles (6144): 0.92-1.03x at 96-192 rows (0.82-0.89x), a tie at 256 (0.78x); fewer tiles, K split:
//    with the split's partials in whole lines (docs/performance/decode.md), against v8d at the same time,
//    us: 17.2 and 18.8 at 128 x 4096 x 4096, 16.9 and 19.3 at 112, 15.0 and 15.2 at 100 x 2048 x 4096,
//    21.0 and 27.8 at 208 x 4096 x 4096, 22.0 and 29.7 at 200 x 2048 x 8192, 31.0 and 38.6 at
//    224 x 4096 x 8192, 34.8 and 42.5 at 240 x 4096 x 8192, a tie at 256 x 4096 x 4096 (22.8 and 22.6);
//  - more tiles than one wave of pairs (80-224: N = 10240 .. 28672): 0.62-0.87x, v8d's 0.78-1.03x;
//  - at 193-256 rows, K = 28672: slower than v8d's pair of 256 rows (224 x 8192 x 28672, 128 wide: 202 us
//    against 191; K = 2048 and 8192: 3-10% faster);
//  - at 193-224 rows 112 wide (24 rows of padding at 200 rows where 128 wide has 56): against 128 wide 0.92x
//    and 0.81-0.87x at 200 x 8192 x 8192, 1.09-1.14x and 1.01x at 224, 0.94x and 0.80x at 200 x 8192 x 4096;
//    against v8d's other tiles 0.92x and 0.79x at 200 x 8192 x 28672, 1.02-1.05x and 0.90x at 224 (the K
//    that 128 wide loses at), 0.92x and 0.82x at 200 x 6144 x 8192 (48 tiles), 0.97x and 0.86x at 224; 32
//    tiles (208 x 4096 x 4096, K split, before the partials were whole lines): 0.62x against 0.69x.
// So: 64 < M <= 256 and the tiles in one wave; at 225-256 rows no more than 128 K tiles (K 8192).
constexpr int PAIR_WIDE_MAX_K_TILES = 128;
GEMM_HD constexpr int pick_token_pair(long long m, int b_tiles, int k_tiles, int pair_slots) {
  if (m <= 64 || m > 256 || pair_slots < 1 || b_tiles > pair_slots) return 0;
  if (m > 224 && k_tiles > PAIR_WIDE_MAX_K_TILES) return 0;
  return m <= 96 ? 48 : m <= 128 ? 64 : m <= 160 ? 80 : m <= 192 ? 96 : m <= 224 ? 112 : 128;
}

// At 225-256 rows the token pair 64 wide in two row groups (v8k: 128 rows of A per pair, two pairs per tile of
// B), where both groups' pairs fit one wave (2 b_tiles <= pair_slots): twice the SMs on the same B, each half
// the rows of A. On an H200 against v8d's pick before it (the pair 128 wide, or the wide pair past 128 K
// tiles), us (two runs): 256 x 4096 x 14336 59.7-63.1 / 65.2-65.7, 256 x 4096 x 4096 20.2-20.3 / 22.7-22.9,
// 256 x 4096 x 8192 34.8-35.3 / 35.7-36.1, 256 x 2048 x 4096 15.9-16.0 / 20.7-20.8, 256 x 1024 x 8192 17.1 /
// 21.9, level at 256 x 2048 x 8192 (23.3-23.6 / 23.5-23.7); past one wave slower (256 x 8192 x 4096 44.3 /
// 30.7-31.4, 256 x 6144 x 4096 36.9 / 28.1-28.4, 256 x 8192 x 14336 132-134 / 107-109); at 224 rows mixed
// against the pair 112 wide (224 x 2048 x 4096 16.1 / 18.8, 224 x 4096 x 8192 39.3-39.7 / 31.0-31.1): not
// taken there (docs/performance/one-m-tile.md).
GEMM_HD constexpr bool pick_token_pair_groups(long long m, int b_tiles, int pair_slots) {
  return m > 224 && m <= 256 && pair_slots >= 1 && 2LL * b_tiles <= pair_slots;
}

}  // namespace gemm
