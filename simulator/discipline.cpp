#include "simulator/discipline.hpp"

#include <stdexcept>
#include <string>

namespace mcb::sim {

std::unique_ptr<QueueDiscipline> make_fcfs();
std::unique_ptr<QueueDiscipline> make_easy();
std::unique_ptr<QueueDiscipline> make_conservative(Compression compression);

Compression parse_compression(std::string_view name) {
  if (name == "arrival") return Compression::kArrival;
  if (name == "reservation") return Compression::kReservation;
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a compression order (arrival, reservation)");
}

std::unique_ptr<QueueDiscipline> make_discipline(std::string_view name, Compression compression) {
  if (name == "fcfs") return make_fcfs();
  if (name == "easy") return make_easy();
  if (name == "cons") return make_conservative(compression);
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a queue discipline (fcfs, easy, cons)");
}

}  // namespace mcb::sim
