// Code-generation choices of the inline fast path (spawn, call, return, frame allocation), which
// every user translation unit compiles: how it reads slaw's thread-locals, and how it calls its slow
// paths, and how it adds to a counter that only its owner writes. Measured in bench/results/fastpath/.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

// Whether this translation unit is user code built for an executable that links the static library
// (see the TLS model below for why that is the condition).
#if defined(SLAW_STATIC_DEFINE) && !defined(SLAW_BUILDING_LIBRARY) && (defined(__PIE__) || !defined(__PIC__))
#define SLAW_IN_STATIC_EXECUTABLE 1
#endif

// ---- the thread-locals' TLS model ----
// tls_worker and tls_allocator are read a few times per task. By default an executable reaches a
// thread-local of another object file through the initial-exec model: it loads the variable's offset
// (an immediate once the linker relaxes the GOT load) and then reads %fs:offset, two instructions. When
// slaw is linked statically into an executable, the variables sit in the executable's own TLS block
// and the local-exec model reads them in one (%fs:OFFSET). That is valid only where the final link is
// an executable: a translation unit built for one (-fPIE, or no -fPIC at all) with the static library
// (SLAW_STATIC_DEFINE). Code built for a shared object (-fPIC without -fPIE), or against libslaw.so,
// keeps the default model. So does the library's own code (SLAW_BUILDING_LIBRARY), whose accesses are
// off the fast path: libslaw.a's objects stay linkable wherever they were before.
#ifdef SLAW_IN_STATIC_EXECUTABLE
#define SLAW_TLS_MODEL __attribute__((tls_model("local-exec")))
#else
#define SLAW_TLS_MODEL
#endif

// ---- global flags read by the fast path ----
// Under the same condition a global variable of slaw is part of the executable, so user code may read
// it PC-relative (one `cmp $0, x(%rip)`) instead of through the GOT (clang's default for PIE, which
// loads the address first): declared hidden there. GCC reads it directly anyway (copy relocations).
#ifdef SLAW_IN_STATIC_EXECUTABLE
#define SLAW_LINKED_DATA __attribute__((visibility("hidden")))
#else
#define SLAW_LINKED_DATA
#endif

// ---- the slow paths' calling convention ----
// A coroutine's ramp (frame allocation) and its destroy function (the free) each hold a call to a
// rarely taken slow path: a chunk refill, a new peak, the process gauge. Under the standard convention
// the caller keeps its live values in callee-saved registers across such a call, so every ramp pushed
// and popped three registers that its fast path never needed. clang's preserve_most convention moves
// those saves into the callee, onto the slow path. GCC has no such convention: SLAW_COLD_CC is empty.
// Functions declared with it are
//  * noexcept: no exception unwinds across the convention's boundary (a failure is returned, and the
//    caller throws through an ordinary [[noreturn]] call);
//  * of internal linkage (SLAW_COLD_ENTRY): one program may hold translation units compiled by GCC and by
//    clang, and an inline function of external linkage would then have copies of two conventions, of
//    which the linker keeps one.
#if defined(__clang__) && defined(__x86_64__)
#define SLAW_COLD_CC [[clang::preserve_most]]
#else
#define SLAW_COLD_CC
#endif
#define SLAW_COLD_ENTRY SLAW_COLD_CC [[gnu::noinline, gnu::cold, maybe_unused]] static

// ---- addresses in a coroutine's frame ----
// Clang computes the address of every object of a coroutine's frame that is used as a value (a local
// whose address is taken, an awaiter passed by pointer, the promise itself) once, at the entry of the
// resume function: one `lea` at each of its entries, and a callee-saved register held through the
// whole function. So the fast path uses the frame's own address, which it holds anyway: a task's
// handle is computed from its promise (promise_base::self), the parent link holds the parent's frame
// (promise_base::parent), and no exception_ptr is a local of a coroutine (rethrow_owned). Clang's fib
// node 303 -> 287 instructions, GCC's 371 -> 364 (bench/results/fastpath/).

// ---- how a task is passed ----
// Every coroutine returns its slaw::task from the ramp (frame allocation and set-up). The task has a
// destructor, so the Itanium ABI returns it through memory: the caller passes the address of a
// temporary in its own frame, and a coroutine caller keeps such addresses in callee-saved registers,
// computed at each of its resume function's entries. Clang's trivial_abi returns the task (one
// pointer) in a register instead: 364 -> 333 instructions per fib node (bench/results/fastpath/). GCC
// has no such attribute. A task so passed is not interchangeable with one of the ordinary ABI, so the
// ABI tag renames every function whose signature holds a task (implicitly also a non-template function
// returning one): a program whose translation units pass tasks between clang and GCC code fails to link
// instead of crashing. The library exports no function with a task in its signature (slaw::reserve is
// inline over a handle), so libslaw itself is usable from either compiler.
#if defined(__clang__) && defined(__has_cpp_attribute)
#if __has_cpp_attribute(clang::trivial_abi)
#define SLAW_TASK_ABI [[clang::trivial_abi, gnu::abi_tag("slaw_trivial_abi")]]
#endif
#endif
#ifndef SLAW_TASK_ABI
#define SLAW_TASK_ABI
#endif

// ---- where a spawn begins (include/slaw/async.hpp) ----
// Clang passes the address of an awaiter to its suspension intrinsic, so the awaiter lives in the
// parent's frame and each of its fields costs a store there. Under clang the spawn's bookkeeping runs
// in await_transform, on values in registers, and the awaiter keeps only the child to start: 318 -> 311
// instructions per fib node. GCC keeps an awaiter in its frame in any case and reads its fields from
// there; begun in await_transform, the spawn held its values in callee-saved registers instead, which
// every entry of the resume function then saved (377 -> 392): GCC begins it in await_ready.
#if defined(__clang__)
#define SLAW_SPAWN_IN_TRANSFORM 1
#endif

// ---- owner-written counters ----
// A counter that one thread writes and others read racily (stats) is a relaxed atomic, updated by a
// relaxed load and store: no RMW, no fence. Clang folds the pair into one `add` on memory; GCC keeps
// load, add and store. On x86-64 GCC the add is written as one instruction in asm instead. An aligned
// 8-byte add by the only writer is seen whole by the relaxed loads of readers, as the load and store
// would be. This is not a locked RMW: it is as racy as the pair, and a second writer would lose updates
// as it would with the pair. Other compilers and targets keep the pair.
namespace slaw::detail {
// ThreadSanitizer does not see a write in asm: its builds keep the pair.
#if defined(__SANITIZE_THREAD__)
#define SLAW_NO_OWNER_ASM 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLAW_NO_OWNER_ASM 1
#endif
#endif
#if defined(__GNUC__) && defined(__x86_64__) && !defined(SLAW_NO_OWNER_ASM)
#define SLAW_FLAG_ASM 1
#if !defined(__clang__)
#define SLAW_OWNER_ASM 1
#endif
#endif
template <class T>
[[gnu::always_inline]] inline void owner_add(std::atomic<T>& v, std::type_identity_t<T> d) noexcept {
  static_assert(sizeof(T) == 8 && alignof(std::atomic<T>) == 8);
#ifdef SLAW_OWNER_ASM
  asm volatile("addq %1, %0" : "+m"(v) : "er"(d));
#else
  v.store(v.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
#endif
}
// v -= d by its only writer; whether v is now below 0: one `sub` on memory and a branch on its flags,
// as asm with a flag output. Left to themselves, GCC keeps load, subtract and store, and clang compares
// the old value (load, subtract, store, compare).
[[gnu::always_inline]] inline bool owner_sub_below_zero(std::atomic<std::int64_t>& v, std::int64_t d) noexcept {
#ifdef SLAW_FLAG_ASM
  bool lt;
  asm volatile("subq %2, %0" : "+m"(v), "=@ccl"(lt) : "er"(d));
  return lt;
#else
  const std::int64_t r = v.load(std::memory_order_relaxed) - d;
  v.store(r, std::memory_order_relaxed);
  return r < 0;
#endif
}
// A relaxed load of a flag (a byte or an int), tested for nonzero: one `cmp $0` on memory and a branch,
// as asm with a flag output. Both compilers load an atomic into a register first (load, test, branch).
template <class T>
[[gnu::always_inline]] inline bool flag_nonzero(const std::atomic<T>& b) noexcept {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) == 4) && sizeof(std::atomic<T>) == sizeof(T));
#ifdef SLAW_FLAG_ASM
  bool nz;
  if constexpr (sizeof(T) == 1) asm volatile("cmpb $0, %1" : "=@ccne"(nz) : "m"(b));
  else asm volatile("cmpl $0, %1" : "=@ccne"(nz) : "m"(b));
  return nz;
#else
  return b.load(std::memory_order_relaxed) != 0;
#endif
}
}  // namespace slaw::detail
