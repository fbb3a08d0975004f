#pragma once
/// @file
/// @brief The application's event file: one JSON object a line (read with mcb::jsonl), in time
/// order. This file owns its schema ("mcb-batchgrid-events/1"); every writer and reader uses it.
///
/// Every line has "t" (seconds), "event" and "queue" (-1 for none). Events:
/// - submit:   the application submitted "number" to "queue" (at the start, or at a kill);
/// - activate: submission "number" started after "wait" seconds;
/// - kill:     submission "number" reached the queue's limit and was killed;
/// - remap:    the active set changed: "active" queues, per component "procs" and "site" (queue),
///             "day_seconds" predicted per simulated day, "move_seconds" for restart files,
///             "restart_seconds" in all (dump, moves, restart);
/// - idle:     no queue active, or no mapping fits the active ones ("reason").

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::batchgrid {

inline constexpr const char* kEventsSchema = "mcb-batchgrid-events/1";

/// @brief One event.
struct Event {
  double t = 0;
  std::string event;
  int queue = -1;
  nlohmann::json detail = nlohmann::json::object();  //!< the event's other fields
};

/// The events in time order; at one instant kills, then submissions, activations, remaps.
void sort_events(std::vector<Event>& events);

/// Writes @p events to @p path atomically, after a first line {"schema": ...}.
void write_events(const std::string& path, const std::vector<Event>& events);
/// @brief The content write_events() writes: the schema line, then one event per line.
std::string events_text(const std::vector<Event>& events);

/// @brief Reads an event file. @throws UsageError "<path>:<line>: ..." for a bad line or schema.
std::vector<Event> read_events(const std::string& path);

}  // namespace mcb::batchgrid
