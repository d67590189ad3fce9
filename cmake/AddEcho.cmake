# Helpers shared by Echo's CMake files.

# add_echo_library(name sources... [DEPENDS targets...] [LINK_LIBS libs...])
#
# A static library of Echo, linked against the shared libMLIR.so, exported in
# the `EchoTargets` install set (find_package(Echo) gives Echo::<name>).
function(add_echo_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL
    EXCLUDE_FROM_LIBMLIR
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC ${ARG_LINK_LIBS} ${ECHO_MLIR_LIBS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${ECHO_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${ECHO_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  install(TARGETS ${name} EXPORT EchoTargets
    ARCHIVE DESTINATION lib
    LIBRARY DESTINATION lib)
endfunction()

# echo_set_install_rpath(target)
#
# An installed tool or plugin finds Echo's libraries beside it and libMLIR.so
# / the MLIR runner utilities where LLVM installed them (add_llvm_executable
# installs with $ORIGIN/../lib alone, which misses the latter).
function(echo_set_install_rpath target)
  set_target_properties(${target} PROPERTIES
    INSTALL_RPATH "\$ORIGIN/../lib${LLVM_LIBDIR_SUFFIX};${LLVM_LIBRARY_DIR}")
endfunction()

# Libraries that `echo-run --emit-aot` links into bundles with a plain
# compiler command (no sanitizer runtime): compiled without the sanitizers
# and coverage of a sanitizer build (utils/run-sanitizers.sh).
function(echo_bundle_library target)
  if(LLVM_USE_SANITIZER OR LLVM_USE_SANITIZE_COVERAGE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
    target_link_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()

# The tools' allocator (ECHO_MALLOC, top-level CMakeLists.txt): a compile
# creates and frees millions of small objects (ops, attributes, analyses)
# from several threads, which glibc's malloc serves slower than jemalloc.
# Linked into the executables only: a library (the Python extension, the
# plugin) keeps its host's allocator.
function(echo_link_malloc target)
  if(ECHO_JEMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE ${ECHO_JEMALLOC_LIBRARY})
  endif()
endfunction()
