// The one check every loader of a model folder makes before it opens a file
// (Encoder::Load, Tokenizer::Load, --pool model): phasor reads local folders
// only, and a Hub id given as a path deserves to be told so.
//
//   RequireModelFolder("sentence-transformers/all-MiniLM-L6-v2");
//   // Error: no such folder 'sentence-transformers/all-MiniLM-L6-v2'; phasor reads a local
//   // folder: download it first, e.g. with huggingface-cli download
//   // sentence-transformers/all-MiniLM-L6-v2 --local-dir DIR
#pragma once

#include <string>

namespace phasor {

// Throws Error unless dir is a folder: the message above when nothing is
// there, "DIR: is not a folder" for a file, "cannot open model folder DIR:
// <reason>" when it cannot be looked at (permissions). Opens nothing: a FIFO
// named like the folder would block.
void RequireModelFolder(const std::string& dir);

}  // namespace phasor
