// What every subcommand does alike: sizes and lists parsed one way, output
// formats from the extension, unknown options named with the nearest known
// one, reasons on file errors, a "wrote" line for every file, the defaults
// --help shows, and make-toy keeping a model it would overwrite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ReadFile;
using testing::RunPhasor;

void ExpectUsageError(const std::string& args, const std::string& fragment) {
  const auto r = RunPhasor(args);
  EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
}

TEST(CliInputsTest, SizesTakeSuffixesEverywhere) {
  auto r = RunPhasor("embed --seq-len 1M --d-model 2 --vocab 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["seq_len"], 1048576);
  r = RunPhasor("pe --d-model 4 --length 2 --start 1K");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n1024,"), std::string::npos) << r.out;
  r = RunPhasor("bench-pe --lengths \"1K, 2K\" --d-model 8 --min-seconds 0.001 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["rows"].back()["length"], 2048);
}

TEST(CliInputsTest, BadSizesNameTheOption) {
  ExpectUsageError("embed --seq-len 10 --chunk -1", "--chunk must be in [1, 1073741824], got -1");
  ExpectUsageError("embed --seq-len 10 --chunk 0", "--chunk must be in [1, 1073741824], got 0");
  ExpectUsageError("embed --seq-len ten", "--seq-len: 'ten' is not a size (e.g. 4096, 16K, 1M)");
  ExpectUsageError("embed --seq-len 1.5M", "--seq-len: '1.5M' is not a size");
  ExpectUsageError("pe --d-model 8 --length 2x", "--length: '2x' is not a size");
  ExpectUsageError("bench-pe --lengths \"1K,,2K\"", "--lengths: '1K,,2K' has an empty entry");
  ExpectUsageError("bench-pe --lengths 4Q", "--lengths: '4Q' is not a size");
  ExpectUsageError("bench-pe --lengths 0", "--lengths must be in [1, 17179869184], got 0");
  ExpectUsageError("bench-pe --vocab 0", "--vocab must be in [1, 2147483647], got 0");
  // The token table's limits, worded alike wherever one is made.
  for (const std::string cmd :
       {"embed --seq-len 10", "make-toy --out /nonexistent/toy", "bench-pe --lengths 1K"}) {
    ExpectUsageError(cmd + " --vocab 2147483648",
                     "--vocab must be in [1, 2147483647], got 2147483648");
    ExpectUsageError(cmd + " --vocab 5000000 --d-model 512",
                     "--vocab × --d-model is over 2^30 floats (a token table of 4 GiB): got "
                     "5000000 × 512");
  }
}

TEST(CliInputsTest, OutputFormatsComeFromTheExtension) {
  const std::string dir = ::testing::TempDir();
  const std::pair<std::string, std::string> cases[] = {
      {"encode --tokens 1 --output " + dir + "x.csv", "--output must end in .npy, got"},
      {"bench-pe --lengths 1K --png " + dir + "b.svg", "--png must end in .png, got"},
      {"pe --d-model 8 --length 2 --output " + dir + "t.txt",
       "--output must end in .npy, .csv or .png, got"},
      {"pe --d-model 8 --length 2 --similarity " + dir + "s.jpg",
       "--similarity must end in .png, got"},
  };
  for (const auto& [args, fragment] : cases) ExpectUsageError(args, fragment);
  for (const char* name : {"x.csv", "b.svg", "t.txt", "s.jpg"}) {
    EXPECT_NE(access((dir + name).c_str(), F_OK), 0) << name << " was written";
  }
}

TEST(CliInputsTest, UnknownOptionsNameTheNearestKnownOne) {
  ExpectUsageError("pe --dmodel 8 --length 2",
                   "unknown option --dmodel for pe (did you mean --d-model?)");
  ExpectUsageError("encode --token 5",
                   "unknown option --token for encode (did you mean --tokens?)");
  ExpectUsageError("embed --seq-len 10 --chunks=5", "(did you mean --chunk?)");
  ExpectUsageError("--max-memroy 1G pe --d-model 8 --length 2", "did you mean --max-memory?");
  // Nothing near: named alone.
  const auto r = RunPhasor("bench-pe --lengths 1K --bogus");
  EXPECT_EQ(r.err, "phasor: error: unknown option --bogus for bench-pe\n");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(CliInputsTest, OptionValuesAreNamedInTheirMessages) {
  ExpectUsageError("pe --d-model 8 --length 2 --base 1",
                   "--base must be a finite number greater than 1, got 1");
  ExpectUsageError("pe --d-model 8 --length 2 --base nan", "--base");
}

TEST(CliInputsTest, FileErrorsGiveTheSystemsReason) {
  for (const char* out : {"x.csv", "x.npy", "x.png"}) {
    const auto r =
        RunPhasor(std::string("pe --d-model 8 --length 2 --output /nonexistent/dir/") + out);
    EXPECT_EQ(r.exit_code, 1) << out << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find("cannot write /nonexistent/dir/" + std::string(out) +
                         ": No such file or directory"),
              std::string::npos)
        << r.err;
  }
  const auto r = RunPhasor("encode --tokens 1 --output /nonexistent/dir/x.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write /nonexistent/dir/x.npy: No such file or directory"),
            std::string::npos)
      << r.err;
}

TEST(CliInputsTest, EveryFileWrittenGetsOneWroteLine) {
  const std::string base = ::testing::TempDir() + "wrote_" + std::to_string(getpid());
  for (const char* ext : {".npy", ".csv", ".png"}) {
    const std::string path = base + ext;
    const auto r = RunPhasor("pe --d-model 8 --length 3 --output " + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.rfind("phasor: wrote " + path + ": ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_FALSE(ReadFile(path).empty());
    std::remove(path.c_str());
  }
  const auto r = RunPhasor("pe --d-model 8 --length 3 --output " + base + ".csv");
  EXPECT_NE(r.err.find("3 rows (positions 0..2) x 8 columns"), std::string::npos) << r.err;
  std::remove((base + ".csv").c_str());
}

TEST(CliInputsTest, HelpShowsTheDefaultsThatAreUsed) {
  const auto r = RunPhasor("pe --help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* wrong : {"--attention-factor FLOAT=1", "--factor FLOAT=1",
                            "--original-max-len SIZE=0", "--original-max-len INT=0"}) {
    EXPECT_EQ(r.out.find(wrong), std::string::npos) << wrong << " in\n" << r.out;
  }
  for (const char* right : {"(default: 0.1 ln s + 1)", "(required with a scaling)",
                            "(default: --max-len)", "--d-model SIZE", "--base FLOAT=10000"}) {
    EXPECT_NE(r.out.find(right), std::string::npos) << right << " in\n" << r.out;
  }
  const auto e = RunPhasor("embed --help");
  EXPECT_NE(e.out.find("--d-model SIZE=512"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("--chunk SIZE=0"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("(default: one chunk of output fills 8 MiB)"), std::string::npos) << e.out;
}

TEST(CliInputsTest, MakeToyKeepsAModelUnlessForced) {
  const std::string dir = ::testing::TempDir() + "make_toy_force_" + std::to_string(getpid());
  const std::string sizes = " --vocab 20 --d-model 16 --n-heads 2 --n-layers 1 --d-ff 32";
  auto r = RunPhasor("make-toy --out " + dir + sizes);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "phasor: wrote " + dir +
                       ": the toy model (seed 1): config.json and model.safetensors\n");
  const std::string before = ReadFile(dir + "/model.safetensors");
  r = RunPhasor("make-toy --seed 2 --out " + dir + sizes);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--out " + dir + " already holds a model (config.json); pass --force"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(dir + "/model.safetensors"), before);  // untouched
  r = RunPhasor("make-toy --force --seed 2 --out " + dir + sizes);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadFile(dir + "/model.safetensors"), before);
  // A file where the directory should be.
  r = RunPhasor("make-toy --out " + dir + "/config.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  std::remove((dir + "/config.json").c_str());
  std::remove((dir + "/model.safetensors").c_str());
  rmdir(dir.c_str());
}

// Without NumPy or PyTorch, --help still works and anything else is one line.
TEST(CliInputsTest, ExportTorchHelpNeedsNoNumpy) {
  if (std::system("python3 -c '' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string script = std::string(phasor::testing::kSourceDir) + "/tools/export_torch.py";
  const std::string out = ::testing::TempDir() + "export_torch_help.txt";
  // Hide NumPy and PyTorch whether or not they are installed.
  const std::string blocked = ::testing::TempDir() + "no_numpy_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + blocked + "/numpy " + blocked + "/torch && echo " +
                         "'raise ImportError(\"hidden\", name=\"numpy\")' > " + blocked +
                         "/numpy/__init__.py && cp " + blocked + "/numpy/__init__.py " + blocked +
                         "/torch/__init__.py")
                            .c_str()),
            0);
  const std::string env = "PYTHONPATH=" + blocked + " python3 " + script;
  int status = std::system((env + " --help > " + out + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::string text = ReadFile(out);
  EXPECT_NE(text.find("usage: export_torch.py"), std::string::npos) << text;
  EXPECT_EQ(text.find("Traceback"), std::string::npos) << text;
  status = std::system((env + " --out " + blocked + "/m > " + out + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  text = ReadFile(out);
  EXPECT_EQ(text.rfind("export_torch: error: this command needs torch and numpy", 0), 0u) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
  EXPECT_EQ(std::system(("rm -rf " + blocked + " " + out).c_str()), 0);
}

}  // namespace
}  // namespace phasor
