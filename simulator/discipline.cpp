#include "simulator/discipline.hpp"

#include "simulator/engine.hpp"

#include <stdexcept>
#include <string>

namespace mcb::sim {

std::unique_ptr<QueueDiscipline> make_fcfs();
std::unique_ptr<QueueDiscipline> make_easy();
std::unique_ptr<QueueDiscipline> make_conservative(Compression compression, CompressAt at);

bool places_by_size(const Sim& sim) {
  return sim.machine().clusters() == 1 && sim.placement().name() != "link-aware";
}

Compression parse_compression(std::string_view name) {
  if (name == "arrival") return Compression::kArrival;
  if (name == "reservation") return Compression::kReservation;
  throw std::invalid_argument("'" + std::string(name) +
                              "' is not a compression order (arrival, reservation)");
}

std::string compress_at_name(CompressAt at) {
  return at == CompressAt::kEveryEnd ? "every-end" : "early-end";
}

std::string discipline_name(Discipline discipline) {
  switch (discipline) {
    case Discipline::kFcfs:
      return "fcfs";
    case Discipline::kEasy:
      return "easy";
    case Discipline::kCons:
      return "cons";
  }
  return "?";
}

std::optional<Discipline> find_discipline(std::string_view name) {
  for (const Discipline d : kDisciplines) {
    if (name == discipline_name(d)) return d;
  }
  return std::nullopt;
}

std::string discipline_names() {
  std::string names;
  for (size_t i = 0; i < kDisciplines.size(); ++i) {
    names += (i == 0                         ? ""
              : i + 1 == kDisciplines.size() ? " or "
                                             : ", ") +
             discipline_name(kDisciplines[i]);
  }
  return names;
}

std::unique_ptr<QueueDiscipline> make_discipline(Discipline discipline, Compression compression,
                                                 CompressAt compress_at) {
  switch (discipline) {
    case Discipline::kFcfs:
      return make_fcfs();
    case Discipline::kEasy:
      return make_easy();
    case Discipline::kCons:
      return make_conservative(compression, compress_at);
  }
  return make_fcfs();
}

std::unique_ptr<QueueDiscipline> make_discipline(std::string_view name, Compression compression,
                                                 CompressAt compress_at) {
  if (const auto d = find_discipline(name)) return make_discipline(*d, compression, compress_at);
  throw std::invalid_argument("'" + std::string(name) + "' is not a queue discipline (" +
                              discipline_names() + ")");
}

}  // namespace mcb::sim
