#include "jobscripts/coalloc_journal.hpp"

#include "common/files.hpp"
#include "common/jsonl.hpp"

#include <chrono>

namespace mcb::campaign {

double utc_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<nlohmann::json> CoallocJournal::replay() const {
  const jsonl::Contents contents = jsonl::read(path_, {}, true);
  std::vector<nlohmann::json> events;
  events.reserve(contents.lines.size());
  for (const jsonl::Line& line : contents.lines) events.push_back(line.doc);
  return events;
}

nlohmann::json CoallocJournal::append(nlohmann::json event) const {
  event["t"] = utc_now();
  append_line(path_, event.dump());
  return event;
}

}  // namespace mcb::campaign
