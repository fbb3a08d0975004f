#include "calibration/calibrate.hpp"

#include "calibration/comm_tables.hpp"
#include "calibration/fits.hpp"
#include "calibration/grouping.hpp"
#include "calibration/job_model.hpp"
#include "calibration/records.hpp"
#include "calibration/runtime_table.hpp"
#include "calibration/warnings.hpp"
#include "common/cli.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/output_set.hpp"

#include <filesystem>
#include <iostream>
#include <map>
#include <ostream>
#include <set>
#include <utility>

namespace mcb::calib {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using nlohmann::json;

/// Files to write, in order: name and content. Written only after everything is computed.
using Outputs = std::vector<std::pair<std::string, std::string>>;

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::vector<Filter> parse_filters(const std::string& option,
                                  const std::vector<std::string>& texts) {
  std::vector<Filter> filters;
  for (const auto& t : texts) filters.push_back(parse_filter(option, t));
  return filters;
}

bool passes_all(const std::vector<Filter>& filters, const Record& r) {
  for (const Filter& f : filters) {
    if (!f.passes(r)) return false;
  }
  return true;
}

std::map<std::string, std::string> parse_labels(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> labels;
  for (const auto& t : texts) {
    const auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == t.size()) {
      throw UsageError("--problem: '" + t + "' is not APP=LABEL (e.g. poisson=4000x4000)");
    }
    labels[t.substr(0, eq)] = t.substr(eq + 1);
  }
  return labels;
}

json skipped_json(const std::vector<Skipped>& skipped) {
  json out = json::array();
  for (const Skipped& s : skipped) out.push_back({{"what", s.what}, {"reason", s.reason}});
  return out;
}

// "3 outside the measured range, 1 no usable link fit": the kinds of reason and their counts.
std::string skip_reasons(const std::vector<Skipped>& skipped) {
  std::map<std::string, std::size_t> kinds;
  for (const Skipped& s : skipped) {
    std::string kind = s.reason;
    for (const char* cut : {" (", " with ", " on ", ": "}) {
      if (const auto at = kind.find(cut); at != std::string::npos) kind.resize(at);
    }
    ++kinds[kind];
  }
  std::string text;
  for (const auto& [kind, n] : kinds)
    text += (text.empty() ? "" : "; ") + std::to_string(n) + " " + kind;
  return text;
}

// The tables as one set (common/output_set.hpp): a kill or a full disk leaves the previous
// tables whole.
void write_outputs(const std::string& dir, const Outputs& outputs) {
  std::set<std::string> names;
  for (const auto& entry : outputs) names.insert(entry.first);
  OutputSet set(dir, names);
  for (const auto& [name, content] : outputs) set.write(name, content);
  set.commit();
}

std::string rows_note(const std::string& csv) {
  std::size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  return std::to_string(lines - 1) + " rows";
}

// Why records were not used: status and reason, with the runs.
struct Dropped {
  std::map<std::pair<std::string, std::string>, std::vector<const Record*>> by_reason;
  std::size_t total = 0;

  void add(const Record& r) {
    const json* reason = lookup(r.doc, "reason");
    by_reason[{r.status(), reason ? reason->get<std::string>() : "no reason given"}].push_back(&r);
    ++total;
  }
  std::string brief() const {
    std::map<std::string, std::size_t> by_status;
    for (const auto& [key, runs] : by_reason) by_status[key.first] += runs.size();
    std::vector<std::string> parts;
    for (const auto& [status, n] : by_status) parts.push_back(status + " " + std::to_string(n));
    return join(parts, ", ");
  }
  json to_json() const {
    json reasons = json::array();
    std::map<std::string, std::size_t> by_status;
    for (const auto& [key, runs] : by_reason) {
      json ids = json::array();
      for (const Record* r : runs) ids.push_back(r->run_id());
      reasons.push_back(
          {{"status", key.first}, {"reason", key.second}, {"count", runs.size()}, {"runs", ids}});
      by_status[key.first] += runs.size();
    }
    return {{"total", total}, {"by_status", by_status}, {"by_reason", reasons}};
  }
};

// A --row asked for with no runs: say what became of the runs of that key, if any.
std::string missing_row_detail(const Target& t, const std::vector<Record>& records) {
  std::size_t dropped = 0;
  std::size_t other = 0;
  for (const Record& r : records) {
    const json* c = lookup(r.doc, "config");
    if (c == nullptr || r.app() != t.app) continue;
    const json* problem = lookup(*c, "problem");
    const json* size = lookup(*c, "total_size");
    const json* comps = lookup(*c, "components");
    const json* system = lookup(*c, "system");
    if (problem && *problem == t.problem && size && *size == t.total_size && comps &&
        *comps == t.components && system && *system == t.system) {
      (r.status() == "valid" ? other : dropped) += 1;
    }
  }
  std::string detail = "no valid runs";
  if (dropped > 0) detail += "; records of it not valid: " + std::to_string(dropped);
  if (other > 0) detail += "; valid records of it left out by filters: " + std::to_string(other);
  return detail;
}

int run_check(const Options& o, std::ostream& out) {
  const ServiceTimeLabels labels{parse_labels(o.problem), o.system};
  const LoadedTable table = read_runtime_table(o.check, labels);
  if (!o.quiet) {
    out << o.check << ": " << table.rows.size() << " rows ("
        << (table.service_time_layout ? "service-time layout" : "runtime layout") << ")\n";
  }
  return 0;
}

int run_convert(const Options& o, int argc, const char* const* argv, std::ostream& out) {
  const ServiceTimeLabels labels{parse_labels(o.problem), o.system};
  std::vector<RuntimeRow> rows;
  std::map<std::vector<std::string>, std::string> file_of_key;
  json sources = json::array();
  for (const std::string& file : o.convert) {
    LoadedTable table = read_runtime_table(file, labels);
    sources.push_back({{"path", file},
                       {"layout", table.service_time_layout ? "service-time" : "runtime"},
                       {"rows", table.rows.size()}});
    for (RuntimeRow& row : table.rows) {
      const auto [it, inserted] = file_of_key.emplace(row_key(row), file);
      if (!inserted) {
        throw UsageError(file + ": row " + join(row_key(row), ",") + " is also in " + it->second);
      }
      rows.push_back(std::move(row));
    }
  }
  json sidecar = {
      {"table", "runtimes.csv"},
      {"kind", "runtime"},
      {"columns", kRuntimeHeader},
      {"source", o.source.empty() ? "converted from " + join(o.convert, ", ") : o.source},
      {"converted_from", sources},
      {"records", json::array()},
      {"hosts", json::array()},
      {"dates", json::array()},
      {"revisions", json::array()},
      {"generated_by", environment_block(argc, argv)}};
  if (!o.system.empty()) sidecar["system"] = o.system;
  write_outputs(o.output,
                {{"runtimes.csv", runtime_csv(rows)}, {"runtimes.json", sidecar.dump(2) + "\n"}});
  if (!o.quiet) {
    out << "mcb-calibrate: converted " << rows.size() << " rows from " << o.convert.size()
        << " file(s) into " << (fs::path(o.output) / "runtimes.csv").string() << "\n";
  }
  return 0;
}

// The valid application runs of @p set that pass --where (each filter must apply to some record).
std::vector<const Record*> job_model_runs(const RecordSet& set, const std::vector<Filter>& where) {
  for (const Filter& f : where) {
    bool applies = false;
    for (const Record& r : set.records) applies = applies || f.applies_to(r);
    if (!applies) throw UsageError("--where " + f.text + ": no record has config." + f.key);
  }
  std::vector<const Record*> runs;
  for (const Record& r : set.records) {
    if (r.status() == "valid" && r.app() != "links" && passes_all(where, r)) runs.push_back(&r);
  }
  return runs;
}

void print_job_model(const JobModelFit& fit, const Options& o, std::size_t read,
                     std::ostream& out) {
  out << "mcb-calibrate: seed 002's job model of " << fit.models.rows.size() << " job(s) from "
      << fit.runs.size() << " run(s) (" << read << " records read)\n";
  for (const Skipped& s : fit.skipped) out << "  skipped " << s.what << ": " << s.reason << "\n";
  for (const JobModelRow& m : fit.models.rows) {
    out << "  " << m.app << " " << m.problem << " on " << m.total_size << ": Tp " << m.tp
        << " s, Tc " << m.tc << " s, PNBW " << m.pnbw << " MB/s (" << m.fitted_runs
        << " co-allocated runs)\n";
  }
  out << "  median |relative error| per link class:";
  for (const LinkClassError& c : fit.classes) {
    out << " " << c.link_class << " " << c.median_abs_relative_error << " (" << c.runs << " runs)";
  }
  out << "\nwrote " << o.output
      << "/: job_models.csv job_model_runs.csv job_model_links.csv job_model.json\n";
}

// --job-model: seed 002's eq. 1 fitted per job (calibration/job_model.hpp), and every run
// predicted, into their own files of the output folder; the tables there are left as they are.
int run_job_model(const Options& o, int argc, const char* const* argv, std::ostream& out) {
  const std::vector<Filter> where = parse_filters("where", o.where);
  const RecordSet set = load_records(o.inputs);
  for (const std::string& notice : set.summary.torn_tails) {
    std::cerr << "mcb-calibrate: " << notice << "\n";
  }
  const std::vector<const Record*> runs = job_model_runs(set, where);
  const JobModelFit fit = fit_job_models(runs, "where");
  if (fit.models.rows.empty()) {
    std::string why = fit.skipped.empty() ? "no valid application run" : "";
    for (const Skipped& s : fit.skipped) {
      why += (why.empty() ? "" : "; ") + s.what + ": " + s.reason;
    }
    throw UsageError(join(o.inputs, ", ") + ": no job to model (" + why + ")");
  }
  json manifest = job_model_json(fit);
  manifest["schema"] = "mcb-job-model/1";
  manifest["inputs"] = o.inputs;
  manifest["filters"] = {{"where", o.where}};
  manifest["records"] = {{"read", set.summary.lines}, {"used", runs.size()}};
  manifest["generated_by"] = environment_block(argc, argv);
  OutputSet files(
      o.output, {"job_models.csv", "job_model_runs.csv", "job_model_links.csv", "job_model.json"});
  files.write("job_models.csv", fit.models.to_csv());
  files.write("job_model_runs.csv", job_model_runs_csv(fit));
  files.write("job_model_links.csv", job_model_links_csv(fit));
  files.write("job_model.json", manifest.dump(2) + "\n");
  files.commit();
  if (!o.quiet) print_job_model(fit, o, set.summary.lines, out);
  return 0;
}

int run_calibration(const Options& o, int argc, const char* const* argv, std::ostream& out) {
  const std::vector<Filter> where = parse_filters("where", o.where);
  const std::vector<Filter> runtime_where = parse_filters("runtime-where", o.runtime_where);
  const RecordSet set = load_records(o.inputs);
  for (const std::string& notice : set.summary.torn_tails) {
    std::cerr << "mcb-calibrate: " << notice << "\n";
  }

  for (const auto* filters : {&where, &runtime_where}) {
    for (const Filter& f : *filters) {
      bool applies = false;
      for (const Record& r : set.records) applies = applies || f.applies_to(r);
      if (!applies) {
        throw UsageError("--" + f.option + " " + f.text + ": no record has config." + f.key);
      }
    }
  }

  Dropped dropped;
  std::size_t not_where = 0;
  std::size_t not_runtime = 0;
  std::vector<const Record*> app_runs;      // every output but the runtime table and fits
  std::vector<const Record*> runtime_runs;  // the runtime table and the fits
  std::vector<const Record*> link_runs;     // link fits
  std::vector<const Record*> poisson_runs;  // communication tables
  for (const Record& r : set.records) {
    if (r.status() != "valid") {
      dropped.add(r);
      continue;
    }
    if (!passes_all(where, r)) {
      ++not_where;
      continue;
    }
    const bool runtime = passes_all(runtime_where, r);
    if (!runtime) ++not_runtime;
    if (r.app() == "links") {
      if (runtime) link_runs.push_back(&r);
      continue;
    }
    app_runs.push_back(&r);
    if (runtime) runtime_runs.push_back(&r);
    if (r.app() == "poisson") poisson_runs.push_back(&r);
  }
  if (app_runs.empty() && link_runs.empty()) {
    throw UsageError(join(o.inputs, ", ") + ": no valid records to calibrate (" +
                     std::to_string(set.records.size()) + " read, " +
                     std::to_string(dropped.total) + " not valid" +
                     (dropped.total ? ": " + dropped.brief() : "") + ", " +
                     std::to_string(not_where) + " left out by --where)");
  }

  const RuntimeTable table = build_runtime_table(runtime_runs, "runtime-where");
  for (const std::string& text : o.rows) {
    const Target t = parse_target("row", text);
    bool found = false;
    for (const RuntimeRow& row : table.rows) {
      found = found || row_key(row) ==
                           std::vector<std::string>{t.app, t.problem, std::to_string(t.total_size),
                                                    std::to_string(t.components), t.system};
    }
    if (!found) throw UsageError("--row " + text + ": " + missing_row_detail(t, set.records));
  }
  const CommTables comm = build_comm_tables(poisson_runs, "where");
  Models models = fit_models(runtime_runs, link_runs, "runtime-where");

  std::vector<Skipped> prediction_skips;
  std::vector<Prediction> predictions =
      predict_all(models, table.rows, o.extrapolate, prediction_skips);
  for (const std::string& text : o.predict) {
    const Target t = parse_target("predict", text);
    std::string refusal;
    auto p = predict(t, models, table.rows, o.extrapolate, refusal);
    if (!p) throw UsageError("--predict " + text + ": " + refusal);
    bool known = false;
    for (const Prediction& q : predictions) {
      known = known || (q.target.app == t.app && q.target.problem == t.problem &&
                        q.target.total_size == t.total_size &&
                        q.target.components == t.components && q.target.system == t.system);
    }
    if (!known) predictions.push_back(std::move(*p));
  }
  std::sort(predictions.begin(), predictions.end(), [](const Prediction& a, const Prediction& b) {
    const std::vector<std::string> ka = {a.target.app, a.target.problem, a.target.system,
                                         std::to_string(a.target.total_size),
                                         std::to_string(a.target.components)};
    const std::vector<std::string> kb = {b.target.app, b.target.problem, b.target.system,
                                         std::to_string(b.target.total_size),
                                         std::to_string(b.target.components)};
    return std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end(), natural_less);
  });
  std::vector<Warning> warnings = oversubscription_warnings(runtime_runs, "runtimes.csv");
  for (const std::vector<Warning>& more :
       {oversubscription_warnings(poisson_runs, "comm_time.csv"), fit_warnings(models)}) {
    warnings.insert(warnings.end(), more.begin(), more.end());
  }

  // Everything is consistent: render every output, then write them.
  const json env = environment_block(argc, argv);
  json records_block = {{"files", set.summary.files},
                        {"read", set.summary.lines},
                        {"identical_duplicates_ignored", set.summary.duplicates},
                        {"not_valid", dropped.to_json()},
                        {"left_out_by_where", not_where},
                        {"left_out_by_runtime_where", not_runtime},
                        {"used", app_runs.size() + link_runs.size()},
                        {"schema", set.summary.schema}};
  if (!set.summary.torn_tails.empty()) records_block["torn_tails_ignored"] = set.summary.torn_tails;
  const json filters = {{"where", o.where}, {"runtime_where", o.runtime_where}};
  const json sidecar_extra = {
      {"source", "valid runs read by mcb-calibrate; calibration.json describes the whole run"},
      {"inputs", o.inputs},
      {"record_counts", records_block},
      {"filters", filters},
      {"suite_revision", suite_revision()},
      {"generated_by", env}};
  Outputs outputs = {{"runtimes.csv", runtime_csv(table.rows)},
                     {"runtimes.json", runtime_sidecar(table, sidecar_extra).dump(2) + "\n"},
                     {"comm_time.csv", comm.comm_time},
                     {"comm_sync.csv", comm.comm_sync},
                     {"rank_comm.csv", comm.rank_comm},
                     {"transfer_rates.csv", comm.transfer_rates},
                     {"compute_fits.csv", compute_fits_csv(models.compute)},
                     {"link_fits.csv", link_fits_csv(models.links)},
                     {"service_times.csv", service_times_csv(predictions)}};
  json written = json::object();
  for (const auto& [name, content] : outputs) {
    if (name.ends_with(".csv")) written[name] = rows_note(content);
  }
  const json manifest = {{"schema", "mcb-calibration/1"},
                         {"inputs", o.inputs},
                         {"records", records_block},
                         {"filters", filters},
                         {"extrapolate", o.extrapolate},
                         {"rows_required", o.rows},
                         {"predict", o.predict},
                         {"outputs", written},
                         {"fits", models_json(models, predictions)},
                         {"skipped_service_times", skipped_json(prediction_skips)},
                         {"warnings", warnings_json(warnings)},
                         {"generated_by", env}};
  outputs.emplace_back("calibration.json", manifest.dump(2) + "\n");
  write_outputs(o.output, outputs);

  // Warnings are printed even with --quiet: they say which tables not to trust.
  // Each sentence once, though it may concern several tables.
  std::set<std::string> said;
  for (const Warning& w : warnings) {
    if (said.insert(w.text).second) std::cerr << "mcb-calibrate: warning: " << w.text << "\n";
  }
  if (!o.quiet) {
    out << "mcb-calibrate: " << set.summary.lines << " records in " << set.summary.files.size()
        << " file(s): " << app_runs.size() + link_runs.size() << " used, " << dropped.total
        << " not valid" << (dropped.total ? " (" + dropped.brief() + ")" : "") << ", "
        << set.summary.duplicates.size() << " identical repeat(s) ignored, " << not_where
        << " left out by --where, " << not_runtime << " left out of runtimes and fits by "
        << "--runtime-where\n";
    for (const auto& [key, runs] : dropped.by_reason) {
      out << "  not used: " << runs.size() << " " << key.first << " (" << key.second << ")\n";
    }
    for (const Skipped& s : models.skipped)
      out << "  skipped " << s.what << ": " << s.reason << "\n";
    // One line for the service times the fits could not predict (listed in calibration.json).
    if (!prediction_skips.empty()) {
      out << "  " << prediction_skips.size() << " service time(s) not predicted ("
          << skip_reasons(prediction_skips) << "); listed in calibration.json\n";
    }
    out << "wrote " << o.output << "/:";
    for (const auto& [name, note] : written.items())
      out << " " << name << " (" << note.get<std::string>() << ")";
    out << " calibration.json runtimes.json\n";
  }
  return 0;
}

}  // namespace

void add_options(po::options_description& desc, Options& o) {
  desc.add_options()(
      "input,i", po::value(&o.inputs)->multitoken()->composing()->value_name("PATH"),
      "campaign folder (every *.jsonl directly inside it) or JSON Lines file of records; "
      "repeatable")("output,o", po::value(&o.output)->default_value(o.output)->value_name("DIR"),
                    "folder the outputs are written to (created if missing)")(
      "where", po::value(&o.where)->composing()->value_name("KEY=VALUE"),
      "use only records whose config KEY equals VALUE (records without KEY pass); repeatable")(
      "runtime-where", po::value(&o.runtime_where)->composing()->value_name("KEY=VALUE"),
      "as --where, for runtimes.csv and the fits only (e.g. sync=false while the "
      "communication tables keep both modes); repeatable")(
      "row", po::value(&o.rows)->composing()->value_name("APP,PROBLEM,SIZE,COMPONENTS,SYSTEM"),
      "a runtime-table row that must be there: refuse (exit 2) when it has no valid runs; "
      "repeatable")(
      "predict",
      po::value(&o.predict)->composing()->value_name("APP,PROBLEM,SIZE,COMPONENTS,SYSTEM"),
      "a service time to predict from the fits; refused (exit 2) when the models cannot give "
      "it or it lies outside the measured range; repeatable")(
      "extrapolate", po::bool_switch(&o.extrapolate),
      "allow predictions outside the measured ranges of total size and message size")(
      "convert", po::value(&o.convert)->composing()->value_name("FILE"),
      "convert tables (the paper's app,total_size,components,service_time_s layout, or the "
      "runtime layout) into OUTPUT/runtimes.csv; repeatable")(
      "problem", po::value(&o.problem)->composing()->value_name("APP=LABEL"),
      "problem label of APP's rows in service-time tables (with --convert, --check)")(
      "system", po::value(&o.system)->value_name("LABEL"),
      "system label of service-time tables (with --convert, --check)")(
      "source", po::value(&o.source)->value_name("TEXT"),
      "where converted numbers come from, written into runtimes.json (with --convert)")(
      "check", po::value(&o.check)->value_name("TABLE"),
      "read and check a runtime table (file, or folder holding runtimes.csv), print its size")(
      "job-model", po::bool_switch(&o.job_model),
      "with --input: fit seed 002's job model T = Tp*SP + Tc*SC per job instead of the tables "
      "(job_models.csv, which mcb-sim --job-model reads)")("quiet,q", po::bool_switch(&o.quiet),
                                                           "print nothing on success");
}

void check_options(const Options& o) {
  const int modes = !o.inputs.empty() + !o.convert.empty() + !o.check.empty();
  if (modes == 0)
    throw UsageError("give --input (records), --convert (tables) or --check (a table)");
  if (modes > 1) throw UsageError("--input, --convert and --check do not go together");
  if (o.inputs.empty()) {
    for (const auto& [name, used] : {std::pair{"where", !o.where.empty()},
                                     {"runtime-where", !o.runtime_where.empty()},
                                     {"row", !o.rows.empty()},
                                     {"predict", !o.predict.empty()},
                                     {"extrapolate", o.extrapolate},
                                     {"job-model", o.job_model}}) {
      if (used) throw UsageError(std::string("--") + name + ": only used with --input");
    }
  } else {
    if (o.job_model) {
      for (const auto& [name, used] : {std::pair{"runtime-where", !o.runtime_where.empty()},
                                       {"row", !o.rows.empty()},
                                       {"predict", !o.predict.empty()},
                                       {"extrapolate", o.extrapolate}}) {
        if (used) throw UsageError(std::string("--") + name + ": not with --job-model");
      }
    }
    for (const auto& [name, used] : {std::pair{"problem", !o.problem.empty()},
                                     {"system", !o.system.empty()},
                                     {"source", !o.source.empty()}}) {
      if (used)
        throw UsageError(std::string("--") + name + ": only used with --convert or --check");
    }
  }
  if (!o.convert.empty() && o.source.empty()) {
    throw UsageError("--convert: give --source TEXT naming where the numbers come from");
  }
  parse_filters("where", o.where);
  parse_filters("runtime-where", o.runtime_where);
  for (const auto& r : o.rows) parse_target("row", r);
  for (const auto& p : o.predict) parse_target("predict", p);
  parse_labels(o.problem);
  if (o.check.empty()) {
    if (o.output.empty()) throw UsageError("--output: empty path");
    std::error_code ec;
    if (fs::exists(o.output, ec) && !fs::is_directory(o.output, ec)) {
      throw UsageError("--output: '" + o.output + "' exists and is not a folder");
    }
    check_creatable_folder("output", o.output);
  }
}

bool parse_command_line(int argc, const char* const* argv, Options& options) {
  po::options_description desc("mcb-calibrate", 100, 50);
  add_options(desc, options);
  const auto parsed = cli::parse(
      argc, argv, desc,
      "mcb-calibrate --input CAMPAIGN_DIR|RECORDS.jsonl... [--output DIR] [options]\n"
      "       mcb-calibrate --convert SERVICE_TIMES.csv... --problem APP=LABEL --system LABEL "
      "--output DIR\n"
      "       mcb-calibrate --check TABLE");
  if (parsed.help_printed) return false;
  check_options(options);
  return true;
}

int run(const Options& options, int argc, const char* const* argv, std::ostream& out) {
  if (!options.check.empty()) return run_check(options, out);
  if (!options.convert.empty()) return run_convert(options, argc, argv, out);
  if (options.job_model) return run_job_model(options, argc, argv, out);
  return run_calibration(options, argc, argv, out);
}

}  // namespace mcb::calib
