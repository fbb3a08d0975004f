#pragma once
/// @file
/// @brief Reader of CSV job lists with explicit components, for co-allocated traces. A header
/// names the columns: submit and components are required; id, app, runtime, requested, type,
/// clusters, home, min_component, max_component, max_components, min_size (moldable) are
/// optional. Components and
/// clusters are written "16+16" and "0+2".

#include "common/csv.hpp"
#include "simulator/types.hpp"

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::sim {

/// @brief The values of a list job that are not lists or text (-1 where not given): a reader
/// resets them with one assignment per line, and the checking pass keeps them as they are.
struct ListFields {
  long line = 0;
  std::int64_t id = -1;
  double submit = 0;
  double runtime = -1;
  double requested = -1;
  int type = -1;  //!< RequestType, -1 where the list gives none
  int home = -1;
  int min_component = 1, max_component = 0, max_components = 0;
  int min_size = 0;  //!< moldable: smallest size accepted (0: the run's rule)
};

/// @brief One job of a list: its components and clusters are appended to the caller's vector
/// (JobListReader::next), so that a line's numbers are written once, where they are kept.
struct ListRecord : ListFields {
  std::string_view app;        //!< valid until the reader's next call
  std::uint32_t sizes = 0;     //!< components appended
  std::uint32_t clusters = 0;  //!< clusters appended after them
};

/// @brief Streams a CSV job list (read with the suite's CSV codec, common/csv.hpp: '#' comment
/// lines and blank lines skipped, quoting as RFC 4180).
class JobListReader {
 public:
  JobListReader(const JobListReader&) = delete;
  JobListReader& operator=(const JobListReader&) = delete;
  /// @throws UsageError "--trace: ..." when the file is unreadable or its header is bad.
  explicit JobListReader(const std::string& path);
  /// @brief The next job into @p record, its components and then its clusters appended to
  /// @p parts; false at the end.
  /// @throws UsageError "--trace: <path>:<line>: ..." for a malformed line.
  bool next(ListRecord& record, std::vector<int>& parts);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  csv::Reader reader_;  //!< reads from in_
  std::map<std::string, size_t> col_;
  size_t columns_ = 0;
  static constexpr size_t kNoColumn = ~size_t{0};
  std::array<size_t, 13> index_{};  //!< cell of each known column (kColumns' order), or kNoColumn
  /// Whether the list has a column past id, submit, app, runtime, requested and components: most
  /// have none, and their lines need not look for each.
  bool rare_ = false;
  csv::RecordView record_;  //!< the last line read, reused
};

}  // namespace mcb::sim
