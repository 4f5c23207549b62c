// Three small contracts a plain sweep cannot see (red-team round 25f): a step's abort signal keeps
// its first reason, a refused withdrawal is an ExecutionContextUnavailableError, and the fibers'
// notification wakes every waiter. Each was broken on purpose with every sweep and test green: the
// runtime's own decisions re-read the lease's loss (not the signal's reason), the error's code
// string still reads right, and only the real environment waits on FiberNotification.
#include <gtest/gtest.h>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <exception>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "runtime/abort_signal.h"
#include "runtime/errors.h"
#include "runtime/fiber_notification.h"

namespace fencesim::runtime::signal_and_notification_test {
namespace {

// A step body that reads its signal's reason after its lease was lost must read the loss, even if
// a cancel came after it: a cancel must not hide a lost lease.
TEST(AbortSignal, TheFirstReasonWins) {
  AbortController controller;
  EXPECT_FALSE(controller.signal().aborted());
  controller.abort(std::make_exception_ptr(std::runtime_error("lease lost")));
  controller.abort(std::make_exception_ptr(std::logic_error("cancelled")));
  ASSERT_TRUE(controller.signal().aborted());
  try {
    controller.signal().throw_if_aborted();
    ADD_FAILURE() << "an aborted signal throws its reason";
  } catch (const std::logic_error&) {
    ADD_FAILURE() << "a later abort replaced the first reason";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "lease lost");
  }
}

// A caller that catches the ADR's ExecutionContextUnavailableError catches a refused withdrawal.
TEST(Errors, AWithdrawalRefusedIsAnExecutionContextUnavailableError) {
  // Checked when the test runs, not when it compiles: a broken hierarchy is a failing test.
  EXPECT_TRUE((std::is_base_of_v<ExecutionContextUnavailableError, WithdrawalRefusedError>));
  EXPECT_TRUE((std::is_base_of_v<ExecutionError, ExecutionContextUnavailableError>));
  EXPECT_TRUE(std::string_view(WithdrawalRefusedError::kCode)
                  .starts_with(std::string_view(ExecutionContextUnavailableError::kCode)));
}

// Two fibers wait on one notification (two branches waiting on one lease's change, two lanes on
// one retake): one notify_all wakes both.
TEST(FiberNotification, OneNotifyWakesEveryWaiter) {
  FiberNotification notification;
  int woken = 0;
  boost::fibers::fiber first([&] {
    notification.wait("first");
    ++woken;
  });
  boost::fibers::fiber second([&] {
    notification.wait("second");
    ++woken;
  });
  for (int i = 0; i < 10; ++i) boost::this_fiber::yield();  // both are waiting now
  EXPECT_EQ(woken, 0);
  notification.notify_all();
  for (int i = 0; i < 10; ++i) boost::this_fiber::yield();
  EXPECT_EQ(woken, 2) << "a notify woke only some of the waiters";
  // Whatever happened, let every waiter go so that the test ends.
  while (woken < 2) {
    notification.notify_all();
    boost::this_fiber::yield();
  }
  first.join();
  second.join();
}

}  // namespace
}  // namespace fencesim::runtime::signal_and_notification_test
