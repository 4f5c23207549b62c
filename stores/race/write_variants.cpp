#include "stores/race/write_variants.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include "stores/race/named_statements.h"

namespace fencesim::stores::race {
namespace {

using Statements = std::map<std::string, std::string>;

void pause(int gap_us) {
  if (gap_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
}

// The highest $N a statement uses: PostgreSQL wants exactly that many parameters.
int parameters_of(const std::string& text) {
  int highest = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '$' && text[i + 1] >= '1' && text[i + 1] <= '9') {
      highest = std::max(highest, text[i + 1] - '0');
    }
  }
  return highest;
}

// Runs a statement with the parameters it uses, in the order of the files:
// $1 scope key, $2 token, $3 idempotency key, $4 payload.
pqxx::result run(pqxx::transaction_base& tx, const Statements& sql, const char* name,
                 const Write& w) {
  const std::string& text = sql.at(name);
  switch (parameters_of(text)) {
    case 1:
      return tx.exec_params(text, w.scope_key);
    case 2:
      return tx.exec_params(text, w.scope_key, w.token);
    case 4:
      return tx.exec_params(text, w.scope_key, w.token, w.idempotency_key, w.payload);
    default:
      throw std::runtime_error(std::string("statement ") + name + " wants 1, 2 or 4 parameters");
  }
}

// The mark as read by `name` (a SELECT of one token), 0 when the scope key has none yet.
std::int64_t read_mark(pqxx::transaction_base& tx, const Statements& sql, const char* name,
                       const Write& w) {
  const pqxx::result rows = run(tx, sql, name, w);
  return rows.empty() ? 0 : rows[0][0].as<std::int64_t>();
}

Outcome insert_effect(pqxx::transaction_base& tx, const Statements& sql, const Write& w) {
  return run(tx, sql, "insert_effect", w).empty() ? Outcome::kDeduplicated : Outcome::kApplied;
}

// write_read_committed.sql: one statement (also the per-attempt-key pitfall's SQL).
class ConditionalUpsert final : public WriteVariant {
 public:
  ConditionalUpsert(const VariantOptions& options, const std::string& file, bool per_attempt)
      : sql_(read_named_statements(options.sql_folder + "/" + file)), per_attempt_(per_attempt) {}
  Outcome write(pqxx::connection& connection, const Write& w, int&) override {
    pqxx::work tx(connection);
    const std::string outcome = run(tx, sql_, "write", w)[0][0].as<std::string>();
    tx.commit();
    if (outcome == "applied") return Outcome::kApplied;
    if (outcome == "deduplicated") return Outcome::kDeduplicated;
    return Outcome::kRefused;
  }
  bool key_per_attempt() const override { return per_attempt_; }

 private:
  Statements sql_;
  bool per_attempt_;
};

// write_read_committed_row_lock.sql.
class RowLock final : public WriteVariant {
 public:
  explicit RowLock(const VariantOptions& options)
      : sql_(read_named_statements(options.sql_folder + "/write_read_committed_row_lock.sql")),
        gap_us_(options.gap_us) {}
  Outcome write(pqxx::connection& connection, const Write& w, int&) override {
    pqxx::transaction<pqxx::read_committed> tx(connection);
    run(tx, sql_, "ensure_mark", w);
    if (read_mark(tx, sql_, "lock_mark", w) > w.token) return Outcome::kRefused;  // rolls back
    pause(gap_us_);
    run(tx, sql_, "raise_mark", w);
    const Outcome outcome = insert_effect(tx, sql_, w);
    tx.commit();
    return outcome;
  }

 private:
  Statements sql_;
  int gap_us_;
};

// write_serializable.sql, and the plain-select pitfall (the same steps under READ COMMITTED).
template <pqxx::isolation_level Isolation>
class CheckThenWrite final : public WriteVariant {
 public:
  CheckThenWrite(const VariantOptions& options, const std::string& file)
      : sql_(read_named_statements(options.sql_folder + "/" + file)), gap_us_(options.gap_us) {}
  Outcome write(pqxx::connection& connection, const Write& w, int& retries) override {
    for (;;) {
      try {
        pqxx::transaction<Isolation> tx(connection);
        if (read_mark(tx, sql_, "read_mark", w) > w.token) return Outcome::kRefused;
        pause(gap_us_);
        run(tx, sql_, "upsert_mark", w);
        const Outcome outcome = insert_effect(tx, sql_, w);
        tx.commit();
        return outcome;
      } catch (const pqxx::serialization_failure&) {
        ++retries;  // 40001: run the whole transaction again
      } catch (const pqxx::deadlock_detected&) {
        ++retries;
      }
    }
  }

 private:
  Statements sql_;
  int gap_us_;
};

// pitfalls/two_transactions.sql.
class TwoTransactions final : public WriteVariant {
 public:
  explicit TwoTransactions(const VariantOptions& options)
      : sql_(read_named_statements(options.sql_folder + "/pitfalls/two_transactions.sql")),
        gap_us_(options.gap_us) {}
  Outcome write(pqxx::connection& connection, const Write& w, int&) override {
    std::int64_t mark = 0;
    {
      pqxx::work check(connection);
      mark = read_mark(check, sql_, "read_mark", w);
      check.commit();
    }
    if (mark > w.token) return Outcome::kRefused;
    pause(gap_us_);
    pqxx::work tx(connection);
    run(tx, sql_, "upsert_mark", w);
    const Outcome outcome = insert_effect(tx, sql_, w);
    tx.commit();
    return outcome;
  }

 private:
  Statements sql_;
  int gap_us_;
};

}  // namespace

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kApplied:
      return "applied";
    case Outcome::kDeduplicated:
      return "deduplicated";
    case Outcome::kRefused:
      return "refused";
  }
  return "unknown";
}

std::vector<std::string> variant_names() {
  return {"read-committed", "read-committed-row-lock", "serializable", "two-transactions",
          "plain-select",   "per-attempt-key"};
}

std::unique_ptr<WriteVariant> make_variant(const std::string& name, const VariantOptions& options) {
  if (name == "read-committed") {
    return std::make_unique<ConditionalUpsert>(options, "write_read_committed.sql", false);
  }
  if (name == "per-attempt-key") {
    return std::make_unique<ConditionalUpsert>(options, "write_read_committed.sql", true);
  }
  if (name == "refuses-equal-token") {
    return std::make_unique<ConditionalUpsert>(options, "pitfalls/refuses_equal_token.sql", false);
  }
  if (name == "read-committed-row-lock") return std::make_unique<RowLock>(options);
  if (name == "serializable") {
    return std::make_unique<CheckThenWrite<pqxx::serializable>>(options, "write_serializable.sql");
  }
  if (name == "plain-select") {
    return std::make_unique<CheckThenWrite<pqxx::read_committed>>(options,
                                                                  "pitfalls/plain_select.sql");
  }
  if (name == "two-transactions") return std::make_unique<TwoTransactions>(options);
  return nullptr;
}

}  // namespace fencesim::stores::race
