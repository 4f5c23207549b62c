// What only the PostgreSQL stores promise beyond the contracts: expiry judged by the server's
// clock, an unreachable server or another schema version refused at open with one line, and
// takers on separate connections never sharing an epoch.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "runtime/observer.h"
#include "runtime/testing/stepped_clock.h"
#include "stores/postgres/postgres_lease_repository.h"
#include "stores/store_setup_error.h"
#include "stores/testing/test_stores.h"

namespace fencesim::stores::postgres_store_test {
namespace {

using runtime::LeaseKey;
using runtime::Nanoseconds;
using runtime::TakeStatus;

runtime::NullObserver null_observer;

Nanoseconds server_now_ns(const std::string& address) {
  pqxx::connection connection(address);
  pqxx::work work(connection);
  return work.exec("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000")[0][0]
      .as<Nanoseconds>();
}

TEST(PostgresStores, ExpiryIsJudgedByTheServersClock) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return;
  const std::string address = testing::env_or_empty("FENCESIM_POSTGRES");
  PostgresLeaseRepository leases(*database, null_observer);  // no clock of ours at all
  const LeaseKey key{"t", "e"};
  constexpr Nanoseconds kTtl = 3600 * runtime::kSecond;

  const Nanoseconds before = server_now_ns(address);
  const runtime::TakeResult taken = leases.take(key, "holder-a", kTtl);
  const Nanoseconds after = server_now_ns(address);
  ASSERT_EQ(taken.status, TakeStatus::kTaken);
  EXPECT_GE(taken.lease.expires_at_ns, before + kTtl);
  EXPECT_LE(taken.lease.expires_at_ns, after + kTtl);

  // A lease that ends in the server's past is expired, whatever any caller's clock says: a take
  // succeeds, and a renewal of the expired epoch is refused.
  const runtime::TakeResult brief = leases.take({"t", "brief"}, "holder-a", 1);
  ASSERT_EQ(brief.status, TakeStatus::kTaken);
  while (server_now_ns(address) <= brief.lease.expires_at_ns) {
  }
  EXPECT_EQ(leases.renew({"t", "brief"}, "holder-a", 1, kTtl).status,
            runtime::RenewStatus::kExpired);
  EXPECT_EQ(leases.take({"t", "brief"}, "holder-b", kTtl).lease.token, runtime::Token{2});
}

TEST(PostgresStores, AnUnreachableServerIsRefusedAtOpenWithOneLine) {
  try {
    PostgresDatabase database("host=127.0.0.1 port=1 user=fencesim dbname=postgres");
    ADD_FAILURE() << "opened a server at port 1";
  } catch (const StoreSetupError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot reach PostgreSQL"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(PostgresStores, ALostConnectionIsStoreUnavailableNotAnAnswer) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return;
  const std::string address = testing::env_or_empty("FENCESIM_POSTGRES");
  PostgresLeaseRepository leases(*database, null_observer);
  ASSERT_EQ(leases.take({"t", "e"}, "holder-a", runtime::kSecond).status, TakeStatus::kTaken);
  {
    // The server ends the store's session (a restart, a failover, an idle-session kill); only
    // that one: other tests may share the server.
    pqxx::connection admin(address);
    pqxx::work work(admin);
    work.exec_params("SELECT pg_terminate_backend($1)", database->backend_pid());
    work.commit();
  }
  // The caller cannot know whether its call took effect: the contract's StoreUnavailableError.
  EXPECT_THROW(leases.renew({"t", "e"}, "holder-a", 1, runtime::kSecond),
               runtime::StoreUnavailableError);
}

TEST(PostgresStores, AnotherSchemaVersionIsRefusedAtOpen) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return;
  const std::string address = testing::env_or_empty("FENCESIM_POSTGRES");
  {
    pqxx::connection connection(address);
    pqxx::work work(connection);
    work.exec("UPDATE " + database->schema_name() + ".fencesim_schema SET version = 99");
    work.commit();
  }
  try {
    PostgresDatabase again(address, database->schema_name());
    ADD_FAILURE() << "opened schema version 99";
  } catch (const StoreSetupError& error) {
    EXPECT_NE(std::string(error.what()).find("schema version 99"), std::string::npos)
        << error.what();
  }
}

TEST(PostgresStores, ConcurrentTakersOnSeparateConnectionsNeverShareAnEpoch) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return;
  const std::string address = testing::env_or_empty("FENCESIM_POSTGRES");
  constexpr int kThreads = 4;
  constexpr int kRounds = 40;
  std::vector<std::vector<runtime::Token>> granted(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      PostgresDatabase connection(address, database->schema_name());
      PostgresLeaseRepository leases(connection, null_observer);
      for (int round = 0; round < kRounds; ++round) {
        // 1 ns leases by the server's clock: every round's take finds the last one expired.
        const auto result = leases.take({"t", "shared"}, "holder-" + std::to_string(t), 1);
        if (result.status == TakeStatus::kTaken)
          granted[static_cast<std::size_t>(t)].push_back(result.lease.token);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<runtime::Token> all;
  std::size_t count = 0;
  for (const auto& tokens : granted) {
    count += tokens.size();
    all.insert(tokens.begin(), tokens.end());
  }
  EXPECT_EQ(all.size(), count) << "an epoch was granted twice";
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(*all.begin(), runtime::Token{1});
  EXPECT_EQ(*all.rbegin(), runtime::Token{count}) << "epochs have a gap";
}

}  // namespace
}  // namespace fencesim::stores::postgres_store_test
