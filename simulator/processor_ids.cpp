#include "simulator/processor_ids.hpp"

#include <stdexcept>

namespace mcb::sim {

std::string interval_text(const IntervalSet& set) {
  std::string text;
  for (const auto& [first, last] : set) {
    if (!text.empty()) text += ' ';
    text += std::to_string(first);
    if (last != first) text += '-' + std::to_string(last);
  }
  return text;
}

ProcessorIds::ProcessorIds(const std::vector<int>& sizes) : idle_(sizes) {
  int next = 0;
  for (int size : sizes) {
    offset_.push_back(next);
    next += size;
  }
  busy_.assign(static_cast<size_t>(next), false);
}

IntervalSet ProcessorIds::take(std::span<const int> procs) {
  if (procs.size() > idle_.size()) throw std::logic_error("processor ids: too many clusters");
  IntervalSet set;
  for (size_t c = 0; c < procs.size(); ++c) {
    int need = procs[c];
    if (need > idle_[c]) {
      throw std::logic_error("processor ids: cluster " + std::to_string(c) + " has " +
                             std::to_string(idle_[c]) + " idle processors, " +
                             std::to_string(need) + " asked");
    }
    idle_[c] -= need;
    for (int id = offset_[c]; need > 0; ++id) {
      if (busy_[static_cast<size_t>(id)]) continue;
      busy_[static_cast<size_t>(id)] = true;
      --need;
      // Ids are visited in ascending order, so an id either extends the last interval (also
      // across a cluster boundary) or starts a new one: the set comes out canonical.
      if (!set.empty() && set.back().second == id - 1) {
        set.back().second = id;
      } else {
        set.emplace_back(id, id);
      }
    }
  }
  return set;
}

void ProcessorIds::give_back(const IntervalSet& set) {
  for (const auto& [first, last] : set) {
    for (int id = first; id <= last; ++id) {
      if (!busy_[static_cast<size_t>(id)]) {
        throw std::logic_error("processor ids: " + std::to_string(id) + " given back while idle");
      }
      busy_[static_cast<size_t>(id)] = false;
      size_t c = offset_.size() - 1;
      while (offset_[c] > id) --c;
      ++idle_[c];
    }
  }
}

}  // namespace mcb::sim
