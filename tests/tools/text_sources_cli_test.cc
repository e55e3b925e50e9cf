// Where `tokenize` and `encode --text-file` read text from: standard input and
// pipes (never an empty output for a non-empty input), JSON lines
// (--jsonl-field) and CSV/TSV (--csv-column), with messages naming file, line
// and field. Ids are worked out by hand from the hand tokenizer
// (tests/support/st_folder.h): hello 5, world 6, ##s 7, "," 10, "!" 11, the 12.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/npy.h"
#include "tests/support/run.h"
#include "tests/support/st_folder.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::MakeStFolder;
using testing::ReadFile;
using testing::RunPhasor;
using testing::RunShell;
using testing::WriteFile;

std::string TextFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "sources_cli_" + name;
  WriteFile(path, text);
  return path;
}

std::string Folder(const std::string& name) { return MakeStFolder("sources_" + name, 32); }

TEST(TextSourcesCliTest, TokenizeReadsPipesAndStandardInput) {
  const std::string dir = Folder("pipe");
  const std::string text = TextFile("pipe.txt", "hello\nthe world\n");
  const std::string want = "2 5 3\n2 12 6 3\n";
  for (const std::string& cmd :
       {"cat " + text + " | PHASOR tokenize --model " + dir + " --text-file -",
        "cat " + text + " | PHASOR tokenize --model " + dir + " --text-file /dev/stdin",
        "PHASOR tokenize --model " + dir + " --text-file <(cat " + text + ")"}) {
    const auto r = RunShell(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.out, want) << cmd;
  }
  // Many blocks' worth through a pipe: every line comes out.
  std::string many, many_ids;
  for (int i = 0; i < 40000; ++i) {
    many += i % 2 ? "hello\n" : "the\n";
    many_ids += i % 2 ? "2 5 3\n" : "2 12 3\n";
  }
  const std::string big = TextFile("pipe_big.txt", many);
  auto r = RunShell("cat " + big + " | PHASOR tokenize --model " + dir + " --text-file /dev/stdin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == many_ids) << r.out.size() << " bytes, want " << many_ids.size();
  // An empty input says so: never exit 0 with nothing written.
  r = RunShell("printf '' | PHASOR tokenize --model " + dir + " --text-file -");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "phasor: error: standard input: no text to tokenize\n");
}

TEST(TextSourcesCliTest, EncodeReadsPipesAndStandardInput) {
  const std::string dir = Folder("encode_pipe");
  const std::string text = TextFile("encode_pipe.txt", "hello\nthe world\n");
  const std::string want = ::testing::TempDir() + "sources_cli_encode_pipe_want.npy";
  auto r = RunPhasor("encode --model " + dir + " --text-file " + text + " --output " + want);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string got = ::testing::TempDir() + "sources_cli_encode_pipe_got.npy";
  for (const char* in : {"-", "/dev/stdin"}) {
    r = RunShell("cat " + text + " | PHASOR encode --model " + dir + " --text-file " + in +
                 " --output " + got);
    ASSERT_EQ(r.exit_code, 0) << in << ": " << r.err;
    EXPECT_EQ(ReadFile(got), ReadFile(want)) << in;
  }
  // Token ids from a pipe too.
  const std::string ids = TextFile("encode_pipe_ids.txt", "2 5 3\n2 12 6 3\n");
  r = RunPhasor("encode --model " + dir + " --tokens-file " + ids + " --output " + want);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell("cat " + ids + " | PHASOR encode --model " + dir + " --tokens-file - --output " +
               got);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(got), ReadFile(want));
  r = RunShell("printf '' | PHASOR encode --model " + dir + " --text-file /dev/stdin");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "phasor: error: /dev/stdin: no line of text\n");
}

TEST(TextSourcesCliTest, JsonLinesGiveOneFieldAText) {
  const std::string dir = Folder("jsonl");
  const std::string jsonl =
      TextFile("a.jsonl",
               "{\"id\": 1, \"text\": \"Hello, worlds!\", \"b\": \"the\"}\n"
               "{\"text\": \"line\\nbreak \\u00e9 hello\", \"id\": 2, \"b\": \"\"}\r\n");
  auto r = RunPhasor("tokenize --model " + dir + " --jsonl-field text --text-file " + jsonl);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "line", "break" and "é" are not in the vocabulary: [UNK] 1 each.
  EXPECT_EQ(r.out, "2 5 10 6 7 11 3\n2 1 1 1 5 3\n");
  r = RunPhasor("tokenize --pairs --model " + dir + " --jsonl-field text,b --text-file " + jsonl);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 7 11 3\t12 3\n2 1 1 1 5 3\t3\n");  // an empty b: its [SEP]
  // encode reads the same ids as the plain file of those texts.
  const std::string plain = TextFile("a_plain.txt", "Hello, worlds!\nline break \xc3\xa9 hello\n");
  const std::string want = ::testing::TempDir() + "sources_cli_jsonl_want.npy";
  const std::string got = ::testing::TempDir() + "sources_cli_jsonl_got.npy";
  ASSERT_EQ(
      RunPhasor("encode --model " + dir + " --text-file " + plain + " --output " + want).exit_code,
      0);
  r = RunPhasor("encode --model " + dir + " --jsonl-field text --text-file " + jsonl +
                " --output " + got);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(got), ReadFile(want));
}

TEST(TextSourcesCliTest, JsonLinesErrorsNameFileLineAndField) {
  const std::string dir = Folder("jsonl_bad");
  struct Case {
    std::string text, fragment;
  } cases[] = {
      {"{\"text\": \"hello\"}\n{\"txt\": \"hello\"}\n", ": line 2: no field 'text'"},
      {"{\"text\": \"hello\"}\n\n{\"text\": \"x\"}\n", ": line 2: expected a JSON object"},
      {"{\"text\": 3}\n", ": line 1, field 'text': expected a string, found 3"},
      {"{\"text\": \"hello\"}\n{\"text\": \"hel\n", ": line 2: not valid JSON"},
      {"[\"hello\"]\n", ": line 1: expected a JSON object, found"},
      {"{\"text\": \"hello\"}\n{\"text\": \"h\xffllo\"}\n",
       ": line 2, byte offset 11: invalid UTF-8 (byte 0xff)"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = TextFile("bad" + std::to_string(k++) + ".jsonl", c.text);
    const auto r = RunPhasor("tokenize --model " + dir + " --jsonl-field text --text-file " + path);
    EXPECT_EQ(r.exit_code, 1) << c.fragment;
    ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(path + c.fragment), std::string::npos) << r.err;
  }
  const std::string path = TextFile("pairs.jsonl", "{\"text\": \"hello\"}\n");
  auto r = RunPhasor("tokenize --pairs --model " + dir + " --jsonl-field text --text-file " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--jsonl-field with --pairs takes two names"), std::string::npos) << r.err;
  r = RunPhasor("encode --model " + dir + " --jsonl-field text --tokens 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--jsonl-field needs --text-file"), std::string::npos) << r.err;
}

TEST(TextSourcesCliTest, CsvColumnsByHeaderNameWithQuotedNewlines) {
  const std::string dir = Folder("csv");
  // Row 2 holds a quoted comma, row 3 a quoted newline and "" (a quote), CRLF ends.
  const std::string csv = TextFile("a.csv",
                                   "id,text,other\r\n"
                                   "1,\"Hello, worlds!\",x\r\n"
                                   "2,\"the\nworld \"\"hello\"\"\",y\r\n"
                                   "\r\n"
                                   "3,hello,\"the\"\r\n");
  auto r = RunPhasor("tokenize --model " + dir + " --csv-column text --text-file " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // '"' is not in the vocabulary: [UNK] 1.
  EXPECT_EQ(r.out, "2 5 10 6 7 11 3\n2 12 6 1 5 1 3\n2 5 3\n");
  r = RunPhasor("tokenize --pairs --model " + dir + " --csv-column other,text --text-file " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 1 3\t5 10 6 7 11 3\n2 1 3\t12 6 1 5 1 3\n2 12 3\t5 3\n");
  // TSV by its name, ';' sniffed from the header of a .txt.
  const std::string tsv = TextFile("b.tsv", "text\tid\nthe world\t1\n");
  r = RunPhasor("tokenize --model " + dir + " --csv-column text --text-file " + tsv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 12 6 3\n");
  const std::string semi = TextFile("c.txt", "id;text\n1;hello\n");
  r = RunPhasor("tokenize --model " + dir + " --csv-column text --text-file " + semi);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\n");
  // A byte order mark, as spreadsheets write UTF-8 CSV, is not part of the first name.
  const std::string bom = TextFile("bom.csv", "\xEF\xBB\xBFtext,id\nhello,1\n");
  r = RunPhasor("tokenize --model " + dir + " --csv-column text --text-file " + bom);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\n");
  // From a pipe, sniffed.
  r = RunShell("cat " + csv + " | PHASOR tokenize --model " + dir +
               " --csv-column text --text-file -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 7 11 3\n2 12 6 1 5 1 3\n2 5 3\n");
}

TEST(TextSourcesCliTest, CsvErrorsNameFileLineAndColumn) {
  const std::string dir = Folder("csv_bad");
  struct Case {
    std::string text, fragment;
  } cases[] = {
      {"id,text\n1,hello\n", ": line 1 (the header): no column 'body'; it has 'id', 'text'"},
      {"id,body\n1,\"two\nlines\"\n2,a,b\n", ": line 4: 3 fields, the header has 2"},
      {"id,body\n1,\"never closed\n2,b\n", ": line 2: a quoted field is never closed"},
      {"id,body\n1,\"quoted\"after\n", ": line 2: characters after a closing quote"},
      {"id,body\n1,caf\xe9\n", ": line 2, byte offset 5: invalid UTF-8 (byte 0xe9)"},
      {"", ": no header row"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = TextFile("bad" + std::to_string(k++) + ".csv", c.text);
    const auto r = RunPhasor("tokenize --model " + dir + " --csv-column body --text-file " + path);
    EXPECT_EQ(r.exit_code, 1) << c.fragment;
    ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(path + c.fragment), std::string::npos) << r.err;
  }
  // A .csv read as lines: a warning saying what happens and what to give.
  const std::string csv = TextFile("plain.csv", "text\nhello\n");
  const auto r = RunPhasor("tokenize --model " + dir + " --text-file " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("phasor: warning: " + csv +
                       " is read as plain text, one text a line: its header and every column "
                       "are embedded as text; give --csv-column NAME"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "2 1 3\n2 5 3\n");
  const auto both = RunPhasor("tokenize --model " + dir + " --csv-column a --jsonl-field b " +
                              "--text-file " + csv);
  EXPECT_EQ(both.exit_code, 2);
}

}  // namespace
}  // namespace phasor
