#include "harness/grid.hpp"

#include <charconv>
#include <stdexcept>

namespace mcb::harness {

ProcessGrid::ProcessGrid(int h, int v) : h_(h), v_(v) {
  if (h <= 0 || v <= 0) throw std::invalid_argument("process grid dimensions must be positive");
}

ProcessGrid ProcessGrid::parse(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) {
    throw std::invalid_argument("'" + std::string(text) + "' is not of the form HxV");
  }
  auto number = [&](std::string_view part) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || ptr != part.data() + part.size() || part.empty()) {
      throw std::invalid_argument("'" + std::string(text) + "' is not of the form HxV");
    }
    if (value <= 0) {
      throw std::invalid_argument("'" + std::string(text) + "' needs positive H and V");
    }
    return value;
  };
  return ProcessGrid(number(text.substr(0, x)), number(text.substr(x + 1)));
}

int ProcessGrid::neighbour(int rank, Direction d) const {
  const int c = column(rank);
  const int r = row(rank);
  switch (d) {
    case Direction::top:
      return r + 1 < v_ ? rank_at(c, r + 1) : -1;
    case Direction::bottom:
      return r > 0 ? rank_at(c, r - 1) : -1;
    case Direction::left:
      return c > 0 ? rank_at(c - 1, r) : -1;
    case Direction::right:
      return c + 1 < h_ ? rank_at(c + 1, r) : -1;
  }
  return -1;
}

std::string ProcessGrid::to_string() const { return std::to_string(h_) + "x" + std::to_string(v_); }

}  // namespace mcb::harness
