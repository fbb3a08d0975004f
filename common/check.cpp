#include "common/check.hpp"

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/text.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <vector>

namespace mcb::cli {
namespace {

// --ranks N of the check mode: a positive process count.
int ranks_value(const std::string& text) {
  const std::optional<long> ranks = whole_number(text);
  if (!ranks || *ranks < 1 || *ranks > 1000000) {
    throw ValueError("ranks", "--ranks: '" + text + "' is not a positive process count");
  }
  return static_cast<int>(*ranks);
}

}  // namespace

bool asks_for_check(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--check") return true;
  }
  return false;
}

int run_check(const std::string& program, int argc, const char* const* argv,
              const CheckFunction& check) {
  using nlohmann::json;
  json answer;
  int code = 0;
  try {
    // --check and --ranks belong to the check; every other word goes to the program's parser.
    std::vector<const char*> rest{argv[0]};
    int ranks = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--check") continue;
      if (arg == "--ranks") {
        if (i + 1 >= argc) throw ValueError("ranks", "--ranks: missing its value");
        ranks = ranks_value(argv[++i]);
      } else if (arg.rfind("--ranks=", 0) == 0) {
        ranks = ranks_value(arg.substr(8));
      } else {
        rest.push_back(argv[i]);
      }
    }
    const RunShape shape = check(static_cast<int>(rest.size()), rest.data(), ranks);
    answer = {{"ranks", shape.ranks}, {"clusters", shape.clusters}, {"args", given_arguments()}};
  } catch (const ValueError& e) {
    answer = {{"refused", e.what()}, {"option", e.option()}, {"value", true}};
    code = kUsageExitCode;
  } catch (const UsageError& e) {
    answer = {{"refused", e.what()}, {"option", ""}, {"value", false}};
    code = kUsageExitCode;
  }
  std::cout << answer.dump() << std::endl;
  if (code != 0) std::cerr << program << ": " << answer["refused"].get<std::string>() << std::endl;
  return code;
}

}  // namespace mcb::cli
