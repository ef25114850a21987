// How a task hands the thread to the next one: symmetric transfer, or a loop where the compiler may
// not make it a tail call.
//
// Every suspension of a slaw task that continues elsewhere (a spawn, a call, a return, a join) returns
// the next coroutine's handle from await_suspend, and the compiler resumes that handle from inside the
// suspending coroutine. Only as a tail call does the native stack stay flat: fib(24) makes some 10^5
// transfers before any returns to the scheduler loop, a work-first chain of depth n makes n. Clang
// emits the resumption as a guaranteed tail call at every optimisation level and under every sanitizer.
// GCC 12 emits it as a tail call only under sibling-call optimisation (-foptimize-sibling-calls, on
// from -O2), and not at all under AddressSanitizer or ThreadSanitizer, whose instrumentation follows
// the call. Without it the stack grows by a frame per transfer and the program dies of a stack overflow.
//
// So where the tail call is not certain the headers resume through a loop instead (SLAW_TRANSFER_LOOP):
// await_suspend stores the next handle in a thread-local and returns std::noop_coroutine(), the
// suspended coroutine returns to whoever resumed it, and that is always one of the library's resume
// sites (resume_chain), which resumes the stored handle in turn. The stack stays flat at the price of a
// return and a call per transfer. In the other mode transfer() is the identity and the fast path is what
// it was. The two modes mix in one program: a translation unit in loop mode leaves a handle for
// resume_chain; one in tail mode never does, and resume_chain's test of the thread-local costs a load
// and a branch per strand, not per transfer.
//
// The mode, unless the translation unit sets SLAW_TRANSFER_LOOP to 0 or 1 itself:
//  * clang: the tail call (guaranteed);
//  * GCC: the tail call when the translation unit is optimised (__OPTIMIZE__), not under ASan or TSan,
//    and says it is compiled with sibling-call optimisation by defining SLAW_SIBLING_CALLS. slaw's
//    CMake package (target slaw::slaw) and pkg-config's Cflags add both -foptimize-sibling-calls and
//    -DSLAW_SIBLING_CALLS under GCC, so that -O1 and -Og (and -O0 with the flag) get the tail call
//    too. A program compiled without them (no pkg-config, no find_package) resumes through the loop:
//    correct, somewhat slower (docs/guide/install.md gives the figures). GCC defines no macro for -O1 as
//    against -O2, so without the define the headers cannot know that the flag is on.
// The awaiters whose await_suspend depends on the mode carry SLAW_TRANSFER_ABI: in loop mode their
// names get an ABI tag, so that the linker never takes one mode's out-of-line copy (GCC -O0 inlines
// nothing that is not always_inline) for a translation unit of the other mode.
#pragma once

#include <coroutine>

#include "slaw/detail/codegen.hpp"
#include "slaw/export.hpp"

#if !defined(SLAW_TRANSFER_LOOP)
#if defined(__clang__)
#define SLAW_TRANSFER_LOOP 0
#elif defined(__GNUC__) && (!defined(__OPTIMIZE__) || !defined(SLAW_SIBLING_CALLS) || \
                            defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define SLAW_TRANSFER_LOOP 1
#else
#define SLAW_TRANSFER_LOOP 0
#endif
#endif

#if SLAW_TRANSFER_LOOP
#define SLAW_TRANSFER_ABI [[gnu::abi_tag("slaw_transfer_loop")]]
#else
#define SLAW_TRANSFER_ABI
#endif

namespace slaw::detail {

// The handle a suspended coroutine left for resume_chain (loop mode), or null. Only the thread that
// stored it reads it: a plain thread-local.
SLAW_EXPORT extern constinit thread_local SLAW_TLS_MODEL void* tls_next_transfer;

// What await_suspend returns to hand the thread to `next`.
[[gnu::always_inline]] inline std::coroutine_handle<> transfer(std::coroutine_handle<> next) noexcept {
#if SLAW_TRANSFER_LOOP
  tls_next_transfer = next.address();
  return std::noop_coroutine();
#else
  return next;
#endif
}

// Resumes `h`, then every coroutine a loop-mode transfer left behind, until the chain ends. The
// library's resume sites (the scheduler loop, a strand run in place) call nothing else.
inline void resume_chain(std::coroutine_handle<> h) noexcept {
  h.resume();
  while (void* next = tls_next_transfer) [[unlikely]] {
    tls_next_transfer = nullptr;
    std::coroutine_handle<>::from_address(next).resume();
  }
}

}  // namespace slaw::detail
