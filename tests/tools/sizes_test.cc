// The one parser for sizes and lists that every subcommand uses, and the one
// way counts are printed.
#include "tools/sizes.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"

namespace phasor::cli {
namespace {

TEST(SizesTest, PlainNumbersAndSuffixes) {
  EXPECT_EQ(ParseSize("--n", "4096"), 4096);
  EXPECT_EQ(ParseSize("--n", "16K"), 16384);
  EXPECT_EQ(ParseSize("--n", "16k"), 16384);
  EXPECT_EQ(ParseSize("--n", "1M"), 1048576);
  EXPECT_EQ(ParseSize("--n", "2G"), int64_t{2} << 30);
  EXPECT_EQ(ParseSize("--n", " 7 "), 7);
  EXPECT_EQ(ParseSize("--n", "0"), 0);
  // Signed, so that the range check can name a negative value.
  EXPECT_EQ(ParseSize("--n", "-1"), -1);
}

TEST(SizesTest, NotASizeNamesTheOptionAndTheText) {
  for (const char* text : {"", "ten", "1.5K", "4KB", "K", "--1", "1 K", "0x10", "+5", "4K4"}) {
    try {
      ParseSize("--seq-len", text);
      ADD_FAILURE() << "'" << text << "' was taken";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--seq-len: '" + std::string(text) + "' is not a size", 0), 0u) << what;
    }
  }
  try {
    ParseSize("--seq-len", "9999999999999999999");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is too large"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseSize("--n", "9000000000G"), UsageError);
}

TEST(SizesTest, ListsTakeCommasWithOptionalSpaces) {
  EXPECT_EQ(ParseSizeList("--lengths", "4K, 64K"), (std::vector<int64_t>{4096, 65536}));
  EXPECT_EQ(ParseSizeList("--lengths", "1K,2K , 3"), (std::vector<int64_t>{1024, 2048, 3}));
  EXPECT_EQ(ParseSizeList("--lengths", "5"), (std::vector<int64_t>{5}));
  for (const char* text : {"", " ", "1K,,2K", "1K,", ",1K", "1K, x"}) {
    EXPECT_THROW(ParseSizeList("--lengths", text), UsageError) << text;
  }
}

TEST(SizesTest, RatesWithSiPrefixesAndPlurals) {
  // Rates and counts: k = 1000, M = 10^6, G = 10^9 (6,850 tokens/s is 6.85k, not 6.69K).
  EXPECT_EQ(FormatSi(950), "950");
  EXPECT_EQ(FormatSi(6850), "6.85k");
  EXPECT_EQ(FormatSi(1004), "1k");
  EXPECT_EQ(FormatSi(1536), "1.54k");
  EXPECT_EQ(FormatSi(35875635), "35.9M");
  EXPECT_EQ(FormatSi(2.5e9), "2.5G");
  EXPECT_EQ(FormatSi(999999), "1000k");
  EXPECT_EQ(FormatSi(0.25), "0.25");
  EXPECT_EQ(Plural(1, "thread"), "1 thread");
  EXPECT_EQ(Plural(2, "thread"), "2 threads");
  EXPECT_EQ(Plural(0, "pad id"), "0 pad ids");
}

TEST(SizesTest, DurationsInMillisecondsBelowASecondThenSeconds) {
  EXPECT_EQ(FormatDuration(0.0123), "12.300 ms");
  EXPECT_EQ(FormatDuration(0.9994), "999.400 ms");
  EXPECT_EQ(FormatDuration(1.0), "1.000 s");
  EXPECT_EQ(FormatDuration(19.5), "19.500 s");
}

}  // namespace
}  // namespace phasor::cli
