# snapflow_embed_files(OUTPUT out.inc FILES a.json b.json)
# Generates a C++ fragment listing {"name", R"(...contents...)"} for each file, so the
# built-in models and chips travel inside the binaries and `snapflow` works from any
# directory. The name is the file's base name without extension.
function(snapflow_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} "-DFILES=${ARG_FILES}"
            -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    DEPENDS ${ARG_FILES} ${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    COMMENT "Embedding ${ARG_OUTPUT}"
    VERBATIM)
endfunction()
