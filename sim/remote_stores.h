#pragma once
// The runtime's stores as seen from an instance node: each call is a request over the simulated
// network to the node that hosts the store, handled there by the runtime's own implementation.
#include "runtime/checkpoint_store.h"
#include "runtime/lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "sim/network.h"

namespace fencesim::sim {

struct Route {
  Network& network;
  NodeId from;
  NodeId to;
};

class RemoteLeaseRepository final : public runtime::ExecutionLeaseRepository {
 public:
  RemoteLeaseRepository(Route route, runtime::ExecutionLeaseRepository& target)
      : route_(route), target_(target) {}
  runtime::TakeResult take(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                           runtime::Nanoseconds ttl_ns) override {
    return route_.network.call<runtime::TakeResult>(
        route_.from, route_.to, "take", [=, this] { return target_.take(key, holder, ttl_ns); });
  }
  runtime::RenewResult renew(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                             runtime::Token token, runtime::Nanoseconds ttl_ns) override {
    return route_.network.call<runtime::RenewResult>(route_.from, route_.to, "renew", [=, this] {
      return target_.renew(key, holder, token, ttl_ns);
    });
  }
  runtime::ReleaseStatus release(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                                 runtime::Token token) override {
    return route_.network.call<runtime::ReleaseStatus>(
        route_.from, route_.to, "release",
        [=, this] { return target_.release(key, holder, token); });
  }
  std::optional<runtime::Lease> read(const runtime::LeaseKey& key) override {
    return route_.network.call<std::optional<runtime::Lease>>(
        route_.from, route_.to, "read", [=, this] { return target_.read(key); });
  }

 private:
  Route route_;
  runtime::ExecutionLeaseRepository& target_;
};

class RemoteCheckpointStore final : public runtime::CheckpointStore {
 public:
  RemoteCheckpointStore(Route route, runtime::CheckpointStore& target)
      : route_(route), target_(target) {}
  runtime::CommitResult commit_step(const runtime::LeaseKey& key, runtime::Token token,
                                    const std::string& step_path) override {
    return route_.network.call<runtime::CommitResult>(
        route_.from, route_.to, "checkpoint",
        [=, this] { return target_.commit_step(key, token, step_path); });
  }
  runtime::CommitResult commit_tree(const runtime::LeaseKey& key, runtime::Token token) override {
    return route_.network.call<runtime::CommitResult>(
        route_.from, route_.to, "checkpoint-tree",
        [=, this] { return target_.commit_tree(key, token); });
  }
  runtime::Checkpoint load(const runtime::LeaseKey& key) override {
    return route_.network.call<runtime::Checkpoint>(route_.from, route_.to, "load",
                                                    [=, this] { return target_.load(key); });
  }

 private:
  Route route_;
  runtime::CheckpointStore& target_;
};

class RemotePlacementQueue final : public runtime::PlacementQueue {
 public:
  RemotePlacementQueue(Route route, runtime::PlacementQueue& target)
      : route_(route), target_(target) {}
  void place(const runtime::LeaseKey& key, const std::string& workflow,
             const std::optional<runtime::LeaseKey>& parent) override {
    route_.network.call<bool>(route_.from, route_.to, "place", [=, this] {
      target_.place(key, workflow, parent);
      return true;
    });
  }
  std::vector<runtime::Placement> pending() override {
    return route_.network.call<std::vector<runtime::Placement>>(
        route_.from, route_.to, "pending", [this] { return target_.pending(); });
  }
  void finish(const runtime::LeaseKey& key) override {
    route_.network.call<bool>(route_.from, route_.to, "finish", [=, this] {
      target_.finish(key);
      return true;
    });
  }
  std::optional<runtime::Placement> find(const runtime::LeaseKey& key) override {
    return route_.network.call<std::optional<runtime::Placement>>(
        route_.from, route_.to, "find", [=, this] { return target_.find(key); });
  }

 private:
  Route route_;
  runtime::PlacementQueue& target_;
};

class RemoteSink final : public runtime::Sink {
 public:
  RemoteSink(Route route, runtime::Sink& target) : route_(route), target_(target) {}
  const std::string& name() const override { return target_.name(); }
  runtime::SinkReply write(const runtime::SinkWrite& write) override {
    return route_.network.call<runtime::SinkReply>(route_.from, route_.to, "write " + name(),
                                                   [=, this] { return target_.write(write); });
  }

 private:
  Route route_;
  runtime::Sink& target_;
};

}  // namespace fencesim::sim
