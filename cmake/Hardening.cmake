# SPDX-License-Identifier: PostgreSQL
# PGSC_HARDEN: the usual distribution hardening for every target built
# here, because pgsc-collect runs as root on untrusted text.
#
# - -D_FORTIFY_SOURCE=3 (glibc >= 2.34, gcc >= 12): checked string and
#   memory calls (__*_chk).  It needs optimisation (glibc warns at -O0), and
#   the sanitizers already check the same accesses, so it is off for Debug
#   and for the ASan/UBSan and fuzzing builds.
# - -fstack-protector-strong: a canary in functions with arrays or
#   address-taken locals (__stack_chk_fail).
# - -z relro -z now: full RELRO (GNU_RELRO, BIND_NOW), for executables and
#   shared objects; the PGXS module gets the same through LDFLAGS_SL.
#
# tests/build/hardening.sh checks the built binaries for all of them.
set(PGSC_HARDEN_LDFLAGS "-Wl,-z,relro -Wl,-z,now")
set(PGSC_FORTIFY OFF)
if(PGSC_HARDEN)
  add_compile_options(-fstack-protector-strong)
  add_link_options(LINKER:-z,relro LINKER:-z,now)
  if(NOT PGSC_SANITIZE AND NOT PGSC_FUZZ AND
     NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(PGSC_FORTIFY ON)
    # -U first: some compilers (Ubuntu's gcc) predefine a level
    add_compile_options(-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3)
  endif()
endif()
