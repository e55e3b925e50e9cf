// What a model's head gives for each sequence, from its first token's final
// row or the mean of its rows as the model says (ModelConfig::head_pooling;
// README "Hugging Face checkpoints"): BERT's pooler output, or the logits of
// a *ForSequenceClassification checkpoint's classification head.
#pragma once

namespace phasor {

enum class HeadOutput {
  kNone,    // no head: the encoder's rows (or their pooling)
  kPooler,  // [batch, d_model]: BERT's pooler (dense + tanh on the first token)
  kLogits,  // [batch, num_labels]: the classification head
};

}  // namespace phasor
