// version.hpp agrees with project(VERSION) (CMake checks the numbers at configure time; this
// checks what a program sees), and every name lives in the inline ABI namespace.
#include <gtest/gtest.h>

#include <flakeid/flakeid.hpp>
#include <flakeid/version.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>

#define FLAKEID_TEST_STR2(x) #x
#define FLAKEID_TEST_STR(x) FLAKEID_TEST_STR2(x)

namespace {

TEST(version_test, the_headers_say_the_projects_version) {
  EXPECT_EQ(flakeid::version, std::string_view(FLAKEID_TEST_PROJECT_VERSION));
  EXPECT_EQ(std::string(flakeid::version), std::to_string(FLAKEID_VERSION_MAJOR) + "." +
                                               std::to_string(FLAKEID_VERSION_MINOR) + "." +
                                               std::to_string(FLAKEID_VERSION_PATCH));
  static_assert(FLAKEID_VERSION == FLAKEID_VERSION_MAJOR * 10000 + FLAKEID_VERSION_MINOR * 100 +
                                       FLAKEID_VERSION_PATCH);
}

TEST(version_test, every_name_is_in_the_inline_abi_namespace) {
  static_assert(std::is_same_v<flakeid::FLAKEID_ABI_NAMESPACE::layout, flakeid::layout>);
  static_assert(std::is_same_v<flakeid::FLAKEID_ABI_NAMESPACE::classic_snowflake<>,
                               flakeid::classic_snowflake<>>);
  static_assert(std::is_same_v<flakeid::FLAKEID_ABI_NAMESPACE::detail::store_connection_error,
                               flakeid::detail::store_connection_error>);
  // The namespace shows in the mangled name, so two ABIs cannot be linked as one.
  EXPECT_NE(
      std::string(typeid(flakeid::layout).name()).find(FLAKEID_TEST_STR(FLAKEID_ABI_NAMESPACE)),
      std::string::npos)
      << typeid(flakeid::layout).name();
}

}  // namespace
