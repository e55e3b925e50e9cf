// The server's Prometheus histograms: a value equal to a bound counts in that
// bound's bucket (Prometheus' le is "less than or equal"), buckets are
// cumulative, and the sum and count are every observation's.
#include "serving/metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace phasor::serving {
namespace {

TEST(ServeMetricsTest, AValueOnABoundCountsInThatBucket) {
  Histogram h({1, 2, 4});
  for (const double v : {0.5, 1.0, 2.0, 2.5, 4.0, 5.0}) h.Observe(v);
  std::string out;
  h.Render("x", out);
  EXPECT_EQ(out,
            "x_bucket{le=\"1\"} 2\n"
            "x_bucket{le=\"2\"} 3\n"
            "x_bucket{le=\"4\"} 5\n"
            "x_bucket{le=\"+Inf\"} 6\n"
            "x_sum 15\n"
            "x_count 6\n");
}

}  // namespace
}  // namespace phasor::serving
