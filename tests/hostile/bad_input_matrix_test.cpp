// The promise about bad input, program by program, as a table: every case ends with exit code 2,
// exactly one line on stderr that names the option, file or line, and no file created or
// changed. Each case runs in a fresh folder (its working directory) holding only the files the
// case sets up; "@" in the arguments stands for that folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/support/command.hpp"

namespace mcb::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

struct InputFile {
  std::string name;
  std::string content;  // "<dir>" makes a folder, "<loop>" a symbolic link to itself,
                        // "<dangling>" a symbolic link to a file that does not exist
};

struct Case {
  std::string label;    // test name suffix
  std::string program;  // in the build's bin folder
  std::string args;     // shell words, "@" is the case's folder
  std::string names;    // what the one line must contain
  std::vector<InputFile> files = {};
  std::string env = {};  // prefix such as "env -u VAR"; empty for the test's environment
};

// NOLINTNEXTLINE(readability-identifier-naming): googletest finds the printer by this name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.program << " " << c.args; }

std::string replace_at(const std::string& text, const std::string& dir) {
  std::string out;
  for (char c : text) out += c == '@' ? dir : std::string(1, c);
  return out;
}

// Every entry under @p root: regular files with their bytes, folders and links as markers.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> entries;
  std::error_code ec;  // a link to itself cannot be followed: it is listed, not entered
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto status = fs::symlink_status(it->path());
    const std::string rel = it->path().lexically_relative(root).string();
    if (fs::is_symlink(status)) {
      entries[rel] = "<link>";
    } else if (fs::is_directory(status)) {
      entries[rel] = "<dir>";
    } else {
      entries[rel] = slurp(it->path());
    }
  }
  return entries;
}

class BadInputMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(BadInputMatrix, ExitTwoOneLineNothingWritten) {
  const Case& c = GetParam();
  // Open MPI refuses only root: as any other user that launcher is fine and the run goes ahead.
  if (c.label == "root_without_mpi_env" && ::geteuid() != 0) {
    GTEST_SKIP() << "Open MPI refuses to run only as root; this user is not root";
  }
  TempDir dir;
  const std::string root = dir / "";
  for (const InputFile& f : c.files) {
    const std::string path = replace_at(dir / f.name, root);
    if (f.content == "<dir>") {
      fs::create_directories(path);
    } else if (f.content == "<loop>") {
      fs::create_symlink(path, path);
    } else if (f.content == "<dangling>") {
      fs::create_symlink(path + ".none", path);
    } else {
      std::ofstream(path, std::ios::binary)
          << replace_at(f.content, root.substr(0, root.size() - 1));
    }
  }
  const auto before = snapshot(root);
  const std::string folder = root.substr(0, root.size() - 1);
  const auto r = run_command("cd " + quote(folder) + " && " + c.env + " " + bin(c.program) + " " +
                             replace_at(c.args, folder));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(replace_at(c.names, folder)), std::string::npos) << lines[0];
  EXPECT_EQ(snapshot(root), before) << "a file was created or changed";
}

std::string test_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name;
  for (char ch : info.param.program + "_" + info.param.label) {
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return name;
}

// Inputs that every file-reading option meets: a missing file, a folder, a link loop (which not
// even root can read), NUL bytes, bytes that are not UTF-8.
const std::string kNul = "a\0b"s;
const std::string kLatin1 = "caf\xe9";
// A UTF-8 byte-order mark, which some editors put at the start of a file: one rule, refused.
const std::string kBom = "\xEF\xBB\xBF";

// --- mcb-poisson ------------------------------------------------------------------------------
const std::string kPoisson = "--grid 16 --max-iterations 10 --output @/runs.jsonl ";
INSTANTIATE_TEST_SUITE_P(
    Poisson, BadInputMatrix,
    ::testing::Values(
        Case{"seed_negative", "mcb-poisson", kPoisson + "--seed -1", "--seed"},
        // A stray word is named, once, by one rank.
        Case{"stray_word", "mcb-poisson", kPoisson + "stray", "'stray' is not an option"},
        Case{"iterations_huge", "mcb-poisson", kPoisson + "--iterations 99999999999",
             "--iterations: '99999999999' is above the cap of 1000000000"},
        Case{"iterations_huge_check", "mcb-poisson",
             "--check --procs 1x1 --grid 16 --iterations 99999999999", "--iterations"},
        Case{"stray_word_two_ranks",
             "mcb-poisson",
             kPoisson + "stray",
             "'stray' is not an option",
             {},
             mpirun(2)},
        Case{"wan_latency_huge", "mcb-poisson", kPoisson + "--wan-latency 1e300s",
             "--wan-latency: '1e300s' is above the cap of 1e12 s"},
        Case{"wan_latency_hours_huge", "mcb-poisson", kPoisson + "--wan-latency 1e9h",
             "--wan-latency: '1e9h' is above the cap"},
        Case{"tolerance_inf", "mcb-poisson", kPoisson + "--tolerance inf", "--tolerance: 'inf'"},
        Case{"tolerance_nan", "mcb-poisson", kPoisson + "--tolerance nan", "--tolerance"},
        Case{"tolerance_huge", "mcb-poisson", kPoisson + "--tolerance 1e308", "--tolerance"},
        Case{"grid_beyond_memory", "mcb-poisson", "--grid 1000000 --output @/runs.jsonl",
             "--grid: '1000000' needs"},
        Case{"grid_overflow", "mcb-poisson", kPoisson + "--grid 99999999999", "--grid"},
        Case{"config_folder",
             "mcb-poisson",
             kPoisson + "--config @/conf",
             "--config: '@/conf'",
             {{"conf", "<dir>"}}},
        Case{"config_missing", "mcb-poisson", kPoisson + "--config @/none.ini", "--config"},
        Case{"config_unreadable",
             "mcb-poisson",
             kPoisson + "--config @/loop",
             "--config",
             {{"loop", "<loop>"}}},
        Case{"config_nul",
             "mcb-poisson",
             kPoisson + "--config @/c.ini",
             "@/c.ini:1: a NUL",
             {{"c.ini", "halo = pa" + kNul + "\n"}}},
        Case{"config_bom",
             "mcb-poisson",
             kPoisson + "--config @/c.ini",
             "@/c.ini:1: a byte-order mark (U+FEFF) at column 1",
             {{"c.ini", kBom + "grid = 16\n"}}},
        Case{"cluster_map_bom",
             "mcb-poisson",
             kPoisson + "--cluster-map @/m",
             "@/m:1: a byte-order mark (U+FEFF) at column 1",
             {{"m", kBom + "a\n"}}},
        Case{"config_latin1",
             "mcb-poisson",
             kPoisson + "--config @/c.ini",
             "@/c.ini:2:",
             {{"c.ini", "grid = 16\nhalo = " + kLatin1 + "\n"}}},
        Case{"output_folder",
             "mcb-poisson",
             "--grid 16 --output @/out",
             "--output",
             {{"out", "<dir>"}}},
        Case{"output_under_file",
             "mcb-poisson",
             "--grid 16 --output @/f/runs.jsonl",
             "--output",
             {{"f", "x"}}},
        Case{"output_link_loop",
             "mcb-poisson",
             "--grid 16 --max-iterations 10 --output @/loop",
             "--output: cannot write '@/loop': Too many levels of symbolic links",
             {{"loop", "<loop>"}}},
        Case{"output_link_to_nothing",
             "mcb-poisson",
             "--grid 16 --max-iterations 10 --output @/dangling",
             "--output: cannot write '@/dangling': a symbolic link to nothing",
             {{"dangling", "<dangling>"}}},
        Case{"cluster_map_nul",
             "mcb-poisson",
             kPoisson + "--cluster-map @/m",
             "@/m:1: a NUL",
             {{"m", "a" + kNul + "\n"}}},
        Case{"cluster_map_folder",
             "mcb-poisson",
             kPoisson + "--cluster-map @/m",
             "--cluster-map",
             {{"m", "<dir>"}}}),
    test_name);

// --- mcb-ensflow ------------------------------------------------------------------------------
const std::string kEnsflow = "--output @/runs.jsonl ";
INSTANTIATE_TEST_SUITE_P(
    Ensflow, BadInputMatrix,
    ::testing::Values(
        Case{"basin_inf", "mcb-ensflow", kEnsflow + "--basin-size inf", "--basin-size: 'inf'"},
        Case{"basin_nan", "mcb-ensflow", kEnsflow + "--basin-size nan", "--basin-size"},
        Case{"basin_huge", "mcb-ensflow", kEnsflow + "--basin-size 1e300", "--basin-size"},
        Case{"wind_huge", "mcb-ensflow", kEnsflow + "--wind-stress 1e308", "--wind-stress"},
        Case{"wind_inf", "mcb-ensflow", kEnsflow + "--wind-stress inf", "--wind-stress"},
        Case{"depth_nan", "mcb-ensflow", kEnsflow + "--depth nan", "--depth"},
        Case{"seed_negative", "mcb-ensflow", kEnsflow + "--seed -1", "--seed"},
        Case{"stray_word",
             "mcb-ensflow",
             kEnsflow + "stray",
             "'stray' is not an option",
             {},
             mpirun(2)},
        Case{"members_overflow", "mcb-ensflow", kEnsflow + "--members 99999999999", "--members"},
        Case{"config_folder",
             "mcb-ensflow",
             kEnsflow + "--config @/conf",
             "--config",
             {{"conf", "<dir>"}}},
        Case{"config_latin1",
             "mcb-ensflow",
             kEnsflow + "--config @/c.ini",
             "@/c.ini:1:",
             {{"c.ini", "filter = " + kLatin1 + "\n"}}},
        Case{"config_nul",
             "mcb-ensflow",
             kEnsflow + "--config @/c.ini",
             "@/c.ini:1: a NUL",
             {{"c.ini", "filter = a" + kNul + "\n"}}},
        Case{"config_unreadable",
             "mcb-ensflow",
             kEnsflow + "--config @/loop",
             "--config",
             {{"loop", "<loop>"}}},
        Case{"output_under_file",
             "mcb-ensflow",
             "--output @/f/runs.jsonl",
             "--output",
             {{"f", "x"}}}),
    test_name);

// --- mcb-synth --------------------------------------------------------------------------------
const std::string kSynth = "--iterations 2 --output @/runs.jsonl ";
INSTANTIATE_TEST_SUITE_P(
    Synth, BadInputMatrix,
    ::testing::Values(
        Case{"seed_negative", "mcb-synth", kSynth + "--seed -1", "--seed"},
        Case{
            "stray_word", "mcb-synth", kSynth + "stray", "'stray' is not an option", {}, mpirun(2)},
        Case{"iterations_huge", "mcb-synth", kSynth + "--iterations 99999999999", "--iterations"},
        Case{"message_size_huge", "mcb-synth", kSynth + "--message-size 1e300",
             "--message-size: '1e300'"},
        Case{"message_size_odd", "mcb-synth", kSynth + "--message-size 1001",
             "--message-size: '1001'"},
        Case{"flops_inf", "mcb-synth", kSynth + "--flops inf", "--flops"},
        Case{"bytes_nan", "mcb-synth", kSynth + "--bytes nan", "--bytes"},
        Case{"bytes_huge", "mcb-synth", kSynth + "--bytes 1e300", "--bytes"},
        Case{"array_huge", "mcb-synth", kSynth + "--array 99999999999", "--array"},
        Case{"block_huge", "mcb-synth", kSynth + "--block 99999", "--block"},
        Case{"pattern_unknown", "mcb-synth", kSynth + "--pattern star", "--pattern: 'star'"},
        Case{"clusters_above_ranks", "mcb-synth", kSynth + "--clusters 2",
             "--clusters: '2' is more than the 1 processes"},
        Case{"check_without_ranks", "mcb-synth", "--check --pattern ring", "--ranks: missing"},
        Case{"config_nul",
             "mcb-synth",
             kSynth + "--config @/c.ini",
             "@/c.ini:1: a NUL",
             {{"c.ini", "pattern = ri" + kNul + "\n"}}},
        Case{"config_latin1",
             "mcb-synth",
             kSynth + "--config @/c.ini",
             "@/c.ini:1:",
             {{"c.ini", "pattern = " + kLatin1 + "\n"}}},
        Case{"config_folder",
             "mcb-synth",
             kSynth + "--config @/conf",
             "--config",
             {{"conf", "<dir>"}}},
        Case{"cluster_map_nul",
             "mcb-synth",
             kSynth + "--cluster-map @/m",
             "@/m:1: a NUL",
             {{"m", "a" + kNul + "\n"}}},
        Case{
            "output_under_file", "mcb-synth", "--output @/f/runs.jsonl", "--output", {{"f", "x"}}}),
    test_name);

// --- mcb-links --------------------------------------------------------------------------------
const std::string kLinks = "--output @/runs.jsonl ";
INSTANTIATE_TEST_SUITE_P(
    Links, BadInputMatrix,
    ::testing::Values(
        Case{"repetitions_zero", "mcb-links", kLinks + "--repetitions 0", "--repetitions"},
        Case{
            "stray_word", "mcb-links", kLinks + "stray", "'stray' is not an option", {}, mpirun(2)},
        Case{"iterations_overflow", "mcb-links", kLinks + "--iterations 99999999999",
             "--iterations"},
        Case{"seed_negative", "mcb-links", kLinks + "--seed -1", "--seed"},
        Case{"max_time_nan", "mcb-links", kLinks + "--max-time nan", "--max-time"},
        Case{"max_time_inf", "mcb-links", kLinks + "--max-time inf", "--max-time"},
        Case{"window_bytes_huge", "mcb-links", kLinks + "--window-bytes 1e30", "--window-bytes"},
        Case{"config_folder",
             "mcb-links",
             kLinks + "--config @/conf",
             "--config",
             {{"conf", "<dir>"}}},
        Case{"config_nul",
             "mcb-links",
             kLinks + "--config @/c.ini",
             "@/c.ini:1: a NUL",
             {{"c.ini", "sizes = 1" + kNul + "\n"}}},
        Case{"config_latin1",
             "mcb-links",
             kLinks + "--config @/c.ini",
             "@/c.ini:1: a byte 0xE9",
             {{"c.ini", "sizes = " + kLatin1 + "\n"}}},
        Case{"config_unreadable",
             "mcb-links",
             kLinks + "--config @/loop",
             "--config",
             {{"loop", "<loop>"}}},
        Case{"platform_missing",
             "mcb-links",
             kLinks + "--platform @/none",
             "--platform",
             {},
             mpirun(2)},
        Case{"platform_nul",
             "mcb-links",
             kLinks + "--platform @/p",
             "@/p:1: a NUL",
             {{"p", "* * 1ms 1" + kNul + "Gbit\n"}},
             mpirun(2)},
        Case{"platform_latency_huge",
             "mcb-links",
             kLinks + "--platform @/p",
             "@/p:1: latency '1e300s' is above the cap of 1e12 s",
             {{"p", "* * 1e300s 1Gbit/s\n"}},
             mpirun(2)},
        Case{"output_folder", "mcb-links", "--output @/out", "--output", {{"out", "<dir>"}}}),
    test_name);

// --- mcb-calibrate ----------------------------------------------------------------------------
const std::string kRecord =
    R"({"schema":"mcb-run/1","run_id":"r1","app":"poisson","status":"valid","wall":1e999})";
INSTANTIATE_TEST_SUITE_P(
    Calibrate, BadInputMatrix,
    ::testing::Values(
        Case{"record_1e999",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:2:",
             {{"r.jsonl", "\n" + kRecord + "\n"}}},
        Case{"record_app_number",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1:",
             {{"r.jsonl", R"({"schema":"mcb-run/1","run_id":"r1","app":7,"status":"valid"})"
                          "\n"}}},
        Case{"record_nul",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1:",
             {{"r.jsonl", "{\"a\":\"" + kNul + "\"}\n"}}},
        Case{"record_bom",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1: a byte-order mark (U+FEFF) at column 1",
             {{"r.jsonl", kBom + R"({"schema":"mcb-run/2","run_id":"r1","app":"poisson",)"
                                 R"("status":"valid"})"
                                 "\n"}}},
        Case{"record_latin1",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1:",
             {{"r.jsonl", "{\"app\":\"" + kLatin1 + "\"}\n"}}},
        Case{"record_nan",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1:",
             {{"r.jsonl", R"({"schema":"mcb-run/1","run_id":"r1","status":"valid","wall":NaN})"
                          "\n"}}},
        // Refused by the record contract's owner, in the words mcb-campaign uses.
        Case{"record_unknown_schema",
             "mcb-calibrate",
             "--input @/r.jsonl --output @/cal",
             "@/r.jsonl:1: unknown schema 'mcb-run/3' (records are mcb-run/2, or mcb-run/1",
             {{"r.jsonl", R"({"schema":"mcb-run/3","run_id":"r1","app":"poisson",)"
                          R"("status":"valid"})"
                          "\n"}}},
        // A stray quote in a --row or --predict value (found by the command-line fuzzer).
        Case{"row_stray_quote", "mcb-calibrate",
             "--input @/none.jsonl --row 'poisson,g\"1,4,2,das2' --output @/cal",
             "--row: 'poisson,g\"1,4,2,das2' is not APP,PROBLEM,SIZE,COMPONENTS,SYSTEM: a quote"},
        Case{"input_missing", "mcb-calibrate", "--input @/none.jsonl --output @/cal", "none.jsonl"},
        Case{"input_unreadable",
             "mcb-calibrate",
             "--input @/loop --output @/cal",
             "loop",
             {{"loop", "<loop>"}}},
        Case{"output_uncreatable",
             "mcb-calibrate",
             "--input " MCB_FIXTURES_DIR "/records/poisson-local --output @/f/cal",
             "--output",
             {{"f", "x"}}},
        Case{"output_is_file",
             "mcb-calibrate",
             "--input " MCB_FIXTURES_DIR "/records/poisson-local --output @/f",
             "--output",
             {{"f", "x"}}},
        Case{"job_model_with_row", "mcb-calibrate",
             "--job-model --input @/none.jsonl --row poisson,g,4,2,das2 --output @/cal",
             "--row: not with --job-model"},
        Case{"job_model_nothing_to_fit", "mcb-calibrate",
             "--job-model --input " MCB_FIXTURES_DIR "/records/poisson-local --output @/cal",
             "no job to model"},
        Case{"config_folder", "mcb-calibrate", "--config @/conf", "--config", {{"conf", "<dir>"}}},
        Case{"config_unreadable",
             "mcb-calibrate",
             "--config @/loop",
             "--config",
             {{"loop", "<loop>"}}}),
    test_name);

// --- mcb-sim ----------------------------------------------------------------------------------
const std::string kSwf = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n";
const std::string kSim = "--clusters 4x16 --output @/out ";
std::string wide_swf() {
  std::string line = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1";
  for (int i = 0; i < 300; ++i) line += " 4.6e18";
  return line + "\n";
}
// A mix, its table and a platform that --job-model prices (tests/simulator/job_model_e2e_test).
const std::string kJobModelRun =
    "--clusters 2x4 --rule co --workload @/mix.ini --tables @/rt.csv --platform @/p.ini "
    "--rate 1e-6 --jobs 3 --output @/out --job-model @/m.csv";
const std::vector<InputFile> kJobModelFiles = {
    {"mix.ini", "[synth]\nsizes = 4\nexclude = 4x1\n"},
    {"rt.csv",
     "app,problem,total_size,components,system,n,min,avg,max,median,stddev\n"
     "synth,p,4,1,local,1,100,100,100,100,\nsynth,p,4,2,local,1,100,100,100,100,\n"},
    {"p.ini", "[cluster.a]\nnodes = 4\nlink_max = 1\n[cluster.b]\nnodes = 4\nlink_max = 1\n"}};
std::vector<InputFile> job_model_files(const std::string& model_row) {
  std::vector<InputFile> files = kJobModelFiles;
  files.push_back(
      {"m.csv", std::string("app,problem,total_size,tp,tc,pnbw,dedicated_runs,fitted_runs,"
                            "median_abs_relative_error\n") +
                    model_row});
  return files;
}
INSTANTIATE_TEST_SUITE_P(
    Sim, BadInputMatrix,
    ::testing::Values(
        Case{"job_model_tp_zero", "mcb-sim", kJobModelRun, "@/m.csv:2: tp '0' must be > 0",
             job_model_files("synth,p,4,0,1,1,1,1,0\n")},
        Case{"job_model_no_row", "mcb-sim", kJobModelRun,
             "--job-model: @/m.csv: no model of synth p on 4 processors",
             job_model_files("synth,p,8,1,1,1,1,1,0\n")},
        Case{"job_model_without_platform", "mcb-sim",
             kSim + "--workload poisson --utilization 0.5 --job-model @/m.csv",
             "--job-model: needs --platform"},
        Case{"stray_word", "mcb-sim", kSim + "--workload poisson stray",
             "'stray' is not an option"},
        Case{"swf_318_fields",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:1: more than 18",
             {{"t.swf", wide_swf()}}},
        Case{"swf_procs_1e20",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:1: field 5",
             {{"t.swf", "1 0 -1 10 1e20 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"}}},
        Case{"swf_submit_1e300",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:2: time (field 2)",
             {{"t.swf", kSwf + "2 1e300 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"}}},
        Case{"swf_bom",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:1: a byte-order mark (U+FEFF) at column 1",
             {{"t.swf", kBom + kSwf}}},
        Case{"joblist_bom",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:1: a byte-order mark (U+FEFF) at column 1",
             {{"t.csv", kBom + "submit,components,runtime\n0,8,10\n"}}},
        Case{"swf_duplicate_id",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:2: job id 1 is already used on line 1",
             {{"t.swf", kSwf + kSwf}}},
        Case{"swf_negative_id",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:2: job number (field 1) '-3' is negative",
             {{"t.swf", kSwf + "-3 5 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"}}},
        Case{"swf_latin1_header",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:1: a byte 0xE9",
             {{"t.swf", "; Installation: " + kLatin1 + "\n" + kSwf}}},
        Case{"swf_nan",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "@/t.swf:1: field 4",
             {{"t.swf", "1 0 -1 nan 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"}}},
        Case{"list_component_overflow",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2:",
             {{"t.csv", "submit,components,runtime\n0,8+2147483647,10\n"}}},
        Case{"list_component_2147483648",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2:",
             {{"t.csv", "submit,components,runtime\n0,2147483648,10\n"}}},
        Case{"list_duplicate_id",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:3: job id 4 is already used on line 2",
             {{"t.csv", "id,submit,components,runtime\n4,0,8,10\n4,1,8,10\n"}}},
        Case{"joblist_column_twice",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:1: column 'runtime' is given twice (columns 3 and 4)",
             {{"t.csv", "submit,components,runtime,runtime\n0,8,10,20\n"}}},
        Case{"joblist_min_size_above_size",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2: column 'min_size': '12' is above the job's size 8",
             {{"t.csv", "submit,components,runtime,type,min_size\n0,4+4,10,moldable,12\n"}}},
        Case{"list_nul_app",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2: a NUL",
             {{"t.csv", "submit,app,components,runtime\n0,p" + kNul + ",8,10\n"}}},
        Case{"list_latin1_app",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2: a byte 0xE9",
             {{"t.csv", "submit,app,components,runtime\n0," + kLatin1 + ",8,10\n"}}},
        Case{"list_runtime_1e999",
             "mcb-sim",
             kSim + "--trace @/t.csv",
             "@/t.csv:2:",
             {{"t.csv", "submit,components,runtime\n0,8,1e999\n"}}},
        Case{"trace_folder", "mcb-sim", kSim + "--trace @/t.swf", "--trace", {{"t.swf", "<dir>"}}},
        Case{"trace_unreadable",
             "mcb-sim",
             kSim + "--trace @/t.swf",
             "--trace",
             {{"t.swf", "<loop>"}}},
        Case{"clusters_count_x_size_overflow",
             "mcb-sim",
             "--clusters 3x1000000000 --trace @/t.swf --output @/out",
             "--clusters",
             {{"t.swf", kSwf}}},
        Case{"clusters_huge_size",
             "mcb-sim",
             "--clusters 4x99999999999 --trace @/t.swf --output @/out",
             "--clusters",
             {{"t.swf", kSwf}}},
        Case{"clusters_list_total",
             "mcb-sim",
             "--clusters 1000000000,1000000000,1000000000 --trace @/t.swf --output @/out",
             "--clusters",
             {{"t.swf", kSwf}}},
        Case{"seed_negative",
             "mcb-sim",
             kSim + "--trace @/t.swf --seed -1",
             "--seed",
             {{"t.swf", kSwf}}},
        Case{"config_folder",
             "mcb-sim",
             kSim + "--config @/conf",
             "--config: '@/conf'",
             {{"conf", "<dir>"}}},
        Case{"config_nul",
             "mcb-sim",
             kSim + "--config @/c.ini",
             "@/c.ini:1: a NUL",
             {{"c.ini", "trace = @/t" + kNul + "\n"}}},
        Case{"mix_latin1",
             "mcb-sim",
             kSim + "--workload @/m.ini --rate 0.01",
             "m.ini",
             {{"m.ini", "[" + kLatin1 + "]\nweight = 1\nsizes = 8\n"}}},
        Case{"mix_nul",
             "mcb-sim",
             kSim + "--workload @/m.ini --rate 0.01",
             "m.ini:1: a NUL",
             {{"m.ini", "[a" + kNul + "]\nweight = 1\nsizes = 8\n"}}},
        Case{"mix_key_twice",
             "mcb-sim",
             kSim + "--workload @/m.ini --rate 0.01",
             "m.ini:3: sizes: set twice (first on line 2)",
             {{"m.ini", "[a]\nsizes = 8\nsizes = 16\n"}}},
        Case{"mix_section_twice",
             "mcb-sim",
             kSim + "--workload @/m.ini --rate 0.01",
             "m.ini:3: [a] given twice (first on line 1)",
             {{"m.ini", "[a]\nsizes = 8\n[a]\nweight = 2\n"}}},
        Case{"platform_link_above_maximum",
             "mcb-sim",
             "--clusters 2,2 --output @/out --workload poisson --rate 0.01 --placement link-aware "
             "--platform @/p.ini",
             "--platform: @/p.ini:4: link_consumed: '12' is above the cluster's link_max 10",
             {{"p.ini",
               "[cluster.a]\nnodes = 2\nlink_max = 10\nlink_consumed = 12\n"
               "[cluster.b]\nnodes = 2\n"}}},
        Case{"matcher_without_platform", "mcb-sim",
             kSim + "--workload poisson --rate 0.01 --matcher bogus", "--matcher: 'bogus'"},
        Case{"policy_empty_item", "mcb-sim", kSim + "--workload poisson --rate 0.01 --policy gs,",
             "--policy: 'gs,'"},
        Case{"mix_unreadable",
             "mcb-sim",
             kSim + "--workload @/loop --rate 0.01",
             "--workload",
             {{"loop", "<loop>"}}},
        Case{"rate_inf", "mcb-sim", kSim + "--workload poisson --rate inf", "--rate: 'inf'"},
        Case{"rate_nan", "mcb-sim", kSim + "--workload poisson --rate nan", "--rate: 'nan'"},
        Case{"output_under_file",
             "mcb-sim",
             "--clusters 4x16 --trace @/t.swf --output @/f/out",
             "--output",
             {{"t.swf", kSwf}, {"f", "x"}}}),
    test_name);

// --- mcb-campaign -----------------------------------------------------------------------------
std::string spec(const std::string& body) {
  return "name = t\napp = poisson\nfolder = @/campaign\nrepetitions = 1\n" + body;
}
// A record of a schema version the suite does not know, with a run id of the campaign.
const std::string kRecordV3 =
    R"({"schema":"mcb-run/3","run_id":"t-c000-r0","app":"poisson","status":"valid"})"
    "\n";
// The co-allocating executor's section up to its clusters (lines 5-7), and a run over 2 clusters.
const std::string kCoallocSpec = "executor = coalloc\n[coalloc]\nsystems = @/sys.ini\n";
const std::string kCoallocOptions = "[options]\ngrid = 16\nprocs = 2x1\nclusters = 2\n";
INSTANTIATE_TEST_SUITE_P(
    Campaign, BadInputMatrix,
    ::testing::Values(
        Case{"grid_negative",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:7: grid: mcb-poisson refuses it",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = -1\n")}}},
        Case{"grid_negative_run",
             "mcb-campaign",
             "run @/s.ini",
             "@/s.ini:7: grid: mcb-poisson refuses it",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = -1\n")}}},
        Case{"grid_negative_scripts",
             "mcb-campaign",
             "scripts @/s.ini",
             "@/s.ini:7: grid: mcb-poisson refuses it",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = -1\n")}}},
        Case{"folder_uncreatable",
             "mcb-campaign",
             "run @/s.ini",
             "@/s.ini:3: folder",
             {{"s.ini",
               "name = t\napp = poisson\nfolder = @/f/c\n[options]\nprocs = 2x1\ngrid = 16\n"},
              {"f", "x"}}},
        Case{"slurm_mpirun_dry_run",
             "mcb-campaign",
             "dry-run @/s.ini",
             "launcher",
             {{"s.ini", spec("executor = slurm\n[slurm]\nlauncher = mpirun\npartitions = a b\n"
                             "[options]\ngrid = 16\nprocs = 2x1\nclusters = 2\n")}}},
        Case{"slurm_mpirun_scripts",
             "mcb-campaign",
             "scripts @/s.ini",
             "launcher",
             {{"s.ini", spec("executor = slurm\n[slurm]\nlauncher = mpirun\npartitions = a b\n"
                             "[options]\ngrid = 16\nprocs = 2x1\nclusters = 2\n")}}},
        Case{"root_without_mpi_env",
             "mcb-campaign",
             "run @/s.ini",
             "scripts/mpi-env.sh",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")}},
             "env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"},
        Case{"spec_nul",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:1",
             {{"s.ini", "name = t" + kNul + "\napp = poisson\n"}}},
        Case{"spec_latin1",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:1",
             {{"s.ini", "name = " + kLatin1 + "\napp = poisson\n"}}},
        Case{"command_missing", "mcb-campaign", "", "command: missing (one of dry-run, run"},
        Case{"command_unknown",
             "mcb-campaign",
             "launch @/s.ini",
             "command: 'launch' is not one of dry-run, run, scripts, status, collect",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")}}},
        // A refused folder is left as it was: no .lock, runs/ or new plan.json.
        Case{"run_plan_garbage",
             "mcb-campaign",
             "run @/s.ini",
             "@/campaign/plan.json: not a plan",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")},
              {"campaign", "<dir>"},
              {"campaign/plan.json", "garbage\n"}}},
        Case{"run_records_malformed",
             "mcb-campaign",
             "run @/s.ini",
             "@/campaign/records.jsonl:1:",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")},
              {"campaign", "<dir>"},
              {"campaign/records.jsonl", "{\"schema\": \n"}}},
        Case{"run_records_unknown_schema",
             "mcb-campaign",
             "run @/s.ini",
             "@/campaign/records.jsonl:1: unknown schema 'mcb-run/3'",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")},
              {"campaign", "<dir>"},
              {"campaign/records.jsonl", kRecordV3}}},
        Case{"history_unknown_schema",
             "mcb-campaign",
             "dry-run @/s.ini --history @/h.jsonl",
             "@/h.jsonl:1: unknown schema 'mcb-run/3'",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")}, {"h.jsonl", kRecordV3}}},
        Case{"spec_folder", "mcb-campaign", "dry-run @/s.ini", "s.ini", {{"s.ini", "<dir>"}}},
        Case{"spec_missing", "mcb-campaign", "dry-run @/none.ini", "none.ini"},
        Case{"spec_unreadable", "mcb-campaign", "dry-run @/loop", "loop", {{"loop", "<loop>"}}},
        Case{"repetitions_overflow",
             "mcb-campaign",
             "dry-run @/s.ini",
             "repetitions",
             {{"s.ini", "name = t\napp = poisson\nrepetitions = 99999999999\n"}}},
        Case{"timeout_nan",
             "mcb-campaign",
             "dry-run @/s.ini",
             "timeout",
             {{"s.ini", "name = t\napp = poisson\ntimeout = nan\n"}}},
        Case{"timeout_huge_hours",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:3: timeout: '1e300h'",
             {{"s.ini", "name = t\napp = poisson\ntimeout = 1e300h\n"}}},
        Case{"timeout_huge_clock",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:3: timeout: '999999999:00:00'",
             {{"s.ini", "name = t\napp = poisson\ntimeout = 999999999:00:00\n"}}},
        Case{"timeout_inf",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:3: timeout: 'inf'",
             {{"s.ini", "name = t\napp = poisson\ntimeout = inf\n"}}},
        Case{"coalloc_unknown_batch_system",
             "mcb-campaign",
             "run @/s.ini",
             "@/sys.ini:2: kind: 'lsf'",
             {{"s.ini", spec(kCoallocSpec + "clusters = a b\n" + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = lsf\n[b]\nkind = slurm\n"}}},
        Case{"coalloc_cluster_not_a_system",
             "mcb-campaign",
             "run @/s.ini",
             "@/s.ini:8: clusters: 'c' is not a system of @/sys.ini",
             {{"s.ini", spec(kCoallocSpec + "clusters = a c\n" + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"}}},
        Case{"coalloc_clusters_missing",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini: [coalloc] clusters: missing",
             {{"s.ini", spec(kCoallocSpec + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"}}},
        Case{"coalloc_ranking_unknown",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:9: ranking: 'fastest' is not one of random, qlen, est-qt",
             {{"s.ini",
               spec(kCoallocSpec + "clusters = a b\nranking = fastest\n" + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"}}},
        Case{"coalloc_arrival_negative",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:9: arrival: '-5s'",
             {{"s.ini", spec(kCoallocSpec + "clusters = a b\narrival = -5s\n" + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"}}},
        Case{"coalloc_launch_at_start_hibernation",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:10: launch: 'at-start' needs synchronization = stop-and-wait or resubmission",
             {{"s.ini", spec(kCoallocSpec +
                             "clusters = a b\nsynchronization = hibernation\nlaunch = at-start\n" +
                             kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"}}},
        // Grid Engine's qmod -rj may leave the old instance running: hibernation is refused.
        Case{"coalloc_hibernation_on_gridengine",
             "mcb-campaign",
             "dry-run @/s.ini",
             "@/s.ini:9: synchronization: hibernation needs a system that can requeue a job; 'b' "
             "(gridengine) cannot requeue a running job reliably",
             {{"s.ini", spec(kCoallocSpec + "clusters = a b\nsynchronization = hibernation\n" +
                             kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = gridengine\n"}}},
        Case{"cancel_not_coalloc",
             "mcb-campaign",
             "cancel @/s.ini",
             "executor: 'local' has no pilots to cancel",
             {{"s.ini", spec("[options]\nprocs = 2x1\ngrid = 16\n")}}},
        // The journal is read whole before anything is cancelled or locked.
        Case{"cancel_journal_malformed",
             "mcb-campaign",
             "cancel @/s.ini",
             "@/campaign/coalloc/journal.jsonl:1:",
             {{"s.ini", spec(kCoallocSpec + "clusters = a b\n" + kCoallocOptions)},
              {"sys.ini", "[a]\nkind = slurm\n[b]\nkind = slurm\n"},
              {"campaign", "<dir>"},
              {"campaign/coalloc", "<dir>"},
              {"campaign/coalloc/journal.jsonl", "{\"event\": \n"}}}),
    test_name);

// --- mcb-batchgrid ----------------------------------------------------------------------------
const std::string kGenerate = "generate --size 64 --jobs 10 --output @/w.swf ";
const std::string kRun = "run --queues 64:easy --horizon-days 1 --output @/out ";
INSTANTIATE_TEST_SUITE_P(
    Batchgrid, BadInputMatrix,
    ::testing::Values(
        Case{"stray_word_run", "mcb-batchgrid", kRun + "stray", "'stray' is not an option"},
        // Counts and seeds are read signed and capped: none wraps, none runs for ever.
        Case{"jobs_negative", "mcb-batchgrid", "generate --size 64 --jobs -1 --output @/w.swf",
             "--jobs: '-1'"},
        Case{"jobs_huge", "mcb-batchgrid", "generate --size 64 --jobs 10000000000 --output @/w.swf",
             "--jobs"},
        Case{"generate_seed_negative", "mcb-batchgrid", kGenerate + "--seed -1", "--seed: '-1'"},
        Case{"run_seed_negative", "mcb-batchgrid", kRun + "--seed -1", "--seed: '-1'"},
        Case{"config_seed_negative",
             "mcb-batchgrid",
             kRun + "--config @/c.ini",
             "--seed: '-1'",
             {{"c.ini", "seed = -1\n"}}},
        Case{"horizon_huge", "mcb-batchgrid",
             "run --queues 64:easy --horizon-days 1e12 --output @/out",
             "--horizon-days: '1000000000000' is above the cap of 36500"},
        Case{"limit_huge", "mcb-batchgrid", kRun + "--limit 1e300", "--limit"},
        Case{"queue_trace_missing", "mcb-batchgrid",
             "run --queues 64:easy:trace=@/none.swf --horizon-days 1 --output @/out",
             "--queues: cannot read '@/none.swf'"},
        Case{"queue_trace_bad_line",
             "mcb-batchgrid",
             "run --queues 64:easy:trace=@/t.swf --horizon-days 1 --output @/out",
             "--queues: @/t.swf:2: field 2 'x'",
             {{"t.swf", "; MaxProcs: 64\n1 x -1 10 4 -1 -1 4 -1 -1 1 -1 -1 -1 1 -1 -1 -1\n"}}},
        Case{"stray_word_generate", "mcb-batchgrid", kGenerate + "stray",
             "'stray' is not an option"},
        Case{"command_missing", "mcb-batchgrid", "", "command: missing (one of generate, run"},
        Case{"command_unknown", "mcb-batchgrid", "frobnicate",
             "command: 'frobnicate' is not one of generate, run, study"},
        Case{"jobs_zero", "mcb-batchgrid", "generate --size 64 --jobs 0 --output @/w.swf",
             "--jobs: '0'"},
        Case{"interarrival_negative", "mcb-batchgrid", kGenerate + "--interarrival -3",
             "--interarrival: '-3'"},
        Case{"interarrival_inf", "mcb-batchgrid", kGenerate + "--interarrival inf",
             "--interarrival: 'inf'"},
        Case{"mix_short", "mcb-batchgrid", kGenerate + "--mix 1/2", "--mix: mix '1/2'"},
        Case{"size_small", "mcb-batchgrid", "generate --size 8 --output @/w.swf", "--size: '8'"},
        Case{"generate_output_missing", "mcb-batchgrid", "generate --size 64", "--output"},
        Case{"limit_negative", "mcb-batchgrid", kRun + "--limit -1", "--limit: '-1'"},
        Case{"horizon_zero", "mcb-batchgrid",
             "run --queues 64:easy --output @/out --horizon-days 0", "--horizon-days: '0'"},
        Case{"horizon_nan", "mcb-batchgrid",
             "run --queues 64:easy --output @/out --horizon-days nan", "--horizon-days: 'nan'"},
        Case{"bandwidths_word", "mcb-batchgrid", kRun + "--bandwidths 10,x", "--bandwidths: 'x'"},
        Case{"queues_size_huge", "mcb-batchgrid", "run --queues 2.2e122:easy --output @/out",
             "--queues: size '2.2e122' is not a whole number from 1 to 1e9"},
        Case{"queues_size_fraction", "mcb-batchgrid", "run --queues 64.5:easy --output @/out",
             "--queues: size '64.5' is not a whole number from 1 to 1e9"},
        Case{"queues_discipline", "mcb-batchgrid", "run --queues 64:lifo --output @/out",
             "--queues: discipline 'lifo' is not fcfs, easy or cons"},
        Case{"request_too_large", "mcb-batchgrid", kRun + "--request 128", "--request: '128'"},
        Case{"run_output_under_file",
             "mcb-batchgrid",
             "run --queues 64:easy --horizon-days 1 --output @/f/out",
             "--output",
             {{"f", "x"}}},
        Case{"experiments_zero", "mcb-batchgrid", "study --experiments 0 --output @/s",
             "--experiments: '0'"},
        Case{"threads_negative", "mcb-batchgrid", "study --threads -1 --output @/s",
             "--threads: '-1'"}),
    test_name);

// --- mcb-redundant ----------------------------------------------------------------------------
const std::string kRedundant = "--jobs 100 --warmup 10 --output @/out ";
// A recorded workload: a site of 4 processors, one request of two parts of 1.
const std::vector<InputFile> kReplayFiles = {
    {"a.swf",
     "; UnixStartTime: 100\n; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 1 -1 -1\n"},
    {"r.swf", "; UnixStartTime: 100\n1 1 0 5 2 -1 -1 2 5 -1 1 -1 -1 -1 -1 -1 -1 -1\n"},
    {"odd.swf", "; UnixStartTime: 100\n1 1 0 5 3 -1 -1 3 5 -1 1 -1 -1 -1 -1 -1 -1 -1\n"}};
const std::string kReplay =
    "--site-trace @/a.swf --site-trace @/a.swf --requests @/r.swf "
    "--output @/out ";
INSTANTIATE_TEST_SUITE_P(
    Redundant, BadInputMatrix,
    ::testing::Values(
        Case{"stray_word", "mcb-redundant", kRedundant + "stray", "'stray' is not an option"},
        Case{"runtime_mean_inf", "mcb-redundant", kRedundant + "--runtime-mean inf",
             "--runtime-mean: 'inf'"},
        Case{"duplicates_beyond_sites", "mcb-redundant",
             kRedundant + "--clusters 8x64 --duplicates 0:100",
             "--duplicates: 100 copies beyond the first need 101 sites; --clusters has 8"},
        Case{"duplicates_huge", "mcb-redundant", kRedundant + "--duplicates 0:20000",
             "--duplicates: '0:20000' is above the cap of 10000"},
        Case{"queue_easy", "mcb-redundant", kRedundant + "--queue easy",
             "--queue: 'easy' is not one of fcfs, cons"},
        Case{"load_of_world", "mcb-redundant", kRedundant + "--global-load-of world",
             "--global-load-of: 'world' is not one of site, grid"},
        Case{"output_missing", "mcb-redundant", "--jobs 100 --warmup 10", "--output"},
        Case{"output_under_file",
             "mcb-redundant",
             "--jobs 100 --warmup 10 --output @/f/out",
             "--output",
             {{"f", "x"}}},
        Case{"rankers_unknown", "mcb-redundant", kRedundant + "--rankers qlen,best",
             "--rankers: 'best'"},
        Case{"local_load_one", "mcb-redundant", kRedundant + "--local-load 1", "--local-load: '1'"},
        Case{"global_load_inf", "mcb-redundant", kRedundant + "--global-load inf",
             "--global-load: 'inf'"},
        Case{"seed_negative", "mcb-redundant", kRedundant + "--seed -1", "--seed: '-1'"},
        Case{"jobs_zero", "mcb-redundant", "--jobs 0 --warmup 0 --output @/out", "--jobs: '0'"},
        Case{"warmup_all", "mcb-redundant", "--jobs 100 --warmup 100 --output @/out",
             "--warmup: '100'"},
        Case{"runtime_mean_zero", "mcb-redundant", kRedundant + "--runtime-mean 0",
             "--runtime-mean: '0'"},
        Case{"estimate_max_half", "mcb-redundant", kRedundant + "--estimate-max 0.5",
             "--estimate-max: '0.5'"},
        Case{"coalloc_lower_zero", "mcb-redundant", kRedundant + "--coalloc-lower 0",
             "--coalloc-lower: '0'"},
        Case{"sync_unknown", "mcb-redundant", kRedundant + "--sync wait", "--sync: 'wait'"},
        Case{"duplicates_range", "mcb-redundant", kRedundant + "--duplicates 3:1",
             "--duplicates: '3:1'"},
        Case{"sizes_too_large", "mcb-redundant", kRedundant + "--sizes 128", "--sizes: '128'"},
        Case{"requests_alone", "mcb-redundant", "--requests @/r.swf --output @/out",
             "--site-trace and --requests"},
        Case{"replay_with_jobs", "mcb-redundant", kReplay + "--jobs 100",
             "--jobs: not used with --site-trace", kReplayFiles},
        Case{"site_trace_missing", "mcb-redundant",
             "--site-trace @/none.swf --requests @/r.swf --output @/out",
             "--site-trace: cannot read '@/none.swf'", kReplayFiles},
        Case{"site_trace_no_procs", "mcb-redundant",
             "--site-trace @/r.swf --site-trace @/a.swf --requests @/r.swf --output @/out",
             "--site-trace: @/r.swf: the header has no MaxProcs", kReplayFiles},
        Case{"requests_odd", "mcb-redundant",
             "--site-trace @/a.swf --site-trace @/a.swf --requests @/odd.swf --output @/out",
             "--requests: @/odd.swf:2: processors '3'", kReplayFiles}),
    test_name);

// --- mcb-load (every case is refused before a batch system is asked anything) ----------------
const std::vector<InputFile> kLoadFiles = {
    {"s.ini", "[a]\nkind = slurm\nenv = SLURM_CONF=@/none.conf\n[b]\nkind = gridengine\n"},
    {"t.swf", "; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"}};
const std::string kLoad = "--systems @/s.ini --trace @/t.swf --output @/o ";
INSTANTIATE_TEST_SUITE_P(
    Load, BadInputMatrix,
    ::testing::Values(
        Case{"factor_zero", "mcb-load", kLoad + "--factor 0", "--factor: '0'", kLoadFiles},
        Case{"factor_missing", "mcb-load", kLoad, "--factor", kLoadFiles},
        Case{"trace_missing", "mcb-load",
             "--systems @/s.ini --trace @/none.swf --factor 2 --output @/o",
             "--trace: cannot read '@/none.swf'", kLoadFiles},
        Case{"trace_bad_line",
             "mcb-load",
             kLoad + "--factor 2",
             "--trace: @/t.swf:2",
             {kLoadFiles[0], {"t.swf", "; MaxProcs: 8\n1 0 0 x 2\n"}}},
        Case{"systems_missing", "mcb-load",
             "--systems @/none.ini --trace @/t.swf --factor 2 --output @/o",
             "--systems: cannot read '@/none.ini'", kLoadFiles},
        Case{"systems_kind",
             "mcb-load",
             kLoad + "--factor 2",
             "--systems: @/s.ini:2",
             {{"s.ini", "[a]\nkind = lsf\n"}, kLoadFiles[1]}},
        Case{"select_unknown", "mcb-load", kLoad + "--factor 2 --select x",
             "--select: 'x' is not a system", kLoadFiles},
        Case{"select_twice", "mcb-load", kLoad + "--factor 2 --select a,a",
             "--select: 'a' is named twice", kLoadFiles},
        Case{"window_with_from", "mcb-load", kLoad + "--factor 2 --window 0:10 --from 2",
             "--window: '0:10' cannot go with --from", kLoadFiles},
        Case{"window_empty", "mcb-load", kLoad + "--factor 2 --window 10:10",
             "--window: '10:10' is an empty window", kLoadFiles},
        Case{"window_word", "mcb-load", kLoad + "--factor 2 --window x", "--window: 'x'",
             kLoadFiles},
        Case{"from_beyond", "mcb-load", kLoad + "--factor 2 --from 100",
             "--from: '100+all' holds no job", kLoadFiles},
        Case{"count_zero", "mcb-load", kLoad + "--factor 2 --count 0", "--count: '0'", kLoadFiles},
        Case{"procs_scale_auto_without_max",
             "mcb-load",
             kLoad + "--factor 2 --procs-scale auto",
             "--procs-scale: 'auto' needs the MaxProcs header",
             {kLoadFiles[0], {"t.swf", "1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"}}},
        Case{"procs_scale_negative", "mcb-load", kLoad + "--factor 2 --procs-scale -1",
             "--procs-scale: '-1'", kLoadFiles},
        Case{"max_procs_zero", "mcb-load", kLoad + "--factor 2 --max-procs 0", "--max-procs: '0'",
             kLoadFiles},
        Case{"assign_unknown", "mcb-load", kLoad + "--factor 2 --assign all",
             "--assign: 'all' is not one of random, every", kLoadFiles},
        Case{"seed_negative", "mcb-load", kLoad + "--factor 2 --seed -1", "--seed: '-1'",
             kLoadFiles},
        Case{"duration_zero", "mcb-load", kLoad + "--factor 2 --duration 0", "--duration: '0'",
             kLoadFiles},
        Case{"poll_word", "mcb-load", kLoad + "--factor 2 --poll soon", "--poll: 'soon'",
             kLoadFiles},
        Case{"output_holds_a_load",
             "mcb-load",
             kLoad + "--factor 2",
             "--output: '@/o' holds an earlier load",
             {kLoadFiles[0], kLoadFiles[1], {"o", "<dir>"}, {"o/load.json", "{}"}}}),
    test_name);

// --- mcb-nodeload, and --node-load of the measurement programs ---------------------------------
INSTANTIATE_TEST_SUITE_P(
    NodeLoad, BadInputMatrix,
    ::testing::Values(
        Case{"load_missing", "mcb-nodeload", "--duration 1s", "--load"},
        Case{"cpu_full", "mcb-nodeload", "--load cpu=100%", "--load: 'cpu=100%': cpu: '100%'"},
        Case{"kind_unknown", "mcb-nodeload", "--load gpu=1", "'gpu' is not a kind of load"},
        Case{"kind_twice", "mcb-nodeload", "--load cpu=10%,cpu=20%", "'cpu' given twice"},
        Case{"rate_word", "mcb-nodeload", "--load memory=fast", "--load: 'memory=fast': memory:"},
        Case{"port_low", "mcb-nodeload", "--load network=1MB/s,port=80", "port: '80'"},
        Case{"duration_word", "mcb-nodeload", "--load none --duration soon", "--duration: 'soon'"},
        Case{"poisson_node_load", "mcb-poisson", kPoisson + "--node-load cpu=150%",
             "--node-load: 'cpu=150%'"},
        Case{"ensflow_node_load", "mcb-ensflow", "--node-load cpu", "--node-load: 'cpu'"}),
    test_name);

// --- mcb-slurm-local --------------------------------------------------------------------------
INSTANTIATE_TEST_SUITE_P(
    SlurmLocal, BadInputMatrix,
    ::testing::Values(
        Case{"start_without_dir", "mcb-slurm-local", "start", "usage"},
        Case{"start_file", "mcb-slurm-local", "start @/f", "'@/f' exists and is not", {{"f", "x"}}},
        Case{"start_bad_owner", "mcb-slurm-local", "start @/d x1", "OWNER_PID"},
        Case{"start_owner_nan", "mcb-slurm-local", "start @/d nan", "OWNER_PID 'nan'"},
        Case{"start_owner_huge", "mcb-slurm-local", "start @/d 99999999999999999999999",
             "OWNER_PID '99999999999999999999999'"},
        Case{"stop_missing", "mcb-slurm-local", "stop @/none", "no such folder"},
        Case{"unknown_command", "mcb-slurm-local", "begin", "usage"}),
    test_name);

// --- mcb-rig (the same argument checks, shared through mcb-batch-lib.sh) ----------------------
INSTANTIATE_TEST_SUITE_P(
    Rig, BadInputMatrix,
    ::testing::Values(
        Case{"start_without_dir", "mcb-rig", "start", "usage"},
        Case{"start_file", "mcb-rig", "start @/f", "'@/f' exists and is not", {{"f", "x"}}},
        Case{"start_bad_owner", "mcb-rig", "start @/d x1", "OWNER_PID 'x1'"},
        Case{"stop_missing", "mcb-rig", "stop @/none", "no such folder"},
        Case{"unknown_command", "mcb-rig", "begin", "usage"}),
    test_name);

}  // namespace
}  // namespace mcb::testing
