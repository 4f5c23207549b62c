// A fixture of tools/test_quiet_oracles.py: every form a report takes in properties/, and forms
// that look alike but report nothing. Each reporting site carries `// site: KIND LABELS`, LABELS
// the reports it makes in main's run (`-`: none), main printing every report it gets; the test
// checks that the site finder finds exactly these sites and that silencing one drops exactly its
// labels. A push also carries `first-only: LABELS` (`-`: none; `skipped`; `unchanged`), the
// reports its run loses when quiet-oracles.py --first-only stops its function right after that
// push; `unchanged` marks a push that is already the last statement its function runs, which the
// mode must skip and where its edit, planted anyway, must lose nothing. Built alone: no fencesim.
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

// The ends of an if/else-if chain closing a helper (invariants_scope_key.cpp's scope_seen, a bare
// block around the last): each push is the last statement the function runs.
void check_chain(int n, std::vector<Violation>& out) {
  if (n == 1) {
    // site: push chain-one first-only: unchanged
    out.push_back(violation("c", "chain-one", {}));
  } else if (n == 2)
    // site: push chain-two first-only: unchanged
    out.push_back(violation("c", "chain-two", {}));
  else {
    {
      // site: push chain-else first-only: unchanged
      out.push_back(violation("c", "chain-else", {}));
    }
  }
}

// Near misses: pushes that end a block, and yet are not the last statement their function
// runs: a braced branch is followed by a statement, a switch case falls through, a do-while
// loops.
void check_near_misses(int n, std::vector<Violation>& out) {
  if (n > 0) {
    // site: push then-block first-only: after,case-2,case-1,loop-1,loop-2
    out.push_back(violation("m", "then-block", {}));
  }
  // site: push after first-only: case-2,case-1,loop-1,loop-2
  out.push_back(violation("m", "after", {}));
  switch (n) {
    case 2:
      // site: push case-2 first-only: case-1,loop-1,loop-2
      out.push_back(violation("m", "case-2", {}));
      [[fallthrough]];
    case 1:
      out.push_back(violation("m", "case-1", {}));  // site: push case-1 first-only: loop-1,loop-2
      break;
    default:
      break;
  }
  int round = 0;
  do {
    ++round;
    if (round > 0) {
      // site: push loop-1,loop-2 first-only: loop-2
      out.push_back(violation("m", round == 1 ? "loop-1" : "loop-2", {}));
    }
  } while (round < 2);
}

// The last statement of the function's text, but a loop's unbraced body: it runs again.
void check_tail(const std::vector<int>& items, std::vector<Violation>& out) {
  for (int item : items)
    if (item > 0)
      // site: push tail-1,tail-2 first-only: tail-2
      out.push_back(violation("t", item == 1 ? "tail-1" : "tail-2", {}));
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
    // site: push push-member first-only: unchanged
    out_.push_back(violation("j", "push-member", {4}));
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
  check_chain(1, out);
  check_chain(2, out);
  check_chain(3, out);
  check_near_misses(2, out);
  check_tail({1, 2}, out);
  Judge(out).judge(2);
  for (const Violation& v : out) std::cout << v.message.substr(0, v.message.find(' ')) << "\n";
  for (const std::optional<std::string>& d : {differs(1), differs_literal(1)}) {
    if (d) std::cout << d->substr(0, d->find(' ')) << "\n";
  }
  Rule().observe(2, [](std::string_view mark) { std::cout << mark << "\n"; });
}
