#include "batchgrid/events.hpp"

#include "common/errors.hpp"
#include "common/files.hpp"
#include "common/jsonl.hpp"

#include <algorithm>

namespace mcb::batchgrid {
namespace {

int rank(const std::string& event) {
  static const char* const kinds[] = {"kill", "submit", "activate", "idle", "remap"};
  for (int i = 0; i < 5; ++i) {
    if (event == kinds[i]) return i;
  }
  return 5;
}

}  // namespace

void sort_events(std::vector<Event>& events) {
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.t != b.t) return a.t < b.t;
    return rank(a.event) < rank(b.event);
  });
}

std::string events_text(const std::vector<Event>& events) {
  std::string text = nlohmann::json{{"schema", kEventsSchema}}.dump() + "\n";
  for (const Event& e : events) {
    nlohmann::json line = e.detail;
    line["t"] = e.t;
    line["event"] = e.event;
    line["queue"] = e.queue;
    text += line.dump() + "\n";
  }
  return text;
}

void write_events(const std::string& path, const std::vector<Event>& events) {
  write_file_atomically(path, events_text(events));
}

std::vector<Event> read_events(const std::string& path) {
  const jsonl::Contents contents = jsonl::read(path);
  std::vector<Event> events;
  bool schema = false;
  for (const jsonl::Line& line : contents.lines) {
    const std::string where = path + ":" + std::to_string(line.number) + ": ";
    if (!schema) {
      if (!line.doc.is_object() || line.doc.value("schema", "") != kEventsSchema) {
        throw UsageError(where + "not an event file (first line must name " +
                         std::string(kEventsSchema) + ")");
      }
      schema = true;
      continue;
    }
    if (!line.doc.is_object() || !line.doc.contains("t") || !line.doc["t"].is_number() ||
        !line.doc.contains("event") || !line.doc["event"].is_string() ||
        !line.doc.contains("queue") || !line.doc["queue"].is_number_integer()) {
      throw UsageError(where + "an event needs a number t, a string event and an integer queue");
    }
    Event e;
    e.t = line.doc["t"].get<double>();
    e.event = line.doc["event"].get<std::string>();
    e.queue = line.doc["queue"].get<int>();
    e.detail = line.doc;
    e.detail.erase("t");
    e.detail.erase("event");
    e.detail.erase("queue");
    events.push_back(std::move(e));
  }
  if (!schema) throw UsageError(path + ": empty event file");
  return events;
}

}  // namespace mcb::batchgrid
