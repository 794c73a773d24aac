# SPDX-License-Identifier: PostgreSQL
# Picky warnings for our own targets (curl's habit: strict by default,
# -Werror on request).
set(PGSC_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes
  -Wmissing-prototypes -Wformat=2 -Wwrite-strings -Wpointer-arith
  -Wcast-qual -Wundef -Wvla -Wnull-dereference -Wimplicit-fallthrough)
if(PGSC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(PGSC_FUZZ)
  # coverage for the library; the harnesses link the fuzzer driver
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
function(pgsc_picky target)
  target_compile_options(${target} PRIVATE ${PGSC_WARNINGS})
  if(PGSC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
