# The package's changelog (Debian's policy asks for one, compressed): one entry for this version.
# Inputs: OUT (changelog.gz), VERSION.
cmake_minimum_required(VERSION 3.25)  # the policies of today, in script mode too
get_filename_component(dir ${OUT} DIRECTORY)
set(text "doppler-studio (${VERSION}) unstable; urgency=medium\n\n")
string(APPEND text "  * Release ${VERSION}: see the README and docs/ for what it does.\n\n")
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH when set
string(APPEND text " -- The Doppler Studio developers <doppler-studio@users.noreply.github.com>  ")
string(APPEND text "${date}\n")
file(WRITE ${dir}/changelog "${text}")
execute_process(COMMAND gzip -9nf ${dir}/changelog RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on the changelog")
endif()
