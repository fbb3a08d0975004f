#pragma once
/// @file
/// @brief Reader of the Standard Workload Format (Parallel Workloads Archive): header comments
/// starting with ';' ("; MaxProcs: 64", "; MaxNodes: 32 (dual CPU)"), then one job per line
/// with 18 numeric fields, -1 for unknown. Streams the file: one record in memory at a time.

#include "common/text.hpp"

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcb::sim {

/// @brief One SWF job record (fields 1-18; -1 where unknown).
struct SwfRecord {
  long line = 0;
  std::int64_t job = -1;     //!< 1 job number
  double submit = -1;        //!< 2 submit time (s)
  double wait = -1;          //!< 3 wait time (s)
  double run = -1;           //!< 4 run time (s)
  long long procs = -1;      //!< 5 allocated processors
  double cpu = -1;           //!< 6 average CPU time used
  double memory = -1;        //!< 7 used memory
  long long req_procs = -1;  //!< 8 requested processors
  double req_time = -1;      //!< 9 requested time (s)
  double req_memory = -1;    //!< 10 requested memory
  int status = -1;           //!< 11 status (1 completed, 0 failed, 5 cancelled)
  long long user = -1, group = -1, executable = -1, queue = -1, partition = -1;  //!< 12-16
  std::int64_t preceding = -1;  //!< 17 preceding job
  double think = -1;            //!< 18 think time
};

/// @brief Header fields ("Key: value" comments before the first job).
struct SwfHeader {
  std::vector<std::pair<std::string, std::string>> lines;  //!< every field, in the file's order
  std::map<std::string, std::string> fields;               //!< last value of each key
  long long max_procs = -1;   //!< MaxProcs (leading integer), -1 if absent
  long long max_nodes = -1;   //!< MaxNodes (leading integer), -1 if absent
  long long max_jobs = -1;    //!< MaxJobs
  long long unix_start = -1;  //!< UnixStartTime
  std::string time_zone;      //!< TimeZoneString without the archive's "# ..." remark, or empty
};

/// @brief What the header of a schedule derived from a workload says about it.
struct SwfScheduleInfo {
  std::size_t jobs = 0;
  std::vector<int> cluster_sizes;        //!< the partitions
  std::vector<std::string> queue_names;  //!< field 15's values, from 1
  const SwfHeader* source = nullptr;     //!< the trace replayed, or null
  double origin = 0;                     //!< the source's submit time that became time 0
  double scale = 1;                      //!< the source's submit offsets were divided by it
  std::vector<std::string> notes;        //!< "Note:" lines
};

/// @brief The header fields of a schedule: its own counts (jobs, processors, partitions, queues),
/// and from a source trace what still holds for it: UnixStartTime (moved to the first arrival)
/// with TimeZone and TimeZoneString while times are not rescaled, MaxNodes while the machine has
/// the source's processors, MaxQueues and Queue lines while the queues are as many.
std::vector<std::pair<std::string, std::string>> swf_schedule_header(const SwfScheduleInfo& info);

/// @brief A job's times as SWF's whole seconds (fields 2, 3, 4 and 9).
struct SwfTimes {
  long long submit = 0, wait = 0, run = 0, req_time = 0;
  bool rounded = false;  //!< some time was not a whole second
};

/// @brief The whole-second fields of a job that arrived at @p submit, ran from @p start to
/// @p end and asked until @p requested_end. The instants are rounded to the nearest second and
/// the durations taken between them: rounding keeps order, so submit <= start <= end and a run
/// within its request stay so, and the fields add up (submit + wait + run is the end).
SwfTimes swf_whole_times(double submit, double start, double end, double requested_end);

/// @brief One record as an SWF line: 18 fields, each number in its shortest exact form, so a
/// reader gets back the same values.
std::string swf_line(const SwfRecord& record);

/// @brief Header comments, "; Key: value" a line, in the given order (Version first by SWF's
/// definition). @throws std::invalid_argument for a key with a space or colon, or a value with a
/// line break.
std::string swf_header(const std::vector<std::pair<std::string, std::string>>& fields);

/// @brief Streams an SWF file.
class SwfReader {
 public:
  /// @param option the option that named the file, which every refusal names ("--trace: ...";
  /// mcb-batchgrid's "--queues 64:easy:trace=FILE" gives "--queues")
  /// @throws UsageError "<option>: cannot read 'path'".
  explicit SwfReader(const std::string& path, std::string option = "--trace");
  SwfReader(const SwfReader&) = delete;  // its line reader reads from its own stream
  SwfReader& operator=(const SwfReader&) = delete;

  /// The header comments (read before the first record).
  const SwfHeader& header() const { return header_; }
  /// Next job record; false at the end.
  /// @throws UsageError "<option>: <path>:<line>: ..." for a malformed line.
  bool next(SwfRecord& record);
  const std::string& path() const { return path_; }

 private:
  bool read_line();
  void parse_header_comment(const std::string& text);

  std::string path_;
  std::string option_;
  std::ifstream in_;
  LineReader lines_;  //!< reads in_ a block at a time
  SwfHeader header_;
  std::string_view line_;  //!< the line last read, a view into lines_
  long number_ = 0;
  bool pending_ = false;  //!< line_ holds the first record, read while scanning the header
};

}  // namespace mcb::sim
