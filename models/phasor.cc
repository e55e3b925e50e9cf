#include "models/phasor.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/config.h"
#include "models/encoder.h"

namespace phasor {

const char* Version() { return PHASOR_VERSION_STRING; }

// The activations of the last (largest) batch, for one caller at a time.
struct EncoderWorkspaceCache {
  std::mutex mutex;
  EncoderWorkspace ws;
};

namespace {

void CheckBuffer(const void* p, const char* name) {
  if (p == nullptr) throw UsageError(std::string(name) + " is null");
}

}  // namespace

Model::Model(std::unique_ptr<const Encoder> encoder)
    : encoder_(std::move(encoder)), cache_(std::make_unique<EncoderWorkspaceCache>()) {
  ActiveIsa();  // a bad PHASOR_ISA throws here rather than inside a kernel's threads
}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::Load(const std::string& dir, std::optional<PeMode> pe_mode) {
  return Model(Encoder::Load(dir, pe_mode));
}

int64_t Model::vocab_size() const { return encoder_->config().vocab_size; }
int64_t Model::d_model() const { return encoder_->config().d_model; }
std::optional<int32_t> Model::pad_token_id() const { return encoder_->config().pad_token_id; }
int64_t Model::position_offset() const { return encoder_->config().positional.offset; }
std::string Model::config_json() const { return ConfigToJson(encoder_->config()); }

void Model::Encode(const int32_t* ids, int64_t batch, int64_t seq, float* out,
                   const EncodeOptions& options) const {
  if (batch < 0 || seq < 0) {
    throw UsageError("Encode: negative batch or sequence length (" + std::to_string(batch) + " x " +
                     std::to_string(seq) + ")");
  }
  if (batch == 0 || seq == 0) return;
  CheckBuffer(ids, "Encode: ids");
  CheckBuffer(out, "Encode: out");
  encoder_->CheckInput(ids, batch, seq);  // before any allocation for this batch
  const int64_t tokens = batch * seq;
  const EncoderStage stage =
      options.embeddings_only ? EncoderStage::kEmbeddings : EncoderStage::kFinal;
  std::unique_lock<std::mutex> lock(cache_->mutex, std::try_to_lock);
  if (!lock.owns_lock()) {  // another thread holds the cached activations
    EncoderWorkspace ws = encoder_->MakeWorkspace(tokens);
    encoder_->Forward(ids, batch, seq, options.lengths, stage, out, ws);
    return;
  }
  if (cache_->ws.max_tokens < tokens) {
    cache_->ws = EncoderWorkspace();  // free the old one before allocating
    cache_->ws = encoder_->MakeWorkspace(tokens);
  }
  encoder_->Forward(ids, batch, seq, options.lengths, stage, out, cache_->ws);
}

PositionalEncoding::PositionalEncoding(const PeOptions& options)
    : options_(options),
      pe_(std::make_unique<const SinusoidalEncoding>(
          SinusoidalOptions{options.d_model, options.base, options.layout, options.denominator,
                            options.max_len, options.mode})) {
  ActiveIsa();  // a bad PHASOR_ISA throws here rather than inside a kernel's threads
}
PositionalEncoding::PositionalEncoding(PositionalEncoding&&) noexcept = default;
PositionalEncoding& PositionalEncoding::operator=(PositionalEncoding&&) noexcept = default;
PositionalEncoding::~PositionalEncoding() = default;

void PositionalEncoding::Fill(int64_t first_pos, int64_t n, float* out) const {
  if (n < 0) throw UsageError("PositionalEncoding: negative row count " + std::to_string(n));
  if (n == 0) return;
  CheckBuffer(out, "PositionalEncoding::Fill: out");
  pe_->Fill(first_pos, n, out);  // checks the range before any thread starts
}

void PositionalEncoding::Add(int64_t first_pos, int64_t n, float* x) const {
  if (n < 0) throw UsageError("PositionalEncoding: negative row count " + std::to_string(n));
  if (n == 0) return;
  CheckBuffer(x, "PositionalEncoding::Add: x");
  pe_->CheckRange(first_pos, n);  // throw here, not inside a parallel region
  const int64_t d = pe_->d_model();
  constexpr int64_t kRows = SinusoidalEncoding::kBlock * 8;  // rows per piece
  ParallelFor((n + kRows - 1) / kRows, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> rows(static_cast<size_t>(kRows * d));  // [kRows, d_model]
    for (int64_t piece = begin; piece < end; ++piece) {
      const int64_t j0 = piece * kRows;
      const int64_t m = std::min(kRows, n - j0);
      pe_->FillSerial(first_pos + j0, m, nullptr, rows.data());
      float* y = x + j0 * d;
      for (int64_t k = 0; k < m * d; ++k) y[k] += rows[static_cast<size_t>(k)];
    }
  });
}

RotaryEncoding::RotaryEncoding(const RopeOptions& options)
    : rope_(std::make_unique<const Rope>(options)) {}
RotaryEncoding::RotaryEncoding(RotaryEncoding&&) noexcept = default;
RotaryEncoding& RotaryEncoding::operator=(RotaryEncoding&&) noexcept = default;
RotaryEncoding::~RotaryEncoding() = default;

const RopeOptions& RotaryEncoding::options() const { return rope_->options(); }

void RotaryEncoding::Apply(float* qkv, int64_t batch, int64_t seq, int64_t d_model,
                           int64_t n_heads) const {
  if (batch < 0 || seq < 0) throw UsageError("RotaryEncoding::Apply: negative batch or seq");
  if (batch * seq == 0) return;
  CheckBuffer(qkv, "RotaryEncoding::Apply: qkv");
  if (n_heads <= 0 || d_model % n_heads != 0 || d_model / n_heads != rope_->options().d_head) {
    throw UsageError("RotaryEncoding::Apply: d_model " + std::to_string(d_model) + " / n_heads " +
                     std::to_string(n_heads) + " is not the options' d_head " +
                     std::to_string(rope_->options().d_head));
  }
  rope_->Apply(qkv, batch, seq, d_model, n_heads);
}

}  // namespace phasor
