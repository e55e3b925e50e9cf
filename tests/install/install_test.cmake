# The install test (cmake -P; arguments from tests/install/CMakeLists.txt):
#  1. cmake --install the current build into WORK_DIR/prefix; check the layout, and
#     that no build flag (phasor_flags, -march=native) reached the exported package;
#  2. the installed CLI: --version, make-toy, encode "3 14 15";
#  3. configure tests/install/consumer with -DCMAKE_PREFIX_PATH=prefix
#     (find_package(phasor)), build it, run it on the toy model, and compare its
#     values with the CLI's; no -march=native in its compile commands;
#  4. the same program built with `pkg-config --cflags --libs phasor`; and the
#     public header compiled with phasor's include directories alone (no Eigen);
#  5. README.md's "Use it from C++" code block is tests/install/consumer/main.cc;
#  6. with the Python module (PYTHON set): the installed module, imported from
#     prefix/PYTHON_DIR alone, encodes as the CLI does.
cmake_minimum_required(VERSION 3.18)

set(prefix ${WORK_DIR}/prefix)
set(consumer_src ${PHASOR_SOURCE_DIR}/tests/install/consumer)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Runs a command; fails the test with its output unless it exits 0. OUT: stdout.
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${rc}): ${cmd}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The numbers of the line "<label>: v v v v ...".
function(values_of text label out_var)
  string(REGEX MATCH "${label}:(( +-?[0-9]+\\.[0-9]+)+)" m "${text}")
  if(NOT m)
    message(FATAL_ERROR "no line '${label}: ...' in:\n${text}")
  endif()
  string(STRIP "${CMAKE_MATCH_1}" v)
  string(REGEX REPLACE " +" " " v "${v}")
  set(${out_var} "${v}" PARENT_SCOPE)
endfunction()

# 1. Install.
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run(out ${CMAKE_COMMAND} --install ${PHASOR_BUILD_DIR} --prefix ${prefix} ${config_args})
foreach(f bin/phasor
          ${LIBDIR}/libphasor_engine.a ${LIBDIR}/libphasor_layers.a ${LIBDIR}/libphasor_models.a
          include/phasor/models/phasor.h include/phasor/engine/error.h
          include/phasor/engine/version.h include/phasor/layers/sinusoidal.h
          ${LIBDIR}/cmake/phasor/phasorConfig.cmake
          ${LIBDIR}/cmake/phasor/phasorConfigVersion.cmake
          ${LIBDIR}/cmake/phasor/phasorTargets.cmake ${LIBDIR}/pkgconfig/phasor.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
file(GLOB targets_files ${prefix}/${LIBDIR}/cmake/phasor/phasorTargets*.cmake)
foreach(f ${targets_files})
  file(READ ${f} text)
  foreach(leak phasor_flags -march -ffp-contract nlohmann ${PHASOR_SOURCE_DIR}
          ${PHASOR_BUILD_DIR})
    string(FIND "${text}" "${leak}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${f} mentions '${leak}': a build detail leaks into the package")
    endif()
  endforeach()
endforeach()
message(STATUS "installed into ${prefix}")

# 2. The installed CLI.
run(out ${prefix}/bin/phasor --version)
if(NOT out MATCHES "phasor ${VERSION}")
  message(FATAL_ERROR "phasor --version printed '${out}', expected 'phasor ${VERSION}'")
endif()
run(out ${prefix}/bin/phasor make-toy --out ${WORK_DIR}/toy)
run(cli_out ${prefix}/bin/phasor encode --model ${WORK_DIR}/toy --tokens "3 14 15")
values_of("${cli_out}" "seq 0, token 0" cli_first)
values_of("${cli_out}" "seq 0, token 2" cli_last)

# 3. find_package(phasor) from the prefix alone.
if(BUILD_TYPE)
  set(build_type_arg -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
run(out ${CMAKE_COMMAND} -S ${consumer_src} -B ${WORK_DIR}/consumer -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} ${build_type_arg} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
file(STRINGS ${WORK_DIR}/consumer/CMakeCache.txt found REGEX "^phasor_DIR:")
if(NOT found STREQUAL "phasor_DIR:PATH=${prefix}/${LIBDIR}/cmake/phasor")
  message(FATAL_ERROR "find_package(phasor) found '${found}', not the package in ${prefix}")
endif()
run(out ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer ${config_args})
if(EXISTS ${WORK_DIR}/consumer/compile_commands.json)
  file(READ ${WORK_DIR}/consumer/compile_commands.json text)
  if(text MATCHES "-march=|-ffp-contract")
    message(FATAL_ERROR "phasor's compile flags leak into consumers:\n${text}")
  endif()
endif()
file(GLOB_RECURSE consumer_exe ${WORK_DIR}/consumer/consumer ${WORK_DIR}/consumer/*/consumer)
if(NOT consumer_exe)
  message(FATAL_ERROR "the consumer was not built in ${WORK_DIR}/consumer")
endif()
list(GET consumer_exe 0 consumer_exe)
run(cmake_out ${consumer_exe} ${WORK_DIR}/toy)
message(STATUS "consumer (find_package) output:\n${cmake_out}")
if(NOT cmake_out MATCHES "phasor ${VERSION}: out \\[1, 3, 256\\]")
  message(FATAL_ERROR "the consumer printed '${cmake_out}', expected 'phasor ${VERSION}: out [1, 3, 256]'")
endif()
values_of("${cmake_out}" "token 0" first)
values_of("${cmake_out}" "token 2" last)
if(NOT first STREQUAL cli_first OR NOT last STREQUAL cli_last)
  message(FATAL_ERROR "the consumer and `phasor encode` disagree:\n"
                      "consumer: ${first} / ${last}\nphasor:   ${cli_first} / ${cli_last}")
endif()

# 4. pkg-config.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  run(pc_flags ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig
      ${PKG_CONFIG} --cflags --libs phasor)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  if(SANITIZE)
    list(APPEND pc_flags -fsanitize=address,undefined)
  endif()
  run(out ${CXX} -std=c++17 ${consumer_src}/main.cc -o ${WORK_DIR}/consumer_pc ${pc_flags})
  run(pc_out ${WORK_DIR}/consumer_pc ${WORK_DIR}/toy)
  if(NOT pc_out STREQUAL cmake_out)
    message(FATAL_ERROR "the pkg-config build printed:\n${pc_out}\nthe CMake build:\n${cmake_out}")
  endif()
  message(STATUS "pkg-config build: same output")
else()
  message(STATUS "pkg-config not found: the pkg-config build is not checked")
endif()

# The public API needs neither Eigen nor phasor's flags: the example compiles with
# phasor's include directories alone (Eigen's are not on the default path).
run(out ${CXX} -std=c++17 -fsyntax-only -I${prefix}/include/phasor -I${prefix}/include
    ${consumer_src}/main.cc)

# 5. README.md shows this very program.
file(READ ${PHASOR_SOURCE_DIR}/README.md readme)
file(READ ${consumer_src}/main.cc example)
string(FIND "${readme}" "\n## Use it from C++" at)
if(at EQUAL -1)
  message(STATUS "README.md has no '## Use it from C++' section: its example is not checked")
else()
  string(SUBSTRING "${readme}" ${at} -1 section)
  string(FIND "${section}" "\n```cpp\n" open)
  if(open EQUAL -1)
    message(FATAL_ERROR "README.md 'Use it from C++' has no ```cpp code block")
  endif()
  math(EXPR open "${open} + 8")
  string(SUBSTRING "${section}" ${open} -1 section)
  string(FIND "${section}" "\n```" close)
  math(EXPR close "${close} + 1")
  string(SUBSTRING "${section}" 0 ${close} block)
  if(NOT block STREQUAL example)
    file(WRITE ${WORK_DIR}/readme_example.cc "${block}")
    message(FATAL_ERROR "README.md's 'Use it from C++' example differs from "
                        "tests/install/consumer/main.cc (the README's copy is in "
                        "${WORK_DIR}/readme_example.cc)")
  endif()
  message(STATUS "README.md's example is tests/install/consumer/main.cc")
  # And the output it shows is the one it prints, token for token.
  set(run_line "$ phasor make-toy --out toy && ./app toy\n")
  string(FIND "${section}" "${run_line}" shown)
  if(shown EQUAL -1)
    message(FATAL_ERROR "README.md 'Use it from C++' does not show '${run_line}' and its output")
  endif()
  string(LENGTH "${run_line}" skip)
  math(EXPR shown "${shown} + ${skip}")
  string(SUBSTRING "${section}" ${shown} -1 shown_text)
  string(FIND "${shown_text}" "```" end)
  string(SUBSTRING "${shown_text}" 0 ${end} shown_text)
  string(REGEX REPLACE "[ \t\n]+" " " shown_tokens "${shown_text}")
  string(REGEX REPLACE "[ \t\n]+" " " printed_tokens "${cmake_out}")
  string(STRIP "${shown_tokens}" shown_tokens)
  string(STRIP "${printed_tokens}" printed_tokens)
  if(NOT shown_tokens STREQUAL printed_tokens)
    message(FATAL_ERROR "README.md 'Use it from C++' shows:\n${shown_text}\nthe example prints:\n"
                        "${cmake_out}")
  endif()
  message(STATUS "README.md shows what the example prints")
endif()
# 6. The installed Python module.
if(PYTHON)
  if(NOT EXISTS ${prefix}/${PYTHON_DIR})
    message(FATAL_ERROR "the Python module was not installed into ${prefix}/${PYTHON_DIR}")
  endif()
  # (A file, not -c: run() would split the code at its semicolons.)
  file(WRITE ${WORK_DIR}/encode.py
       "import sys\n"
       "import phasor\n"
       "x = phasor.Model(sys.argv[1]).encode([3, 14, 15])\n"
       "print(phasor.__file__)\n"
       "print('phasor', phasor.__version__)\n"
       "print('token 0:', ' '.join('%9.5f' % v for v in x[0, :4]))\n")
  run(py_out ${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_DIR} ${PYTHON}
      ${WORK_DIR}/encode.py ${WORK_DIR}/toy)
  if(NOT py_out MATCHES "^${prefix}/${PYTHON_DIR}/phasor[^\n]*[.]so\n")
    message(FATAL_ERROR "Python imported phasor from elsewhere than the prefix:\n${py_out}")
  endif()
  if(NOT py_out MATCHES "phasor ${VERSION}\n")
    message(FATAL_ERROR "the installed module's version is not ${VERSION}:\n${py_out}")
  endif()
  values_of("${py_out}" "token 0" py_first)
  if(NOT py_first STREQUAL cli_first)
    message(FATAL_ERROR "the installed Python module and `phasor encode` disagree:\n"
                        "python: ${py_first}\nphasor: ${cli_first}")
  endif()
  message(STATUS "installed Python module: same values as the CLI")
endif()
message(STATUS "install test passed")
