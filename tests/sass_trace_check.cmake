# cmake -DCUOBJDUMP=... -DBINARY=... -DARCH=sm_90a -DKERNEL=matmul_v4_kernel -P sass_trace_check.cmake
# The in-kernel profiler costs nothing when off (common/profiler.cuh): a kernel `template <bool TRACE, ...>`
# is instantiated twice, and only the traced one may read the clock. Fails unless the binary's ${ARCH} SASS
# holds at least one ${KERNEL}<false, ...> and one ${KERNEL}<true, ...> (mangled "${KERNEL}ILb0E" / "ILb1E":
# TRACE must be the first template parameter), no TRACE=false instantiation reads %globaltimer
# (SR_GLOBALTIMERLO/HI, read by CS2R or S2UR) or %smid (SR_VIRTUALSMID), and every TRACE=true one does.
get_filename_component(tool_dir ${CUOBJDUMP} DIRECTORY)
set(ENV{PATH} "${tool_dir}:$ENV{PATH}")
execute_process(COMMAND ${CUOBJDUMP} -sass -arch ${ARCH} ${BINARY} OUTPUT_VARIABLE sass ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR sass STREQUAL "")
  message(FATAL_ERROR "cuobjdump -sass -arch ${ARCH} ${BINARY} failed (${rc}): ${err}")
endif()
# Split the listing into functions: each starts at a "Function : name" line.
string(REPLACE ";" "," sass "${sass}")  # keep CMake's list separator out of the SASS text
string(REGEX REPLACE "\n[ \t]*Function : " ";Function : " chunks "${sass}")
set(n_off 0)
set(n_on 0)
foreach(chunk ${chunks})
  string(REGEX MATCH "^Function : ([^\n]+)" _ "${chunk}")
  set(fn "${CMAKE_MATCH_1}")
  if(NOT fn MATCHES "${KERNEL}ILb[01]E")
    continue()
  endif()
  string(REGEX MATCHALL "SR_GLOBALTIMER|SR_VIRTUALSMID" clock_reads "${chunk}")
  list(LENGTH clock_reads n_reads)
  if(fn MATCHES "${KERNEL}ILb0E")
    math(EXPR n_off "${n_off} + 1")
    message(STATUS "TRACE=false ${fn}: ${n_reads} clock/SM-id reads")
    if(n_reads GREATER 0)
      string(REGEX MATCH "[^\n]*(SR_GLOBALTIMER|SR_VIRTUALSMID)[^\n]*" line "${chunk}")
      message(FATAL_ERROR "the untraced kernel ${fn} reads the profiler's registers: ${line}")
    endif()
  else()
    math(EXPR n_on "${n_on} + 1")
    string(REGEX MATCHALL "SR_GLOBALTIMER" timer_reads "${chunk}")
    list(LENGTH timer_reads n_timer)
    message(STATUS "TRACE=true  ${fn}: ${n_timer} %globaltimer reads, ${n_reads} clock/SM-id reads")
    if(n_timer EQUAL 0)
      message(FATAL_ERROR "the traced kernel ${fn} never reads %globaltimer: is the profiler compiled out?")
    endif()
  endif()
endforeach()
if(n_off EQUAL 0 OR n_on EQUAL 0)
  message(FATAL_ERROR "${ARCH} code of ${BINARY}: expected ${KERNEL}<false> and ${KERNEL}<true>, found "
                      "${n_off} untraced and ${n_on} traced instantiations")
endif()
