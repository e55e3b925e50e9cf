// Where the tests find the phasor program, the source tree, its test data and
// the tokenizer folders written at build time. One generated file of the
// build (test_paths.cc, tests/CMakeLists.txt) holds the paths, so that no
// test's compile line names the checkout: a fresh clone's build reuses the
// compiled tests from the compiler cache.
#pragma once

namespace phasor::testing {

extern const char* const kTestDataDir;          // tests/data of the source tree
extern const char* const kSourceDir;            // the source tree's root
extern const char* const kCliPath;              // the phasor program
extern const char* const kTokenizerFoldersDir;  // make_folders.py's folders

}  // namespace phasor::testing
