// The pictures of `phasor pe`: the table as a heatmap and the similarity of two
// positions' encodings against their distance, each reported on stderr as the
// file it wrote (ReportWrote).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commands/pe_job.h"

namespace phasor::cli {

// One curve per first position p of c against the distance k, in a PNG at
// path under title. Curves that differ by less than a pixel (1/1000 of the
// peak) would hide one another: they are drawn as one, and the title says they
// coincide and by how much at most; otherwise each is drawn thin in a colour
// of its own. The caption says what the y values are and their scale. Throws
// Error if the file cannot be written.
void WriteSimilarity(const std::string& path, const std::string& title, const SimilarityCurves& c);

// table: [length, job.width()] of positions start.. as a heatmap in a PNG at
// path, positions down, dimensions across, the two halves of each pair apart
// where columns must be reduced. Throws Error if the file cannot be written.
void WriteHeatmap(const std::string& path, const PeJob& job, const std::vector<float>& table,
                  int64_t start, int64_t length);

}  // namespace phasor::cli
