#pragma once
/// @file
/// @brief mcb-calibrate: records in, runtime tables, communication tables and fitted models out.
/// Everything is read and checked first; files are written only when all of it is consistent.

#include <boost/program_options.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace mcb::calib {

/// @brief The options of mcb-calibrate (calibration/README.md describes each).
struct Options {
  std::vector<std::string> inputs;         //!< --input: campaign folders and/or .jsonl files
  std::string output = "tables";           //!< --output: folder the outputs are written to
  std::vector<std::string> where;          //!< --where KEY=VALUE: records every output uses
  std::vector<std::string> runtime_where;  //!< --runtime-where: further, for runtimes and fits
  std::vector<std::string> rows;           //!< --row APP,PROBLEM,SIZE,COMPONENTS,SYSTEM
  std::vector<std::string> predict;        //!< --predict APP,PROBLEM,SIZE,COMPONENTS,SYSTEM
  bool extrapolate = false;                //!< --extrapolate: allow predictions outside ranges
  std::vector<std::string> convert;        //!< --convert FILE: service-time or runtime tables
  std::vector<std::string> problem;        //!< --problem APP=LABEL (with --convert)
  std::string system;                      //!< --system LABEL (with --convert)
  std::string source;                      //!< --source TEXT (with --convert)
  std::string check;                       //!< --check TABLE: validate a runtime table
  bool job_model = false;  //!< --job-model: fit seed 002's job model instead of the tables
  bool quiet = false;      //!< --quiet: no summary on stdout
};

/// @brief Adds the options to @p desc, bound to @p options.
void add_options(boost::program_options::options_description& desc, Options& options);

/// @brief Checks what types cannot: one mode (--input, --convert or --check), well-formed
/// KEY=VALUE and row specifications, an output path that can be a folder.
/// @throws mcb::UsageError naming the option and the value.
void check_options(const Options& options);

/// @brief The whole command line: add_options, the parse (with --help and --config), then
/// check_options. False when --help was printed.
/// @throws mcb::UsageError naming the option and the value.
bool parse_command_line(int argc, const char* const* argv, Options& options);

/// @brief Runs the calibration (or conversion, or check). @p argc / @p argv go into the
/// provenance. Writes a summary to @p out unless quiet. @returns the exit code (0).
/// @throws mcb::UsageError for inconsistent input, before any file is written.
int run(const Options& options, int argc, const char* const* argv, std::ostream& out);

}  // namespace mcb::calib
