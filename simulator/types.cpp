#include "simulator/types.hpp"

#include <stdexcept>

namespace mcb::sim {

std::string_view to_string(RequestType type) {
  switch (type) {
    case RequestType::kFixed:
      return "fixed";
    case RequestType::kNonFixed:
      return "nonfixed";
    case RequestType::kUnordered:
      return "unordered";
    case RequestType::kFlexible:
      return "flexible";
    case RequestType::kMoldable:
      return "moldable";
  }
  return "?";
}

RequestType parse_request_type(std::string_view name) {
  if (name == "fixed") return RequestType::kFixed;
  if (name == "nonfixed" || name == "non-fixed") return RequestType::kNonFixed;
  if (name == "unordered") return RequestType::kUnordered;
  if (name == "flexible") return RequestType::kFlexible;
  if (name == "moldable") return RequestType::kMoldable;
  throw std::invalid_argument(
      "'" + std::string(name) +
      "' is not a request type (fixed, nonfixed, unordered, flexible, moldable)");
}

}  // namespace mcb::sim
