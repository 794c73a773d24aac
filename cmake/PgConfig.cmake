# SPDX-License-Identifier: PostgreSQL
# PgConfig.cmake - the pg_config the module is built with, in pgsc's one
# order (docs/live.md, "RHEL and PGDG"; tools/pg-layout.sh and
# src/pglayout.c are the same for the scripts and pgsc-scan):
#   1. -DPG_CONFIG=FILE, else $PG_CONFIG: taken as it is;
#   2. pg_config in PATH, when it has PGXS (on RHEL, PATH's pg_config is
#      often libpq's, without the server's build files);
#   3. /usr/lib/postgresql/NN/bin/pg_config (Debian), newest NN first;
#   4. /usr/pgsql-NN/bin/pg_config (PGDG's -devel RPM), newest NN first.
# A candidate of 2 to 4 counts when "pg_config --pgxs" names a file that
# exists.  Works in a project and under "cmake -P" (tests/layout).
#
# pgsc_find_pg_config(OUT HOW): OUT the pg_config (empty when none), HOW
# how it was found (-DPG_CONFIG, PG_CONFIG, PATH, Debian, PGDG, none).

function(pgsc_pg_config_has_pgxs pgc out)
  execute_process(COMMAND ${pgc} --pgxs RESULT_VARIABLE rc
    OUTPUT_VARIABLE pgxs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND pgxs MATCHES "^/" AND EXISTS "${pgxs}")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

function(pgsc_find_pg_config out how)
  if(PG_CONFIG)
    set(${out} "${PG_CONFIG}" PARENT_SCOPE)
    set(${how} "-DPG_CONFIG" PARENT_SCOPE)
    return()
  endif()
  if(DEFINED ENV{PG_CONFIG} AND NOT "$ENV{PG_CONFIG}" STREQUAL "")
    set(${out} "$ENV{PG_CONFIG}" PARENT_SCOPE)
    set(${how} "PG_CONFIG" PARENT_SCOPE)
    return()
  endif()
  # PATH, as a shell looks it up (find_program would cache the first hit)
  if(DEFINED ENV{PATH})
    string(REPLACE ":" ";" dirs "$ENV{PATH}")
    foreach(d IN LISTS dirs)
      if(NOT d STREQUAL "" AND EXISTS "${d}/pg_config"
         AND NOT IS_DIRECTORY "${d}/pg_config")
        pgsc_pg_config_has_pgxs("${d}/pg_config" ok)
        if(ok)
          set(${out} "${d}/pg_config" PARENT_SCOPE)
          set(${how} "PATH" PARENT_SCOPE)
          return()
        endif()
        break()
      endif()
    endforeach()
  endif()
  foreach(layout "/usr/lib/postgresql/*/bin/pg_config;Debian"
                 "/usr/pgsql-*/bin/pg_config;PGDG")
    list(GET layout 0 pattern)
    list(GET layout 1 name)
    file(GLOB cands "${pattern}")
    list(SORT cands COMPARE NATURAL ORDER DESCENDING)
    foreach(c IN LISTS cands)
      pgsc_pg_config_has_pgxs("${c}" ok)
      if(ok)
        set(${out} "${c}" PARENT_SCOPE)
        set(${how} "${name}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
  set(${how} "none" PARENT_SCOPE)
endfunction()

# cmake -P cmake/PgConfig.cmake: print what a build would use
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  pgsc_find_pg_config(pgc how)
  message("pg_config=${pgc}")
  message("found=${how}")
endif()
