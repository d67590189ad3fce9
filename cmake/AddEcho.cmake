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
