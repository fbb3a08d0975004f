// The command line of every program: the first byte picks the program (and, for the MPI
// programs, the rank count), the rest are its words, split at NUL bytes as the kernel hands
// argv over. Each program's own parser runs (the function its main calls to fill its typed
// options), not the run: mcb-campaign and mcb-batchgrid through their command front
// (common/subcommand.hpp), so a stray or missing command word is tried too. The promise is the
// suite's: the words parse, or a UsageError of one line says what is wrong (a word that holds a
// line break may carry it into the message).
#include "apps/ensflow/options.hpp"
#include "apps/poisson/options.hpp"
#include "apps/synth/options.hpp"
#include "batchgrid/commands.hpp"
#include "calibration/calibrate.hpp"
#include "calibration/links/options.hpp"
#include "common/errors.hpp"
#include "common/subcommand.hpp"
#include "jobscripts/campaign.hpp"
#include "jobscripts/load_program.hpp"
#include "matching/options.hpp"
#include "redundant/study.hpp"
#include "simulator/options.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

using Parse = std::function<void(int argc, const char* const* argv, int ranks)>;

// A command front whose commands only parse: each runs @p parse on its own arguments.
int front(int argc, const char* const* argv, const std::vector<std::string>& names,
          const std::function<void(int, const char* const*)>& parse) {
  std::vector<mcb::cli::Subcommand> table;
  for (const std::string& name : names) {
    table.push_back({name, "", [&](int n, const char* const* words) {
                       parse(n, words);
                       return 0;
                     }});
  }
  return mcb::cli::run_subcommand(argc, argv, table, "COMMAND [options]");
}

void campaign(int argc, const char* const* argv, int /*ranks*/) {
  std::vector<std::string> names;
  for (const auto& entry : mcb::campaign::commands()) names.push_back(entry.first);
  front(argc, argv, names, [](int n, const char* const* words) {
    mcb::campaign::CommandLine line;
    (void)mcb::campaign::parse_command_line(n, words, line);
  });
}

void batchgrid(int argc, const char* const* argv, int /*ranks*/) {
  namespace bg = mcb::batchgrid;
  front(argc, argv, {"generate", "run", "study"}, [](int n, const char* const* words) {
    const std::string command = words[0];
    if (command == "generate") {
      bg::GenerateOptions o;
      (void)bg::parse_generate(n, words, o);
    } else if (command == "run") {
      bg::RunOptions o;
      (void)bg::parse_run(n, words, o);
    } else {
      bg::StudyOptions o;
      (void)bg::parse_study(n, words, o);
    }
  });
}

struct Program {
  const char* name;
  Parse parse;
};

const std::vector<Program>& programs() {
  static const std::vector<Program> table = {
      {"mcb-sim",
       [](int argc, const char* const* argv, int) {
         mcb::sim::Options o;
         (void)mcb::sim::parse_options(argc, argv, o);
       }},
      {"mcb-calibrate",
       [](int argc, const char* const* argv, int) {
         mcb::calib::Options o;
         (void)mcb::calib::parse_command_line(argc, argv, o);
       }},
      {"mcb-campaign", campaign},
      {"mcb-batchgrid", batchgrid},
      {"mcb-redundant",
       [](int argc, const char* const* argv, int) {
         mcb::redundant::StudyOptions o;
         (void)mcb::redundant::parse_study(argc, argv, o);
       }},
      {"mcb-match",
       [](int argc, const char* const* argv, int) {
         mcb::matching::MatchOptions o;
         (void)mcb::matching::parse_match_options(argc, argv, o);
       }},
      {"mcb-match-study",
       [](int argc, const char* const* argv, int) {
         mcb::matching::MatchStudyOptions o;
         (void)mcb::matching::parse_match_study_options(argc, argv, o);
       }},
      {"mcb-poisson",
       [](int argc, const char* const* argv, int ranks) {
         mcb::poisson::PoissonConfig c;
         (void)mcb::poisson::parse_options(argc, argv, ranks, true, c);
       }},
      {"mcb-ensflow",
       [](int argc, const char* const* argv, int ranks) {
         mcb::ensflow::EnsflowConfig c;
         (void)mcb::ensflow::parse_options(argc, argv, ranks, true, c);
       }},
      {"mcb-links",
       [](int argc, const char* const* argv, int) {
         mcb::links::LinksConfig c;
         (void)mcb::links::parse_options(argc, argv, true, c);
       }},
      {"mcb-load",
       [](int argc, const char* const* argv, int) {
         mcb::load::ProgramOptions o;
         (void)mcb::load::parse_options(argc, argv, o);
       }},
      {"mcb-synth",
       [](int argc, const char* const* argv, int ranks) {
         mcb::synth::SynthConfig c;
         (void)mcb::synth::parse_options(argc, argv, ranks, true, c);
       }},
  };
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // --help texts would fill the fuzzer's log (libFuzzer reports on stderr).
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) ::dup2(null, STDOUT_FILENO);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<Program>& table = programs();
  const Program& program = table[data[0] % table.size()];
  const int ranks = 1 + static_cast<int>(data[0] / table.size()) % 8;
  std::vector<std::string> words{program.name};
  std::string word;
  bool line_break = false;
  for (size_t i = 1; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0') {
      words.push_back(word);
      word.clear();
      continue;
    }
    line_break |= c == '\n';
    word += c;
  }
  if (size > 1) words.push_back(word);
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  try {
    program.parse(static_cast<int>(words.size()), argv.data(), ranks);
  } catch (const mcb::UsageError& e) {
    const std::string message = e.what();
    if (message.empty() || (!line_break && message.find('\n') != std::string::npos)) {
      std::fprintf(stderr, "%s: a usage error not of one line: '%s'\n", program.name,
                   message.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: not a UsageError: %s\n", program.name, e.what());
    std::abort();
  }
  return 0;
}
