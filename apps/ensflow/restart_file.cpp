#include "apps/ensflow/restart_file.hpp"

#include "common/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

namespace mcb::ensflow {
namespace {

constexpr char kMagic[8] = {'M', 'C', 'B', 'E', 'N', 'S', 'R', 'S'};
constexpr std::uint32_t kByteOrder = 0x01020304;
// Magic, version, byte order, total size: what is read before anything else is trusted.
constexpr std::size_t kPrefix = sizeof kMagic + 4 + 4 + 8;

class Writer {
 public:
  template <typename T>
  void put(T value) {
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_doubles(const double* data, std::size_t count) {
    out_.append(reinterpret_cast<const char*>(data), count * sizeof(double));
  }
  void put_string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    out_ += s;
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::size_t end) : bytes_(bytes), end_(end) {}
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  void get_doubles(double* data, std::size_t count) {
    if (count > (end_ - at_) / sizeof(double)) throw RestartFileError("contents run past the end");
    std::memcpy(data, take(count * sizeof(double)), count * sizeof(double));
  }
  std::vector<double> doubles(std::size_t count) {
    if (count > (end_ - at_) / sizeof(double)) throw RestartFileError("contents run past the end");
    std::vector<double> out(count);
    get_doubles(out.data(), count);
    return out;
  }
  std::string string() {
    const auto size = get<std::uint32_t>();
    return std::string(take(size), size);
  }
  std::size_t at() const { return at_; }
  void skip(std::size_t size) { take(size); }

 private:
  const char* take(std::size_t size) {
    if (size > end_ - at_) throw RestartFileError("contents run past the end");
    const char* p = bytes_.data() + at_;
    at_ += size;
    return p;
  }
  const std::string& bytes_;
  std::size_t end_;
  std::size_t at_ = 0;
};

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// "key: 'a' in the file, 'b' in this run" for the first line of the two texts that differs.
std::string first_difference(const std::string& file, const std::string& run) {
  std::istringstream a(file), b(run);
  std::string x, y;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(a, x));
    const bool more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) return "the same settings";
    if (x == y) continue;
    const std::string key = (more_a ? x : y).substr(0, (more_a ? x : y).find(' '));
    const auto value = [&](const std::string& line, bool present) {
      return present && line.rfind(key + ' ', 0) == 0 ? "'" + line.substr(key.size() + 1) + "'"
                                                      : std::string("none");
    };
    return key + " " + value(x, more_a) + " in the file, " + value(y, more_b) + " in this run";
  }
}

void put_innovation(Writer& w, const InnovationStatistics& s) {
  w.put(static_cast<std::int32_t>(s.day));
  w.put(static_cast<std::int32_t>(s.observations));
  w.put(s.chi_square);
  w.put(s.error_consistency);
  w.put(static_cast<std::uint32_t>(s.rank_counts.size()));
  for (int c : s.rank_counts) w.put(static_cast<std::int32_t>(c));
}

InnovationStatistics get_innovation(Reader& r, int members) {
  InnovationStatistics s;
  s.day = r.get<std::int32_t>();
  s.observations = r.get<std::int32_t>();
  s.chi_square = r.get<double>();
  s.error_consistency = r.get<double>();
  const auto bins = r.get<std::uint32_t>();
  if (bins != static_cast<std::uint32_t>(members) + 1)
    throw RestartFileError("a rank histogram has " + std::to_string(bins) + " bins, not M + 1");
  for (std::uint32_t b = 0; b < bins; ++b) s.rank_counts.push_back(r.get<std::int32_t>());
  return s;
}

// The sections after the header, in file order.
void put_contents(Writer& w, const RestartState& s) {
  w.put_doubles(s.states.data(), s.states.size());
  w.put_doubles(s.truth.background.data(), s.truth.background.size());
  for (const auto& [day, psi] : s.truth.psi) {
    w.put(static_cast<std::int32_t>(day));
    w.put_doubles(psi.data(), psi.size());
  }
  for (const auto& y : s.truth.observations) w.put_doubles(y.data(), y.size());
  for (const auto& p : s.points) {
    w.put_string(p.kind);
    w.put(static_cast<std::int32_t>(p.day));
    w.put(p.rmse);
    w.put(p.spread);
  }
  for (const auto& i : s.innovations) put_innovation(w, i);
  const ReferenceCheck& c = s.reference;
  w.put(static_cast<std::uint32_t>(c.checked ? 1 : 0));
  w.put(static_cast<std::uint64_t>(c.rows));
  for (double v : {c.max_difference, c.increment_scale, c.state_scale, c.tolerance}) w.put(v);
  w.put(static_cast<std::uint32_t>(c.pass ? 1 : 0));
}

struct Counts {
  std::uint32_t psi_days, analyses, points, innovations;
};

void get_contents(Reader& r, RestartState& s, const Counts& c) {
  const std::size_t n = s.state_size;
  s.states = r.doubles(static_cast<std::size_t>(s.members) * n);
  s.truth.background = r.doubles(n);
  for (std::uint32_t k = 0; k < c.psi_days; ++k) {
    const int day = r.get<std::int32_t>();
    s.truth.psi[day] = r.doubles(n);
  }
  for (std::uint32_t a = 0; a < c.analyses; ++a) {
    Eigen::VectorXd y(static_cast<Eigen::Index>(s.observations));
    r.get_doubles(y.data(), s.observations);
    s.truth.observations.push_back(std::move(y));
  }
  for (std::uint32_t k = 0; k < c.points; ++k) {
    DiagnosticPoint p;
    p.kind = r.string();
    p.day = r.get<std::int32_t>();
    p.rmse = r.get<double>();
    p.spread = r.get<double>();
    s.points.push_back(std::move(p));
  }
  for (std::uint32_t k = 0; k < c.innovations; ++k)
    s.innovations.push_back(get_innovation(r, s.members));
  ReferenceCheck& check = s.reference;
  check.checked = r.get<std::uint32_t>() != 0;
  check.rows = r.get<std::uint64_t>();
  for (double* v :
       {&check.max_difference, &check.increment_scale, &check.state_scale, &check.tolerance})
    *v = r.get<double>();
  check.pass = r.get<std::uint32_t>() != 0;
}

// What the configuration implies about the contents; the checksum vouches for the bytes, this
// for the writer.
void check_consistent(const RestartState& s, const Counts& c, const ExperimentSettings& settings) {
  const auto fail = [](const std::string& what) { throw RestartFileError(what); };
  if (s.day < 0 || s.day > settings.days) {
    fail("day " + std::to_string(s.day) + " lies outside the run's 0.." +
         std::to_string(settings.days));
  }
  if (s.next_analysis != s.day / settings.analysis_every)
    fail("next analysis " + std::to_string(s.next_analysis) + " does not follow day " +
         std::to_string(s.day));
  if (c.analyses != static_cast<std::uint32_t>(settings.analyses()) || s.truth.psi.count(0) == 0 ||
      s.truth.psi.count(settings.days) == 0)
    fail("the truth does not cover the run");
  if (c.innovations != static_cast<std::uint32_t>(s.next_analysis))
    fail(std::to_string(c.innovations) + " innovation statistics for " +
         std::to_string(s.next_analysis) + " analyses done");
}

}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t size) {
  std::uint64_t hash = 14695981039346656037ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ULL;
  return hash;
}

std::string restart_config_text(const ExperimentSettings& s, bool regional) {
  const ModelParameters& m = s.model;
  const AnalysisSettings& a = s.analysis;
  // Named as the options are, so a refusal names the option that differs.
  const std::vector<std::pair<const char*, std::string>> settings{
      {"members", std::to_string(s.members)},
      {"days", std::to_string(s.days)},
      {"analysis-every", std::to_string(s.analysis_every)},
      {"observations", std::to_string(s.observations)},
      {"obs-variance", number(a.observation_variance)},
      {"filter", filter_name(a.filter)},
      {"inflation", number(a.inflation)},
      {"localisation", number(a.localisation_km)},
      {"relaxation", number(a.relaxation)},
      {"analysis-layout", regional ? "regional" : "gathered"},
      {"initial-spread", number(s.initial_spread_m)},
      {"initial-length", number(s.initial_length_km)},
      {"spinup-days", std::to_string(s.spinup_days)},
      {"spinup-seed", std::to_string(s.spinup_seed)},
      {"seed", std::to_string(s.seed)},
      {"truth-seed", std::to_string(s.truth_seed)},
      {"free-run", s.free_run ? "yes" : "no"},
      {"grid", std::to_string(m.grid)},
      {"basin-size", number(m.basin_km)},
      {"depth", number(m.depth_m)},
      {"lower-depth", number(m.lower_depth_m)},
      {"latitude", number(m.latitude_deg)},
      {"wind-stress", number(m.wind_stress)},
      {"deformation-radius", number(m.deformation_radius_km)},
      {"drag-days", number(m.drag_days)},
      {"walls", m.no_slip ? "no-slip" : "free-slip"},
      {"viscosity", number(m.viscosity)},
      {"steps-per-day", std::to_string(m.steps_per_day)}};
  std::string text;
  for (const auto& [name, value] : settings) text += std::string(name) + ' ' + value + '\n';
  return text;
}

std::string encode_restart(const RestartState& s) {
  Writer w;
  w.bytes().append(kMagic, sizeof kMagic);
  w.put(kRestartFormatVersion);
  w.put(kByteOrder);
  w.put(std::uint64_t{0});  // the total size, filled in below
  w.put(fnv1a64(s.config.data(), s.config.size()));
  w.put_string(s.config);
  w.put(static_cast<std::int32_t>(s.day));
  w.put(static_cast<std::int32_t>(s.next_analysis));
  w.put(static_cast<std::int32_t>(s.members));
  w.put(static_cast<std::uint64_t>(s.state_size));
  w.put(static_cast<std::uint64_t>(s.observations));
  w.put(static_cast<std::uint32_t>(s.truth.psi.size()));
  w.put(static_cast<std::uint32_t>(s.truth.observations.size()));
  w.put(static_cast<std::uint32_t>(s.points.size()));
  w.put(static_cast<std::uint32_t>(s.innovations.size()));
  put_contents(w, s);
  std::string& bytes = w.bytes();
  const std::uint64_t total = bytes.size() + sizeof(std::uint64_t);
  std::memcpy(bytes.data() + kPrefix - 8, &total, sizeof total);
  w.put(fnv1a64(bytes.data(), bytes.size()));
  return std::move(bytes);
}

RestartState decode_restart(const std::string& bytes, const std::string& config,
                            const ExperimentSettings& settings) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw RestartFileError("not an mcb-ensflow restart file (no MCBENSRS magic)");
  if (bytes.size() < kPrefix) {
    throw RestartFileError("truncated: " + std::to_string(bytes.size()) +
                           " bytes, shorter than the header");
  }
  Reader prefix(bytes, bytes.size());
  prefix.skip(sizeof kMagic);
  const auto version = prefix.get<std::uint32_t>();
  if (version != kRestartFormatVersion) {
    throw RestartFileError("format version " + std::to_string(version) +
                           "; this program reads version " + std::to_string(kRestartFormatVersion));
  }
  if (prefix.get<std::uint32_t>() != kByteOrder)
    throw RestartFileError("written on a host of another byte order");
  const auto total = prefix.get<std::uint64_t>();
  if (total != bytes.size()) {
    throw RestartFileError("truncated or torn: its header gives " + std::to_string(total) +
                           " bytes, the file has " + std::to_string(bytes.size()));
  }
  const std::size_t body_end = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body_end, sizeof stored);
  if (fnv1a64(bytes.data(), body_end) != stored)
    throw RestartFileError("checksum mismatch: the contents are corrupt");

  Reader r(bytes, body_end);
  r.skip(kPrefix);
  const auto digest = r.get<std::uint64_t>();
  RestartState s;
  s.config = r.string();
  if (digest != fnv1a64(config.data(), config.size()) || s.config != config) {
    throw RestartFileError("written for another configuration: " +
                           first_difference(s.config, config));
  }
  s.day = r.get<std::int32_t>();
  s.next_analysis = r.get<std::int32_t>();
  s.members = r.get<std::int32_t>();
  s.state_size = r.get<std::uint64_t>();
  s.observations = r.get<std::uint64_t>();
  Counts c{};
  c.psi_days = r.get<std::uint32_t>();
  c.analyses = r.get<std::uint32_t>();
  c.points = r.get<std::uint32_t>();
  c.innovations = r.get<std::uint32_t>();
  const std::size_t state_size =
      static_cast<std::size_t>(settings.model.layers()) * settings.model.points();
  if (s.members != settings.members || s.state_size != state_size ||
      s.observations != settings.observations) {
    throw RestartFileError("sizes (" + std::to_string(s.members) + " members of " +
                           std::to_string(s.state_size) + " values, " +
                           std::to_string(s.observations) +
                           " observations) do not match its configuration");
  }
  get_contents(r, s, c);
  if (r.at() != body_end) throw RestartFileError("its contents end before its checksum");
  check_consistent(s, c, settings);
  return s;
}

std::string read_restart_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RestartFileError(std::string("cannot be read: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw RestartFileError("read failed");
  return bytes;
}

void write_restart_bytes(const std::string& path, const std::string& bytes) {
  AtomicFile file(path);
  file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.commit();
}

}  // namespace mcb::ensflow
