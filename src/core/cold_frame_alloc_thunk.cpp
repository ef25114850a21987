// The thunk through which GCC-compiled code calls frame_alloc's slow path on x86-64
// (include/slaw/detail/codegen.hpp, "the slow paths' calling convention").
//
// Contract (what the inline asm of cold_frame_alloc_keeping_registers declares):
//  * in: rax = the allocator (tls_allocator), r10 = the byte count, r11d = the mem_kind;
//  * out: rax = the block, or null (the caller throws bad_alloc);
//  * kept: every other general register (rcx, rdx, rsi, rdi, r8, r9 saved here; rbx, rbp, r12-r15 by the
//    ABI); r10, r11, the flags and every vector and x87 register are clobbered (declared so at the call);
//  * reached by `call *GOT` (no lazy-binding PLT stub, which may clobber r10/r11 before the thunk reads
//    them), with the stack aligned to 8 or 16 (realigned here);
//  * the slow path is noexcept: no exception unwinds through the thunk.
// Built with either compiler, on x86-64 (LP64) only: a library built by clang serves GCC-compiled users too.
#include <cstddef>

#include "slaw/detail/frame_allocator.hpp"

extern "C" void* slaw_cold_frame_alloc_slow(slaw::detail::frame_allocator* a, std::size_t n, unsigned k) noexcept {
  return slaw::detail::cold_frame_alloc(a, n, static_cast<slaw::detail::mem_kind>(k));
}

#if defined(__x86_64__) && !defined(__ILP32__)  // the x86-64 LP64 ABI (not x32)
asm(R"(
  .text
  .globl slaw_cold_frame_alloc_thunk
  .type slaw_cold_frame_alloc_thunk, @function
  .p2align 4
slaw_cold_frame_alloc_thunk:
  .cfi_startproc
  endbr64
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  pushq %rcx
  pushq %rdx
  pushq %rsi
  pushq %rdi
  pushq %r8
  pushq %r9
  movq %rax, %rdi
  movq %r10, %rsi
  movl %r11d, %edx
  andq $-16, %rsp
  call slaw_cold_frame_alloc_slow@PLT
  leaq -48(%rbp), %rsp
  popq %r9
  popq %r8
  popq %rdi
  popq %rsi
  popq %rdx
  popq %rcx
  popq %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size slaw_cold_frame_alloc_thunk, .-slaw_cold_frame_alloc_thunk
)");
#endif
