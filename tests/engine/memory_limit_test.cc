// The memory limit (engine/memory_limit.h), the non-finite scan
// (engine/finite.h), and the safetensors reader's checks that use them.
#include "engine/memory_limit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "engine/error.h"
#include "engine/finite.h"
#include "engine/safetensors.h"
#include "tests/support/limits.h"

namespace phasor {
namespace {

// Sets the limit for one test and restores it.
using testing::ErrorOf;
using testing::ScopedLimit;

TEST(MemoryLimit, ParseByteSize) {
  EXPECT_EQ(ParseByteSize("4G"), uint64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("4GiB"), uint64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("4 gb"), uint64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("512M"), uint64_t{512} << 20);
  EXPECT_EQ(ParseByteSize("1.5K"), uint64_t{1536});
  EXPECT_EQ(ParseByteSize("100000"), uint64_t{100000});
  EXPECT_EQ(ParseByteSize("2T"), uint64_t{2} << 40);
  for (const char* bad : {"", "G", "-1G", "0", "4X", "4GG", "1.2.3M", "99999999999T", "nan"}) {
    EXPECT_THROW(ParseByteSize(bad), UsageError) << bad;
  }
}

TEST(MemoryLimit, FormatBytes) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(uint64_t{8} << 30), "8 GiB");
  EXPECT_EQ(FormatBytes(uint64_t{3} << 19), "1.5 MiB");
}

TEST(MemoryLimit, CheckAllocationNamesWhatAndTheLimit) {
  const ScopedLimit limit(uint64_t{1} << 20);
  EXPECT_NO_THROW(CheckAllocation(uint64_t{1} << 20, "x"));
  const std::string e = ErrorOf([] { CheckAllocation(uint64_t{3} << 20, "the PE table"); });
  EXPECT_EQ(
      e, "the PE table needs 3 MiB, more than the memory limit of 1 MiB (set with --max-memory)");
  EXPECT_NE(ErrorOf([] {
              CheckAllocation(SaturatingMul(uint64_t{1} << 40, uint64_t{1} << 40), "w");
            }).find("more than 2^64 bytes"),
            std::string::npos);
}

TEST(MemoryLimit, ZeroMeansNoLimitAndDefaultIsSane) {
  const ScopedLimit limit(0);
  EXPECT_NO_THROW(CheckAllocation(std::numeric_limits<uint64_t>::max(), "x"));
  EXPECT_GE(DefaultMemoryLimit(), uint64_t{256} << 20);
}

TEST(MemoryLimit, SaturatingMul) {
  EXPECT_EQ(SaturatingMul(3, 4), 12u);
  EXPECT_EQ(SaturatingMul(0, std::numeric_limits<uint64_t>::max()), 0u);
  EXPECT_EQ(SaturatingMul(uint64_t{1} << 32, uint64_t{1} << 32),
            std::numeric_limits<uint64_t>::max());
}

std::string WriteSafetensors(const std::string& name, const std::string& header,
                             const std::string& data) {
  const std::string path = ::testing::TempDir() + "phasor_limit_" + name + ".safetensors";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header << data;
  return path;
}

TEST(MemoryLimit, SafetensorsTotalIsCheckedBeforeAllocating) {
  // 2 F16 tensors of 256 values: 1 KiB of data, 2 KiB once converted to F32.
  const std::string path =
      WriteSafetensors("total",
                       R"({"a":{"dtype":"F16","shape":[256],"data_offsets":[0,512]},)"
                       R"("b":{"dtype":"F16","shape":[16,16],"data_offsets":[512,1024]}})",
                       std::string(1024, '\0'));
  {
    const ScopedLimit limit(2048);
    EXPECT_NO_THROW(LoadSafetensors(path));
  }
  const ScopedLimit limit(2047);
  EXPECT_NE(ErrorOf([&] {
              LoadSafetensors(path);
            }).find(path + ": the tensors needs 2 KiB, more than the memory limit"),
            std::string::npos);
}

TEST(MemoryLimit, SafetensorsFifoIsRefusedNotWaitedOn) {
  const std::string path = ::testing::TempDir() + "phasor_limit_fifo.safetensors";
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_NE(ErrorOf([&] { LoadSafetensors(path); }).find("is not a regular file"),
            std::string::npos);
  ::unlink(path.c_str());
}

// The reader uses ordinary reads of a size taken at open: a file truncated,
// grown or rewritten while it is read gives tensors or an Error, never a crash.
TEST(MemoryLimit, SafetensorsChangingWhileReadFailsCleanly) {
  std::string header = R"({"w":{"dtype":"F32","shape":[65536],"data_offsets":[0,262144]}})";
  const std::string path = WriteSafetensors("changing", header, std::string(262144, '\1'));
  std::ifstream in(path, std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (size_t i = 0; !stop.load(); ++i) {
      ::truncate(path.c_str(), static_cast<off_t>((i * 7919) % whole.size()));
      std::ofstream(path, std::ios::binary | std::ios::trunc)
          .write(whole.data(), static_cast<std::streamsize>(whole.size() - (i % 3) * 100));
    }
  });
  // Every load that succeeds holds bytes the file held: 0x01, or 0x00 where the
  // writer's truncate had just lengthened it; every failure names the file.
  int loaded = 0, wrong = 0;
  for (int i = 0; i < 200; ++i) {
    try {
      const Weights w = LoadSafetensors(path);
      const auto& data = w.Get("w").data;
      EXPECT_EQ(data.size(), 65536u);  // (no ASSERT: the writer thread must be joined)
      const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
      for (size_t k = 0; k < data.size() * sizeof(float); ++k) {
        if (bytes[k] > 1) {
          ++wrong;
          break;
        }
      }
      ++loaded;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(wrong, 0) << "of " << loaded << " loads";
}

TEST(Finite, FindsTheFirstNonFiniteTensorInNameOrder) {
  Weights w("m.safetensors");
  w.Add("a", {2}, {1.0f, 2.0f});
  EXPECT_FALSE(FindNonFinite(w));
  EXPECT_EQ(NonFiniteWarning(w), "");
  const float inf = std::numeric_limits<float>::infinity();
  w.Add("c", {3}, {-inf, 0.0f, inf});
  w.Add("b", {2, 2}, {0.0f, 1.0f, std::nanf(""), std::nanf("")});
  const auto r = FindNonFinite(w);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tensor, "b");
  EXPECT_EQ(r->index, 2);
  EXPECT_EQ(r->count, 2);
  EXPECT_EQ(r->tensors, 2);
  EXPECT_EQ(NonFiniteWarning(w),
            "m.safetensors: tensor 'b' holds 2 non-finite values (first: nan at index 2 of [2, "
            "2]), and 1 more tensor(s) do; outputs will be NaN or Inf");
}

// A tensor kept in bfloat16 (a BF16 file) is scanned in its bits, and a
// released one is passed over.
TEST(Finite, ScansBfloat16TensorsAndSkipsReleasedOnes) {
  Weights w("m.safetensors");
  w.AddBf16("a", {3}, {0x3F80, 0xFF80, 0x7FC1});  // 1, -inf, nan
  w.Add("b", {1}, {std::nanf("")});
  w.Release("b");
  const auto r = FindNonFinite(w);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tensor, "a");
  EXPECT_EQ(r->index, 1);
  EXPECT_EQ(r->count, 2);
  EXPECT_EQ(r->tensors, 1);
  EXPECT_TRUE(std::isinf(r->value));
  EXPECT_TRUE(w.Get("a").data.empty()) << "scanning made a float32 copy";
  EXPECT_EQ(w.Floats("a")[0], 1.0f);
  EXPECT_THROW(w.Floats("b"), Error);
  EXPECT_THROW(w.Require("b", {1}), Error);
}

}  // namespace
}  // namespace phasor
