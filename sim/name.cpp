#include "sim/name.h"

#include <xxhash.h>

#include <cstring>
#include <ostream>

namespace fencesim::sim {

const std::string& Name::empty_text() noexcept {
  static const std::string empty;
  return empty;
}

std::uint64_t Name::hash_of(std::string_view text) noexcept {
  return XXH3_64bits(text.data(), text.size());
}

Name::Name(std::string text) {
  if (text.empty()) return;
  const std::uint64_t hash = hash_of(text);
  const std::uint64_t prefix = prefix_of(text);
  node_ = new Node{1, hash, prefix, std::move(text)};
}

void Name::destroy(Node* node) noexcept {
  delete node;
}

std::ostream& operator<<(std::ostream& out, const Name& name) {
  return out << name.view();
}

NameTable::~NameTable() {
  for (Name::Node* node : slots_) {
    if (node != nullptr && --node->refs == 0) delete node;
  }
}

Name::Node** NameTable::slot(std::string_view text, std::uint64_t hash) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(hash) & mask;; i = (i + 1) & mask) {
    Name::Node*& node = slots_[i];
    if (node == nullptr) return &node;
    // The same bytes by address first: a name interned again is found without comparing them.
    if (node->hash == hash && node->text.size() == text.size() &&
        (node->text.data() == text.data() || node->text == text)) {
      return &node;
    }
  }
}

void NameTable::grow() {
  std::vector<Name::Node*> old(slots_.empty() ? 256 : slots_.size() * 2, nullptr);
  old.swap(slots_);
  for (Name::Node* node : old) {
    if (node != nullptr) *slot(node->text, node->hash) = node;
  }
}

std::size_t NameTable::recent_index(std::string_view text) noexcept {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (text.size() >= 8) {
    std::memcpy(&first, text.data(), 8);
    std::memcpy(&last, text.data() + text.size() - 8, 8);
  } else {
    std::memcpy(&first, text.data(), text.size());
  }
  const std::uint64_t mixed = (first * 0x9E3779B97F4A7C15ULL) ^ (last * 0xC2B2AE3D27D4EB4FULL) ^
                              (text.size() * 0x165667B19E3779F9ULL);
  return static_cast<std::size_t>((mixed ^ (mixed >> 29)) * 0x94D049BB133111EBULL >>
                                  (64 - kRecentBits));
}

Name NameTable::intern(std::string_view text) {
  if (text.empty()) return Name();
  Name::Node*& recent = recent_[recent_index(text)];
  if (recent != nullptr && recent->text.size() == text.size() &&
      std::memcmp(recent->text.data(), text.data(), text.size()) == 0) {
    return Name(recent);
  }
  if ((count_ + 1) * 2 > slots_.size()) grow();
  const std::uint64_t hash = Name::hash_of(text);
  Name::Node** node = slot(text, hash);
  if (*node == nullptr) {
    *node = new Name::Node{1, hash, Name::prefix_of(text),
                           std::string(text)};  // the table's own reference
    ++count_;
  }
  recent = *node;
  return Name(*node);
}

// A miss copies the bytes once per distinct name; a hit, the common case, copies nothing.
Name NameTable::intern(std::string&& text) {
  return intern(std::string_view(text));
}

Name NameTable::intern(const Name& name) {
  if (name.empty()) return Name();
  if ((count_ + 1) * 2 > slots_.size()) grow();
  Name::Node** node = slot(name.view(), name.hash());
  if (*node == nullptr) {
    // Adopt the name's own node: no copy of its bytes.
    *node = name.node_;
    ++(*node)->refs;
    ++count_;
  }
  return Name(*node);
}

}  // namespace fencesim::sim
