#include "jobscripts/load_plan.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/rng.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace mcb::load {

std::string to_string(Assign assign) { return assign == Assign::random ? "random" : "every"; }

long long trace_processors(const sim::SwfRecord& record) {
  return record.req_procs > 0 ? record.req_procs : record.procs;
}

namespace {

// Why a job line cannot be replayed, or "" when it can.
std::string unusable(const sim::SwfRecord& r) {
  if (!(r.run > 0)) return "no runtime (field 4)";
  if (trace_processors(r) <= 0) return "no processors (fields 8 and 5)";
  return "";
}

std::string window_text(const Window& w) {
  if (w.time) return csv::exact(w.time->first) + ":" + csv::exact(w.time->second);
  return std::to_string(w.from) + "+" + (w.count ? std::to_string(*w.count) : std::string("all"));
}

}  // namespace

TraceExcerpt read_excerpt(const LoadSpec& spec) {
  sim::SwfReader reader(spec.trace);
  TraceExcerpt e;
  e.header = reader.header();
  const Window& w = spec.window;
  sim::SwfRecord r;
  while (reader.next(r)) {
    ++e.job_lines;
    if (w.time) {
      if (r.submit < w.time->first || r.submit >= w.time->second) continue;
    } else if (e.job_lines < w.from) {
      continue;
    }
    const std::string why = unusable(r);
    if (!why.empty()) {
      ++e.skipped[why];
      continue;
    }
    e.jobs.push_back(r);
    if (!w.time && w.count && static_cast<long long>(e.jobs.size()) == *w.count) break;
  }
  if (e.jobs.empty()) {
    const std::string option = w.time ? "--window" : "--from";
    throw UsageError(option + ": '" + window_text(w) + "' holds no job with a runtime and " +
                     "processors in '" + spec.trace + "' (" + std::to_string(e.job_lines) +
                     " job lines)");
  }
  const auto [lo, hi] = std::minmax_element(
      e.jobs.begin(), e.jobs.end(),
      [](const sim::SwfRecord& a, const sim::SwfRecord& b) { return a.submit < b.submit; });
  e.span = w.time ? w.time->second - w.time->first : hi->submit - lo->submit;
  return e;
}

double processor_scale(const LoadSpec& spec, const sim::SwfHeader& header, int system_procs) {
  if (spec.procs_scale) return *spec.procs_scale;
  if (header.max_procs <= 0) {
    throw UsageError("--procs-scale: 'auto' needs the MaxProcs header of '" + spec.trace +
                     "'; give a number");
  }
  return static_cast<double>(system_procs) / static_cast<double>(header.max_procs);
}

std::vector<PlannedJob> plan_load(const TraceExcerpt& excerpt, const LoadSpec& spec,
                                  const std::vector<int>& system_procs) {
  std::vector<const sim::SwfRecord*> order;
  for (const sim::SwfRecord& r : excerpt.jobs) order.push_back(&r);
  std::stable_sort(
      order.begin(), order.end(),
      [](const sim::SwfRecord* a, const sim::SwfRecord* b) { return a->submit < b->submit; });
  const double first = order.front()->submit;
  const double origin = spec.window.time ? spec.window.time->first : first;
  Rng spread(derive_seed(spec.seed, 0));
  std::vector<PlannedJob> plan;
  const auto add = [&](const sim::SwfRecord& r, std::size_t system) {
    PlannedJob j;
    j.seq = plan.size();
    j.system = system;
    j.trace_job = r.job;
    j.trace_line = r.line;
    j.trace_submit = r.submit;
    j.trace_runtime = r.run;
    j.trace_procs = trace_processors(r);
    j.at = (r.submit - origin) / spec.factor;
    j.runtime = r.run / spec.factor;
    j.time_limit = std::max(r.run, r.req_time) / spec.factor + spec.slack;
    const int size = system_procs[system];
    const int cap = spec.max_procs > 0 ? std::min(size, spec.max_procs) : size;
    const double scaled =
        static_cast<double>(j.trace_procs) * processor_scale(spec, excerpt.header, size);
    j.procs = static_cast<int>(std::clamp<double>(std::round(scaled), 1, cap));
    plan.push_back(j);
  };
  for (const sim::SwfRecord* r : order) {
    if (spec.assign == Assign::every) {
      for (std::size_t s = 0; s < system_procs.size(); ++s) add(*r, s);
    } else {
      add(*r, static_cast<std::size_t>(spread.below(system_procs.size())));
    }
  }
  return plan;
}

std::string load_id(const LoadSpec& spec) {
  return std::filesystem::path(spec.trace).filename().string() + "#" + window_text(spec.window) +
         "/x" + csv::exact(spec.factor) + "/" + to_string(spec.assign) + "/seed" +
         std::to_string(spec.seed);
}

}  // namespace mcb::load
