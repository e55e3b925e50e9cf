// The stages that end in a model's head (EncoderStage kPooler, kLogits) in
// terms of its products (ModelConfig::head), and the width of what a stage
// writes for each sequence.
#pragma once

#include <cstdint>
#include <string>

#include "models/config.h"
#include "models/encoder.h"
#include "models/head_output.h"

namespace phasor {

// kPooler and kLogits for HeadOutput kPooler and kLogits, else `otherwise`.
EncoderStage StageOf(HeadOutput head, EncoderStage otherwise);

// How many of config.head's products stage runs: 0 for kEmbeddings and
// kFinal. Throws Error prefixed with source (the model's file) naming the
// stage and the tensor the model lacks for it: "stage 'logits' needs a
// classification head, and the model has none (no tensor 'classifier.weight',
// ...)".
int64_t HeadProducts(const ModelConfig& config, EncoderStage stage, const std::string& source);

// The values a sequence's output row holds at stage, after pooling (pooled)
// and, with sentence_dense, the folder's Dense modules: d_model, the pooler's
// or the classifier's width, or the last Dense module's out_features.
int64_t OutputWidth(const ModelConfig& config, EncoderStage stage, bool sentence_dense);

}  // namespace phasor
