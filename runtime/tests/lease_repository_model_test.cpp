// A stateful model test of MemoryLeaseRepository: random runs of take, renew, release and store
// clock moves (forward, and wall-clock steps either way) over three keys, each call checked against
// a model of the contract in runtime/lease_repository.h.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>

#include "runtime/memory_lease_repository.h"
#include "runtime/observer.h"
#include "runtime/testing/stepped_clock.h"

namespace fencesim::runtime::lease_repository_model_test {
namespace {

using StoreClock = testing::SteppedClock;

constexpr int kKeys = 3;
constexpr int kHolders = 3;

LeaseKey key_of(int index) {
  return LeaseKey{"tenant", "exec-" + std::to_string(index)};
}
HolderId holder_of(int index) {
  return "holder-" + std::to_string(index);
}

// What the contract says a key holds. epoch 0: never taken.
struct KeyModel {
  Token epoch = kTokenNone;
  HolderId holder;
  Nanoseconds expires_at_ns = 0;
  bool released = false;

  bool live_at(Nanoseconds now) const {
    return epoch != kTokenNone && !released && now < expires_at_ns;
  }
};

struct Model {
  Nanoseconds wall_ns = StoreClock::kStartWallNs;  // the store's wall clock
  std::array<KeyModel, kKeys> keys;
};

struct Sut {
  StoreClock clock;
  NullObserver observer;
  MemoryLeaseRepository repo{clock, observer};
};

// One printable line per lease, so a failing assertion shows what differed. A released lease's
// expiry is left out: the contract says it ended, not what its expiry field then holds.
std::string describe(const std::optional<Lease>& lease) {
  if (!lease) return "none";
  std::ostringstream out;
  out << to_string(lease->key) << " holder=" << lease->holder << " token=" << lease->token;
  if (lease->released) {
    out << " released";
  } else {
    out << " expires=" << lease->expires_at_ns;
  }
  return out.str();
}

std::optional<Lease> expected_lease(const Model& model, int key) {
  const KeyModel& k = model.keys[static_cast<std::size_t>(key)];
  if (k.epoch == kTokenNone) return std::nullopt;
  return Lease{key_of(key), k.holder, k.epoch, k.expires_at_ns, k.released};
}

std::string describe(TakeStatus status) {
  return status == TakeStatus::kTaken ? "taken" : "held";
}
std::string describe(RenewStatus status) {
  return std::string(to_string(status));
}
std::string describe(ReleaseStatus status) {
  return status == ReleaseStatus::kReleased ? "released" : "refused";
}

// Every key of the store reads back as the model says.
void assert_store_matches(const Model& model, Sut& sut) {
  for (int key = 0; key < kKeys; ++key) {
    RC_ASSERT(describe(sut.repo.read(key_of(key))) == describe(expected_lease(model, key)));
  }
}

using Command = rc::state::Command<Model, Sut>;

rc::Gen<int> gen_key() {
  return rc::gen::inRange(0, kKeys);
}
rc::Gen<int> gen_holder() {
  return rc::gen::inRange(0, kHolders);
}
rc::Gen<Nanoseconds> gen_ttl() {
  return rc::gen::map(rc::gen::inRange(1, 21), [](int s) { return s * kSecond; });
}
// Near the key's epoch, where the interesting refusals are: current, one behind, one ahead.
Token near_epoch(const Model& model, int key) {
  const Token epoch = model.keys[static_cast<std::size_t>(key)].epoch;
  const int delta = *rc::gen::inRange(-1, 2);
  if (delta < 0) return epoch == kTokenNone ? kTokenNone : epoch - 1;
  return epoch + static_cast<Token>(delta);
}

struct Take : Command {
  int key = *gen_key();
  int holder = *gen_holder();
  Nanoseconds ttl = *gen_ttl();

  void apply(Model& model) const override {
    KeyModel& k = model.keys[static_cast<std::size_t>(key)];
    if (k.live_at(model.wall_ns)) return;
    k = KeyModel{k.epoch + 1, holder_of(holder), model.wall_ns + ttl, false};
  }
  void run(const Model& model, Sut& sut) const override {
    const KeyModel& before = model.keys[static_cast<std::size_t>(key)];
    const TakeResult result = sut.repo.take(key_of(key), holder_of(holder), ttl);
    const Model after = nextState(model);
    const bool live = before.live_at(model.wall_ns);
    RC_ASSERT(describe(result.status) == describe(live ? TakeStatus::kHeld : TakeStatus::kTaken));
    // kHeld reports the lease that refused; kTaken the new one. Either is the model's after.
    RC_ASSERT(describe(result.lease) == describe(expected_lease(after, key)));
    if (!live) {
      RC_ASSERT(result.lease.token == before.epoch + 1);  // no gap, no reuse
      RC_ASSERT(result.lease.expires_at_ns == sut.clock.wall_ns() + ttl);
    }
    assert_store_matches(after, sut);
  }
  void show(std::ostream& os) const override {
    os << "Take(key " << key << ", " << holder_of(holder) << ", ttl " << ttl / kSecond << "s)";
  }
};

struct Renew : Command {
  int key;
  int holder;
  Token token;
  Nanoseconds ttl;

  explicit Renew(const Model& model)
      : key(*gen_key()), holder(*gen_holder()), token(near_epoch(model, key)), ttl(*gen_ttl()) {}

  static std::optional<RenewStatus> refusal(const KeyModel& k, const HolderId& holder, Token token,
                                            Nanoseconds now) {
    if (k.epoch == kTokenNone) return RenewStatus::kUnknownKey;
    if (k.epoch != token) return RenewStatus::kStale;
    if (k.holder != holder) return RenewStatus::kNotHolder;
    if (k.released) return RenewStatus::kReleased;
    if (!k.live_at(now)) return RenewStatus::kExpired;
    return std::nullopt;
  }
  void apply(Model& model) const override {
    KeyModel& k = model.keys[static_cast<std::size_t>(key)];
    if (refusal(k, holder_of(holder), token, model.wall_ns)) return;
    k.expires_at_ns = model.wall_ns + ttl;
  }
  void run(const Model& model, Sut& sut) const override {
    const KeyModel& before = model.keys[static_cast<std::size_t>(key)];
    const std::optional<Lease> read_before = sut.repo.read(key_of(key));
    const RenewResult result = sut.repo.renew(key_of(key), holder_of(holder), token, ttl);
    const Model after = nextState(model);
    const std::optional<RenewStatus> refused =
        refusal(before, holder_of(holder), token, model.wall_ns);
    RC_ASSERT(describe(result.status) == describe(refused.value_or(RenewStatus::kRenewed)));
    RC_ASSERT(describe(result.lease) == describe(expected_lease(after, key)));
    if (refused) {
      RC_ASSERT(describe(sut.repo.read(key_of(key))) == describe(read_before));  // nothing moved
    } else {
      RC_ASSERT(result.lease->token == token);  // a renewal keeps the epoch
      RC_ASSERT(result.lease->expires_at_ns == sut.clock.wall_ns() + ttl);
    }
    assert_store_matches(after, sut);
  }
  void show(std::ostream& os) const override {
    os << "Renew(key " << key << ", " << holder_of(holder) << ", token " << token << ", ttl "
       << ttl / kSecond << "s)";
  }
};

struct Release : Command {
  int key;
  int holder;
  Token token;

  explicit Release(const Model& model)
      : key(*gen_key()), holder(*gen_holder()), token(near_epoch(model, key)) {}

  bool accepted(const Model& model) const {
    const KeyModel& k = model.keys[static_cast<std::size_t>(key)];
    return k.epoch == token && k.holder == holder_of(holder) && k.live_at(model.wall_ns);
  }
  void apply(Model& model) const override {
    if (!accepted(model)) return;
    KeyModel& k = model.keys[static_cast<std::size_t>(key)];
    k.released = true;
  }
  void run(const Model& model, Sut& sut) const override {
    const ReleaseStatus status = sut.repo.release(key_of(key), holder_of(holder), token);
    RC_ASSERT(describe(status) ==
              describe(accepted(model) ? ReleaseStatus::kReleased : ReleaseStatus::kRefused));
    const Model after = nextState(model);
    const std::optional<Lease> read = sut.repo.read(key_of(key));
    if (read) RC_ASSERT(!read->live_at(sut.clock.wall_ns()) || !accepted(model));
    assert_store_matches(after, sut);
  }
  void show(std::ostream& os) const override {
    os << "Release(key " << key << ", " << holder_of(holder) << ", token " << token << ")";
  }
};

// True time passes: the store's wall and monotonic clocks both move.
struct AdvanceClock : Command {
  Nanoseconds duration = *rc::gen::weightedOneOf<Nanoseconds>({
      {3, rc::gen::map(rc::gen::inRange(0, 6), [](int s) { return s * kSecond; })},
      {1, rc::gen::map(rc::gen::inRange(0, 41), [](int s) { return s * kSecond; })},
      {1, rc::gen::map(rc::gen::inRange(0, 3), [](int ns) { return Nanoseconds{ns}; })},
  });

  void apply(Model& model) const override { model.wall_ns += duration; }
  void run(const Model& model, Sut& sut) const override {
    sut.clock.advance(duration);
    RC_ASSERT(sut.clock.wall_ns() == nextState(model).wall_ns);
    assert_store_matches(model, sut);  // time alone changes no stored lease
  }
  void show(std::ostream& os) const override { os << "AdvanceClock(" << duration << "ns)"; }
};

// The store's wall clock steps, either way; expiry follows it, so a backward step is legitimate.
struct StepStoreClock : Command {
  Nanoseconds delta = *rc::gen::map(rc::gen::inRange(-10, 11), [](int s) { return s * kSecond; });

  void apply(Model& model) const override { model.wall_ns += delta; }
  void run(const Model& model, Sut& sut) const override {
    sut.clock.step_wall_clock(delta);
    RC_ASSERT(sut.clock.wall_ns() == nextState(model).wall_ns);
    assert_store_matches(model, sut);
  }
  void show(std::ostream& os) const override { os << "StepStoreClock(" << delta << "ns)"; }
};

RC_GTEST_PROP(MemoryLeaseRepositoryModel, AgreesWithTheContractModel, ()) {
  Sut sut;
  rc::state::check(
      Model{}, sut,
      rc::state::gen::execOneOfWithArgs<Take, Renew, Release, AdvanceClock, StepStoreClock>());
}

}  // namespace
}  // namespace fencesim::runtime::lease_repository_model_test
