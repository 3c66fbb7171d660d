# Run at build time (cmake -P) once `doppler` is built: one manual page per command, doppler(1)
# and doppler-<command>(1), made from the program's own --help so that they never disagree with
# it; a command's subcommands are on its page. gzip -9n, as Debian's policy asks.
# Inputs: DOPPLER (the executable), OUT_DIR, VERSION; STUDIO (ON with the studio) and STUDIO_PAGE,
# the studio's page, written by hand, compressed beside them.
cmake_minimum_required(VERSION 3.25)  # the policies of today, in script mode too
file(REMOVE_RECURSE ${OUT_DIR})
file(MAKE_DIRECTORY ${OUT_DIR})

function(help_of out)  # help_of(<var> args...): the help text of `doppler args... --help`
  execute_process(COMMAND ${DOPPLER} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc
                  ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "doppler ${ARGN} --help failed (${rc})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(subcommands_of out text)  # the names listed under "Subcommands:" in a help text
  set(names "")
  string(REPLACE "\n" ";" lines "${text}")
  set(inside OFF)
  foreach(line IN LISTS lines)
    if(line MATCHES "^(SUBCOMMANDS|Subcommands):")
      set(inside ON)
    elseif(inside AND line MATCHES "^  ([a-z][a-z0-9-]*)")
      list(APPEND names ${CMAKE_MATCH_1})
    elseif(inside AND NOT line MATCHES "^ ")
      set(inside OFF)
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(roff out text)  # help text as a roff block, its backslashes and leading dots escaped
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(write_page name summary body see_also)
  string(TOUPPER "${name}" upper)
  set(page ".TH ${upper} 1 \"\" \"doppler ${VERSION}\" \"Doppler Studio\"\n")
  string(APPEND page ".SH NAME\n${name} \\- ${summary}\n.SH DESCRIPTION\n.nf\n${body}\n.fi\n")
  if(NOT see_also STREQUAL "")
    string(APPEND page ".SH SEE ALSO\n${see_also}\n")
  endif()
  file(WRITE ${OUT_DIR}/${name}.1 "${page}")
  execute_process(COMMAND gzip -9nf ${OUT_DIR}/${name}.1 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip failed on ${name}.1")
  endif()
endfunction()

help_of(top)
subcommands_of(commands "${top}")
set(see "")
foreach(command IN LISTS commands)
  help_of(text ${command})
  subcommands_of(subs "${text}")
  foreach(sub IN LISTS subs)
    help_of(subtext ${command} ${sub})
    string(APPEND text "\n${command} ${sub}\n\n${subtext}")
  endforeach()
  string(REGEX MATCH "^[^\n]*" summary "${text}")  # CLI11 prints the description first
  roff(body "${text}")
  write_page(doppler-${command} "${summary}" "${body}" "\\fBdoppler\\fR(1)")
  if(see STREQUAL "")
    set(see "\\fBdoppler-${command}\\fR(1)")
  else()
    string(APPEND see ",\n\\fBdoppler-${command}\\fR(1)")
  endif()
endforeach()
roff(body "${top}")
write_page(doppler "place dataflow graphs on GPUs and schedule LLM inference across regions"
           "${body}" "${see},\n\\fBdoppler-studio\\fR(1)")

if(STUDIO)
  file(READ ${STUDIO_PAGE} page)
  string(REPLACE "@VERSION@" "${VERSION}" page "${page}")
  file(WRITE ${OUT_DIR}/doppler-studio.1 "${page}")
  execute_process(COMMAND gzip -9nf ${OUT_DIR}/doppler-studio.1)
endif()
