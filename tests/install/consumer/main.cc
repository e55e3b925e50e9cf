// Encode "3 14 15" with a model directory (phasor make-toy --out toy).
#include <cstdio>
#include <vector>

#include "phasor/models/phasor.h"

int main(int argc, char** argv) {
  try {
    const phasor::Model model = phasor::Model::Load(argc > 1 ? argv[1] : "toy");
    const std::vector<int32_t> ids = {3, 14, 15};  // [batch 1, seq 3]
    const int64_t d = model.d_model();
    std::vector<float> out(ids.size() * d);  // [1, 3, d_model]
    model.Encode(ids.data(), 1, 3, out.data());
    std::printf("phasor %s: out [1, 3, %d]\n", phasor::Version(), static_cast<int>(d));
    for (int j = 0; j < 3; ++j) {
      const float* x = &out[j * d];
      std::printf("token %d: %9.5f %9.5f %9.5f %9.5f ...\n", j, x[0], x[1], x[2], x[3]);
    }
  } catch (const phasor::Error& e) {  // e.what(): the message the CLI prints
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
