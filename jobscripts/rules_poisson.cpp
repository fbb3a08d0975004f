// Poisson: the process grid HxV fixes the rank count; the paper's split gives each cluster an
// equal strip of columns, so H must divide into the cluster count.
#include "jobscripts/app_rules.hpp"

#include "common/errors.hpp"

#include <string>
#include <utility>

namespace mcb::campaign {
namespace {

class PoissonRules : public AppRules {
 public:
  RuleOutcome evaluate(const Combination& c) const override {
    const auto ranks = ranks_key(c);
    const long clusters = c.integer("clusters").value_or(1);
    const auto procs_text = c.get("procs");
    if (!procs_text || procs_text->empty()) {
      if (!ranks) {
        throw UsageError(c.error("procs", "missing: [options] needs 'procs' (HxV) or 'ranks'"));
      }
      // mcb-poisson picks the squarest grid whose columns split over the clusters.
      if (clusters >= 1 && !has_split(*ranks, static_cast<int>(clusters))) {
        return {*ranks, "no process grid of " + std::to_string(*ranks) +
                            " ranks has a column count divisible by " + std::to_string(clusters) +
                            " clusters"};
      }
      return {*ranks, ""};
    }
    const auto [h, v] = parse_procs(c, *procs_text);
    const int size = h * v;
    if (ranks && *ranks != size) {
      return {size, "process grid " + *procs_text + " has " + std::to_string(size) +
                        " processes but ranks = " + std::to_string(*ranks)};
    }
    if (clusters >= 1 && h % clusters != 0) {
      return {size, "process grid " + *procs_text + " has " + std::to_string(h) +
                        " columns, which cannot be split over " + std::to_string(clusters) +
                        " clusters"};
    }
    if (const auto grid = c.integer("grid"); grid && (*grid < h || *grid < v)) {
      return {size, "grid " + std::to_string(*grid) + " is too small for process grid " +
                        *procs_text + " (every process needs at least one point per side)"};
    }
    return {size, ""};
  }

 private:
  // "HxV" with positive H and V (mcb-poisson's --procs).
  static std::pair<int, int> parse_procs(const Combination& c, const std::string& text) {
    const auto x = text.find('x');
    auto number = [](const std::string& part) {
      if (part.empty() || part.size() > 6 ||
          part.find_first_not_of("0123456789") != std::string::npos) {
        return 0;
      }
      return std::stoi(part);
    };
    const int h = x == std::string::npos ? 0 : number(text.substr(0, x));
    const int v = x == std::string::npos ? 0 : number(text.substr(x + 1));
    if (h < 1 || v < 1) throw c.error("procs", "'" + text + "' is not HxV (e.g. 4x2)");
    return {h, v};
  }

  static bool has_split(int ranks, int clusters) {
    for (int v = 1; v <= ranks; ++v) {
      if (ranks % v == 0 && (ranks / v) % clusters == 0) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<AppRules> make_poisson_rules() { return std::make_unique<PoissonRules>(); }

}  // namespace mcb::campaign
