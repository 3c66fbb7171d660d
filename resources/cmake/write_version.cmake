# Run at build time (cmake -P), so the commit is the one built, not the one configured: writes
# OUT, the definitions of resources/version.h, and touches it only when its text changes (then
# only that one file recompiles). Inputs: SRC (the source tree), OUT, VERSION (the project's).
cmake_minimum_required(VERSION 3.25)  # the policies of today, in script mode too
set(commit "unknown")  # a source tree that is not a git checkout (a tarball)
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SRC} describe --always --dirty --abbrev=12 --exclude=*
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND NOT described STREQUAL "")
    set(commit "${described}")
  endif()
endif()
set(text "// Written by resources/cmake/write_version.cmake at build time.\n")
string(APPEND text "#include \"resources/version.h\"\n\n")
string(APPEND text "namespace doppler::resources {\n\n")
string(APPEND text "const char* projectVersion() {\n  return \"${VERSION}\";\n}\n\n")
string(APPEND text "const char* buildCommit() {\n  return \"${commit}\";\n}\n\n")
string(APPEND text "}  // namespace doppler::resources\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
