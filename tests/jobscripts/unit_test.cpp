// The campaign library's pieces: the spec file and its checks, an application's options read
// from its help, the expansion with its rules and stable ids, quoting, and the record book.
#include "common/errors.hpp"
#include "jobscripts/app_options.hpp"
#include "jobscripts/app_rules.hpp"
#include "jobscripts/expansion.hpp"
#include "jobscripts/record_book.hpp"
#include "jobscripts/shell.hpp"
#include "jobscripts/spec.hpp"
#include "jobscripts/spec_file.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace {

using namespace mcb::campaign;
using mcb::testing::TempDir;

// What mcb-poisson --help prints (its option lines), the input the expansion reads.
constexpr const char* kPoissonHelp = R"(Usage: mpirun -np P mcb-poisson [options]

General:
  -h [ --help ]                         print this help and exit
  --config FILE                         read options from an INI file (key = 

mcb-poisson: red-black Gauss-Seidel Poisson solver:
  --grid N (=200)                       interior grid points per side (the 
                                        domain is the unit square)
  --procs HxV                           process grid, H across and V up, ranks 
  --halo paper|exact (=paper)           paper: one border exchange per 
  --sync                                synchronize (barrier) before every 
  --tolerance T (=9.9999999999999995e-07)
                                        stop when the residual max-norm falls 
  --max-iterations K (=200000)          iteration cap; a run that reaches it 
  --clusters C (=1)                     number of clusters the ranks are split 
  --cluster-map FILE|env:VAR            explicit rank-to-cluster map: a file 
  --output FILE (=runs.jsonl)           JSON Lines file the run record is 
  --seed S (=1)                         random seed (recorded)
  --platform FILE                       wide-area platform description
  --counters LIST (=PAPI_TOT_INS,PAPI_TOT_CYC)
  --quiet                               print only the verdict line
)";

constexpr const char* kEnsflowHelp = R"(
  --members M (=60)                     ensemble members; the process count 
  --days D (=20)                        days of assimilation (one outer step 
  --clusters C (=1)                     number of clusters the ranks are split 
)";

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

Plan plan_of(const std::string& text, const char* help = kPoissonHelp) {
  TempDir dir;
  const CampaignSpec spec = load_spec(write(dir, "spec.ini", text));
  return expand(spec, AppOptions::from_help(help));
}

std::string expand_error(const std::string& text, const char* help = kPoissonHelp) {
  try {
    plan_of(text, help);
  } catch (const mcb::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(SpecFile, KeepsSectionsLinesAndQuotedValues) {
  TempDir dir;
  const SpecFile f = read_spec_file(
      write(dir, "s.ini",
            "# comment\nname = a#b   # trailing comment\n\n[options]\ngrid = 16 \"a b\" \"\"\n"));
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].key, "name");
  EXPECT_EQ(f.entries[0].raw, "a#b");
  EXPECT_EQ(f.entries[1].section, "options");
  EXPECT_EQ(f.entries[1].line, 5);
  EXPECT_EQ(split_words(f.entries[1].raw), (std::vector<std::string>{"16", "a b", ""}));
}

TEST(SpecFile, NamesTheLineOfAMalformedEntry) {
  TempDir dir;
  try {
    read_spec_file(write(dir, "s.ini", "name = a\njust words\n"));
    FAIL() << "accepted a line without '='";
  } catch (const mcb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("s.ini:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_spec_file(dir / "missing.ini"), mcb::UsageError);
}

TEST(SpecFile, SplitsWordsWithQuotesAndEscapes) {
  EXPECT_EQ(split_words(R"(a  "b c" "d\"e" x"y z")"),
            (std::vector<std::string>{"a", "b c", "d\"e", "xy z"}));
  EXPECT_THROW(split_words("\"open"), std::invalid_argument);
  EXPECT_EQ(single_value("\"a b\""), "a b");
  EXPECT_EQ(single_value("x $(y) 'z'"), "x $(y) 'z'");
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
  EXPECT_NE(spec_error(head("executor = lsf\n")).find("'lsf' is not one of local, slurm, pbs"),
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

TEST(AppOptions, ReadsSwitchesValuesAndDefaultsFromHelp) {
  const AppOptions o = AppOptions::from_help(kPoissonHelp);
  ASSERT_NE(o.find("grid"), nullptr);
  EXPECT_TRUE(o.find("grid")->takes_value);
  EXPECT_EQ(o.find("grid")->default_value.value_or(""), "200");
  ASSERT_NE(o.find("sync"), nullptr);
  EXPECT_FALSE(o.find("sync")->takes_value);
  EXPECT_EQ(o.find("halo")->value_name, "paper|exact");
  EXPECT_EQ(o.find("tolerance")->default_value.value_or(""), "9.9999999999999995e-07");
  EXPECT_FALSE(o.find("procs")->default_value.has_value());
  EXPECT_NE(o.find("help"), nullptr);
  EXPECT_EQ(o.find("domain"), nullptr);  // words of a description are not options
  EXPECT_FALSE(o.find("quiet")->takes_value);
}

TEST(Expansion, CountsCombinationsAndNumbersThemFirstAxisSlowest) {
  const Plan p = plan_of(head("repetitions = 2\n[options]\ngrid = 16 32\nprocs = 2x1 2x2 4x1\n"));
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
  const Plan before = plan_of(head("[options]\ngrid = 16 32\nprocs = 2x1 2x2\n"));
  const Plan after = plan_of(head("[options]\ngrid = 16 32 64\nprocs = 2x1 2x2\n"));
  ASSERT_EQ(after.configurations.size(), 6u);
  for (std::size_t i = 0; i < before.configurations.size(); ++i) {
    EXPECT_EQ(before.configurations[i].app_args, after.configurations[i].app_args);
    EXPECT_EQ(before.runs[i].id, after.runs[i].id);
  }
  // The same spec expands the same way every time.
  const Plan again = plan_of(head("[options]\ngrid = 16 32\nprocs = 2x1 2x2\n"));
  for (std::size_t i = 0; i < before.runs.size(); ++i)
    EXPECT_EQ(before.runs[i].id, again.runs[i].id);
}

TEST(Expansion, ReportsPoissonCombinationsThatCannotRunWithTheirReason) {
  const Plan p = plan_of(head("[options]\ngrid = 2 16\nprocs = 3x1 4x2\nclusters = 1 2\n"));
  ASSERT_EQ(p.configurations.size(), 8u);
  std::map<int, std::string> invalid;
  for (const Configuration& c : p.configurations) {
    if (!c.invalid.empty()) invalid[c.index] = c.invalid;
  }
  // Index order: grid slowest, clusters fastest. Grid 2 is too small for both process grids.
  EXPECT_EQ(invalid.at(2), "process grid 3x1 has 3 columns, which cannot be split over 2 clusters");
  EXPECT_NE(invalid.at(1).find("grid 2 is too small for process grid 3x1"), std::string::npos);
  EXPECT_NE(invalid.at(3).find("too small"), std::string::npos);
  EXPECT_EQ(invalid.count(7), 0u);  // grid 16, 4x2, 1 cluster
  EXPECT_EQ(invalid.count(8), 0u);  // grid 16, 4x2, 2 clusters
  EXPECT_EQ(p.runs.size(), 8u - invalid.size());
  // Ranks that contradict the process grid, and a rank count without any split.
  const Plan q = plan_of(head("[options]\nprocs = 2x2\nranks = 4 8\n"));
  EXPECT_EQ(q.configurations[0].invalid, "");
  EXPECT_EQ(q.configurations[1].invalid, "process grid 2x2 has 4 processes but ranks = 8");
  const Plan r = plan_of(head("[options]\nranks = 5 6\nclusters = 2\n"));
  EXPECT_NE(r.configurations[0].invalid.find("no process grid of 5 ranks"), std::string::npos);
  EXPECT_EQ(r.configurations[1].invalid, "");
}

TEST(Expansion, ChecksTheExecutorsClusters) {
  const Plan p =
      plan_of(head("executor = slurm\n[slurm]\npartitions = A B\n[options]\nprocs = 6x1\n"
                   "clusters = 1 2 3\n"));
  EXPECT_EQ(p.configurations[0].invalid, "");
  EXPECT_EQ(p.configurations[1].invalid, "");
  EXPECT_EQ(p.configurations[2].invalid, "the slurm executor lists 2 cluster(s); this run needs 3");
  const Plan q =
      plan_of(head("executor = pbs\n[pbs]\nprocs-per-chunk = 4\n[options]\nprocs = 4x1 2x1\n"));
  EXPECT_EQ(q.configurations[0].invalid, "");
  EXPECT_EQ(q.configurations[1].invalid,
            "2 ranks per cluster do not fill chunks of 4 (procs-per-chunk)");
}

TEST(Expansion, RefusesKeysTheApplicationDoesNotTakeOrTheExecutorSets) {
  EXPECT_NE(expand_error(head("[options]\ngird = 16\nprocs = 2x1\n"))
                .find("'gird' is not an option of true"),
            std::string::npos);
  EXPECT_NE(expand_error(head("[options]\noutput = x\nprocs = 2x1\n")).find("set by mcb-campaign"),
            std::string::npos);
  EXPECT_NE(expand_error(head("executor = slurm\n[slurm]\npartitions = A\n[options]\nprocs = 2x1\n"
                              "cluster-map = m\n"))
                .find("set by the slurm executor"),
            std::string::npos);
  EXPECT_NE(
      expand_error(head("[options]\nprocs = 2x1\nsync = maybe\n")).find("'maybe' is not on or off"),
      std::string::npos);
  EXPECT_NE(expand_error(head("[options]\nprocs = 2x1\nhalo = sideways\n"))
                .find("'sideways' is not one of paper, exact"),
            std::string::npos);
  EXPECT_NE(expand_error(head("[options]\nprocs = 2y1\n")).find("procs: '2y1' is not HxV"),
            std::string::npos);
  EXPECT_NE(expand_error(head("[options]\ngrid = many\nprocs = 2x1\n"))
                .find("grid: 'many' is not a whole number"),
            std::string::npos);
  EXPECT_NE(expand_error(head("[options]\ngrid = 16\n")).find("needs 'procs' (HxV) or 'ranks'"),
            std::string::npos);
}

TEST(Expansion, TurnsSwitchesIntoFlagsAndFilesIntoAbsolutePaths) {
  TempDir dir;
  const CampaignSpec spec = load_spec(write(dir, "s.ini",
                                            head("[options]\nprocs = 2x1\nsync = on off\n"
                                                 "platform = links.ini\n")));
  const Plan p = expand(spec, AppOptions::from_help(kPoissonHelp));
  const std::string platform = (dir.path() / "links.ini").string();
  EXPECT_EQ(p.configurations[0].app_args,
            (std::vector<std::string>{"--procs", "2x1", "--sync", "--platform", platform}));
  EXPECT_EQ(p.configurations[1].app_args,
            (std::vector<std::string>{"--procs", "2x1", "--platform", platform}));
}

TEST(Rules, EnsflowNeedsRanksThatDivideTheMembers) {
  const std::string h = "name = e\napp = ensflow\nbinary = /bin/true\n";
  const Plan p =
      plan_of(h + "[options]\nmembers = 6 8\nranks = 2 3\nclusters = 1 2\n", kEnsflowHelp);
  std::map<std::string, std::string> reason;
  for (const Configuration& c : p.configurations) {
    std::string key;
    for (const auto& [k, v] : c.values) key += k + "=" + v + " ";
    reason[key] = c.invalid;
  }
  EXPECT_EQ(reason.at("members=6 ranks=2 clusters=1 "), "");
  EXPECT_EQ(reason.at("members=6 ranks=3 clusters=1 "), "");
  EXPECT_EQ(reason.at("members=8 ranks=3 clusters=1 "),
            "P = 3 processes do not divide M = 8 members");
  EXPECT_EQ(reason.at("members=6 ranks=3 clusters=2 "),
            "3 ranks cannot be split evenly over 2 clusters");
  EXPECT_EQ(reason.at("members=8 ranks=2 clusters=2 "), "");
  // The default member count (60) applies when members is not swept.
  const Plan d = plan_of(h + "[options]\nranks = 7\n", kEnsflowHelp);
  EXPECT_EQ(d.configurations[0].invalid, "P = 7 processes do not divide M = 60 members");
  EXPECT_NE(expand_error(h + "[options]\nmembers = 6\n", kEnsflowHelp).find("needs 'ranks'"),
            std::string::npos);
}

TEST(Rules, OtherApplicationsTakeRanksAsGiven) {
  const Plan p = plan_of(
      "name = g\napp = links\nbinary = /bin/true\n[options]\nranks = 2 3\n"
      "clusters = 2\n",
      kEnsflowHelp);
  EXPECT_EQ(p.configurations[0].invalid, "");
  EXPECT_EQ(p.configurations[1].invalid, "3 ranks cannot be split evenly over 2 clusters");
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
