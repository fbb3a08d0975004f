#include "redundant/replay.hpp"

#include "common/errors.hpp"
#include "simulator/swf.hpp"

#include <algorithm>
#include <cmath>

namespace mcb::redundant {
namespace {

constexpr const char* kSiteOption = "--site-trace";
constexpr const char* kRequestOption = "--requests";

// The SWF reader names its errors for --trace; these files come in through other options.
UsageError renamed(const UsageError& e, const std::string& option) {
  std::string text = e.what();
  const std::string prefix = "--trace: ";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  return UsageError(option + ": " + text);
}

struct Recorded {
  std::vector<std::pair<double, ListedJob>> jobs;  // (absolute submit, job)
  long long max_procs = -1;
  std::size_t skipped = 0;
};

std::string at(const sim::SwfReader& r, const sim::SwfRecord& rec) {
  return r.path() + ":" + std::to_string(rec.line) + ": ";
}

// One file, with times made absolute (UnixStartTime + submit).
template <typename Take>
Recorded read_file(const std::string& path, const std::string& option, Take take) {
  try {
    sim::SwfReader reader(path);
    Recorded out;
    sim::SwfRecord rec;
    bool first = true;
    while (reader.next(rec)) {
      if (first && reader.header().unix_start < 0) {
        throw UsageError(option + ": " + path + ": no UnixStartTime in the header");
      }
      first = false;
      ListedJob job;
      if (!take(reader, rec, job)) {
        ++out.skipped;
        continue;
      }
      out.jobs.emplace_back(static_cast<double>(reader.header().unix_start) + rec.submit, job);
    }
    out.max_procs = reader.header().max_procs;
    return out;
  } catch (const UsageError& e) {
    const std::string text = e.what();
    if (text.rfind(option, 0) == 0) throw;
    throw renamed(e, option);
  }
}

double requested(const sim::SwfRecord& rec) { return std::max(rec.req_time, rec.run); }

}  // namespace

Replay read_replay(const std::vector<std::string>& site_files, const std::string& requests) {
  Replay out;
  std::vector<std::pair<double, ListedJob>> all;
  for (std::size_t s = 0; s < site_files.size(); ++s) {
    const std::string& path = site_files[s];
    long long size = -1;
    Recorded site = read_file(
        path, kSiteOption, [&](const sim::SwfReader& r, const sim::SwfRecord& rec, ListedJob& job) {
          size = r.header().max_procs;
          if (size < 1 || size > 1000000) {
            throw UsageError(std::string(kSiteOption) + ": " + path +
                             ": the header has no MaxProcs (the site's processors)");
          }
          if (rec.run <= 0) return false;  // never started (cancelled while waiting)
          const long long procs = rec.procs > 0 ? rec.procs : rec.req_procs;
          if (procs < 1 || procs > size) {
            throw UsageError(std::string(kSiteOption) + ": " + at(r, rec) + "processors '" +
                             std::to_string(procs) + "' do not fit the site's " +
                             std::to_string(size));
          }
          job.kind = kLocalJob;
          job.site = static_cast<int>(s);
          job.size = static_cast<int>(procs);
          job.runtime = rec.run;
          job.requested = requested(rec);
          return true;
        });
    if (site.max_procs < 1 || site.max_procs > 1000000) {
      throw UsageError(std::string(kSiteOption) + ": " + path +
                       ": the header has no MaxProcs (the site's processors)");
    }
    out.sites.push_back(static_cast<int>(site.max_procs));
    out.skipped += site.skipped;
    out.locals += site.jobs.size();
    all.insert(all.end(), site.jobs.begin(), site.jobs.end());
  }
  std::vector<int> by_size = out.sites;
  std::sort(by_size.begin(), by_size.end(), std::greater<>());
  const long long part_max = by_size.size() > 1 ? by_size[1] : 0;
  Recorded globals =
      read_file(requests, kRequestOption,
                [&](const sim::SwfReader& r, const sim::SwfRecord& rec, ListedJob& job) {
                  if (rec.run <= 0) {
                    throw UsageError(std::string(kRequestOption) + ": " + at(r, rec) + "runtime '" +
                                     std::to_string(rec.run) + "' is not positive");
                  }
                  if (rec.req_procs < 2 || rec.req_procs % 2 != 0 || rec.req_procs / 2 > part_max) {
                    throw UsageError(std::string(kRequestOption) + ": " + at(r, rec) +
                                     "processors '" + std::to_string(rec.req_procs) +
                                     "' are not two equal parts that two sites can hold");
                  }
                  job.kind = kGlobalJob;
                  job.site = -1;
                  job.size = static_cast<int>(rec.req_procs);
                  job.runtime = rec.run;
                  job.requested = requested(rec);
                  return true;
                });
  if (globals.jobs.empty()) {
    throw UsageError(std::string(kRequestOption) + ": " + requests + ": no request");
  }
  out.globals = globals.jobs.size();
  all.insert(all.end(), globals.jobs.begin(), globals.jobs.end());
  // Submit order; at the same instant the local jobs first (the file order within each).
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second.kind < b.second.kind);
  });
  out.origin_unix = all.front().first;
  for (auto& [t, job] : all) {
    job.submit = t - out.origin_unix;
    out.jobs.push_back(job);
  }
  return out;
}

}  // namespace mcb::redundant
