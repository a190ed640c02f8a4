# SASS tests: read each stage binary's sm_100a and sm_90a code with cuobjdump and check that the intended
# instructions are there and local memory is not. cuobjdump comes with the toolkit on GPU machines; on the
# CPU machines the PyPI wheel nvidia-cuda-cuobjdump provides it (tests/run.sh installs it).
find_program(GEMM_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR})
if(NOT GEMM_CUOBJDUMP)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c
              "print(([''] + sorted(p for s in __import__('site').getsitepackages() + [__import__('site').getusersitepackages()] for p in __import__('glob').glob(s + '/nvidia/cu*/bin/cuobjdump')))[-1])"
      OUTPUT_VARIABLE GEMM_CUOBJDUMP_WHEEL OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(GEMM_CUOBJDUMP_WHEEL)
      set(GEMM_CUOBJDUMP ${GEMM_CUOBJDUMP_WHEEL} CACHE FILEPATH "cuobjdump" FORCE)
    endif()
  endif()
endif()

# add_sass_test(<stage> <arch> <required SASS mnemonics...>); GEMM_SASS_FORBIDDEN_<arch>_<stage>: regexes that
# must match no instruction (v5's sm_100a code: no tcgen05 instruction in its 1-CTA form).
function(add_sass_test stage arch)
  set(name sass/${stage}/${arch})
  if(NOT GEMM_CUOBJDUMP)
    # Not a skip: CI installs cuobjdump, so a missing one is a broken set-up.
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
             "cuobjdump not found: pip install nvidia-cuda-cuobjdump (tests/run.sh does this)")
    set_tests_properties(${name} PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
    return()
  endif()
  # The stage's own object for the architecture: the executable also holds the Blackwell file compiled for
  # sm_90a through the tcgen05 emulator, whose code is not the Hopper kernel's.
  if(arch STREQUAL "sm_90a")
    set(object $<TARGET_OBJECTS:${stage}_sm90>)
  else()
    set(object $<TARGET_OBJECTS:${stage}_sm100>)
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=${object}
                   -DARCH=${arch} "-DREQUIRED=${ARGN}" "-DFORBIDDEN=${GEMM_SASS_FORBIDDEN_${arch}_${stage}}"
                   "-DBUDGET=${GEMM_SASS_BUDGET_${arch}_${stage}}" "-DORDER=${GEMM_SASS_ORDER_${arch}_${stage}}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
endfunction()

# tcgen05.mma kind::f16 -> UTCHMMA, tcgen05.ld -> LDTM, TMA load -> UTMALDG, tcgen05.commit -> UTCBAR,
# tcgen05.alloc -> UTCATOMSWS (read with cuobjdump 13.0 from the stages' sm_100a code). wgmma bf16 -> HGMMA.
# Per stage, what it adds on top: GEMM_SASS_<arch>_<stage>. setmaxnreg.dec -> USETMAXREG.DEALLOC and
# setmaxnreg.inc -> USETMAXREG.TRY_ALLOC (read with cuobjdump 13.0 from v4's sm_90a code).
set(GEMM_SASS_sm_90a_v4 USETMAXREG.DEALLOC USETMAXREG.TRY_ALLOC)
# v5, read with cuobjdump 13.0 from v5's own code and from a probe of alloc/relinquish/dealloc at both
# cta_groups (nvcc 13.0, sm_100a; sm_103a gives the same names):
#   tcgen05.mma.cta_group::2.kind::f16             -> UTCHMMA.2CTA           (cta_group::1: UTCHMMA)
#   tcgen05.commit.cta_group::2...multicast::cluster -> UTCBAR.2CTA.MULTICAST (cta_group::1: UTCBAR)
#   tcgen05.alloc.cta_group::2                      -> UTCATOMSWS.2CTA.FIND_AND_SET.ALIGN
#   tcgen05.dealloc.cta_group::2                    -> UTCATOMSWS.AND, the same as cta_group::1: not checkable
#   tcgen05.relinquish_alloc_permit (either)        -> no UTC* instruction (shared-memory atomics ATOMS.*)
#   cp.async.bulk.tensor.3d ... .cta_group::2       -> UTMALDG.3D.2CTA
#   cp.async.bulk.tensor.3d ... .multicast::cluster -> UTMALDG.3D.MULTICAST   (sm_90a)
#   barrier.cluster.arrive / .wait                  -> UCGABAR_ARV / UCGABAR_WAIT
# The 1-CTA forms must be absent from v5's sm_100a code: all tcgen05 instructions of a kernel share one
# cta_group.
set(GEMM_SASS_sm_100a_v5 UTCHMMA.2CTA UTCBAR.2CTA.MULTICAST UTCATOMSWS.2CTA.FIND_AND_SET.ALIGN UTMALDG.3D.2CTA
                         UCGABAR_ARV UCGABAR_WAIT)
set(GEMM_SASS_FORBIDDEN_sm_100a_v5 "[ \t]UTCHMMA " "[ \t]UTCBAR " "[ \t]UTCATOMSWS\\.FIND_AND_SET")
set(GEMM_SASS_FORBIDDEN_sm_103a_v5 ${GEMM_SASS_FORBIDDEN_sm_100a_v5})
# The 2-CTA TMEM allocation is an exchange between the pair: it must follow a cluster barrier's wait
# (GEMM_SASS_ORDER_<arch>_<stage>: "A<B", the first A before the first B in every kernel that has a B).
# v6 and mxfp8 likewise.
set(GEMM_SASS_ORDER_sm_100a_v5 "UCGABAR_WAIT<UTCATOMSWS.2CTA.FIND_AND_SET")
foreach(stage v5 v6 v7 v8)
  set(GEMM_SASS_ORDER_sm_100a_${stage} ${GEMM_SASS_ORDER_sm_100a_v5})
  set(GEMM_SASS_ORDER_sm_103a_${stage} ${GEMM_SASS_ORDER_sm_100a_v5})
endforeach()
set(GEMM_SASS_sm_90a_v5 UTMALDG.3D.MULTICAST UCGABAR_ARV UCGABAR_WAIT USETMAXREG.DEALLOC USETMAXREG.TRY_ALLOC)
# v6 sm_90a, read with cuobjdump 13.0 from v6's own code:
#   cp.async.bulk.tensor.2d ... .multicast::cluster (load)   -> UTMALDG.2D.MULTICAST (and UTMALDG.2D for A)
#   cp.async.bulk.tensor.2d.global.shared::cta (TMA store)    -> UTMASTG.2D
#   stmatrix.sync.aligned.m8n8.x4.shared.b16                  -> STSM.16.M88.4
#   fence.proxy.async.shared::cta                             -> FENCE.VIEW.ASYNC.S
# Forbidden: any 3D TMA load (its map would drop a K tail that is not a whole 64-element slice).
set(GEMM_SASS_sm_90a_v6 UTMALDG.2D.MULTICAST UTMASTG.2D STSM.16.M88.4 FENCE.VIEW.ASYNC.S UCGABAR_ARV
                        UCGABAR_WAIT USETMAXREG.DEALLOC USETMAXREG.TRY_ALLOC)
set(GEMM_SASS_FORBIDDEN_sm_90a_v6 "[ \t]UTMALDG\\.3D")
# v6 sm_100a: v5's 2-CTA forms, the TMA now 2D (cp.async.bulk.tensor.2d ... .cta_group::2 -> UTMALDG.2D.2CTA,
# read with cuobjdump 13.0 from v6's own code). Forbidden besides v5's 1-CTA forms: any 3D TMA (its map would
# drop a K tail that is not a whole 64-element slice). Budget (GEMM_SASS_BUDGET_<stage>, "regs;static smem"):
# at most 128 registers per thread (ptxas: 43-54; more means a register array or an unrolled loop grew) and
# the 1 KB of static shared memory (barriers, TMEM slot) that NUM_STAGES leaves beside the ring; cuobjdump's
# SHARED adds the 1 KB the driver reserves per CTA on sm_90 and later (v5's 128 B of barriers read as 1152).
set(GEMM_SASS_sm_100a_v6 UTCHMMA.2CTA UTCBAR.2CTA.MULTICAST UTCATOMSWS.2CTA.FIND_AND_SET.ALIGN UTMALDG.2D.2CTA
                         UCGABAR_ARV UCGABAR_WAIT)
set(GEMM_SASS_FORBIDDEN_sm_100a_v6 ${GEMM_SASS_FORBIDDEN_sm_100a_v5} "[ \t]UTMALDG\\.3D")
set(GEMM_SASS_FORBIDDEN_sm_103a_v6 ${GEMM_SASS_FORBIDDEN_sm_100a_v6})
set(GEMM_SASS_BUDGET_sm_100a_v6 128 2048)
set(GEMM_SASS_BUDGET_sm_103a_v6 ${GEMM_SASS_BUDGET_sm_100a_v6})
# v7 sm_90a: v6's instructions, plus the fixup's flag, read with cuobjdump 13.0 from v7's own code:
#   st.release.gpu.global.u32 -> MEMBAR.ALL.GPU, then STG.E.STRONG.GPU
#   ld.acquire.gpu.global.u32 -> LDG.E.STRONG.GPU (and the partials' ld.global.cg -> LDG.E.128.STRONG.GPU)
# and v7e's work counter (only its instantiation has them in this object):
#   atom.relaxed.gpu.global.add.u32, atom.acq_rel.gpu.global.add.u32 -> ATOMG.E.ADD.STRONG.GPU (the second
#                                                                       between MEMBAR.ALL.GPUs)
#   st.shared::cluster.v4.s32 (a piece into each CTA's task ring) -> ST.E.128 (a generic store)
# No 3D TMA, as v6.
set(GEMM_SASS_sm_90a_v7 ${GEMM_SASS_sm_90a_v6} MEMBAR.ALL.GPU STG.E.STRONG.GPU LDG.E.STRONG.GPU
                        ATOMG.E.ADD.STRONG.GPU ST.E.128)
set(GEMM_SASS_FORBIDDEN_sm_90a_v7 ${GEMM_SASS_FORBIDDEN_sm_90a_v6})
# v8 sm_90a: v7's fixup without the work counter, plus the L2 policy of the fixup's partials
# (discard.global.L2, a read partial dropped unwritten -> CCTL.E.RML2) and the narrow tile (wgmma.m64n64k16 ->
# HGMMA.64x64x16.F32.BF16, only v8n's and v8d's instantiations have it), read with cuobjdump 13.0.
# The decode kernel (v8s; decode_sm90.cuh): wgmma.m64n16k16 -> HGMMA.64x16x16.F32.BF16 (32 wide, v8t:
# wgmma.m64n32k16 -> HGMMA.64x32x16.F32.BF16, and so the small tile, v8g: decode_kernel<32, 1, 64>, over B's
# 64-row tiles; 16 wide over 64-row tiles, v8h: decode_kernel<16, 1, 64>, HGMMA.64x16x16; turned around 144 and 192 wide, v8u and v8v: m64n144k16 and
# m64n192k16 -> HGMMA.64x144x16 and HGMMA.64x192x16) and its split counter (atom.acq_rel.gpu.add ->
# ATOMG.E.ADD.STRONG.GPU), in decode_kernel itself. The token pair (v8q .. v8r: decode_kernel<48 .. 128, 2>):
# m64n48k16 .. m64n128k16 -> HGMMA.64x48x16 .. .64x128x16, its box of B multicast to both
# CTAs (UTMALDG.2D.MULTICAST) and the cluster's barriers (UCGABAR_ARV); the CTA-alone widths have neither.
# The ping-pong kernel (v8p; pingpong_sm90.cuh): wgmma.m64n128k16 -> HGMMA.64x128x16.F32.BF16 (144 wide, v8w:
# wgmma.m64n144k16 -> HGMMA.64x144x16.F32.BF16), its epilogue's stmatrix and TMA store, the register
# hand-over; a CTA alone: no multicast load, no cluster barrier; in CTA pairs (v8c: pingpong_kernel<128, 2>)
# both.
set(GEMM_SASS_sm_90a_v8 ${GEMM_SASS_sm_90a_v6} MEMBAR.ALL.GPU STG.E.STRONG.GPU LDG.E.STRONG.GPU CCTL.E.RML2
                        HGMMA.64x64x16.F32.BF16 "HGMMA[.]64x16x16[.]F32[.]BF16@decode_kernelILi16E"
                        "HGMMA[.]64x32x16[.]F32[.]BF16@decode_kernelILi32ELi1ELi128E"
                        "HGMMA[.]64x32x16[.]F32[.]BF16@decode_kernelILi32ELi1ELi64E"
                        "HGMMA[.]64x144x16[.]F32[.]BF16@decode_kernelILi144E"
                        "HGMMA[.]64x192x16[.]F32[.]BF16@decode_kernelILi192E"
                        "ATOMG[.]E[.]ADD[.]STRONG[.]GPU@decode_kernel"
                        "HGMMA[.]64x48x16[.]F32[.]BF16@decode_kernelILi48ELi2E"
                        "HGMMA[.]64x64x16[.]F32[.]BF16@decode_kernelILi64ELi2E"
                        "HGMMA[.]64x80x16[.]F32[.]BF16@decode_kernelILi80ELi2E"
                        "HGMMA[.]64x96x16[.]F32[.]BF16@decode_kernelILi96ELi2E"
                        "HGMMA[.]64x112x16[.]F32[.]BF16@decode_kernelILi112ELi2E"
                        "HGMMA[.]64x128x16[.]F32[.]BF16@decode_kernelILi128ELi2E"
                        "UTMALDG[.]2D[.]MULTICAST@decode_kernelILi64ELi2E" "UCGABAR_ARV@decode_kernelILi64ELi2E"
                        "HGMMA[.]64x64x16[.]F32[.]BF16@decode_kernelILi64ELi2ELi128ELb1E"
                        "HGMMA[.]64x128x16[.]F32[.]BF16@pingpong_kernelILi128E"
                        "HGMMA[.]64x144x16[.]F32[.]BF16@pingpong_kernelILi144E" "STSM[.]16[.]M88[.]4@pingpong_kernel"
                        "UTMASTG[.]2D@pingpong_kernel" "USETMAXREG[.]DEALLOC@pingpong_kernel"
                        "UTMALDG[.]2D[.]MULTICAST@pingpong_kernelILi128ELi2E" "UCGABAR_ARV@pingpong_kernelILi128ELi2E")
set(GEMM_SASS_FORBIDDEN_sm_90a_v8 ${GEMM_SASS_FORBIDDEN_sm_90a_v6}
                                  "[ \t]UTMALDG[.]2D[.]MULTICAST@pingpong_kernelILi1[24][48]ELi1E"
                                  "[ \t]UCGABAR_ARV@pingpong_kernelILi1[24][48]ELi1E"
                                  "[ \t]UTMALDG[.]2D[.]MULTICAST@decode_kernelILi16ELi1E")
# v7 sm_100a: v6's forms and budget, plus Cluster Launch Control's multicast request
# (clusterlaunchcontrol.try_cancel ... .multicast::cluster::all -> UGETNEXTWORKID.BROADCAST, v7clc) and the
# stream-K fixup's flag (st.release.gpu -> MEMBAR.ALL.GPU + STG.E.STRONG.GPU, ld.acquire.gpu ->
# LDG.E.STRONG.GPU; v7a-v7d), read with cuobjdump 13.0 from v7's own code. Every kernel is the pair's: v5's
# 1-CTA forms are forbidden.
set(GEMM_SASS_sm_100a_v7 ${GEMM_SASS_sm_100a_v6} UGETNEXTWORKID.BROADCAST MEMBAR.ALL.GPU STG.E.STRONG.GPU
                         LDG.E.STRONG.GPU)
set(GEMM_SASS_FORBIDDEN_sm_100a_v7 ${GEMM_SASS_FORBIDDEN_sm_100a_v6})
set(GEMM_SASS_FORBIDDEN_sm_103a_v7 ${GEMM_SASS_FORBIDDEN_sm_100a_v7})
set(GEMM_SASS_BUDGET_sm_100a_v7 ${GEMM_SASS_BUDGET_sm_100a_v6})
set(GEMM_SASS_BUDGET_sm_103a_v7 ${GEMM_SASS_BUDGET_sm_100a_v6})
# v8 sm_100a: v7's fixup (no CLC). The unit (matmul_v8_kernel<TRACE, UNIT_CTAS, TILE_N>): the pair's
# instantiations (UNIT_CTAS 2, the wide and the narrow) and the CTA alone's (1, v8a and v8d) share this
# object, so v5's rule "all tcgen05 instructions of a kernel share one cta_group" is checked per kernel
# (sass_check.cmake, "re@kernel_re"): the pair's kernels have the 2-CTA forms and no 1-CTA form (v5's
# forbidden list); the CTA alone's have the 1-CTA forms (cta_group::1 tcgen05.mma -> UTCHMMA, tcgen05.commit ->
# UTCBAR, tcgen05.alloc -> UTCATOMSWS.FIND_AND_SET.ALIGN, the 1-CTA 2D TMA -> UTMALDG.2D, read with cuobjdump
# 13.0 from v8's own code) and no 2-CTA form.
set(GEMM_SASS_V8_PAIR "matmul_v8_kernelILb[01]ELi2E")
set(GEMM_SASS_V8_ALONE "matmul_v8_kernelILb[01]ELi1E")
set(GEMM_SASS_sm_100a_v8 ${GEMM_SASS_sm_100a_v6} MEMBAR.ALL.GPU STG.E.STRONG.GPU LDG.E.STRONG.GPU)
foreach(op UTCHMMA[.]2CTA UTCBAR[.]2CTA[.]MULTICAST UTCATOMSWS[.]2CTA[.]FIND_AND_SET UTMALDG[.]2D[.]2CTA)
  list(APPEND GEMM_SASS_sm_100a_v8 "[ \t]${op}@${GEMM_SASS_V8_PAIR}")
endforeach()
foreach(op "UTCHMMA " "UTCBAR " UTCATOMSWS[.]FIND_AND_SET "UTMALDG[.]2D ")
  list(APPEND GEMM_SASS_sm_100a_v8 "[ \t]${op}@${GEMM_SASS_V8_ALONE}")
endforeach()
set(GEMM_SASS_FORBIDDEN_sm_100a_v8 "[ \t]UTMALDG\\.3D")
foreach(re ${GEMM_SASS_FORBIDDEN_sm_100a_v5})
  list(APPEND GEMM_SASS_FORBIDDEN_sm_100a_v8 "${re}@${GEMM_SASS_V8_PAIR}")
endforeach()
foreach(op UTCHMMA UTCBAR UTCATOMSWS UTMALDG[.]2D)
  list(APPEND GEMM_SASS_FORBIDDEN_sm_100a_v8 "[ \t]${op}[.]2CTA@${GEMM_SASS_V8_ALONE}")
endforeach()
# The decode kernel (v8s; decode.cuh): the 1-CTA forms, as the CTA alone, two 32x32b.x8 TMEM loads
# (tcgen05.ld -> LDTM.x8) and its split counter (atom.acq_rel.gpu.add -> ATOMG.E.ADD.STRONG.GPU); no 2-CTA form.
foreach(op "UTCHMMA " "UTCBAR " UTCATOMSWS[.]FIND_AND_SET "UTMALDG[.]2D " LDTM[.]x8 ATOMG[.]E[.]ADD[.]STRONG[.]GPU)
  list(APPEND GEMM_SASS_sm_100a_v8 "[ \t]${op}@decode_kernel")
endforeach()
foreach(op UTCHMMA UTCBAR UTCATOMSWS UTMALDG[.]2D)
  list(APPEND GEMM_SASS_FORBIDDEN_sm_100a_v8 "[ \t]${op}[.]2CTA@decode_kernel")
endforeach()
# The token pair (v8q .. v8r: decode_kernel<48 .. 128, 2>): its box of B multicast to both CTAs (the
# .multicast::cluster TMA -> UTMALDG.2D.MULTICAST), its MMAs' commit to both CTAs' empty barriers
# (tcgen05.commit.cta_group::1 .multicast::cluster -> UTCBAR.MULTICAST, no 2CTA) and the cluster barriers
# (UCGABAR_ARV); a CTA alone (decode_kernel<16, 1>) has neither multicast.
list(APPEND GEMM_SASS_sm_100a_v8 "UTMALDG[.]2D[.]MULTICAST@decode_kernelILi64ELi2E"
     "UTCBAR[.]MULTICAST@decode_kernelILi64ELi2E" "UCGABAR_ARV@decode_kernelILi64ELi2E")
list(APPEND GEMM_SASS_FORBIDDEN_sm_100a_v8 "[ \t]UTMALDG[.]2D[.]MULTICAST@decode_kernelILi16ELi1E"
     "[ \t]UTCBAR[.]MULTICAST@decode_kernelILi16ELi1E")
set(GEMM_SASS_FORBIDDEN_sm_103a_v8 ${GEMM_SASS_FORBIDDEN_sm_100a_v8})
set(GEMM_SASS_BUDGET_sm_100a_v8 ${GEMM_SASS_BUDGET_sm_100a_v6})
set(GEMM_SASS_BUDGET_sm_103a_v8 ${GEMM_SASS_BUDGET_sm_100a_v6})
foreach(stage ${GEMM_STAGES})
  add_sass_test(${stage} sm_100a UTCHMMA LDTM UTMALDG UTCBAR UTCATOMSWS ${GEMM_SASS_sm_100a_${stage}})
  add_sass_test(${stage} sm_103a UTCHMMA LDTM UTMALDG UTCBAR UTCATOMSWS ${GEMM_SASS_sm_100a_${stage}})
  add_sass_test(${stage} sm_90a HGMMA UTMALDG ${GEMM_SASS_sm_90a_${stage}})
endforeach()

# The MXFP8 GEMM's Hopper kernel (mxfp8/matmul_mxfp8_sm90.cu; the sm_100a one is below), read with cuobjdump 13.0:
#   wgmma.mma_async.m64n{128,64}k32.f32.e4m3.e4m3 -> QGMMA.64x{128,64}x32.F32.E4M3.E4M3 (variants mx, mx4: one
#   template, two instances, each checked for local memory and stack; not the untimed TRACE=true instances,
#   which use a stack: ptxas stack frames of 136 bytes (mx4) and 232 (mx) with nvcc 13.0, LOCAL_RE); cp.async.bulk (the scale tiles)
#   -> UBLKCP.S.G; the B half (a 2D map, as v6) -> UTMALDG.2D.MULTICAST. No local memory, no stack
#   (sass_check.cmake).
if(GEMM_CUOBJDUMP)
  add_test(NAME sass/mxfp8/sm_90a
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=$<TARGET_FILE:matmul_mxfp8> -DARCH=sm_90a
                   "-DREQUIRED=QGMMA.64x128x32.F32.E4M3.E4M3;QGMMA.64x64x32.F32.E4M3.E4M3;UBLKCP.S.G;UTMALDG.2D.MULTICAST;USETMAXREG.DEALLOC"
                   -DKERNEL_RE=matmul_mxfp8_sm90_kernelILb0E
                   -DLOCAL_RE=matmul_mxfp8_sm90_kernelILb0E -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
else()
  add_test(NAME sass/mxfp8/sm_90a COMMAND ${CMAKE_COMMAND} -E echo
           "cuobjdump not found: pip install nvidia-cuda-cuobjdump (tests/run.sh does this)")
  set_tests_properties(sass/mxfp8/sm_90a PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
endif()
# The blockwise FP8 kernel in the same binary (mxfp8/matmul_bw_sm90.cu): the same fp8 wgmma, B's scale group by
# cp.async.bulk (UBLKCP.S.G), A and its row scales by 2D TMA, the B half multicast, v6's epilogue (stmatrix ->
# STSM.16.M88.4, the TMA store -> UTMASTG.2D). No local memory, no stack in the timed instances (the traced one,
# with its profiler beside the accumulator and two partials, spills a few bytes, as mx's), its clusters along M
# (ILb0ELb0ELi2E) and along N (ILb0ELb1E, M <= 128: pairs, Li2E, A's half multicast; quads, Li4E, a quarter),
# each checked for its own.
if(GEMM_CUOBJDUMP)
  set(GEMM_SASS_bw "QGMMA.64x128x32.F32.E4M3.E4M3" "UBLKCP.S.G" "UTMASTG.2D" "STSM.16.M88.4" "USETMAXREG.DEALLOC")
  foreach(op IN ITEMS "QGMMA[.]64x128x32[.]F32[.]E4M3[.]E4M3" "UTMALDG[.]2D[.]MULTICAST" "UTMASTG[.]2D")
    list(APPEND GEMM_SASS_bw "${op}@matmul_bw_sm90_kernelILb0ELb0ELi2E" "${op}@matmul_bw_sm90_kernelILb0ELb1ELi2E"
                             "${op}@matmul_bw_sm90_kernelILb0ELb1ELi4E")
  endforeach()
  add_test(NAME sass/bw/sm_90a
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=$<TARGET_FILE:matmul_mxfp8> -DARCH=sm_90a
                   "-DREQUIRED=${GEMM_SASS_bw}"
                   -DKERNEL_RE=matmul_bw_sm90_kernelILb0E
                   -DLOCAL_RE=matmul_bw_sm90_kernelILb0E -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
  # bw's decode kernel (mxfp8/bw_decode_sm90.cuh), each width its own: wgmma.m64n{16, 32, 64}k32 .e4m3 ->
  # QGMMA.64x{16, 32, 64}x32.F32.E4M3.E4M3 (the 64-wide also built for two CTAs to an SM), the scales by
  # cp.async.bulk, the split counter (atom.acq_rel.gpu.add -> ATOMG.E.ADD.STRONG.GPU); a CTA alone: no
  # multicast load. No local memory, no stack.
  set(GEMM_SASS_bw_decode "QGMMA[.]64x16x32[.]F32[.]E4M3[.]E4M3@bw_decode_kernelILi16ELi1E"
                          "QGMMA[.]64x32x32[.]F32[.]E4M3[.]E4M3@bw_decode_kernelILi32ELi1E"
                          "QGMMA[.]64x64x32[.]F32[.]E4M3[.]E4M3@bw_decode_kernelILi64ELi1E"
                          "QGMMA[.]64x64x32[.]F32[.]E4M3[.]E4M3@bw_decode_kernelILi64ELi2E"
                          "UBLKCP[.]S[.]G@bw_decode_kernel" "ATOMG[.]E[.]ADD[.]STRONG[.]GPU@bw_decode_kernel")
  add_test(NAME sass/bw_decode/sm_90a
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=$<TARGET_FILE:matmul_mxfp8> -DARCH=sm_90a
                   "-DREQUIRED=${GEMM_SASS_bw_decode}"
                   "-DFORBIDDEN=[ \t]UTMALDG[.]2D[.]MULTICAST@bw_decode_kernel" -DKERNEL_RE=bw_decode_kernel
                   -DLOCAL_RE=bw_decode_kernel -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
endif()

# The K loops' bookkeeping on the uniform datapath (tools/sass_loops.py: the innermost loop around a wgmma;
# the "instructions per K tile" of docs/performance/small-shapes.md and mxfp8-bw-k-loop.md). ptxas keeps the
# stage, the barrier addresses and the descriptors in uniform registers only while it can prove them
# warp-uniform and the warp converged; a small change elsewhere in a kernel can send them back to per-thread
# registers, moved by R2UR before every wgmma (the loops were 70, 75, 66, 70 and 310 instructions then, with
# 8-32 R2UR; the decode kernel's 133 and 93, with 10-18). Bounds: today's count + 3 (bw: + 6, two K tiles per
# body), at most 2 R2UR (4 for bw, 6 for the turned tiles and 3 for the token pair: today's, in loops bound by
# their loads).
find_package(Python3 COMPONENTS Interpreter)
if(GEMM_CUOBJDUMP AND Python3_FOUND)
  add_test(NAME sass/kloop/v7/sm_90a
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/sass_loops.py $<TARGET_OBJECTS:v7_sm90>
                   --cuobjdump ${GEMM_CUOBJDUMP}
                   --check matmul_v7_kernelILb0ELb0E 66 2    # the pair: 63
                   --check matmul_v7_kernelILb0ELb1E 66 2)   # v7e: 63
  add_test(NAME sass/kloop/v8/sm_90a
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/sass_loops.py $<TARGET_OBJECTS:v8_sm90>
                   --cuobjdump ${GEMM_CUOBJDUMP}
                   --check matmul_v8_kernelILb0ELi2ELi256E 66 2    # the wide pair: 63
                   --check matmul_v8_kernelILb0ELi1ELi256E 60 2    # the CTA alone: 57
                   --check matmul_v8_kernelILb0ELi2ELi64E 63 2     # the narrow pair: 60
                   --check matmul_v8_kernelILb0ELi2ELi128E 65 3    # v8m, the medium tile: 62
                   --check pingpong_kernelILi128ELi1E 82 2         # v8p, two warpgroups' tiles: 79
                   --check pingpong_kernelILi128ELi2E 86 2         # v8c, in CTA pairs: 83
                   --check pingpong_kernelILi144ELi1E 77 2         # v8w: 74
                   --check decode_kernelILi16ELi1ELi128E 76 2      # v8s, the decode kernel: 73
                   --check decode_kernelILi16ELi1ELi64E 68 2       # v8h, over 64-row tiles: 65
                   --check decode_kernelILi32ELi1ELi128E 76 2      # v8t: 73
                   --check decode_kernelILi32ELi1ELi64E 68 2       # v8g, the small tile: 65
                   --check decode_kernelILi144E 73 6               # v8u, the tile turned around: 70
                   --check decode_kernelILi192E 73 6               # v8v: 70
                   --check decode_kernelILi48ELi2E 70 3            # v8q, the token pair: 67
                   --check decode_kernelILi64ELi2ELi128ELb0E 70 3  # v8x: 67
                   --check decode_kernelILi64ELi2ELi128ELb1E 70 3  # v8k, in row groups: 67
                   --check decode_kernelILi80ELi2E 70 3            # v8y: 67
                   --check decode_kernelILi96ELi2E 70 3            # v8z: 67
                   --check decode_kernelILi128ELi2E 78 3)          # v8r: 75
  add_test(NAME sass/kloop/bw/sm_90a
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/sass_loops.py $<TARGET_OBJECTS:bw_sm90>
                   --cuobjdump ${GEMM_CUOBJDUMP} --check matmul_bw_sm90_kernelILb0ELb0ELi2E 252 4  # two K tiles: 246
                   --check matmul_bw_sm90_kernelILb0ELb1ELi2E 252 4   # along N: 246
                   --check matmul_bw_sm90_kernelILb0ELb1ELi4E 264 4)  # along N in quads (3 remote releases): 258
else()
  add_test(NAME sass/kloop COMMAND ${CMAKE_COMMAND} -E echo
           "cuobjdump or python3 not found: pip install nvidia-cuda-cuobjdump (tests/run.sh does this)")
  set_tests_properties(sass/kloop PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
endif()

# ---- Targets CMake 3.25 cannot spell in CUDA_ARCHITECTURES: v1 compiled by nvcc directly into a cubin ----
#  - sm_100f, the family target (B200 and B300 with one cubin): tcgen05 must be there. It defines only
#    __CUDA_ARCH_FAMILY_SPECIFIC__, not the FEAT macros; a guard on those alone made this an empty kernel.
#  - sm_100 (no a/f suffix) and sm_90 (no a): no tcgen05 / wgmma there, so the kernels must trap, never return
#    with the output unwritten.
# add_cubin_sass_test(<test name> <source> <gencode arch> <gencode code> <required SASS mnemonics...>);
# GEMM_CUBIN_KERNEL_RE_<name with / as _>: the kernels checked, where they are not a stage's.
file(GLOB GEMM_COMMON_HEADERS ${PROJECT_SOURCE_DIR}/common/*.h ${PROJECT_SOURCE_DIR}/common/*.cuh)
function(add_cubin_sass_test name src arch code)
  string(REPLACE "/" "_" stem ${name})
  set(cubin ${CMAKE_CURRENT_BINARY_DIR}/${stem}.cubin)
  add_custom_command(
    OUTPUT ${cubin}
    COMMAND ${CMAKE_CUDA_COMPILER} -std=c++17 -I${PROJECT_SOURCE_DIR} -gencode arch=${arch},code=${code}
            -diag-suppress 177 -cubin -o ${cubin} ${PROJECT_SOURCE_DIR}/${src}
    DEPENDS ${PROJECT_SOURCE_DIR}/${src} ${GEMM_COMMON_HEADERS}
    COMMENT "nvcc -gencode arch=${arch},code=${code} ${src}"
    VERBATIM)
  add_custom_target(${stem}_cubin ALL DEPENDS ${cubin})
  if(NOT GEMM_CUOBJDUMP)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
             "cuobjdump not found: pip install nvidia-cuda-cuobjdump (tests/run.sh does this)")
    set_tests_properties(${name} PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
    return()
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=${cubin} -DARCH=${code}
                   "-DREQUIRED=${ARGN}" "-DKERNEL_RE=${GEMM_CUBIN_KERNEL_RE_${stem}}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
endfunction()

add_cubin_sass_test(sass/v1/sm_100f v1_basic/matmul_v1.cu compute_100f sm_100f
                    UTCHMMA LDTM UTMALDG UTCBAR UTCATOMSWS)
add_cubin_sass_test(sass/v1/sm_100-traps v1_basic/matmul_v1.cu compute_100 sm_100 BPT.TRAP)
add_cubin_sass_test(sass/v1/sm_90-traps v1_basic/matmul_v1_sm90.cu compute_90 sm_90 BPT.TRAP)
# Cluster Launch Control (common/clc.cuh, through its test kernel): try_cancel is UGETNEXTWORKID.SELFCAST,
# the multicast form UGETNEXTWORKID.BROADCAST. The kernels checked are the test's (GEMM_CUBIN_KERNEL_RE_<name>).
set(GEMM_CUBIN_KERNEL_RE_sass_clc_sm_100a "clc_kernel")
set(GEMM_CUBIN_KERNEL_RE_sass_clc_sm_100f "clc_kernel")
add_cubin_sass_test(sass/clc/sm_100a tests/test_clc_emu_gpu.cu compute_100a sm_100a
                    UGETNEXTWORKID.SELFCAST UGETNEXTWORKID.BROADCAST)
add_cubin_sass_test(sass/clc/sm_100f tests/test_clc_emu_gpu.cu compute_100f sm_100f
                    UGETNEXTWORKID.SELFCAST UGETNEXTWORKID.BROADCAST)

# add_sass_trace_test(<name> <binary target> <kernel name> <archs...>): the profiler is compiled into the
# TRACE=true instantiation of <kernel name> only (tests/sass_trace_check.cmake).
function(add_sass_trace_test name target kernel)
  foreach(arch ${ARGN})
    set(test sass/trace/${name}/${arch})
    if(NOT GEMM_CUOBJDUMP)
      add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E echo "cuobjdump not found")
      set_tests_properties(${test} PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
    else()
      # A stage's own object for the architecture (not the emulated Blackwell code, see add_sass_test).
      set(binary $<TARGET_FILE:${target}>)
      if(arch STREQUAL "sm_90a" AND TARGET ${name}_sm90)
        set(binary $<TARGET_OBJECTS:${name}_sm90>)
      elseif(NOT arch STREQUAL "sm_90a" AND TARGET ${name}_sm100)
        set(binary $<TARGET_OBJECTS:${name}_sm100>)
      endif()
      add_test(NAME ${test}
               COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=${binary}
                       -DARCH=${arch} -DKERNEL=${kernel} -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_trace_check.cmake)
    endif()
  endforeach()
endfunction()
add_sass_trace_test(profiler_toy test_profiler_gpu toy_kernel sm_90a sm_100a)
# Every stage from v3 on has a traced kernel: matmul_<stage>_kernel<bool TRACE, ...> (TRACE first).
# Not in a -DGEMM_DEBUG_HANG=ON build, whose bounded mbarrier waits read %globaltimer in every kernel.
foreach(stage ${GEMM_STAGES})
  if(NOT stage MATCHES "^v[12]$" AND NOT GEMM_DEBUG_HANG)
    add_sass_trace_test(${stage} matmul_${stage} matmul_${stage}_kernel sm_90a sm_100a sm_103a)
  endif()
endforeach()
# The Hopper MXFP8 kernel too: matmul_mxfp8_sm90_kernel<bool TRACE, int WG_N>, both variants (mx, mx4).
if(NOT GEMM_DEBUG_HANG)
  add_sass_trace_test(mxfp8 matmul_mxfp8 matmul_mxfp8_sm90_kernel sm_90a)
  add_sass_trace_test(bw matmul_mxfp8 matmul_bw_sm90_kernel sm_90a)
endif()

# ---- mxfp8 on Blackwell (mxfp8/matmul_mxfp8.cu, object library mxfp8_sm100 until the matmul_mxfp8 binary
#      dispatches to it). Read with cuobjdump 13.0 from its own code (nvcc 13.0, sm_100a; sm_103a the same):
#   tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32     -> UTCQMMA.2CTA
#   tcgen05.cp.cta_group::2.32x128b.warpx4                           -> UTCCP.T.S.2CTA.4x32dp128bit
#   cp.async.bulk.tensor.4d ... .cta_group::2 (SFA)                  -> UTMALDG.4D.2CTA
#   cp.async.bulk.tensor.4d ... .multicast::cluster.cta_group::2 (SFB) -> UTMALDG.4D.MULTICAST.2CTA
#   tcgen05.ld.32x32b.x32                                            -> LDTM.x32
#   st.global.L1::no_allocate.v8.f32                                 -> STG.E.NA.ENL2.256
# Forbidden: v5's 1-CTA forms, any kind::f16 MMA (UTCHMMA), any 3D TMA; no LDL/STL (sass_check.cmake): the
# seed lost 17% to runtime-indexed barrier/phase arrays in local memory. Budget: 224 registers (ptxas 13.0:
# 199-201; the epilogue holds region Y's 128 columns in registers between its release and its stores; 192
# threads x 255 registers still fit one CTA per SM), 2 KB static shared memory (barriers and TMEM slot;
# cuobjdump adds the driver's 1 KB: 1168). Order: the 2-CTA allocation after a cluster barrier's wait (v5).
set(GEMM_SASS_sm_100a_mxfp8 UTCQMMA.2CTA UTCCP.T.S.2CTA.4x32dp128bit UTMALDG.4D.2CTA UTMALDG.4D.MULTICAST.2CTA
                            UTMALDG.2D.2CTA UTCBAR.2CTA.MULTICAST UTCATOMSWS.2CTA.FIND_AND_SET.ALIGN LDTM.x32
                            STG.E.NA.ENL2.256 UCGABAR_ARV UCGABAR_WAIT)
set(GEMM_SASS_FORBIDDEN_mxfp8 ${GEMM_SASS_FORBIDDEN_sm_100a_v5} "[ \t]UTCHMMA" "[ \t]UTMALDG\\.3D")
foreach(arch sm_100a sm_103a)
  set(name sass/mxfp8/${arch})
  if(NOT GEMM_CUOBJDUMP)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "cuobjdump not found")
    set_tests_properties(${name} PROPERTIES WILL_FAIL ON PASS_REGULAR_EXPRESSION "^$")
  else()
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} "-DBINARY=$<FILTER:$<TARGET_OBJECTS:mxfp8_sm100>,INCLUDE,matmul_mxfp8[.]cu>"
                     -DARCH=${arch} -DKERNEL_RE=matmul_mxfp8_kernel "-DREQUIRED=${GEMM_SASS_sm_100a_mxfp8}"
                     "-DFORBIDDEN=${GEMM_SASS_FORBIDDEN_mxfp8}" "-DBUDGET=224;2048"
                     "-DORDER=${GEMM_SASS_ORDER_sm_100a_v5}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
  endif()
endforeach()
# The local-memory rule can fail: the seed's runtime-indexed parity array, compiled for sm_100a, must be refused.
set(probe_cubin ${CMAKE_CURRENT_BINARY_DIR}/sass_probe_local_phases.cubin)
add_custom_command(
  OUTPUT ${probe_cubin}
  COMMAND ${CMAKE_CUDA_COMPILER} -std=c++17 -gencode arch=compute_100a,code=sm_100a -cubin -o ${probe_cubin}
          ${CMAKE_CURRENT_SOURCE_DIR}/sass_probe_local_phases.cu
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/sass_probe_local_phases.cu
  COMMENT "nvcc sass_probe_local_phases.cu (sm_100a)"
  VERBATIM)
add_custom_target(sass_probe_local_phases_cubin ALL DEPENDS ${probe_cubin})
if(GEMM_CUOBJDUMP)
  add_test(NAME sass/mxfp8/local_phases_probe_fails
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${GEMM_CUOBJDUMP} -DBINARY=${probe_cubin} -DARCH=sm_100a
                   -DKERNEL_RE=local_phases_probe_kernel "-DREQUIRED=" -P ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.cmake)
  # passes only if the check refuses it for its local memory (CTest then ignores the exit code). CMake wraps
  # the message at a width that depends on the build path, so any run of spaces and newlines may separate
  # its words.
  set_tests_properties(sass/mxfp8/local_phases_probe_fails PROPERTIES PASS_REGULAR_EXPRESSION
                       "touches[ \n]+local[ \n]+memory:[ \n]+(LDL|STL)")
endif()
