/// @file
/// @brief Random: every site equally likely to rank first (seed 004 section 3, criterion 1).
#include "redundant/ranker.hpp"

namespace mcb::redundant {
namespace {

class RandomRanker final : public Ranker {
 public:
  explicit RandomRanker(std::uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }
  double score(const sim::Sim&, const GridState&, int, const RankedJob&) override {
    return rng_.uniform();
  }

 private:
  Rng rng_;
};

}  // namespace

std::unique_ptr<Ranker> make_random_ranker(std::uint64_t seed) {
  return std::make_unique<RandomRanker>(seed);
}

}  // namespace mcb::redundant
