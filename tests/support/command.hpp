#pragma once
// Runs a real program from a test and captures what a user would see: exit code, stdout and
// stderr. Shared by the end-to-end tests of every part of the suite.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mcb::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;

  // Lines of stderr, without empty ones.
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) lines.push_back(line);
    }
    return lines;
  }
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A fresh empty directory under the system's temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mcb-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Runs `command` with /bin/sh, stdout and stderr captured separately.
inline CommandResult run_command(const std::string& command) {
  TempDir dir;
  const std::string out = dir / "out";
  const std::string err = dir / "err";
  const std::string full = "(" + command + ") >'" + out + "' 2>'" + err + "'";
  const int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out);
  result.err = slurp(err);
  return result;
}

// Single-quotes a word for /bin/sh.
inline std::string quote(const std::string& word) {
  std::string q = "'";
  for (char c : word) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

// The launcher prefix for `ranks` MPI ranks, with the environment this machine needs and
// mpirun's own banners silenced so a test sees only the program's output.
inline std::string mpirun(int ranks) {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none "
         "OMPI_MCA_orte_execute_quiet=1 " MCB_MPIEXEC " " MCB_MPIEXEC_NUMPROC_FLAG " " +
         std::to_string(ranks) + " ";
}

inline std::string bin(const std::string& program) {
  return std::string(MCB_BIN_DIR) + "/" + program;
}

// Runs `program` from the build's bin folder with `args`, each quoted for /bin/sh, after
// `launcher` (empty, or mpirun(n)). The one way tests run the suite's programs with a list of
// arguments; run_command takes a whole command line.
inline CommandResult run_program(const std::string& program, const std::vector<std::string>& args,
                                 const std::string& launcher = "") {
  std::string command = launcher + quote(bin(program));
  for (const std::string& arg : args) {
    command += ' ';
    command += quote(arg);
  }
  return run_command(command);
}

}  // namespace mcb::testing
