// The progress bar: drawn on a terminal only, and its line wiped when the
// work is done so that the next line starts clean.
#include "tools/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace phasor::cli {
namespace {

// Everything the terminal's other end has received so far.
std::string Drain(int master) {
  std::string out;
  char buf[4096];
  pollfd p{master, POLLIN, 0};
  while (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(ProgressTest, OnATerminalTheBarIsDrawnThenItsLineWiped) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  std::FILE* tty = std::fopen(ptsname(master), "w");
  ASSERT_NE(tty, nullptr);
  ASSERT_TRUE(isatty(fileno(tty)));
  {
    Progress p(100, "tokens", true, {tty, 0.0, 0.0});
    p.Update(50);
    const std::string bar = Drain(master);
    EXPECT_NE(bar.find("50.0%"), std::string::npos) << bar;
    EXPECT_NE(bar.find("tokens/s"), std::string::npos) << bar;
    EXPECT_EQ(bar.find('\n'), std::string::npos) << bar;  // redrawn in place
    p.Finish();
    const std::string wiped = Drain(master);
    EXPECT_EQ(wiped, "\r\033[K");  // back to the line's start, erased
    p.Finish();                    // idempotent
    p.Update(100);                 // and nothing after it
    EXPECT_EQ(Drain(master), "");
  }
  EXPECT_EQ(Drain(master), "");  // the destructor has nothing left to wipe
  // The destructor wipes a bar that was not finished.
  {
    Progress p(10, "layers", true, {tty, 0.0, 0.0});
    p.Update(3);
    EXPECT_NE(Drain(master).find("30.0%"), std::string::npos);
  }
  EXPECT_EQ(Drain(master), "\r\033[K");
  // Not allowed (--json): nothing, even on a terminal.
  {
    Progress p(10, "tokens", false, {tty, 0.0, 0.0});
    p.Update(5);
  }
  EXPECT_EQ(Drain(master), "");
  std::fclose(tty);
  close(master);
}

TEST(ProgressTest, NothingIsWrittenToAFileOrBeforeTheDelay) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    Progress p(100, "tokens", true, {file, 0.0, 0.0});
    p.Update(50);
    p.Finish();
  }
  EXPECT_EQ(std::ftell(file), 0L);
  std::fclose(file);

  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  std::FILE* tty = std::fopen(ptsname(master), "w");
  ASSERT_NE(tty, nullptr);
  {
    Progress p(100, "tokens", true, {tty, 3600.0, 0.0});  // a run shorter than the delay
    p.Update(50);
  }
  EXPECT_EQ(Drain(master), "");
  std::fclose(tty);
  close(master);
}

}  // namespace
}  // namespace phasor::cli
