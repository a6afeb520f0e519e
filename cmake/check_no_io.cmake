# Run as: cmake -DBINARIES="a;b" -P check_no_io.cmake
# Fails when any of the given executables is dynamically linked against an I/O library. Used by the
# ctest `domain_links_no_io` on the domain's own test binaries (docs/design.md, Layers).
set(forbidden rdkafka pqxx libpq curl pistache libssl libcrypto secp256k1)
foreach(bin ${BINARIES})
  execute_process(COMMAND ldd ${bin} OUTPUT_VARIABLE deps RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd failed on ${bin}")
  endif()
  foreach(lib ${forbidden})
    if(deps MATCHES "${lib}")
      message(FATAL_ERROR "${bin} links ${lib}: the domain must not depend on an I/O library")
    endif()
  endforeach()
  message(STATUS "ok: ${bin}")
endforeach()
