// siblings-named-apart (properties/invariants_sibling_names.h).
#include "properties/invariants_sibling_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

namespace fencesim::properties {

namespace {

// A name as a report can print it: every byte outside printable ASCII, and '\', as \xHH.
std::string printable(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && byte != '\\') {
      out += c;
    } else {
      out += fmt::format("\\x{:02X}", byte);
    }
  }
  return out;
}

// The first name that `names` holds twice, if any.
const std::string* repeated(const std::vector<const std::string*>& names) {
  std::set<std::string> seen;
  for (const std::string* name : names) {
    if (!seen.insert(*name).second) return name;
  }
  return nullptr;
}

class Walk {
 public:
  Walk(const WorkflowLookup& find, std::vector<Violation>& out) : find_(find), out_(out) {}

  // Judges `workflow` and every workflow its children run, each once per run.
  void visit(const std::string& workflow, const std::string& root, int depth) {
    // A workflow the registry does not hold (or a cycle) is the runtime's failure to run, judged
    // elsewhere (own-workflow, liveness).
    if (depth > 16) return;
    const runtime::Workflow* definition = find_(workflow);
    if (definition == nullptr || !judged_.insert(workflow).second) return;
    std::vector<const std::string*> items;
    for (const runtime::WorkflowItem& item : definition->items) {
      if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
        items.push_back(&step->name);
        continue;
      }
      const auto& group = std::get<runtime::GroupItem>(item);
      items.push_back(&group.name);
      std::vector<const std::string*> children;
      for (const runtime::ChildItem& child : group.children) children.push_back(&child.name);
      if (const std::string* twice = repeated(children)) {
        report(workflow, root,
               fmt::format("two children of group '{}' named '{}'", printable(group.name),
                           printable(*twice)));
      }
      if (std::any_of(children.begin(), children.end(),
                      [](const std::string* name) { return name->empty(); })) {
        report(workflow, root,
               fmt::format("a child of group '{}' named '' (its path is its group's)",
                           printable(group.name)));
      }
      for (const runtime::ChildItem& child : group.children) visit(child.workflow, root, depth + 1);
    }
    if (const std::string* twice = repeated(items)) {
      report(workflow, root,
             fmt::format("two items (steps or groups) of its level named '{}'", printable(*twice)));
    }
    // An empty name is a path part that names nothing: a group named '' gives its children the
    // paths of its level's items, a step named '' the path of its tree.
    if (std::any_of(items.begin(), items.end(),
                    [](const std::string* name) { return name->empty(); })) {
      report(workflow, root, "an item (a step or a group) of its level named ''");
    }
  }

 private:
  void report(const std::string& workflow, const std::string& root, const std::string& what) {
    out_.push_back(Violation{
        std::string(SiblingsNamedApart{}.name()),
        fmt::format("workflow '{}' (reached from submitted root workflow '{}') was deployed with "
                    "{}: the registry accepted a workflow whose items do not each have a path of "
                    "their own",
                    printable(workflow), printable(root), what),
        {}});
  }

  const WorkflowLookup& find_;
  std::vector<Violation>& out_;
  std::set<std::string> judged_;
};

}  // namespace

void check_siblings_named_apart(const WorkflowLookup& find, const std::vector<std::string>& roots,
                                std::vector<Violation>& out) {
  Walk walk(find, out);
  for (const std::string& root : roots) walk.visit(root, root, 0);
}

void SiblingsNamedApart::check(const sim::World& world, std::vector<Violation>& out) const {
  const runtime::WorkflowRegistry& registry = world.workflows();
  const WorkflowLookup find = [&registry](const std::string& name) -> const runtime::Workflow* {
    return registry.contains(name) ? &registry.get(name) : nullptr;
  };
  std::vector<std::string> roots;
  for (const sim::World::Submission& submission : world.submissions()) {
    roots.push_back(submission.workflow);
  }
  check_siblings_named_apart(find, roots, out);
}

}  // namespace fencesim::properties
