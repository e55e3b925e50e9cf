# cmake -DQEMU=qemu-x86_64 -DPHASOR=build/bin/phasor -DWORK_DIR=dir -P qemu_check.cmake
#
# Encodes a short line of the toy model natively and under qemu-user as two CPUs
# without AVX-512:
#   -cpu Haswell  (AVX2 + FMA)  must choose avx2 and give the bits of the native
#                               run forced to avx2;
#   -cpu qemu64   (baseline)    must choose portable and give the bits of the
#                               native run forced to portable.
# The targets agree within 1e-5 with one another (IsaCliTest.EveryTargetEncodesAlike).
# On a Haswell CPU, --isa avx512 is a usage error (exit 2).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(tokens "3 14 15 92 65 35 89 79")

function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_var}_rc ${rc} PARENT_SCOPE)
  set(${out_var}_out "${out}" PARENT_SCOPE)
  set(${out_var}_err "${err}" PARENT_SCOPE)
endfunction()

foreach(pair "Haswell;avx2" "qemu64;portable")
  list(GET pair 0 cpu)
  list(GET pair 1 isa)
  run(native ${PHASOR} --isa ${isa} encode --tokens ${tokens} --output ${WORK_DIR}/native_${isa}.npy)
  if(NOT native_rc EQUAL 0)
    message(FATAL_ERROR "native --isa ${isa}: exit ${native_rc}\n${native_err}")
  endif()
  run(version ${QEMU} -cpu ${cpu} ${PHASOR} --version)
  if(NOT version_rc EQUAL 0 OR NOT version_out MATCHES "\nisa: ${isa}\n")
    message(FATAL_ERROR "qemu -cpu ${cpu} --version: exit ${version_rc}, want isa: ${isa}\n"
                        "${version_out}${version_err}")
  endif()
  run(qemu ${QEMU} -cpu ${cpu} ${PHASOR} encode --tokens ${tokens} --output ${WORK_DIR}/${cpu}.npy)
  if(NOT qemu_rc EQUAL 0)
    message(FATAL_ERROR "qemu -cpu ${cpu} encode: exit ${qemu_rc}\n${qemu_err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/native_${isa}.npy
                          ${WORK_DIR}/${cpu}.npy RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "qemu -cpu ${cpu}: output differs from the native ${isa} run")
  endif()
  message(STATUS "qemu -cpu ${cpu}: isa ${isa}, output identical to the native ${isa} run")
endforeach()

run(missing ${QEMU} -cpu Haswell ${PHASOR} --isa avx512 --version)
if(NOT missing_rc EQUAL 2 OR NOT missing_err MATCHES "phasor: error: --isa avx512: this CPU lacks it")
  message(FATAL_ERROR "qemu -cpu Haswell --isa avx512: exit ${missing_rc}, want 2\n${missing_err}")
endif()
message(STATUS "qemu -cpu Haswell --isa avx512: ${missing_err}")
