#include "slaw/core/frame_allocator.hpp"

#include <cstdlib>
#include <new>

namespace slaw::core {

constinit thread_local frame_allocator* tls_allocator = nullptr;

namespace {
std::mutex pool_mutex;
frame_allocator* pool_head = nullptr;

chunk_header* new_chunk(frame_allocator* owner, std::size_t bytes, std::uint32_t cls, std::uint32_t block) {
  void* mem = std::aligned_alloc(chunk_size, bytes);
  if (!mem) throw std::bad_alloc();
  auto* h = static_cast<chunk_header*>(mem);
  h->owner = owner;
  h->local_owner = cls < num_classes ? owner : large_chunk;
  h->size_class = cls;
  h->block_size = block;
  h->chunk_bytes = bytes;
  h->next_chunk = nullptr;
  return h;
}
}  // namespace

void* frame_allocator::allocate_slow(std::size_t n) {
  drain_remote();
  if (n > max_small) {
    std::size_t bytes = (n + sizeof(chunk_header) + chunk_size - 1) / chunk_size * chunk_size;
    chunk_header* h = new_chunk(this, bytes, num_classes, static_cast<std::uint32_t>(n));
    stats_.chunk_bytes.fetch_add(bytes, std::memory_order_relaxed);
    account_alloc(n);
    return reinterpret_cast<char*>(h) + sizeof(chunk_header);
  }
  unsigned c = size_class_of(n);
  if (void* p = free_[c]) {  // refilled by the drain
    free_[c] = *static_cast<void**>(p);
    account_alloc(n);
    return p;
  }
  std::size_t bs = class_block_size(c);
  if (bump_[c] == nullptr || bump_[c] + bs > bump_end_[c]) {
    chunk_header* h = new_chunk(this, chunk_size, c, static_cast<std::uint32_t>(bs));
    h->next_chunk = chunks_;
    chunks_ = h;
    stats_.chunk_bytes.fetch_add(chunk_size, std::memory_order_relaxed);
    bump_[c] = reinterpret_cast<char*>(h) + sizeof(chunk_header);
    bump_end_[c] = reinterpret_cast<char*>(h) + chunk_size;
  }
  void* p = bump_[c];
  bump_[c] += bs;
  account_alloc(n);
  return p;
}

void frame_allocator::remote_free(void* p, std::size_t n) noexcept {
  // Block layout while on the remote list: [next][size].
  static_cast<std::size_t*>(p)[1] = n;
  void* head = remote_.load(std::memory_order_relaxed);
  do {
    *static_cast<void**>(p) = head;
  } while (!remote_.compare_exchange_weak(head, p, std::memory_order_release, std::memory_order_relaxed));
}

void frame_allocator::drain_remote_slow() noexcept {
  void* p = remote_.exchange(nullptr, std::memory_order_acquire);
  while (p) {
    void* next = *static_cast<void**>(p);
    std::size_t n = static_cast<std::size_t*>(p)[1];
    chunk_header* h = header_of(p);
    if (h->size_class == num_classes) {
      stats_.chunk_bytes.fetch_sub(h->chunk_bytes, std::memory_order_relaxed);
      account_free(n);
      std::free(h);
    } else {
      deallocate_local(p, n, h->size_class);
    }
    p = next;
  }
}

frame_allocator* frame_allocator::acquire() {
  std::lock_guard<std::mutex> g(pool_mutex);
  if (frame_allocator* a = pool_head) {
    pool_head = a->next_in_pool_;
    return a;
  }
  return new frame_allocator();  // pooled forever: chunk headers may point at it
}

void frame_allocator::release(frame_allocator* a) noexcept {
  std::lock_guard<std::mutex> g(pool_mutex);
  a->next_in_pool_ = pool_head;
  pool_head = a;
}

frame_allocator& frame_allocator::global() noexcept {
  static frame_allocator* g = new frame_allocator();
  return *g;
}

void* frame_alloc_slow(std::size_t n) {
  frame_allocator& g = frame_allocator::global();
  std::lock_guard<std::mutex> lk(g.lock());
  return g.allocate(n);
}

void frame_free_slow(void* p, std::size_t n, chunk_header* h) noexcept {
  frame_allocator* owner = h->owner;
  if (owner == &frame_allocator::global()) {
    std::lock_guard<std::mutex> lk(owner->lock());
    if (h->size_class == num_classes) {
      owner->remote_free(p, n);  // freed on the next drain under the lock
      return;
    }
    owner->deallocate_local(p, n, h->size_class);
    return;
  }
  if (h->size_class == num_classes && owner == tls_allocator) {
    owner->remote_free(p, n);  // a large chunk: freed at the owner's next drain (here, soon)
    owner->drain_remote();
    return;
  }
  owner->remote_free(p, n);
}

}  // namespace slaw::core
