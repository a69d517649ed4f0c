// flakeid: the command-line tool (see tools/cli.cpp and docs/cli.md).
#include <cstddef>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::span<char*> given(argv, static_cast<std::size_t>(argc > 0 ? argc : 0));
  std::vector<std::string> args;
  for (std::size_t i = 1; i < given.size(); ++i) args.emplace_back(given[i]);
  flakeid_cli::streams io{std::cout, std::cerr, &std::cin, ::isatty(0) == 1, false};
  return flakeid_cli::run(args, io);
}
