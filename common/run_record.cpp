#include "common/run_record.hpp"

#include "common/errors.hpp"
#include "common/units.hpp"

#include <stdexcept>

namespace mcb {
namespace {

using nlohmann::json;

[[noreturn]] void wrong_type(const char* name, const char* wanted, const json& value) {
  throw std::invalid_argument("field '" + std::string(name) + "' must be " + wanted + ", not " +
                              json_type_name(value));
}

std::string required_string(json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end()) throw std::invalid_argument("missing field '" + std::string(name) + "'");
  if (!it->is_string()) wrong_type(name, "a string", *it);
  std::string value = it->get<std::string>();
  doc.erase(it);
  return value;
}

// Takes the field out of `doc` when present, checked with `ok`.
template <typename Check>
std::optional<json> take(json& doc, const char* name, Check ok, const char* wanted) {
  const auto it = doc.find(name);
  if (it == doc.end()) return std::nullopt;
  if (!ok(*it)) wrong_type(name, wanted, *it);
  json value = std::move(*it);
  doc.erase(name);
  return value;
}

// The number at @p key of @p object (when both exist), bytes per second, in MB/s.
void scale(json& object, const char* key) {
  if (!object.is_object()) return;
  const auto it = object.find(key);
  if (it != object.end() && it->is_number()) *it = megabytes_per_second(it->get<double>());
}

// {min, avg, max} (and the like) of a bandwidth statistic.
void scale_stats(json& stats) {
  for (const char* key : {"min", "avg", "max", "median", "stddev"}) scale(stats, key);
}

json* child(json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The fields that version 1 wrote in bytes per second (docs/records.md, "Versions").
void bandwidths_to_megabytes(json& doc) {
  if (json* wan = child(doc, "config") ? child(*child(doc, "config"), "wan") : nullptr) {
    scale(*wan, "bandwidth");
    if (json* links = child(*wan, "links"); links && links->is_array()) {
      for (json& link : *links) scale(link, "bandwidth");
    }
  }
  json* result = child(doc, "result");
  // The app is checked after this step; a field of another type is simply not one of these.
  const json* app_field = child(doc, "app");
  const std::string app =
      app_field && app_field->is_string() ? app_field->get<std::string>() : std::string();
  if (result && app == "poisson") scale(*result, "transfer_rate");
  if (!result || app != "links") return;
  if (json* classes = child(*result, "classes"); classes && classes->is_object()) {
    for (auto& [name, c] : classes->items()) {
      if (json* rates = child(c, "bandwidth"); rates && rates->is_array()) {
        for (json& r : *rates) scale_stats(r);
      }
      for (const char* fit : {"fit", "fit_min", "nominal"}) {
        if (json* f = child(c, fit)) scale(*f, "bandwidth");
      }
      if (json* shared = child(c, "shared")) {
        if (json* alone = child(*shared, "alone")) scale_stats(*alone);
        if (json* together = child(*shared, "together"); together && together->is_array()) {
          for (json& t : *together) scale_stats(t);
        }
      }
    }
  }
  if (json* study = child(*result, "relay_study")) {
    if (json* bound = child(*study, "lower_bound")) scale(*bound, "bandwidth");
  }
  json* verdict = child(doc, "verdict");
  if (json* checks = verdict ? child(*verdict, "checks") : nullptr) {
    if (json* link = child(*checks, "emulated_link")) {
      for (const char* side : {"nominal", "fitted"}) {
        if (json* s = child(*link, side)) scale(*s, "bandwidth");
      }
    }
  }
  if (json* merit = verdict ? child(*verdict, "figure_of_merit") : nullptr) {
    if (merit->value("unit", "") == "B/s") {
      scale(*merit, "value");
      (*merit)["unit"] = "MB/s";
    }
  }
}

}  // namespace

json current_record(json doc) {
  if (!doc.is_object()) return doc;
  const auto schema = doc.find("schema");
  if (schema == doc.end() || *schema != kRunRecordSchemaV1) return doc;
  bandwidths_to_megabytes(doc);
  doc["schema"] = kRunRecordSchema;
  return doc;
}

std::string json_type_name(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

void require_known_schema(const std::string& schema) {
  if (schema == kRunRecordSchema || schema == kRunRecordSchemaV1) return;
  throw std::invalid_argument("unknown schema '" + schema + "' (records are " +
                              std::string(kRunRecordSchema) + ", or " + kRunRecordSchemaV1 +
                              " brought up to date)");
}

RunRecord RunRecord::from_json(const json& source) {
  if (!source.is_object()) throw std::invalid_argument("a record must be a JSON object");
  json doc = current_record(source);
  RunRecord r;
  r.schema = required_string(doc, "schema");
  r.run_id = required_string(doc, "run_id");
  if (r.run_id.empty()) throw std::invalid_argument("field 'run_id' is empty");
  r.app = required_string(doc, "app");
  if (r.app.empty()) throw std::invalid_argument("field 'app' is empty");
  r.status = required_string(doc, "status");
  if (r.status != "valid" && r.status != "invalid" && r.status != "failed") {
    throw std::invalid_argument("field 'status' is '" + r.status +
                                "'; expected valid, invalid or failed");
  }
  const auto is_object = [](const json& v) { return v.is_object(); };
  if (auto v = take(
          doc, "campaign", [](const json& x) { return x.is_null() || x.is_string(); },
          "a string or null")) {
    if (v->is_string()) r.campaign = v->get<std::string>();
  }
  if (auto v = take(
          doc, "repetition", [](const json& x) { return x.is_number_integer(); }, "an integer")) {
    r.repetition = v->get<long long>();
  }
  if (auto v = take(
          doc, "reason", [](const json& x) { return x.is_string(); }, "a string")) {
    r.reason = v->get<std::string>();
  }
  r.config = take(doc, "config", is_object, "an object");
  r.env = take(doc, "env", is_object, "an object");
  r.result = take(doc, "result", is_object, "an object");
  r.ranks = take(
      doc, "ranks", [](const json& x) { return x.is_array(); }, "an array");
  for (auto& [key, value] : doc.items()) r.extra[key] = std::move(value);
  return r;
}

json RunRecord::to_json() const {
  json doc = extra.is_object() ? extra : json::object();
  doc["schema"] = schema;
  doc["run_id"] = run_id;
  doc["campaign"] = campaign ? json(*campaign) : json(nullptr);
  if (repetition) doc["repetition"] = *repetition;
  doc["app"] = app;
  doc["status"] = status;
  if (reason) doc["reason"] = *reason;
  if (config) doc["config"] = *config;
  if (env) doc["env"] = *env;
  if (result) doc["result"] = *result;
  if (ranks) doc["ranks"] = *ranks;
  return doc;
}

RunRecord RunRecord::from_stored(const jsonl::Line& line, const std::string& file) {
  try {
    RunRecord record = from_json(line.doc);
    require_known_schema(record.schema);  // another version may mean other things
    return record;
  } catch (const std::invalid_argument& e) {
    throw UsageError(file + ":" + std::to_string(line.number) + ": " + e.what());
  }
}

}  // namespace mcb
