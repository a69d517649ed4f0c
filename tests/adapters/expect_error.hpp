#pragma once
// expect_error<E>(f, what): `f` must throw `E` (or a class derived from it) with exactly `what`.
// message_of<E>(f): the message of the `E` that `f` throws, or "" when it returns.

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <string_view>

namespace flakeid_test {

template <class E, class F>
void expect_error(F&& f, std::string_view what) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected: " << what;
  } catch (const E& e) {
    EXPECT_EQ(std::string_view(e.what()), what);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type; message: " << e.what();
  }
}

/// The message of the `E` that `f` throws, or "" when it returns (another exception goes on):
/// for a table of messages, or a call made on a thread of its own while the test acts.
template <class E = std::exception, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return {};
}

}  // namespace flakeid_test
