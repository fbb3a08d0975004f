#include "jobscripts/app_check.hpp"

#include "common/errors.hpp"
#include "jobscripts/process.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

namespace mcb::campaign {
namespace {

// A private file for the configuration under check, removed with the checker.
class ConfigFile {
 public:
  ConfigFile() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mcb-check-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("cannot create a file in " + pattern);
    ::close(fd);
    path_ = pattern;
  }
  ~ConfigFile() { std::remove(path_.c_str()); }
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

CheckAnswer read_answer(const std::string& program, const Captured& run) {
  const std::string first_line = run.out.substr(0, run.out.find('\n'));
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(first_line);
  } catch (const nlohmann::json::exception&) {
    answer = nullptr;
  }
  if (!answer.is_object() || !(answer.contains("ranks") || answer.contains("refused"))) {
    const std::string why = run.timed_out ? "did not answer in 60 s" : run.status.describe();
    throw UsageError("'" + program + " --check' gave no answer (" + why +
                     "); is it an mcb program?");
  }
  CheckAnswer a;
  if (answer.contains("refused")) {
    a.refusal = answer["refused"].get<std::string>();
    a.option = answer.value("option", "");
    a.bad_value = answer.value("value", false);
    return a;
  }
  a.accepted = true;
  a.ranks = answer["ranks"].get<int>();
  a.clusters = answer["clusters"].get<int>();
  const auto args = answer["args"].get<std::vector<std::string>>();
  // --output none is the check's own (it writes nothing); mcb-campaign sets each run's output.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--output" && i + 1 < args.size() && args[i + 1] == "none") {
      ++i;
      continue;
    }
    a.args.push_back(args[i]);
  }
  return a;
}

}  // namespace

std::string config_text(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string text;
  for (const auto& [key, value] : values) {
    std::string quoted;
    for (const char c : value) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    text += key + " = \"" + quoted + "\"\n";
  }
  return text;
}

Checker application_checker(const CampaignSpec& spec) {
  auto file = std::make_shared<ConfigFile>();
  const std::string binary = spec.binary;
  const std::string dir = spec.dir;
  return [file, binary, dir](const std::vector<std::pair<std::string, std::string>>& values,
                             std::optional<int> ranks) {
    {
      std::ofstream out(file->path(), std::ios::trunc);
      out << config_text(values);
      if (!out) throw std::runtime_error("cannot write " + file->path());
    }
    std::vector<std::string> argv{binary, "--check"};
    if (ranks) {
      argv.push_back("--ranks");
      argv.push_back(std::to_string(*ranks));
    }
    for (const char* word : {"--output", "none", "--config"}) argv.emplace_back(word);
    argv.push_back(file->path());
    const Captured run = capture(argv, dir, 60);
    if (!run.start_error.empty()) throw UsageError("cannot run " + run.start_error);
    CheckAnswer answer = read_answer(binary, run);
    // "--config: <file>:<line>: " names the check's own file, not the user's spec.
    const std::string own = "--config: " + file->path() + ":";
    if (answer.refusal.rfind(own, 0) == 0) {
      const auto rest = answer.refusal.find(": ", own.size());
      if (rest != std::string::npos) answer.refusal = answer.refusal.substr(rest + 2);
    }
    return answer;
  };
}

}  // namespace mcb::campaign
