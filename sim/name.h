#pragma once
// The names a history event carries (tenants, execution ids, holders, step paths, sinks, effects,
// details): immutable, shared strings. A world interns every name it records (NameTable), so the
// events of one run that name the same tree or holder share one copy: recording an event copies no
// bytes, and two names of one world compare equal by identity. Scenarios draw hostile names of
// 256-700 bytes; copying and comparing them per event was a fifth of a run (docs/benchmarks.md).
//
// A Name behaves as a read-only std::string (it converts to `const std::string&`), orders and
// compares by its bytes (so maps keyed by names iterate in the order they did with strings, and a
// name from one world equals the same name from another), and hashes by its bytes (XXH3, computed
// once). Nothing about it depends on an address or an interning order: no pointer value can reach
// a history, a hash or a report's order. A name lives as long as anything holds it (a count, not
// atomic: a name belongs to the thread of its world, as the world does).
#include <fmt/format.h>

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/types.h"

namespace fencesim::sim {

class Name {
 public:
  Name() noexcept = default;
  // A name of its own (not interned): for events built outside a world (tests, real mode).
  Name(std::string text);  // NOLINT(google-explicit-constructor): a name reads as a string
  Name(std::string_view text) : Name(std::string(text)) {}  // NOLINT
  Name(const char* text) : Name(std::string(text)) {}       // NOLINT
  Name(const Name& other) noexcept : node_(other.node_) { retain(); }
  Name(Name&& other) noexcept : node_(other.node_) { other.node_ = nullptr; }
  Name& operator=(const Name& other) noexcept {
    Name copy(other);
    swap(copy);
    return *this;
  }
  Name& operator=(Name&& other) noexcept {
    Name moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~Name() { release(); }
  void swap(Name& other) noexcept { std::swap(node_, other.node_); }

  const std::string& str() const noexcept { return node_ != nullptr ? node_->text : empty_text(); }
  operator const std::string&() const noexcept { return str(); }  // NOLINT
  operator std::string_view() const noexcept { return view(); }   // NOLINT
  // Read without str(): the empty name's view is a constant, not a call for a static string.
  std::string_view view() const noexcept {
    return node_ != nullptr ? std::string_view(node_->text) : std::string_view();
  }
  bool empty() const noexcept { return node_ == nullptr; }
  std::size_t size() const noexcept { return node_ != nullptr ? node_->text.size() : 0; }
  const char* data() const noexcept { return str().data(); }
  const char* c_str() const noexcept { return str().c_str(); }
  // XXH3 of the bytes (0 for the empty name).
  std::uint64_t hash() const noexcept { return node_ != nullptr ? node_->hash : 0; }

  std::size_t find(std::string_view what, std::size_t from = 0) const noexcept {
    return view().find(what, from);
  }
  std::size_t find(char what, std::size_t from = 0) const noexcept {
    return view().find(what, from);
  }
  std::size_t rfind(std::string_view what) const noexcept { return view().rfind(what); }
  std::size_t rfind(char what) const noexcept { return view().rfind(what); }
  std::string substr(std::size_t from, std::size_t count = std::string::npos) const {
    return str().substr(from, count);
  }
  bool starts_with(std::string_view prefix) const noexcept { return view().starts_with(prefix); }
  bool ends_with(std::string_view suffix) const noexcept { return view().ends_with(suffix); }

  friend bool operator==(const Name& a, const Name& b) noexcept {
    if (a.node_ == b.node_) return true;
    return a.hash() == b.hash() && a.view() == b.view();
  }
  friend std::strong_ordering operator<=>(const Name& a, const Name& b) noexcept {
    if (a.node_ == b.node_) return std::strong_ordering::equal;
    // Names order by bytes; their first eight bytes, read as one number, decide most pairs.
    const std::uint64_t a_prefix = a.prefix();
    const std::uint64_t b_prefix = b.prefix();
    if (a_prefix != b_prefix) return a_prefix <=> b_prefix;
    return a.view().compare(b.view()) <=> 0;
  }
  friend bool operator==(const Name& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const Name& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const Name& a, const char* b) noexcept { return a.view() == b; }
  friend std::strong_ordering operator<=>(const Name& a, std::string_view b) noexcept {
    return a.view().compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const Name& a, const std::string& b) noexcept {
    return a.view().compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const Name& a, const char* b) noexcept {
    return a.view().compare(b) <=> 0;
  }
  friend std::string operator+(const Name& a, std::string_view b) {
    std::string text(a.view());
    text += b;
    return text;
  }
  friend std::string operator+(std::string_view a, const Name& b) {
    std::string text(a);
    text += b.view();
    return text;
  }
  friend std::string operator+(const Name& a, const std::string& b) {
    return a + std::string_view(b);
  }
  friend std::string operator+(const std::string& a, const Name& b) {
    return std::string_view(a) + b;
  }
  friend std::string operator+(const Name& a, const char* b) { return a + std::string_view(b); }
  friend std::string operator+(const char* a, const Name& b) { return std::string_view(a) + b; }

 private:
  friend class NameTable;
  struct Node {
    std::uint32_t refs = 1;
    std::uint64_t hash = 0;
    // The first eight bytes, big-endian, zero-filled past the end: two names whose prefixes
    // differ order by their prefixes (a name that ends inside them is a prefix of the other, and
    // orders first), so most comparisons never reach the bytes.
    std::uint64_t prefix = 0;
    std::string text;
  };
  static const std::string& empty_text() noexcept;
  static std::uint64_t hash_of(std::string_view text) noexcept;
  static std::uint64_t prefix_of(std::string_view text) noexcept {
    std::uint64_t prefix = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      prefix <<= 8;
      if (i < text.size()) prefix |= static_cast<unsigned char>(text[i]);
    }
    return prefix;
  }
  std::uint64_t prefix() const noexcept { return node_ != nullptr ? node_->prefix : 0; }
  explicit Name(Node* node) noexcept : node_(node) { retain(); }
  void retain() const noexcept {
    if (node_ != nullptr) ++node_->refs;
  }
  // Inlined to a test and a decrement (names are dropped by the million: every event moved or
  // destroyed drops its own); the last reference's delete is out of line.
  void release() noexcept {
    if (node_ != nullptr && --node_->refs == 0) destroy(node_);
    node_ = nullptr;
  }
  [[gnu::noinline]] static void destroy(Node* node) noexcept;
  Node* node_ = nullptr;
};

std::ostream& operator<<(std::ostream& out, const Name& name);

// A lease key whose two parts are names: what a history event carries. Converts to and from
// runtime::LeaseKey, and orders as it does (tenant, then execution id, by bytes).
struct NameKey {
  Name tenant_id;
  Name lease_execution_id;

  NameKey() = default;
  NameKey(Name tenant, Name execution)
      : tenant_id(std::move(tenant)), lease_execution_id(std::move(execution)) {}
  NameKey(const runtime::LeaseKey& key)  // NOLINT(google-explicit-constructor)
      : tenant_id(key.tenant_id), lease_execution_id(key.lease_execution_id) {}
  NameKey(runtime::LeaseKey&& key)  // NOLINT(google-explicit-constructor)
      : tenant_id(std::move(key.tenant_id)),
        lease_execution_id(std::move(key.lease_execution_id)) {}
  operator runtime::LeaseKey() const {  // NOLINT(google-explicit-constructor)
    return runtime::LeaseKey{tenant_id.str(), lease_execution_id.str()};
  }
  runtime::LeaseKey lease_key() const { return *this; }

  friend bool operator==(const NameKey&, const NameKey&) = default;
  friend std::strong_ordering operator<=>(const NameKey&, const NameKey&) = default;
  friend bool operator==(const NameKey& a, const runtime::LeaseKey& b) noexcept {
    return a.tenant_id == b.tenant_id && a.lease_execution_id == b.lease_execution_id;
  }
  friend std::strong_ordering operator<=>(const NameKey& a, const runtime::LeaseKey& b) noexcept {
    if (const auto order = a.tenant_id <=> b.tenant_id; order != 0) return order;
    return a.lease_execution_id <=> b.lease_execution_id;
  }
};

// A world's interned names: the same bytes give the same Name. Holds every name it interned
// until it is destroyed (events and invariants hold theirs on).
class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  ~NameTable();

  Name intern(std::string_view text);
  Name intern(std::string&& text);
  // A name already interned elsewhere (or made outside a table): this table's copy of its bytes.
  Name intern(const Name& name);
  NameKey intern(const runtime::LeaseKey& key) {
    return NameKey{intern(std::string_view(key.tenant_id)),
                   intern(std::string_view(key.lease_execution_id))};
  }
  std::size_t size() const { return count_; }

 private:
  Name::Node** slot(std::string_view text, std::uint64_t hash);
  void grow();
  // Where a text's entry in recent_ is: from its size and its first and last eight bytes, read in
  // a few instructions (the full hash reads every byte: tenants' names run to 700).
  static std::size_t recent_index(std::string_view text) noexcept;
  std::vector<Name::Node*> slots_;  // open addressing, linear probing; a power of two
  std::size_t count_ = 0;
  // The node each recent_index last found: a name interned again (most are, many times a run) is
  // found by one comparison of its bytes, without hashing them. Only a shortcut: a miss or a
  // collision goes to the table, which alone decides which node a text has.
  static constexpr std::size_t kRecentBits = 8;
  std::array<Name::Node*, std::size_t{1} << kRecentBits> recent_{};
};

// The name one source gave last (one field of one node's runtime events): the same text again
// is found by comparing its bytes once, without hashing them and probing the table.
class RecentName {
 public:
  const Name& intern(NameTable& table, std::string_view text) {
    if (last_.size() != text.size() || last_.view() != text) last_ = table.intern(text);
    return last_;
  }

 private:
  Name last_;
};

}  // namespace fencesim::sim

template <>
struct std::hash<fencesim::sim::Name> {
  std::size_t operator()(const fencesim::sim::Name& name) const noexcept {
    return static_cast<std::size_t>(name.hash());
  }
};

template <>
struct std::hash<fencesim::sim::NameKey> {
  std::size_t operator()(const fencesim::sim::NameKey& key) const noexcept {
    return static_cast<std::size_t>(key.tenant_id.hash() * 0x9E3779B97F4A7C15ULL ^
                                    key.lease_execution_id.hash());
  }
};

template <>
struct fmt::formatter<fencesim::sim::Name> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const fencesim::sim::Name& name, Context& context) const {
    return fmt::formatter<std::string_view>::format(name.view(), context);
  }
};
