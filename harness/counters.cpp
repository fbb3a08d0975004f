#include "harness/counters.hpp"

#include <sstream>

#ifdef MCB_HAVE_PAPI
#include <papi.h>
#endif

namespace mcb::harness {

std::vector<std::string> split_events(const std::string& list) {
  std::vector<std::string> events;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (!name.empty()) events.push_back(name);
  }
  return events;
}

#ifdef MCB_HAVE_PAPI

Counters::Counters(const std::vector<std::string>& events) : events_(events) {
  if (events_.empty()) {
    reason_ = "no counters requested";
    return;
  }
  if (!PAPI_is_initialized()) {
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
      reason_ = "PAPI_library_init failed: " + std::string(PAPI_strerror(version));
      return;
    }
  }
  const int hardware = PAPI_num_hwctrs();
  if (hardware <= 0) {
    reason_ = "this machine exposes no hardware counters to PAPI";
    return;
  }
  if (int rc = PAPI_create_eventset(&event_set_); rc != PAPI_OK) {
    reason_ = "PAPI_create_eventset: " + std::string(PAPI_strerror(rc));
    return;
  }
  for (const auto& name : events_) {
    if (int rc = PAPI_add_named_event(event_set_, name.c_str()); rc != PAPI_OK) {
      reason_ = name + ": " + PAPI_strerror(rc);
      PAPI_cleanup_eventset(event_set_);
      PAPI_destroy_eventset(&event_set_);
      event_set_ = -1;
      return;
    }
  }
  values_.assign(events_.size(), 0);
  available_ = true;
}

Counters::~Counters() {
  if (event_set_ >= 0) {
    if (running_) PAPI_stop(event_set_, values_.data());
    PAPI_cleanup_eventset(event_set_);
    PAPI_destroy_eventset(&event_set_);
  }
}

void Counters::start() {
  if (!available_ || running_) return;
  if (int rc = PAPI_start(event_set_); rc != PAPI_OK) {
    available_ = false;
    reason_ = "PAPI_start: " + std::string(PAPI_strerror(rc));
    return;
  }
  running_ = true;
}

void Counters::stop() {
  if (!available_ || !running_) return;
  if (int rc = PAPI_stop(event_set_, values_.data()); rc != PAPI_OK) {
    available_ = false;
    reason_ = "PAPI_stop: " + std::string(PAPI_strerror(rc));
  }
  running_ = false;
}

#else  // built without PAPI

Counters::Counters(const std::vector<std::string>& events) : events_(events) {
  reason_ = "the suite was built without PAPI";
}
Counters::~Counters() = default;
void Counters::start() {}
void Counters::stop() {}

#endif

nlohmann::json Counters::values() const {
  if (!available_) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < events_.size(); ++i) out[events_[i]] = values_[i];
  return out;
}

}  // namespace mcb::harness
