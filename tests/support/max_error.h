// The one error measure of the tests: the largest |got - want| over a set of
// values, where a NaN or an infinity on either side counts as an infinite error
// at its position. std::max(err, NaN) returns err, so a measure built on it
// passes an output that is NaN everywhere; this one fails it.
//
//   EXPECT_LE(MaxAbsError(got, want, n, d_model), 2e-6);
//   // fails with e.g. "not finite at row 3, column 17: got nan, want 0.25"
//
// Comparisons with a tolerance hold only for a finite measure, so
// EXPECT_LE(e, tol) and EXPECT_GT(e, tol) both fail on NaN or Inf.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <utility>

namespace phasor::testing {

class MaxError {
 public:
  // row_width > 0: positions are printed as (row, column) of rows that long.
  explicit MaxError(int64_t row_width = 0) : row_width_(row_width) {}

  // Takes one value at flat position index; the first non-finite one is kept.
  void Add(int64_t index, long double got, long double want) {
    if (!finite_) return;
    if (!std::isfinite(got) || !std::isfinite(want)) {
      finite_ = false;
      Keep(index, got, want, HUGE_VAL);
      return;
    }
    const double e = static_cast<double>(std::fabs(got - want));
    if (index_ < 0 || e > value_) Keep(index, got, want, e);
  }

  // The largest error, +inf if any value was not finite.
  double value() const { return value_; }
  bool finite() const { return finite_; }
  int64_t index() const { return index_; }

  friend bool operator<=(const MaxError& e, double tol) { return e.finite_ && e.value_ <= tol; }
  friend bool operator<(const MaxError& e, double tol) { return e.finite_ && e.value_ < tol; }
  friend bool operator>(const MaxError& e, double tol) { return e.finite_ && e.value_ > tol; }
  friend bool operator>=(const MaxError& e, double tol) { return e.finite_ && e.value_ >= tol; }

  friend std::ostream& operator<<(std::ostream& os, const MaxError& e) {
    if (e.index_ < 0) return os << "0 (no values)";
    if (e.finite_) {
      os << e.value_ << " at ";
    } else {
      os << "not finite at ";
    }
    if (e.row_width_ > 0) {
      os << "row " << e.index_ / e.row_width_ << ", column " << e.index_ % e.row_width_;
    } else {
      os << "index " << e.index_;
    }
    return os << ": got " << static_cast<double>(e.got_) << ", want "
              << static_cast<double>(e.want_);
  }

 private:
  void Keep(int64_t index, long double got, long double want, double e) {
    index_ = index;
    got_ = got;
    want_ = want;
    value_ = e;
  }

  int64_t row_width_;
  bool finite_ = true;
  double value_ = 0.0;
  int64_t index_ = -1;
  long double got_ = 0, want_ = 0;
};

// The measure over n values of two arrays (any arithmetic element types).
template <typename Got, typename Want>
MaxError MaxAbsError(const Got* got, const Want* want, int64_t n, int64_t row_width = 0) {
  MaxError e(row_width);
  for (int64_t i = 0; i < n; ++i) {
    e.Add(i, static_cast<long double>(got[i]), static_cast<long double>(want[i]));
  }
  return e;
}

// The same over two containers of equal size (a size mismatch is reported as
// not finite at the first missing index).
template <typename GotVec, typename WantVec, typename = decltype(std::declval<GotVec>().size())>
MaxError MaxAbsError(const GotVec& got, const WantVec& want, int64_t row_width = 0) {
  const int64_t n = static_cast<int64_t>(std::min(got.size(), want.size()));
  MaxError e = MaxAbsError(got.data(), want.data(), n, row_width);
  if (got.size() != want.size()) e.Add(n, NAN, 0);
  return e;
}

}  // namespace phasor::testing
