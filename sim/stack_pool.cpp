#include "sim/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "runtime/check.h"

namespace fencesim::sim {
namespace {

std::size_t page_size() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

StackPool::StackPool(std::size_t stack_size, std::size_t max_free)
    : stack_size_(round_up(stack_size, page_size())),
      guard_size_(page_size()),
      max_free_(max_free) {
  check(stack_size_ >= 4 * guard_size_, "a fiber stack needs at least four pages");
  // deallocate() is noexcept: it must never need to grow the free list.
  free_.reserve(max_free_);
}

StackPool::~StackPool() {
  for (void* top : free_) unmap(top);
}

boost::context::stack_context StackPool::allocate() {
  void* top = nullptr;
  if (!free_.empty()) {
    top = free_.back();
    free_.pop_back();
  } else {
    const std::size_t total = stack_size_ + guard_size_;
    void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    // Stacks grow down: the guard page sits at the lowest address.
    if (mprotect(base, guard_size_, PROT_NONE) != 0) {
      munmap(base, total);
      throw std::bad_alloc();
    }
    top = static_cast<char*>(base) + total;
    ++mapped_total_;
  }
  ++outstanding_;
#if defined(__SANITIZE_ADDRESS__)
  // Frames of the stack's previous fiber, left by switches ASan cannot see, would otherwise be
  // reported against the next one.
  __asan_unpoison_memory_region(static_cast<char*>(top) - stack_size_, stack_size_);
#endif
  boost::context::stack_context stack;
  stack.size = stack_size_;
  stack.sp = top;
  return stack;
}

void StackPool::deallocate(boost::context::stack_context& stack) noexcept {
  --outstanding_;
  if (free_.size() < max_free_) {
    free_.push_back(stack.sp);
  } else {
    unmap(stack.sp);
  }
}

void StackPool::unmap(void* stack_top) noexcept {
  const std::size_t total = stack_size_ + guard_size_;
  munmap(static_cast<char*>(stack_top) - total, total);
}

}  // namespace fencesim::sim
