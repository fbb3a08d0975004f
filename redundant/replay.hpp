#pragma once
/// @file
/// @brief A recorded workload for the grid: each site's local jobs as they ran (one SWF file per
/// site, as mcb-load writes them) and the co-allocated requests (an SWF file, one line per
/// request), on one clock. The SWF files are read through simulator/swf.hpp.

#include "redundant/grid.hpp"

#include <string>
#include <vector>

namespace mcb::redundant {

/// @brief The grid and the jobs of a recorded workload.
struct Replay {
  std::vector<int> sites;       //!< processors per site: each site file's MaxProcs
  std::vector<ListedJob> jobs;  //!< local and global jobs in submit order, from time 0
  std::size_t locals = 0, globals = 0;
  std::size_t skipped = 0;  //!< local jobs that never started (mcb-load's status 5, run -1)
  double origin_unix = 0;   //!< the UNIX time that became time 0 (the earliest file's start)
};

/// @brief Reads @p site_files (site k = the k-th file) and @p requests.
///
/// Site files: MaxProcs and UnixStartTime in the header; a job's submit is field 2, its
/// processors field 5 (else 8), its runtime field 4 and its requested time field 9 (at least the
/// runtime). Jobs that never ran (field 4 <= 0) are left out. Requests: UnixStartTime in the
/// header; per line submit (2), runtime (4), the processors of both parts together (8, even,
/// each part fitting two sites) and the requested time (9, at least the runtime; -1: the
/// runtime). Times of every file count from its own UnixStartTime.
/// @throws UsageError "--site-trace: <file>:<line>: ..." or "--requests: ..." in one line.
Replay read_replay(const std::vector<std::string>& site_files, const std::string& requests);

}  // namespace mcb::redundant
