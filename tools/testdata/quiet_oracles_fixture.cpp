// A fixture of tools/test_quiet_oracles.py: every form a report takes in properties/, and forms
// that look alike but report nothing. Each reporting site carries `// site: KIND LABELS`, LABELS
// the reports it makes in main's run (`-`: none), main printing every report it gets; the test
// checks that the site finder finds exactly these sites and that silencing one drops exactly its
// labels. A push also carries `first-only: LABELS` (`-`: none; `skipped`), the reports its run
// loses when quiet-oracles.py --first-only stops its function right after that push; a site
// without one must be skipped by that mode. Built alone: no fencesim.
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmt {
template <typename... Args>
std::string format(const char* text, Args&&...) {
  return text;
}
}  // namespace fmt

namespace fixture {

struct Violation {
  std::string invariant;
  std::string message;
  std::vector<std::uint64_t> events;
};

Violation violation(std::string_view invariant, std::string message,
                    std::vector<std::uint64_t> events) {
  return Violation{std::string(invariant), std::move(message), std::move(events)};
}

// An oracle's own `out`: on one line, broken after the call, and a Violation built in place.
void check_forms(int n, std::vector<Violation>& out) {
  std::vector<Violation> kept;
  // site: push push-one-line first-only: push-broken,push-braced,kept
  if (n > 0) out.push_back(violation("o", "push-one-line", {1}));
  // site: push push-broken first-only: push-braced,kept
  out.push_back(
      violation("o", fmt::format("push-broken {}", n), {1, 2}));
  out.push_back(Violation{"o", "push-braced", {}});  // site: push push-braced first-only: kept
  kept.push_back(Violation{"o", "kept", {}});  // site: push kept first-only: kept
  for (const Violation& v : kept) out.push_back(v);  // a copy, not a report built here
}

// An oracle judging each item: the push a bare `if`'s body in a loop, an `else` after it; made
// first-only it reports the first item only (the bug --first-only plants).
void check_each(const std::vector<int>& items, std::vector<Violation>& out) {
  for (int n : items) {
    if (n > 0)
      // site: push each-first,each-second first-only: each-second
      out.push_back(violation("e", n == 1 ? "each-first" : "each-second", {}));
    else
      continue;
  }
}

// A push in a lambda: its `return` would leave the lambda only, so --first-only skips it.
void check_late(std::vector<Violation>& out) {
  auto late = [&](const char* what) {
    out.push_back(violation("l", what, {}));  // site: push late first-only: skipped
  };
  late("late");
}

// A judge class: its own `out_`, and a helper whose whole body is the push.
class Judge {
 public:
  explicit Judge(std::vector<Violation>& out) : out_(out) {}
  void judge(int n) {
    if (n > 0)
      report("helper-then", {1, 2});  // site: helper helper-then
    else
      report("never", {});  // site: helper -
    if (n > 1) {
      report(fmt::format("helper-block {}", n),  // site: helper helper-block
             {3});
    }
    out_.push_back(violation("j", "push-member", {4}));  // site: push push-member first-only: -
  }

 private:
  void report(std::string message, std::vector<std::uint64_t> events) {
    // site: push helper-then,helper-block first-only: skipped
    out_.push_back(violation("j", std::move(message), std::move(events)));
  }
  std::vector<Violation>& out_;
};

// A reference model: a message returned is a disagreement; a word built for one is not.
std::string words(int n) {
  return fmt::format("words {}", n);
}

std::optional<std::string> differs(int n) {
  if (n < 0) return std::nullopt;
  return fmt::format("differ-format {}; {}",  // site: differ differ-format
                     words(n), ";");
}

std::optional<std::string> differs_literal(int n) {
  if (n > 0) return "differ-literal";  // site: differ differ-literal
  return std::nullopt;
}

// A mark rule: each reach is a site; the callback passed on is not.
class Rule {
 public:
  using Reach = std::function<void(std::string_view mark)>;
  void observe(int n, const Reach& reach) {
    if (n > 0) reach("reach-literal");  // site: reach reach-literal
    reach(n > 1 ? "reach-chosen" : "never");  // site: reach reach-chosen
    forward(n, reach);
  }

 private:
  void forward(int, const Reach& reach) { (void)reach; }
};

}  // namespace fixture

int main() {
  using namespace fixture;
  std::vector<Violation> out;
  check_forms(1, out);
  check_each({1, 2}, out);
  check_late(out);
  Judge(out).judge(2);
  for (const Violation& v : out) std::cout << v.message.substr(0, v.message.find(' ')) << "\n";
  for (const std::optional<std::string>& d : {differs(1), differs_literal(1)}) {
    if (d) std::cout << d->substr(0, d->find(' ')) << "\n";
  }
  Rule().observe(2, [](std::string_view mark) { std::cout << mark << "\n"; });
}
