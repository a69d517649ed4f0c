#pragma once
// expect_error<E>(f, what): `f` must throw `E` (or a class derived from it) with exactly `what`.

#include <gtest/gtest.h>

#include <exception>
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

}  // namespace flakeid_test
