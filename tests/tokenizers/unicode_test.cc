// The Unicode facts of tokenizers/unicode.h against sources outside
// the code: Python 3.11's unicodedata (Unicode 14.0; every character below is
// assigned in 14.0 and unchanged in ICU 72's Unicode 15.0), the Unicode
// Character Database's PropList.txt for White_Space, and the Rust standard
// library's documented char::to_lowercase examples.
#include "tokenizers/unicode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace phasor::tokenizers::unicode {
namespace {

// unicodedata.category(chr(c)) for each c (Python 3.11.7, Unicode 14.0.0).
struct CategoryCase {
  char32_t c;
  const char* category;
};
const CategoryCase kCategories[] = {
    {0x41, "Lu"},   {0x61, "Ll"},  {0x30, "Nd"},   {0x21, "Po"}, {0x5F, "Pc"},    {0xE9, "Ll"},
    {0x301, "Mn"},  {0x903, "Mc"}, {0x20DD, "Me"}, {0x2D, "Pd"}, {0x3002, "Po"},  {0xFF01, "Po"},
    {0x4E2D, "Lo"}, {0x660, "Nd"}, {0x2167, "Nl"}, {0xBD, "No"}, {0x200B, "Cf"},  {0xAD, "Cf"},
    {0xE000, "Co"}, {0x378, "Cn"}, {0x85, "Cc"},   {0xA0, "Zs"}, {0x1F600, "So"}, {0x10400, "Lu"},
};

TEST(UnicodeTest, GeneralCategoriesMatchPythonUnicodedata) {
  for (const CategoryCase& k : kCategories) {
    const std::string cat = k.category;
    SCOPED_TRACE(std::to_string(static_cast<uint32_t>(k.c)) + " " + cat);
    EXPECT_EQ(IsMark(k.c), cat[0] == 'M');
    EXPECT_EQ(IsNonspacingMark(k.c), cat == "Mn");
    EXPECT_EQ(IsPunctuation(k.c), cat[0] == 'P');
    EXPECT_EQ(IsOther(k.c), cat[0] == 'C');
    EXPECT_EQ(IsLetter(k.c), cat[0] == 'L');
    EXPECT_EQ(IsNumber(k.c), cat[0] == 'N');
  }
}

TEST(UnicodeTest, WhiteSpaceIsThePropListProperty) {
  // PropList.txt, White_Space: 0009..000D, 0020, 0085, 00A0, 1680, 2000..200A,
  // 2028, 2029, 202F, 205F, 3000.
  for (char32_t c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028,
                     0x2029, 0x202F, 0x205F, 0x3000})
    EXPECT_TRUE(IsWhiteSpace(c)) << std::hex << static_cast<uint32_t>(c);
  // Not White_Space (though some count as space elsewhere: Python's
  // str.isspace takes U+001C..001F; U+180E left Zs in Unicode 6.3; U+200B
  // and U+FEFF are Cf).
  for (char32_t c : {0x08, 0x1C, 0x1F, 0x41, 0x180E, 0x200B, 0xFEFF, 0x2581})
    EXPECT_FALSE(IsWhiteSpace(c)) << std::hex << static_cast<uint32_t>(c);
}

std::string Lower(char32_t c) {
  std::string out;
  AppendLowercase(out, c);
  return out;
}

TEST(UnicodeTest, LowercaseIsTheFullMappingOfOneCodePoint) {
  // chr(c).lower() in Python (a single code point has no casing context),
  // which is also what Rust documents for char::to_lowercase: 'İ' gives
  // "i\u{307}".
  EXPECT_EQ(Lower(0x41), "a");
  EXPECT_EQ(Lower(0x61), "a");
  EXPECT_EQ(Lower(0x49), "i");
  EXPECT_EQ(Lower(0xC0), u8"\u00E0");
  EXPECT_EQ(Lower(0x130), u8"i\u0307");
  EXPECT_EQ(Lower(0x3A3), u8"\u03C3");  // Σ alone: never the final form ς
  EXPECT_EQ(Lower(0x1E9E), u8"\u00DF");
  EXPECT_EQ(Lower(0x10400), u8"\U00010428");
  EXPECT_EQ(Lower(0x1F88), u8"\u1F80");
  EXPECT_EQ(Lower(0x4E2D), u8"\u4E2D");  // no case: itself
}

TEST(UnicodeTest, LowercaseOfSigmaIgnoresItsNeighbours) {
  // Python's "ΑΣ".lower() gives "ας" (Final_Sigma); Rust's
  // str::to_lowercase too, but the tokenizers crate maps char by char, so a
  // word-final Σ becomes σ.
  std::string out;
  for (char32_t c : {0x391, 0x3A3}) AppendLowercase(out, c);
  EXPECT_EQ(out, u8"\u03B1\u03C3");
}

// unicodedata.normalize(form, s) for NFC, NFD, NFKC, NFKD (Python 3.11.7).
struct FormCase {
  const char* in;
  const char* nfc;
  const char* nfd;
  const char* nfkc;
  const char* nfkd;
};
const FormCase kForms[] = {
    {u8"\u00E9", u8"\u00E9", u8"e\u0301", u8"\u00E9", u8"e\u0301"},
    {u8"e\u0301", u8"\u00E9", u8"e\u0301", u8"\u00E9", u8"e\u0301"},
    {u8"\uFB01", u8"\uFB01", u8"\uFB01", u8"fi", u8"fi"},
    {u8"\u212B", u8"\u00C5", u8"A\u030A", u8"\u00C5", u8"A\u030A"},
    {u8"\u2460", u8"\u2460", u8"\u2460", u8"1", u8"1"},
    {u8"\uAC00", u8"\uAC00", u8"\u1100\u1161", u8"\uAC00", u8"\u1100\u1161"},
    {u8"\u1100\u1161\u11A8", u8"\uAC01", u8"\u1100\u1161\u11A8", u8"\uAC01",
     u8"\u1100\u1161\u11A8"},
    {u8"\u1E9B\u0323", u8"\u1E9B\u0323", u8"\u017F\u0323\u0307", u8"\u1E69", u8"s\u0323\u0307"},
    {u8"\u2126", u8"\u03A9", u8"\u03A9", u8"\u03A9", u8"\u03A9"},
    {u8"x\u00B2", u8"x\u00B2", u8"x\u00B2", u8"x2", u8"x2"},
    {u8"Caf\u00E9 \u00C5ngstr\u00F6m", u8"Caf\u00E9 \u00C5ngstr\u00F6m",
     u8"Cafe\u0301 A\u030Angstro\u0308m", u8"Caf\u00E9 \u00C5ngstr\u00F6m",
     u8"Cafe\u0301 A\u030Angstro\u0308m"},
    {"plain ascii", "plain ascii", "plain ascii", "plain ascii", "plain ascii"},
    {"", "", "", "", ""},
};

TEST(UnicodeTest, NormalizationFormsMatchPythonUnicodedata) {
  for (const FormCase& k : kForms) {
    SCOPED_TRACE(k.in);
    EXPECT_EQ(Normalize(k.in, Form::kNfc), k.nfc);
    EXPECT_EQ(Normalize(k.in, Form::kNfd), k.nfd);
    EXPECT_EQ(Normalize(k.in, Form::kNfkc), k.nfkc);
    EXPECT_EQ(Normalize(k.in, Form::kNfkd), k.nfkd);
  }
}

}  // namespace
}  // namespace phasor::tokenizers::unicode
