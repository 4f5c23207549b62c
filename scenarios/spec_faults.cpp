#include "scenarios/spec_faults.h"

#include "scenarios/spec_lists.h"

#include <fmt/format.h>

#include <array>
#include <limits>

namespace fencesim::scenarios::spec {

namespace {

using runtime::kSecond;

constexpr std::string_view kFault = "[[fault]]";

enum class Amount { kNone, kDuration, kSignedDuration, kPpm };

// What each kind of fault uses, besides the keys every fault has.
struct KindRules {
  sim::FaultKind kind;
  bool lasting;           // uses a duration
  bool lasting_required;  // ... and must be given one
  Amount amount;
  bool amount_required;
  bool probability;
  bool peer;
  bool stores_only;  // hits a store or a sink, never an instance
};

constexpr std::array<KindRules, 12> kRules{{
    {sim::FaultKind::kStall, true, true, Amount::kNone, false, false, false, false},
    {sim::FaultKind::kStop, true, true, Amount::kNone, false, false, false, false},
    {sim::FaultKind::kMigrate, true, true, Amount::kSignedDuration, false, false, false, false},
    {sim::FaultKind::kCrash, true, false, Amount::kNone, false, false, false, false},
    {sim::FaultKind::kClockDrift, false, false, Amount::kPpm, true, false, false, false},
    {sim::FaultKind::kClockStep, false, false, Amount::kSignedDuration, true, false, false, false},
    {sim::FaultKind::kNetworkDelay, true, true, Amount::kDuration, true, false, false, false},
    {sim::FaultKind::kNetworkDrop, true, true, Amount::kNone, false, true, false, false},
    {sim::FaultKind::kNetworkDuplicate, true, true, Amount::kNone, false, true, false, false},
    {sim::FaultKind::kPartition, true, true, Amount::kNone, false, false, true, false},
    {sim::FaultKind::kStoreSlow, true, true, Amount::kDuration, true, false, false, true},
    {sim::FaultKind::kStoreDown, true, true, Amount::kNone, false, false, false, true},
}};

const KindRules& rules_of(sim::FaultKind kind) {
  for (const KindRules& rules : kRules) {
    if (rules.kind == kind) return rules;
  }
  return kRules.front();
}

std::string key(std::string_view name) {
  return fmt::format("{}.{}", kFault, name);
}

std::string known_kinds() {
  std::string list;
  for (const KindRules& rules : kRules) {
    list += (list.empty() ? "" : ", ") + std::string(sim::to_string(rules.kind));
  }
  return list;
}

std::string known_events() {
  std::string list;
  constexpr auto kLast = static_cast<int>(runtime::kLastEventKind);
  for (int value = 0; value <= kLast; ++value) {
    list += (list.empty() ? "" : ", ") +
            std::string(runtime::to_string(static_cast<runtime::EventKind>(value)));
  }
  return list;
}

constexpr std::array<std::string_view, 4> kGroups{"instance", "sink", "store", "node"};

NodePick read_pick(const SpecReader& reader, const toml::node& node, std::string_view name) {
  NodePick pick;
  pick.text = reader.string(node, key(name));
  pick.line = node.source().begin.line;
  pick.name = pick.text;
  for (const auto& [prefix, mode] :
       {std::pair{"any-", NodePick::Mode::kAny}, std::pair{"every-", NodePick::Mode::kEvery}}) {
    if (!pick.text.starts_with(prefix)) continue;
    const std::string group = pick.text.substr(std::string_view(prefix).size());
    bool known = false;
    for (std::string_view candidate : kGroups) known = known || candidate == group;
    if (known) {
      pick.mode = mode;
      pick.name = group;
    }
  }
  if (pick.text.empty()) reader.fail(node, key(name), "must name a node");
  return pick;
}

bool in_group(const sim::World& world, sim::NodeId node, const std::string& group) {
  const sim::NodeKind kind = world.node_kind(node);
  if (group == "instance") return kind == sim::NodeKind::kInstance;
  if (group == "sink") return kind == sim::NodeKind::kSink;
  if (group == "store") return kind == sim::NodeKind::kStore || kind == sim::NodeKind::kSink;
  return kind != sim::NodeKind::kWorld;
}

// The nodes a pick may land on, in node order.
std::vector<std::string> candidates(const sim::World& world, const NodePick& pick) {
  if (pick.mode == NodePick::Mode::kNamed) return {pick.name};
  std::vector<std::string> out;
  const auto& names = world.node_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (in_group(world, static_cast<sim::NodeId>(i), pick.name)) out.push_back(names[i]);
  }
  return out;
}

std::string node_list(const sim::World& world) {
  std::string list;
  for (std::size_t i = 1; i < world.node_names().size(); ++i) {
    list += (list.empty() ? "" : ", ") + world.node_names()[i];
  }
  return list;
}

template <std::size_t N>
sim::Aim read_aim(const SpecReader& reader, const toml::node& node, std::string_view name,
                  const std::array<std::string_view, N>& known) {
  const std::string text = reader.string(node, key(name));
  for (std::string_view k : known) {
    if (k == text) return *sim::aim_from_string(text);
  }
  std::string list;
  for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  reader.fail(node, key(name), fmt::format("unknown deadline '{}' (known: {})", text, list));
}

void read_timing(const SpecReader& reader, const toml::table& table, FaultGenerator& generator) {
  const toml::node* at = table.get("at");
  const toml::node* after = table.get("after");
  if ((at == nullptr) == (after == nullptr)) {
    reader.fail(at ? at->source().begin.line : generator.line, kFault,
                "give exactly one of 'at' (a time) and 'after' (a protocol event)");
  }
  if (at != nullptr) {
    generator.at = reader.duration_range(*at, key("at"), 0);
    generator.at_line = at->source().begin.line;
    for (std::string_view name :
         {"occurrence", "delay", "after_node", "aim", "within", "until", "until_delay"}) {
      if (const toml::node* stray = table.get(name)) {
        reader.fail(*stray, key(name), "only with 'after' (a protocol trigger)");
      }
    }
    return;
  }
  const std::string event = reader.string(*after, key("after"));
  generator.after = event_kind_from_name(event);
  if (!generator.after) {
    reader.fail(*after, key("after"),
                fmt::format("unknown event '{}' (known: {})", event, known_events()));
  }
  if (const toml::node* occurrence = table.get("occurrence")) {
    generator.occurrence =
        reader.integer_range(*occurrence, key("occurrence"), 1, std::numeric_limits<int>::max());
  }
  if (const toml::node* aim = table.get("aim")) {
    reader.attempt([&] { generator.aim = read_aim(reader, *aim, "aim", kAimNames); });
  }
  const bool in_flight = generator.aim == sim::Aim::kInFlight;
  if (const toml::node* delay = table.get("delay")) {
    if (in_flight) {
      reader.fail(*delay, key("delay"),
                  "not used with aim 'in-flight' (say where in the flight with 'within')");
    }
    // Aimed at a deadline, a delay may be negative: "1 s before the holder's expiry".
    generator.delay = reader.duration_range(
        *delay, key("delay"), generator.aim ? std::numeric_limits<std::int64_t>::min() : 0);
  }
  if (const toml::node* within = table.get("within")) {
    if (!in_flight) reader.fail(*within, key("within"), "only with aim 'in-flight'");
    generator.within = reader.probability_range(*within, key("within"));
    if (generator.within.low <= 0 || generator.within.high >= 1) {
      reader.fail(*within, key("within"),
                  "a fraction of the flight strictly between 0 and 1 (it left, it has not arrived)");
    }
  }
  if (const toml::node* until = table.get("until")) {
    reader.attempt([&] { generator.until = read_aim(reader, *until, "until", kUntilNames); });
  }
  if (const toml::node* until_delay = table.get("until_delay")) {
    if (table.get("until") == nullptr) {
      reader.fail(*until_delay, key("until_delay"), "only with 'until'");
    }
    generator.until_delay = reader.duration_range(*until_delay, key("until_delay"),
                                                  std::numeric_limits<std::int64_t>::min());
  }
  if (const toml::node* at_node = table.get("after_node")) {
    generator.after_node = reader.string(*at_node, key("after_node"));
    generator.after_node_line = at_node->source().begin.line;
  }
}

void read_measures(const SpecReader& reader, const toml::table& table, const KindRules& rules,
                   FaultGenerator& generator) {
  const std::string kind_name(sim::to_string(rules.kind));
  const auto unused = [&](std::string_view name) {
    if (const toml::node* stray = table.get(name)) {
      reader.note(stray->source().begin.line, key(name),
                  fmt::format("not used by a '{}' fault", kind_name));
    }
  };
  const auto required = [&](std::string_view name, bool needed) {
    if (needed && table.get(name) == nullptr) {
      reader.note(generator.line, key(name),
                  fmt::format("missing (a '{}' fault needs it)", kind_name));
    }
  };
  if (generator.until) {
    // Its length is the time to the deadline.
    if (!rules.lasting) {
      reader.note(table.get("until")->source().begin.line, key("until"),
                  fmt::format("a '{}' fault has no length to end at a deadline", kind_name));
    } else if (const toml::node* lasting = table.get("lasting")) {
      reader.note(lasting->source().begin.line, key("lasting"),
                  "give one of 'lasting' and 'until'");
    }
  } else if (!rules.lasting) {
    unused("lasting");
  }
  if (rules.amount == Amount::kNone) unused("amount");
  if (!rules.probability) unused("probability");
  if (!rules.peer) unused("peer");
  // Written with an 'until' (even one that did not read), the fault has no 'lasting' to miss.
  required("lasting", rules.lasting_required && table.get("until") == nullptr);
  required("amount", rules.amount_required);
  required("probability", rules.probability);
  required("peer", rules.peer);
  if (const toml::node* lasting = table.get("lasting"); lasting && !generator.until) {
    generator.lasting = reader.duration_range(*lasting, key("lasting"), 0);
  }
  if (const toml::node* amount = table.get("amount")) {
    switch (rules.amount) {
      case Amount::kDuration:
        generator.amount = reader.duration_range(*amount, key("amount"), 0);
        break;
      case Amount::kSignedDuration:
        generator.amount =
            reader.duration_range(*amount, key("amount"), std::numeric_limits<std::int64_t>::min());
        break;
      case Amount::kPpm:
        generator.amount = reader.integer_range(*amount, key("amount"), -1'000'000, 1'000'000);
        break;
      case Amount::kNone:
        break;
    }
  }
  if (const toml::node* probability = table.get("probability")) {
    generator.probability = reader.probability_range(*probability, key("probability"));
  }
  if (const toml::node* peer = table.get("peer")) {
    generator.peer = read_pick(reader, *peer, "peer");
    if (generator.peer->mode == NodePick::Mode::kEvery) {
      reader.fail(*peer, key("peer"), "a peer is a node or 'any-GROUP', not 'every-GROUP'");
    }
  }
}

}  // namespace

FaultGenerator read_fault(const SpecReader& reader, const toml::table& table) {
  FaultGenerator generator;
  generator.line = table.source().begin.line;
  reader.only_keys(table, "[[fault]].",
                   {"kind", "node", "peer", "at", "after", "occurrence", "delay", "after_node", "aim",
                    "within", "until", "until_delay", "lasting", "amount", "probability",
                    "chance", "count"});
  const toml::node* kind = table.get("kind");
  if (kind == nullptr) reader.fail(generator.line, key("kind"), "missing");
  const std::string kind_name = reader.string(*kind, key("kind"));
  const auto parsed = sim::fault_kind_from_string(kind_name);
  if (!parsed) {
    reader.fail(*kind, key("kind"),
                fmt::format("unknown fault kind '{}' (known: {})", kind_name, known_kinds()));
  }
  generator.kind = *parsed;
  const toml::node* node = table.get("node");
  if (node == nullptr) reader.fail(generator.line, key("node"), "missing");
  // Each part checked on its own, so that one [[fault]] reports all its errors.
  reader.attempt([&] { generator.node = read_pick(reader, *node, "node"); });
  reader.attempt([&] { read_timing(reader, table, generator); });
  reader.attempt([&] { read_measures(reader, table, rules_of(generator.kind), generator); });
  if (const toml::node* chance = table.get("chance")) {
    reader.attempt([&] { generator.chance = reader.number(*chance, key("chance"), 0, 1); });
  }
  if (const toml::node* count = table.get("count")) {
    reader.attempt(
        [&] { generator.count = reader.integer_range(*count, key("count"), 0, 1000); });
  }
  return generator;
}

void check_fault(const SpecReader& reader, const FaultGenerator& generator,
                 const sim::World& world) {
  const auto check_pick = [&](const NodePick& pick, std::string_view name) {
    if (pick.mode == NodePick::Mode::kNamed && !world.find_node(pick.name)) {
      reader.fail(pick.line, key(name),
                  fmt::format("unknown node '{}' (nodes: {}; or any-GROUP / every-GROUP with "
                              "GROUP instance, sink, store or node)",
                              pick.name, node_list(world)));
    }
    if (candidates(world, pick).empty()) {
      reader.fail(pick.line, key(name), fmt::format("the workload has no {} node", pick.name));
    }
  };
  check_pick(generator.node, "node");
  const KindRules& rules = rules_of(generator.kind);
  for (const std::string& target : candidates(world, generator.node)) {
    const bool instance = world.node_kind(*world.find_node(target)) == sim::NodeKind::kInstance;
    if (rules.stores_only && instance) {
      reader.fail(generator.node.line, key("node"),
                  fmt::format("a '{}' fault hits a store or a sink, and '{}' can be instance '{}'",
                              sim::to_string(generator.kind), generator.node.text, target));
    }
  }
  if (generator.peer) {
    check_pick(*generator.peer, "peer");
    for (const std::string& target : candidates(world, generator.node)) {
      std::size_t others = 0;
      for (const std::string& peer : candidates(world, *generator.peer)) others += peer != target;
      if (others == 0) {
        reader.fail(generator.peer->line, key("peer"),
                    fmt::format("no peer other than '{}' itself", target));
      }
    }
  }
  if (!generator.after_node.empty() && !world.find_node(generator.after_node)) {
    reader.fail(
        generator.after_node_line, key("after_node"),
        fmt::format("unknown node '{}' (nodes: {})", generator.after_node, node_list(world)));
  }
  const std::int64_t safety_ns = world.options().safety_phase_ns;
  if (generator.at && generator.at->high >= safety_ns) {
    reader.fail(generator.at_line, key("at"),
                fmt::format("{} is not inside the safety phase (0s..{}): it would never fire",
                            format_duration(generator.at->high), format_duration(safety_ns)));
  }
}

void draw_faults(const FaultGenerator& generator, const sim::World& world, sim::Rng& rng,
                 sim::FaultPlan& plan) {
  const bool fires = rng.chance(generator.chance);
  const std::int64_t count = rng.between(generator.count.low, generator.count.high);
  if (!fires) return;
  const std::vector<std::string> nodes = candidates(world, generator.node);
  for (std::int64_t i = 0; i < count; ++i) {
    std::vector<std::string> targets = nodes;
    if (generator.node.mode == NodePick::Mode::kAny) targets = {nodes[rng.below(nodes.size())]};
    for (const std::string& target : targets) {
      sim::Fault fault{};
      fault.kind = generator.kind;
      fault.node = target;
      if (generator.peer) {
        std::vector<std::string> peers;
        for (const std::string& peer : candidates(world, *generator.peer)) {
          if (peer != target) peers.push_back(peer);
        }
        fault.peer = peers[rng.below(peers.size())];
      }
      if (generator.at) fault.at_ns = rng.between(generator.at->low, generator.at->high);
      if (generator.after) {
        fault.trigger = sim::Trigger{
            *generator.after,
            static_cast<int>(rng.between(generator.occurrence.low, generator.occurrence.high)),
            rng.between(generator.delay.low, generator.delay.high), generator.after_node};
        if (generator.aim || generator.until) {
          // Drawn only for aimed faults: the other generators' draws stay as they were.
          sim::Trigger& t = *fault.trigger;
          t.aim = generator.aim.value_or(sim::Aim::kEvent);
          const double spread = generator.within.high - generator.within.low;
          t.within_permille = std::clamp(
              static_cast<int>(1000 * (generator.within.low + spread * rng.unit())), 1, 999);
          t.until = generator.until.value_or(sim::Aim::kEvent);
          t.until_delay_ns = rng.between(generator.until_delay.low, generator.until_delay.high);
          if (t.aim == sim::Aim::kInFlight) t.delay_ns = 0;
        }
      }
      fault.duration_ns = rng.between(generator.lasting.low, generator.lasting.high);
      fault.amount = rng.between(generator.amount.low, generator.amount.high);
      const double spread = generator.probability.high - generator.probability.low;
      fault.probability = generator.probability.low + spread * rng.unit();
      plan.faults.push_back(std::move(fault));
    }
  }
}

namespace {

std::string duration_text(const Range& range) {
  if (range.low == range.high) return format_duration(range.low);
  return fmt::format("{}..{}", format_duration(range.low), format_duration(range.high));
}

std::string integer_text(const Range& range) {
  if (range.low == range.high) return std::to_string(range.low);
  return fmt::format("{}..{}", range.low, range.high);
}

}  // namespace

std::string describe(const FaultGenerator& generator) {
  const KindRules& rules = rules_of(generator.kind);
  std::string text = fmt::format("{} on {}", sim::to_string(generator.kind), generator.node.text);
  if (generator.peer) text += fmt::format(" and {}", generator.peer->text);
  if (generator.at) {
    text += fmt::format(", at {}", duration_text(*generator.at));
  } else if (generator.after) {
    text += fmt::format(", after {} #{} of {}", runtime::to_string(*generator.after),
                        integer_text(generator.occurrence),
                        generator.after_node.empty() ? "its node" : generator.after_node);
    if (generator.aim == sim::Aim::kInFlight) {
      text += fmt::format(", aimed in flight at {:g}..{:g} of the way", generator.within.low,
                          generator.within.high);
    } else if (generator.aim) {
      text += fmt::format(", aimed at {} offset by {}", sim::to_string(*generator.aim),
                          duration_text(generator.delay));
    } else if (generator.delay.high > 0) {
      text += fmt::format(" + {}", duration_text(generator.delay));
    }
  }
  if (generator.until) {
    text += fmt::format(", until {} offset by {}", sim::to_string(*generator.until),
                        duration_text(generator.until_delay));
  } else if (rules.lasting) {
    text += fmt::format(", lasting {}", duration_text(generator.lasting));
  }
  switch (rules.amount) {
    case Amount::kDuration:
    case Amount::kSignedDuration:
      text += fmt::format(", amount {}", duration_text(generator.amount));
      break;
    case Amount::kPpm:
      text += fmt::format(", amount {} ppm", integer_text(generator.amount));
      break;
    case Amount::kNone:
      break;
  }
  if (rules.probability) {
    text += generator.probability.low == generator.probability.high
                ? fmt::format(", probability {:g}", generator.probability.low)
                : fmt::format(", probability {:g}..{:g}", generator.probability.low,
                              generator.probability.high);
  }
  if (generator.chance < 1) text += fmt::format(", chance {:g}", generator.chance);
  text += fmt::format(", count {} (line {})", integer_text(generator.count), generator.line);
  return text;
}

std::vector<std::string> event_names() {
  std::vector<std::string> names;
  for (int value = 0; value <= static_cast<int>(runtime::kLastEventKind); ++value) {
    names.emplace_back(runtime::to_string(static_cast<runtime::EventKind>(value)));
  }
  return names;
}

std::vector<std::string> fault_kind_names() {
  std::vector<std::string> names;
  for (const KindRules& rules : kRules) names.emplace_back(sim::to_string(rules.kind));
  return names;
}

}  // namespace fencesim::scenarios::spec
