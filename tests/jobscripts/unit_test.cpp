// The campaign library's pieces: the spec file and its checks, the expansion with the
// applications' own checks (their --check mode) and stable ids, quoting, and the record book.
#include "common/errors.hpp"
#include "jobscripts/app_check.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"
#include "jobscripts/smpi_executor.hpp"
#include "jobscripts/spec.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace {

using namespace mcb::campaign;
using mcb::testing::TempDir;
namespace ini = mcb::ini;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// The message of the UsageError that load_spec throws for @p text, or "" when it loads.
std::string spec_error(const std::string& text) {
  TempDir dir;
  try {
    load_spec(write(dir, "spec.ini", text));
  } catch (const mcb::UsageError& e) {
    return e.what();
  }
  return "";
}

std::string head(const std::string& more = "") {
  return "name = t\napp = poisson\nbinary = /bin/true\n" + more;
}

// A spec of the real application @p app (its --check answers for every configuration).
std::string app_head(const std::string& app, const std::string& more = "") {
  return "name = t\napp = " + app + "\nbinary = " + mcb::testing::bin("mcb-" + app) + "\n" + more;
}

std::string poisson(const std::string& more = "") { return app_head("poisson", more); }

Plan plan_of(const std::string& text) {
  TempDir dir;
  const CampaignSpec spec = load_spec(write(dir, "spec.ini", text));
  return expand(spec, application_checker(spec));
}

std::string expand_error(const std::string& text) {
  try {
    plan_of(text);
  } catch (const mcb::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(SpecFile, KeepsSectionsLinesAndQuotedValues) {
  TempDir dir;
  const ini::File f = ini::read_ini(
      write(dir, "s.ini",
            "# comment\nname = a#b   # trailing comment\n\n[options]\ngrid = 16 \"a b\" \"\"\n"));
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].key, "name");
  EXPECT_EQ(f.entries[0].value, "a#b");
  EXPECT_EQ(f.entries[1].section, "options");
  EXPECT_EQ(f.entries[1].line, 5);
  EXPECT_EQ(ini::split_words(f.entries[1].value), (std::vector<std::string>{"16", "a b", ""}));
}

TEST(SpecFile, NamesTheLineOfAMalformedEntry) {
  TempDir dir;
  try {
    ini::read_ini(write(dir, "s.ini", "name = a\njust words\n"));
    FAIL() << "accepted a line without '='";
  } catch (const mcb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("s.ini:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ini::read_ini(dir / "missing.ini"), mcb::UsageError);
}

TEST(SpecFile, SplitsWordsWithQuotesAndEscapes) {
  EXPECT_EQ(ini::split_words(R"(a  "b c" "d\"e" x"y z")"),
            (std::vector<std::string>{"a", "b c", "d\"e", "xy z"}));
  EXPECT_THROW(ini::split_words("\"open"), std::invalid_argument);
  EXPECT_EQ(ini::single_value("\"a b\""), "a b");
  EXPECT_EQ(ini::single_value("x $(y) 'z'"), "x $(y) 'z'");
}

// The smpi executor: what it needs is named, and ranks land on clusters in the harness's blocks.
TEST(SmpiExecutor, NamesMissingSettingsAndPlacesRanksInBlocks) {
  EXPECT_NE(spec_error(head("executor = smpi\n[smpi]\nclusters = c0 c1\n"))
                .find("[smpi] platform: missing"),
            std::string::npos);
  EXPECT_NE(spec_error(head("executor = smpi\n[smpi]\nplatform = no-such-platform\n"))
                .find("'no-such-platform': no platform file"),
            std::string::npos);
  EXPECT_NE(spec_error(head("[smpi]\nper-node = 0\n")).find("per-node: '0'"), std::string::npos);
  mcb::campaign::SmpiSettings smpi;
  smpi.clusters = {"fs0", "fs1"};
  EXPECT_EQ(mcb::campaign::smpi_hostfile(smpi, 4, 2), "fs0-0\nfs0-1\nfs1-0\nfs1-1\n");
  smpi.per_node = 2;
  EXPECT_EQ(mcb::campaign::smpi_hostfile(smpi, 4, 2), "fs0-0\nfs0-0\nfs1-0\nfs1-0\n");
  EXPECT_EQ(mcb::campaign::smpi_hostfile(smpi, 4, 1), "fs0-0\nfs0-0\nfs0-1\nfs0-1\n");
}

TEST(Spec, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_seconds("90"), 90);
  EXPECT_DOUBLE_EQ(parse_seconds("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_seconds("10min"), 600);
  EXPECT_DOUBLE_EQ(parse_seconds("2h"), 7200);
  EXPECT_DOUBLE_EQ(parse_seconds("01:02:03"), 3723);
  EXPECT_THROW(parse_seconds("soon"), std::invalid_argument);
  EXPECT_THROW(parse_seconds("1:x"), std::invalid_argument);
}

TEST(Spec, RefusesBadKeysAndValuesNamingThem) {
  EXPECT_EQ(spec_error(head()), "");
  EXPECT_NE(spec_error(head("nmae = x\n")).find("spec.ini:4: unknown key 'nmae'"),
            std::string::npos);
  EXPECT_NE(spec_error(head("[slurm]\npartition = a\n")).find("'partition' in [slurm]"),
            std::string::npos);
  EXPECT_NE(spec_error(head("[sweep]\ngrid = 1\n")).find("unknown section [sweep]"),
            std::string::npos);
  EXPECT_NE(
      spec_error(head("repetitions = 2\nrepetitions = 3\n")).find("set twice (first on line 4)"),
      std::string::npos);
  EXPECT_NE(
      spec_error(head("executor = lsf\n")).find("'lsf' is not one of local, smpi, slurm, pbs"),
      std::string::npos);
  EXPECT_NE(spec_error(head("repetitions = 0\n")).find("repetitions: '0'"), std::string::npos);
  EXPECT_NE(spec_error(head("timeout = soon\n")).find("timeout"), std::string::npos);
  EXPECT_NE(spec_error(head("on-invalid = ignore\n")).find("'ignore' is not one of skip, refuse"),
            std::string::npos);
  EXPECT_NE(spec_error(head("env = 1X=2\n")).find("'1X=2' is not NAME=VALUE"), std::string::npos);
  EXPECT_NE(spec_error(head("[options]\ngrid =\n")).find("grid: empty list of values"),
            std::string::npos);
  EXPECT_NE(spec_error(head("[options]\ngrid = 1 1\n")).find("'1' is listed twice"),
            std::string::npos);
  EXPECT_NE(spec_error("name = t\napp = poisson\nbinary = /no/such/mcb-poisson\n")
                .find("'/no/such/mcb-poisson' does not exist"),
            std::string::npos);
  EXPECT_NE(spec_error("app = poisson\nbinary = /bin/true\n").find("name: missing"),
            std::string::npos);
}

TEST(Spec, KeepsBatchDirectivesFreeOfShell) {
  EXPECT_NE(spec_error(head("executor = slurm\n")).find("[slurm] partitions: missing"),
            std::string::npos);
  EXPECT_NE(
      spec_error(head("executor = slurm\n[slurm]\npartitions = a$(x)\n")).find("may hold only"),
      std::string::npos);
  EXPECT_NE(spec_error(head("executor = slurm\n[slurm]\npartitions = a a\n")).find("listed twice"),
            std::string::npos);
  EXPECT_NE(spec_error(head("[slurm]\naccount = `x`\n")).find("account"), std::string::npos);
  EXPECT_NE(spec_error(head("[slurm]\ndirective = exclusive\n")).find("must start with '-'"),
            std::string::npos);
  EXPECT_NE(
      spec_error(head("executor = pbs\n[pbs]\nclusters = A B\n")).find("needs cluster-resource"),
      std::string::npos);
}

TEST(Spec, ResolvesPathsFromTheSpecFolder) {
  TempDir dir;
  const CampaignSpec spec = load_spec(write(dir, "spec.ini", head("folder = out/x\n")));
  EXPECT_EQ(spec.folder, (dir.path() / "out/x").string());
  const CampaignSpec by_default = load_spec(write(dir, "spec2.ini", head()));
  EXPECT_EQ(by_default.folder, (dir.path() / "campaigns/t").string());
  const CampaignSpec overridden = load_spec(dir / "spec2.ini", {"/tmp/elsewhere", "pbs"});
  EXPECT_EQ(overridden.folder, "/tmp/elsewhere");
  EXPECT_EQ(overridden.executor, "pbs");
  EXPECT_THROW(load_spec(dir / "spec2.ini", {"", "lsf"}), mcb::UsageError);
}

TEST(Expansion, CountsCombinationsAndNumbersThemFirstAxisSlowest) {
  const Plan p =
      plan_of(poisson("repetitions = 2\n[options]\ngrid = 16 32\nprocs = 2x1 2x2 4x1\n"));
  ASSERT_EQ(p.configurations.size(), 6u);
  EXPECT_EQ(p.invalid_count(), 0u);
  EXPECT_EQ(p.runs.size(), 12u);
  EXPECT_EQ(p.configurations[1].values[1].second, "2x2");
  EXPECT_EQ(p.configurations[3].values[0].second, "32");
  EXPECT_EQ(p.configurations[3].app_args,
            (std::vector<std::string>{"--grid", "32", "--procs", "2x1"}));
  EXPECT_EQ(p.configurations[2].ranks, 4);
  // Every configuration's first repetition, then the second.
  EXPECT_EQ(p.runs[0].id, "t-1-r1");
  EXPECT_EQ(p.runs[5].id, "t-6-r1");
  EXPECT_EQ(p.runs[6].id, "t-1-r2");
  EXPECT_EQ(p.runs[6].key, "1-r2");
}

TEST(Expansion, IdsStayWhenTheFirstAxisGrows) {
  const Plan before = plan_of(poisson("[options]\ngrid = 16 32\nprocs = 2x1 2x2\n"));
  const Plan after = plan_of(poisson("[options]\ngrid = 16 32 64\nprocs = 2x1 2x2\n"));
  ASSERT_EQ(after.configurations.size(), 6u);
  for (std::size_t i = 0; i < before.configurations.size(); ++i) {
    EXPECT_EQ(before.configurations[i].app_args, after.configurations[i].app_args);
    EXPECT_EQ(before.runs[i].id, after.runs[i].id);
  }
  // The same spec expands the same way every time.
  const Plan again = plan_of(poisson("[options]\ngrid = 16 32\nprocs = 2x1 2x2\n"));
  for (std::size_t i = 0; i < before.runs.size(); ++i)
    EXPECT_EQ(before.runs[i].id, again.runs[i].id);
}

// Combinations mcb-poisson cannot run are invalid with its own words; the rest run.
TEST(Expansion, ReportsPoissonCombinationsThatCannotRunWithTheirReason) {
  const Plan p = plan_of(poisson("[options]\ngrid = 2 16\nprocs = 3x1 4x2\nclusters = 1 2\n"));
  ASSERT_EQ(p.configurations.size(), 8u);
  std::map<int, std::string> invalid;
  for (const Configuration& c : p.configurations) {
    if (!c.invalid.empty()) invalid[c.index] = c.invalid;
  }
  // Index order: grid slowest, clusters fastest. Grid 2 is too small for both process grids.
  EXPECT_EQ(invalid.at(6), "--clusters: '2' does not divide the 3 columns of process grid 3x1");
  EXPECT_NE(invalid.at(1).find("--grid: '2' is too small for process grid 3x1"), std::string::npos);
  EXPECT_NE(invalid.at(3).find("too small"), std::string::npos);
  EXPECT_EQ(invalid.count(7), 0u);  // grid 16, 4x2, 1 cluster
  EXPECT_EQ(invalid.count(8), 0u);  // grid 16, 4x2, 2 clusters
  EXPECT_EQ(p.runs.size(), 8u - invalid.size());
  EXPECT_EQ(p.configurations[7].clusters, 2);
  // Ranks that contradict the process grid, and a rank count without any split.
  const Plan q = plan_of(poisson("[options]\nprocs = 2x2\nranks = 4 8\n"));
  EXPECT_EQ(q.configurations[0].invalid, "");
  EXPECT_EQ(q.configurations[1].invalid, "--procs: '2x2' has 4 processes but the run has 8 ranks");
  const Plan r = plan_of(poisson("[options]\nranks = 5 6\nclusters = 2\n"));
  EXPECT_EQ(r.configurations[0].invalid,
            "--clusters: '2' does not divide the 5 columns of process grid 5x1");
  EXPECT_EQ(r.configurations[1].invalid, "");
  EXPECT_EQ(r.configurations[1].ranks, 6);
  EXPECT_EQ(r.configurations[1].app_args, (std::vector<std::string>{"--clusters", "2"}));
}

TEST(Expansion, ChecksTheExecutorsClusters) {
  const Plan p =
      plan_of(poisson("executor = slurm\n[slurm]\npartitions = A B\n[options]\nprocs = 6x1\n"
                      "clusters = 1 2 3\n"));
  EXPECT_EQ(p.configurations[0].invalid, "");
  EXPECT_EQ(p.configurations[1].invalid, "");
  EXPECT_EQ(p.configurations[2].invalid, "the slurm executor lists 2 cluster(s); this run needs 3");
  const Plan q =
      plan_of(poisson("executor = pbs\n[pbs]\nprocs-per-chunk = 4\n[options]\nprocs = 4x1 2x1\n"));
  EXPECT_EQ(q.configurations[0].invalid, "");
  EXPECT_EQ(q.configurations[1].invalid,
            "2 ranks per cluster do not fill chunks of 4 (procs-per-chunk)");
}

// A value the application refuses on its own refuses the spec, at that value's line, in the
// application's words; so does a key it does not take.
TEST(Expansion, RefusesTheSpecForAValueTheApplicationRefuses) {
  const std::string e = expand_error(poisson("[options]\nprocs = 2x1\ntolerance = -1\n"));
  const std::string expected =
      "/spec.ini:6: tolerance: mcb-poisson refuses it: --tolerance: '-1' must be positive";
  EXPECT_EQ(e.substr(e.size() - std::min(e.size(), expected.size())), expected) << e;
}

TEST(Expansion, RefusesKeysTheApplicationDoesNotTakeOrTheExecutorSets) {
  auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  std::string e = expand_error(poisson("[options]\ngird = 16\nprocs = 2x1\n"));
  EXPECT_TRUE(has(e, "spec.ini:5: gird: mcb-poisson refuses it: unknown option 'gird'")) << e;
  e = expand_error(poisson("[options]\nprocs = 2x1\ntolerance = 1e-6 -1\n"));
  EXPECT_TRUE(has(e, "spec.ini:6: tolerance:")) << e;
  e = expand_error(poisson("[options]\noutput = x\nprocs = 2x1\n"));
  EXPECT_TRUE(has(e, "set by mcb-campaign")) << e;
  e =
      expand_error(poisson("executor = slurm\n[slurm]\npartitions = A\n[options]\nprocs = 2x1\n"
                           "cluster-map = m\n"));
  EXPECT_TRUE(has(e, "set by the slurm executor")) << e;
  e = expand_error(poisson("[options]\nprocs = 2x1\nsync = maybe\n"));
  EXPECT_TRUE(has(e, "spec.ini:6: sync:") && has(e, "'maybe'")) << e;
  e = expand_error(poisson("[options]\nprocs = 2x1\nhalo = sideways\n"));
  EXPECT_TRUE(has(e, "halo: mcb-poisson refuses it: --halo: 'sideways' is not one of paper, exact"))
      << e;
  e = expand_error(poisson("[options]\nprocs = 2y1\n"));
  EXPECT_TRUE(has(e, "spec.ini:5: procs: mcb-poisson refuses it: --procs:")) << e;
  e = expand_error(poisson("[options]\ngrid = many\nprocs = 2x1\n"));
  EXPECT_TRUE(has(e, "spec.ini:5: grid: mcb-poisson refuses it:") && has(e, "'many'")) << e;
  EXPECT_FALSE(has(e, "mcb-check")) << "the check's own file is not the user's business: " << e;
  e = expand_error(poisson("[options]\ngrid = 16\n"));
  EXPECT_TRUE(has(e, "ranks: mcb-poisson refuses it: --procs: missing")) << e;
  e = expand_error(poisson("[options]\nranks = 0\n"));
  EXPECT_TRUE(has(e, "ranks: '0' must be a positive process count")) << e;
}

TEST(Expansion, TurnsSwitchesIntoFlagsAndFilesIntoAbsolutePaths) {
  TempDir dir;
  const CampaignSpec spec = load_spec(write(dir, "s.ini",
                                            poisson("[options]\nprocs = 2x1\nsync = on off\n"
                                                    "platform = links.ini\ncounters = \"\"\n")));
  const Plan p = expand(spec, application_checker(spec));
  const std::string platform = (dir.path() / "links.ini").string();
  EXPECT_EQ(p.configurations[0].app_args,
            (std::vector<std::string>{"--procs", "2x1", "--sync", "--platform", platform,
                                      "--counters", ""}));
  EXPECT_EQ(p.configurations[1].app_args,
            (std::vector<std::string>{"--procs", "2x1", "--platform", platform, "--counters", ""}));
}

TEST(Expansion, RefusesAProgramThatDoesNotAnswerTheCheck) {
  EXPECT_NE(expand_error(head("[options]\nranks = 2\n")).find("gave no answer"), std::string::npos);
}

TEST(Rules, EnsflowNeedsRanksThatDivideTheMembers) {
  const Plan p =
      plan_of(app_head("ensflow", "[options]\nmembers = 6 8\nranks = 2 3\nclusters = 1 2\n"));
  std::map<std::string, std::string> reason;
  for (const Configuration& c : p.configurations) {
    std::string key;
    for (const auto& [k, v] : c.values) key += k + "=" + v + " ";
    reason[key] = c.invalid;
  }
  EXPECT_EQ(reason.at("members=6 ranks=2 clusters=1 "), "");
  EXPECT_EQ(reason.at("members=6 ranks=3 clusters=1 "), "");
  EXPECT_NE(reason.at("members=8 ranks=3 clusters=1 ")
                .find("--members: '8' is not divisible by "
                      "the 3 processes"),
            std::string::npos);
  EXPECT_EQ(reason.at("members=6 ranks=3 clusters=2 "),
            "--clusters: '2' does not divide the 3 processes of this run");
  EXPECT_EQ(reason.at("members=8 ranks=2 clusters=2 "), "");
  // The application's default member count applies when members is not swept.
  const Plan d = plan_of(app_head("ensflow", "[options]\nranks = 7\n"));
  EXPECT_NE(d.configurations[0].invalid.find("is not divisible by the 7 processes"),
            std::string::npos);
  EXPECT_NE(expand_error(app_head("ensflow", "[options]\nmembers = 6\n")).find("--ranks: missing"),
            std::string::npos);
}

// A typed value of the application's (--walls) is refused by the spec in the application's
// words, naming the option; each value it takes makes a configuration.
TEST(Rules, EnsflowWallsCheckedByTheApplication) {
  const std::string e =
      expand_error(app_head("ensflow", "[options]\nranks = 1\nwalls = no-slip sticky\n"));
  EXPECT_NE(e.find("spec.ini:6: walls: mcb-ensflow refuses it: --walls: 'sticky' is not one of "
                   "no-slip, free-slip"),
            std::string::npos)
      << e;
  const Plan p = plan_of(app_head("ensflow", "[options]\nranks = 1\nwalls = no-slip free-slip\n"));
  ASSERT_EQ(p.configurations.size(), 2u);
  for (const Configuration& c : p.configurations) EXPECT_EQ(c.invalid, "");
}

TEST(Rules, LinksTakeRanksAsGiven) {
  const Plan p = plan_of(app_head("links", "[options]\nranks = 2 3\nclusters = 2\n"));
  EXPECT_EQ(p.configurations[0].invalid, "");
  EXPECT_EQ(p.configurations[1].invalid,
            "--clusters: '2': 2 clusters do not divide 3 ranks into equal blocks");
}

// The check mode itself, as a user runs it: one JSON line, exit 0 or 2 with one line.
TEST(Check, AnswersWithTheRunsShapeOrRefusesWithOneLine) {
  using mcb::testing::run_command;
  const std::string poisson_bin = mcb::testing::quote(mcb::testing::bin("mcb-poisson"));
  const auto ok = run_command(poisson_bin + " --check --procs 4x2 --clusters 2 --sync");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const auto answer = nlohmann::json::parse(ok.out);
  EXPECT_EQ(answer["ranks"], 8);
  EXPECT_EQ(answer["clusters"], 2);
  EXPECT_EQ(answer["args"], nlohmann::json({"--procs", "4x2", "--clusters", "2", "--sync"}));
  const auto bad = run_command(poisson_bin + " --check --ranks 4 --tolerance -1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "mcb-poisson: --tolerance: '-1' must be positive\n");
  EXPECT_EQ(nlohmann::json::parse(bad.out)["value"], true);
  const auto combination = run_command(poisson_bin + " --check --ranks 8 --procs 2x2");
  EXPECT_EQ(combination.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(combination.out)["value"], false);
  const auto omega = run_command(poisson_bin + " --check --ranks 1 --omega fast");
  EXPECT_EQ(omega.err, "mcb-poisson: --omega: 'fast' is not 'auto' or a number\n");
}

// "Not given" is read from the parse, not from a default value: --clusters 1 is a choice that
// contradicts a two-cluster map; leaving --clusters out lets the map decide.
TEST(Check, ClustersGivenAsOneContradictATwoClusterMap) {
  TempDir dir;
  const std::string map = write(dir, "map.txt", "a b\na b\n");
  const std::string poisson_bin = mcb::testing::quote(mcb::testing::bin("mcb-poisson")) +
                                  " --check --procs 2x2 --cluster-map " + mcb::testing::quote(map);
  const auto by_map = mcb::testing::run_command(poisson_bin);
  EXPECT_EQ(by_map.exit_code, 0) << by_map.err;
  EXPECT_EQ(nlohmann::json::parse(by_map.out)["clusters"], 2);
  const auto one = mcb::testing::run_command(poisson_bin + " --clusters 1");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("--clusters: '1' disagrees with --cluster-map"), std::string::npos)
      << one.err;
}

TEST(Shell, QuotedWordsReachBashUnchanged) {
  for (const std::string& word : {std::string("plain"), std::string("two words"), std::string(""),
                                  std::string("$(touch pwned)"), std::string("`touch pwned`"),
                                  std::string("it's \"quoted\" \\ $HOME ; | & > <")}) {
    TempDir dir;
    const auto r =
        mcb::testing::run_command("cd '" + dir.path().string() + "' && bash -c " +
                                  mcb::testing::quote("printf '%s' " + shell_quote(word)));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, word);
    EXPECT_FALSE(std::filesystem::exists(dir / "pwned"));
  }
  EXPECT_EQ(display_word("--grid"), "--grid");
  EXPECT_EQ(display_word(""), "''");
  EXPECT_EQ(display_word("a b"), "'a b'");
}

TEST(Shell, FillsTemplatesByNameAndRefusesUnknownPlaceholders) {
  EXPECT_EQ(fill_template("a @X@ b user@host @Y@", {{"X", "1"}, {"Y", "$(2)"}}),
            "a 1 b user@host $(2)");
  EXPECT_THROW(fill_template("@MISSING@", {}), std::logic_error);
  EXPECT_EQ(plain_name("x $(y) z"), "x___y__z");
  // The built-in templates are whole bash scripts apart from their placeholders; each batch
  // system's ends in the run section, which holds the runs and the functions they use.
  EXPECT_NE(slurm_template().find("@DIRECTIVES@"), std::string::npos);
  EXPECT_NE(pbs_template().find("@RUN_SECTION@"), std::string::npos);
  EXPECT_NE(run_section_template().find("@RUNS@"), std::string::npos);
  EXPECT_NE(run_section_template().find("mcb_run()"), std::string::npos);
}

TEST(RecordBook, IgnoresATornLastLineAndRefusesAMalformedWholeLine) {
  TempDir dir;
  const std::string path = dir / "records.jsonl";
  const std::string head = "{\"schema\":\"mcb-run/1\",\"app\":\"poisson\",";
  std::ofstream(path) << head << "\"run_id\":\"a\",\"status\":\"valid\"}\n"
                      << head << "\"run_id\":\"b\",\"status\":\"failed\",\"reason\":\"x\"}\n"
                      << head << "\"run_id\":\"c\",\"sta";
  const RecordBook book = RecordBook::read(path);
  EXPECT_EQ(book.size(), 2u);
  EXPECT_EQ(book.find("b")->reason, "x");
  EXPECT_EQ(book.find("c"), nullptr);
  EXPECT_EQ(record_line_for(path, "c"), "");
  EXPECT_NE(record_line_for(path, "a"), "");
  std::ofstream(path, std::ios::app) << "\nnot json\n";
  EXPECT_THROW(RecordBook::read(path), mcb::UsageError);
}

TEST(RecordBook, PicksTheLinesThatSayWhyARunFailed) {
  TempDir dir;
  std::ofstream(dir / "a.log")
      << "noise\nmcb-poisson: --grid: 'x' is not a number\n-------\nmore noise\n";
  EXPECT_EQ(log_excerpt(dir / "a.log", "mcb-poisson"), "mcb-poisson: --grid: 'x' is not a number");
  std::ofstream(dir / "b.log")
      << "[vm:1] Signal: Segmentation fault (11)\nsrun: error: a1: task 0: "
         "Segmentation fault\nsrun: error: b1: tasks 0-1: Killed\n";
  EXPECT_EQ(log_excerpt(dir / "b.log", "mcb-poisson"),
            "srun: error: a1: task 0: Segmentation fault");
  std::ofstream(dir / "c.log") << "last words\n";
  EXPECT_EQ(log_excerpt(dir / "c.log", "mcb-poisson"), "last words");
  EXPECT_EQ(log_excerpt(dir / "none.log", "mcb-poisson"), "");
}

}  // namespace
