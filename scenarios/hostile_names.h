#pragma once
// Hostile names: what a workload gives the runtime wherever it takes a name (tenant ids, execution
// ids, group, child and step names), drawn per seed. ADR-0023 promises scope keys with no
// cross-tenant collision, decodable, without a NUL byte, whatever the parts hold; a harness whose
// names are all "order-1" never tests that promise. So a share of names holds ':', '%' (alone, and
// as a valid escape), '/', spaces, non-ASCII and emoji, a NUL inside, or is long; and a share of
// trees is named after another tree's child (a root whose execution id is another root's id + "/" +
// an AnyInstance child's path, or that string encoded), or after another tenant's key read with a
// naive ':' join. The rest stay plain, so plain ids keep being tested.
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/types.h"
#include "sim/random.h"

namespace fencesim::scenarios {

// The kinds of hostile name; kPlain keeps the plain name.
enum class NameKind : std::uint8_t {
  kPlain,
  kColon,     // "order:1", ":order", "order:"
  kPercent,   // "50%", "order%3A1" (a valid escape that must stay literal), "%zz"
  kSlash,     // "order/1", "/order", "order/"
  kSpace,     // "order 1", " order ", a tab
  kNonAscii,  // "zählung-ß", "注文", combining marks
  kEmoji,     // "🧾order", a flag, a ZWJ sequence
  kNul,       // a NUL byte inside ("or\0der")
  kNotUtf8,   // a lone continuation byte, an overlong form, 0xff (never drawn by name())
  kLong,      // 256 to 700 bytes (past a 255-byte column), hostile bytes spread through
  kMixed,     // several of the above at once
};
inline constexpr int kNameKinds = 11;

// Whether `name` holds anything a plain id would not (a reserved, control, space or non-ASCII
// byte): a write from a tree or step named so proves the runtime carried a hostile name through.
bool is_hostile(std::string_view name);

// Draws names from a stream of their own ("names"), so that drawing them shifts no other draw.
class HostileNames {
 public:
  // `hostile_share`: the chance that a drawn name is hostile (the rest are plain).
  HostileNames(sim::Rng rng, double hostile_share);

  // `plain`, or a hostile name built around it. Never empty; distinct from every name this
  // object returned before for the same `scope` (siblings of one level, or the ids of one tenant),
  // so that a workflow never names two siblings alike.
  std::string name(std::string_view plain, const std::string& scope = {});
  // A name of kind `kind` built around `plain`.
  std::string of_kind(NameKind kind, std::string_view plain);

  sim::Rng& rng() { return rng_; }

 private:
  std::string unique(std::string name, const std::string& scope);

  sim::Rng rng_;
  double hostile_share_;
  std::set<std::pair<std::string, std::string>> taken_;  // (scope, name)
};

// Execution ids that collide with another tree's child, under the runtime's old naming of an
// AnyInstance child's lease (parent id + "/" + child path) or under plausible fixed namings: the
// raw join, the join with '/' percent-encoded, and the join with ':'; and one that holds the
// reserved marker of a child's lease id ("@child:") after its first byte, which a root's id may.
// `child_path` is built with runtime::join_path.
std::vector<std::string> child_key_twins(const std::string& parent_execution_id,
                                         const std::string& child_path);
// The name of each form child_key_twins draws, in its order (a workload's marks name the form that
// ran, so that a draw narrowed to fewer forms is caught by their claims).
inline constexpr std::array<std::string_view, 5> kChildKeyTwinForms{
    "raw-join", "encoded-join", "colon-join", "half-encoded-join", "child-marker"};

// Two keys of two tenants that a naive ':' join of the parts would confuse: (tenant, "x:" + id)
// and (tenant + ":x", id) both join to "tenant:x:id"; their scope keys must differ.
std::pair<runtime::LeaseKey, runtime::LeaseKey> naive_join_twins(const std::string& tenant,
                                                                 const std::string& execution);

}  // namespace fencesim::scenarios
