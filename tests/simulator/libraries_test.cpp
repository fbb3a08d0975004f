// What mcb-sim loads: a plain run neither MPI nor GLPK (their libraries cost more CPU at start-up
// than a small trace's whole run); a link-aware run loads GLPK when it makes its matcher. The
// dynamic loader's own report (LD_DEBUG=libs, on stderr) names every library it initializes.
// Where mcb-sim is linked statically (simulator/CMakeLists.txt) it loads no library at all: it
// has no MPI in it, and GLPK linked in.
#include "tests/support/command.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kBin = std::string(MCB_BIN_DIR) + "/mcb-sim";
const std::string kRef = std::string(MCB_FIXTURES_DIR) + "/simulator/das2-study/";
const std::string kSynth = "--workload poisson --tables " + kRef +
                           "poisson_sim_service_times.csv --tables " + kRef +
                           "ensflow_sim_service_times.csv --utilization 0.5 --jobs 100 ";

class Libraries : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mcb_sim_libs_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The loader's report of "mcb-sim ARGS --output DIR", which must succeed.
  std::string loaded(const std::string& args) {
    const auto r = mcb::testing::run_command("env LD_DEBUG=libs " + kBin + " " + args +
                                             " --output " + dir_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.err;
  }

  fs::path dir_;
};

// Whether the loader's report has "calling init: .../LIBRARY...".
std::string image() {
  std::ifstream in(kBin, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether mcb-sim is linked statically: its ELF program headers name no interpreter (the
// dynamic loader, which would have a report to give).
bool static_program() {
  const std::string elf = image();
  Elf64_Ehdr header{};
  if (elf.size() < sizeof header) {
    ADD_FAILURE() << kBin << " is no ELF file";
    return false;
  }
  std::memcpy(&header, elf.data(), sizeof header);
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program{};
    const std::size_t at = header.e_phoff + static_cast<std::size_t>(i) * header.e_phentsize;
    if (at + sizeof program > elf.size()) break;
    std::memcpy(&program, elf.data() + at, sizeof program);
    if (program.p_type == PT_INTERP) return false;
  }
  return true;
}

bool initializes(const std::string& report, const std::string& library) {
  std::istringstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("calling init: ");
    if (at != std::string::npos && line.find(library, at) != std::string::npos) return true;
  }
  return false;
}

TEST_F(Libraries, PlainRunLoadsNeitherMpiNorGlpk) {
  const std::string report = loaded(kSynth);
  if (static_program()) {
    EXPECT_EQ(report.find("calling init: "), std::string::npos) << report;
    EXPECT_EQ(image().find("MPI_Init"), std::string::npos);  // no MPI linked in
    return;
  }
  ASSERT_NE(report.find("calling init: "), std::string::npos) << "no loader report:\n" << report;
  EXPECT_FALSE(initializes(report, "libmpi")) << report;
  EXPECT_FALSE(initializes(report, "libglpk")) << report;
}

TEST_F(Libraries, LinkAwareRunLoadsGlpk) {
  const std::string report =
      loaded(kSynth + "--request flexible --placement link-aware --platform " +
             std::string(MCB_SOURCE_DIR) + "/matching/platforms/four-clusters.ini");
  if (static_program()) return;  // GLPK linked in: the run above matched with it
  EXPECT_TRUE(initializes(report, "libglpk")) << report;
  EXPECT_FALSE(initializes(report, "libmpi")) << report;
}

}  // namespace
