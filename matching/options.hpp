#pragma once
/// @file
/// @brief The command lines of mcb-match and mcb-match-study, parsed into their typed options
/// (the mains call these; so does the command-line fuzzer, fuzz/command_line_fuzz.cpp).

#include "matching/model.hpp"
#include "matching/study.hpp"

#include <string>

namespace mcb::matching {

/// @brief mcb-match's options.
struct MatchOptions {
  std::string platform;  //!< --platform FILE (read by the program, not the parse)
  std::string matcher = "optimal";
  std::string solver = "glpk";
  Job job;
  double time_limit = 60.0;
};

/// @brief Parses and checks mcb-match's command line. False when --help was printed.
/// @throws mcb::UsageError naming the option and the value.
bool parse_match_options(int argc, const char* const* argv, MatchOptions& options);

/// @brief mcb-match-study's options.
struct MatchStudyOptions {
  StudyConfig config;
  std::string output;  //!< --output DIR, checked to be creatable
};

/// @brief Parses and checks mcb-match-study's command line. False when --help was printed.
/// @throws mcb::UsageError naming the option and the value.
bool parse_match_study_options(int argc, const char* const* argv, MatchStudyOptions& options);

}  // namespace mcb::matching
