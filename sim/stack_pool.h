#pragma once
// Fiber stacks, pooled and reused. Mapping a fresh stack costs little, but touching its pages the
// first time costs about 11 µs per page on these machines: a world that spawns and ends fibers all
// the time, and a test that builds thousands of worlds, must reuse stacks that are already warm.
//
// Each stack is one anonymous mapping with a PROT_NONE guard page below it, so an overflow faults
// at once instead of silently corrupting the heap (boost's fixedsize_stack has no guard page). The
// price is two kernel mappings per stack (vm.max_map_count allows about 32k stacks per process),
// paid once per stack thanks to the pool.
#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <memory>
#include <vector>

namespace fencesim::sim {

class StackPool {
 public:
  static constexpr std::size_t kDefaultStackSize = 256 * 1024;
  // Free stacks kept beyond this are unmapped: a burst of fibers must not pin memory forever.
  static constexpr std::size_t kDefaultMaxFree = 1024;

  explicit StackPool(std::size_t stack_size = kDefaultStackSize,
                     std::size_t max_free = kDefaultMaxFree);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // Throws std::bad_alloc when the kernel refuses a new mapping.
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& stack) noexcept;

  std::size_t stack_size() const { return stack_size_; }
  // Stacks handed out and not yet returned: 0 once every fiber using the pool has been freed.
  std::size_t outstanding() const { return outstanding_; }
  std::size_t free_stacks() const { return free_.size(); }
  // Stacks ever mapped: stays flat when stacks are reused.
  std::size_t mapped_total() const { return mapped_total_; }

 private:
  void unmap(void* stack_top) noexcept;

  std::size_t stack_size_;
  std::size_t guard_size_;
  std::size_t max_free_;
  std::vector<void*> free_;  // tops of stacks (highest address), ready for reuse
  std::size_t outstanding_ = 0;
  std::size_t mapped_total_ = 0;
};

// The StackAllocator concept of Boost.Context over a shared pool. Boost keeps a copy inside every
// fiber context and frees the stack through it when the context dies, possibly after the world
// that spawned the fiber is gone: the shared_ptr keeps the pool alive until then.
class PooledStackAllocator {
 public:
  explicit PooledStackAllocator(std::shared_ptr<StackPool> pool) : pool_(std::move(pool)) {}
  boost::context::stack_context allocate() { return pool_->allocate(); }
  void deallocate(boost::context::stack_context& stack) noexcept { pool_->deallocate(stack); }

 private:
  std::shared_ptr<StackPool> pool_;
};

}  // namespace fencesim::sim
