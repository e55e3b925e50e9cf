#include "models/heads.h"

#include "engine/error.h"

namespace phasor {

EncoderStage StageOf(HeadOutput head, EncoderStage otherwise) {
  switch (head) {
    case HeadOutput::kNone:
      return otherwise;
    case HeadOutput::kPooler:
      return EncoderStage::kPooler;
    case HeadOutput::kLogits:
      return EncoderStage::kLogits;
  }
  return otherwise;
}

int64_t HeadProducts(const ModelConfig& c, EncoderStage stage, const std::string& source) {
  const auto products = static_cast<int64_t>(c.head.size());
  if (stage == EncoderStage::kPooler) {
    if (c.pooler_products == 0) {
      throw Error(source +
                  ": stage 'pooler' needs BERT's pooler, and the model has none (no tensor "
                  "'pooler.dense.weight')");
    }
    return c.pooler_products;
  }
  if (stage == EncoderStage::kLogits) {
    if (products <= c.pooler_products) {
      throw Error(source +
                  ": stage 'logits' needs a classification head, and the model has none (no "
                  "tensor 'classifier.weight' (BERT, ModernBERT), 'classifier.out_proj.weight' "
                  "(RoBERTa, MPNet) or 'pre_classifier.weight' (DistilBERT) of a "
                  "*ForSequenceClassification checkpoint)");
    }
    return products;
  }
  return 0;
}

int64_t OutputWidth(const ModelConfig& c, EncoderStage stage, bool sentence_dense) {
  if (stage == EncoderStage::kPooler && c.pooler_products > 0) {
    return c.head[static_cast<size_t>(c.pooler_products) - 1].out;
  }
  if (stage == EncoderStage::kLogits && !c.head.empty()) return c.head.back().out;
  if (sentence_dense && !c.sentence_dense.empty()) return c.sentence_dense.back().out;
  return c.d_model;
}

}  // namespace phasor
