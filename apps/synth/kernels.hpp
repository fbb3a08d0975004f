#pragma once
/// @file
/// @brief The computation of an iteration: a streaming triad (memory traffic) and dense block
/// products (floating-point work), on small-integer data whose every result is exact in doubles,
/// so each iteration checks a sample of its own results.

#include <vector>

namespace mcb::synth {

/// @brief A streaming triad a = b + s c over arrays of a fixed length, cycled through until the
/// elements asked for are done.
class Triad {
 public:
  /// @brief Arrays of @p length elements (none when @p elements_per_call is 0).
  Triad(long length, long elements_per_call);
  /// @brief One iteration's elements; the scalar changes from pass to pass over the arrays.
  /// Returns the results that disagree with b + s c in the spot check (0 when right).
  long run(long iteration);
  long elements_per_call() const { return elements_; }

 private:
  std::vector<double> a_, b_, c_;
  long elements_;
};

/// @brief Dense products C = A B of N x N blocks; B changes by one entry before every product,
/// so each product is new work. Each call checks one entry of its last product against a dot
/// product of A's row and B's column.
class DenseBlock {
 public:
  DenseBlock(int n, long products_per_call);
  /// @brief One iteration's products; returns 1 when the checked entry is wrong, else 0.
  long run(long iteration);
  long products_per_call() const { return products_; }

 private:
  int n_;
  long products_;
  std::vector<double> a_, b_, c_;
  long done_ = 0;  // products so far (which entry of B changes next)
};

}  // namespace mcb::synth
