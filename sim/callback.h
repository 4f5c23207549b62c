#pragma once
// A move-only `void()` callable that keeps small callables in place: the scheduler's timers and
// the network's messages are one per event of a run, and std::function puts every closure that
// is not trivially copyable (one holding a shared_ptr or a string) on the heap. A closure of up
// to kInlineBytes (a few pointers, ids and a std::function) costs no allocation here; a larger
// one goes to the heap, as it did before.
#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace fencesim::sim {

namespace detail {
template <typename D>
inline constexpr bool kIsStdFunction = false;
template <typename R, typename... A>
inline constexpr bool kIsStdFunction<std::function<R(A...)>> = true;
}  // namespace detail

class Callback {
 public:
  static constexpr std::size_t kInlineBytes = 64;

  Callback() noexcept = default;
  Callback(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)

  template <
      typename F, typename D = std::decay_t<F>,
      typename = std::enable_if_t<!std::is_same_v<D, Callback> && std::is_invocable_r_v<void, D&>>>
  Callback(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert, as to std::function
    if constexpr (std::is_pointer_v<D> || detail::kIsStdFunction<D>) {
      if (!static_cast<bool>(f)) return;  // an empty std::function or null pointer: empty
    }
    if constexpr (kFitsInline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
      ops_ = &kHeapOps<D>;
    }
  }

  Callback(Callback&& other) noexcept { take(other); }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  // REQUIRES: not empty.
  void operator()() { ops_->call(storage_); }
  explicit operator bool() const noexcept { return ops_ != nullptr; }
  friend bool operator==(const Callback& callback, std::nullptr_t) noexcept {
    return callback.ops_ == nullptr;
  }

 private:
  struct Ops {
    void (*call)(void* storage);
    // Moves the callable from `from` into the empty `to` and destroys what is left in `from`.
    void (*relocate)(void* to, void* from) noexcept;
    void (*destroy)(void* storage) noexcept;
  };

  template <typename D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInlineBytes &&
      alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

  template <typename D>
  static constexpr Ops kInlineOps = {
      [](void* s) { (*std::launder(static_cast<D*>(s)))(); },
      [](void* to, void* from) noexcept {
        D* source = std::launder(static_cast<D*>(from));
        ::new (to) D(std::move(*source));
        source->~D();
      },
      [](void* s) noexcept { std::launder(static_cast<D*>(s))->~D(); },
  };
  template <typename D>
  static constexpr Ops kHeapOps = {
      [](void* s) { (**static_cast<D**>(s))(); },
      [](void* to, void* from) noexcept { *static_cast<D**>(to) = *static_cast<D**>(from); },
      [](void* s) noexcept { delete *static_cast<D**>(s); },
  };

  void take(Callback& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->relocate(storage_, other.storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }
  void reset() noexcept {
    if (ops_ == nullptr) return;
    const Ops* ops = ops_;
    ops_ = nullptr;
    ops->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace fencesim::sim
