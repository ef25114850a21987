// The sanitizers of this translation unit against those of the library it links (the generated
// slaw/build_config.hpp).
//
// The fast path's inline code and the library's slow paths share the same frames, pools and atomics, so
// a sanitizer sees slaw correctly only where both sides are instrumented alike:
//  * AddressSanitizer. Pooled blocks are poisoned while free, so that a use after free in slaw's frame
//    pool is reported (frame_allocator.hpp). The inline allocation and the library's slow paths must
//    then both poison and unpoison: that happens only when the library is built with
//    -DSLAW_SANITIZE=address too (SLAW_ASAN). A program under ASan (and UBSan) that links the ordinary
//    library works: its own memory is checked, slaw's pool is not poisoned.
//  * ThreadSanitizer must see every synchronisation: against an uninstrumented library it reports
//    races in slaw's inline code that are not there. A program under TSan needs the library built with
//    -DSLAW_SANITIZE=thread (docs/guide/install.md, "Sanitizers"); including slaw's headers in such a program
//    without it is an error (SLAW_ALLOW_UNINSTRUMENTED_LIBRARY lets a program that knows what it does
//    through).
//  * An instrumented library needs instrumented users: the package adds its sanitizer to the compile
//    and link options of slaw::slaw and to pkg-config's flags, and an uninstrumented translation unit
//    that includes the headers of an instrumented library is an error.
#pragma once

#include "slaw/build_config.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SLAW_TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAW_TU_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define SLAW_TU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLAW_TU_TSAN 1
#endif
#endif

#if defined(SLAW_TU_ASAN) && SLAW_LIBRARY_ASAN
#define SLAW_ASAN 1
#endif

#if !defined(SLAW_ALLOW_UNINSTRUMENTED_LIBRARY)
#if defined(SLAW_TU_TSAN) && !SLAW_LIBRARY_TSAN
#error "slaw: this translation unit is built with ThreadSanitizer, but the slaw library whose headers it includes is not, and TSan would report races in slaw's inline code that are not there. Build and install slaw with -DSLAW_SANITIZE=thread (docs/guide/install.md, Sanitizers) and use that installation."
#endif
#endif
#if !defined(SLAW_TU_TSAN) && SLAW_LIBRARY_TSAN
#error "slaw: this slaw library is built with ThreadSanitizer (-DSLAW_SANITIZE=thread): compile every translation unit that uses it with -fsanitize=thread (slaw::slaw and pkg-config's Cflags add it)."
#endif
#if !defined(SLAW_TU_ASAN) && SLAW_LIBRARY_ASAN
#error "slaw: this slaw library is built with AddressSanitizer (-DSLAW_SANITIZE=address): compile every translation unit that uses it with -fsanitize=address (slaw::slaw and pkg-config's Cflags add it)."
#endif
