# CPack's Debian package of an installed build (included by the top CMakeLists.txt; made by
# scripts/package.sh). Its runtime dependencies are found by dpkg-shlibdeps from the libraries the
# programs and the LibTorch module link (Qt, LibTorch, OpenBLAS, Graphviz, SQLite, ONNX, ...);
# the data it reads at run time is in the package itself.
include(GNUInstallDirs)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME doppler-studio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The Doppler Studio developers")
set(CPACK_PACKAGE_CONTACT "The Doppler Studio developers <doppler-studio@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "place dataflow graphs on GPUs and schedule LLM inference")
# The long description, below the summary CPack puts first: lines under 80 characters.
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
       "Doppler Studio places dataflow graphs on GPUs with list schedulers, search\n"
       "and a learned dual policy, simulates and executes the placements, and\n"
       "schedules LLM inference across GPU regions by optimal transport and a\n"
       "learned policy. It has a command line (doppler) and a Qt workbench\n"
       "(doppler-studio) that draws graphs and timelines and keeps every run in\n"
       "SQLite.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # doppler-studio_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Beyond the libraries dpkg-shlibdeps finds (Graphviz's dot layout plugin comes with libgvc6):
# the fonts the studio draws with, and OpenBLAS, without which LibTorch multiplies on the
# reference BLAS (~20x slower), which satisfies libblas3 too.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, libopenblas0-pthread")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/doppler-studio/doppler-studio")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)

# Debian's policy: the licence as /usr/share/doc/<package>/copyright, a compressed changelog.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/doppler-studio RENAME copyright)
set(changelog ${PROJECT_BINARY_DIR}/changelog.gz)
add_custom_command(
  OUTPUT ${changelog}
  COMMAND ${CMAKE_COMMAND} -DOUT=${changelog} -DVERSION=${PROJECT_VERSION}
          -P ${PROJECT_SOURCE_DIR}/resources/cmake/write_changelog.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/resources/cmake/write_changelog.cmake
  VERBATIM)
add_custom_target(doppler_changelog ALL DEPENDS ${changelog})
install(FILES ${changelog} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/doppler-studio)
include(CPack)
