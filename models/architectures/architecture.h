// Checkpoints of other libraries, read as they are: one file per architecture
// translates a folder's config.json keys and tensor names into phasor's model
// (models/config.h, the tensor names of README "Model directory"), so that the
// layers never ask which architecture they run. The registry lists them by
// config.json's "model_type"; a config.json without it is phasor's own format.
//
// Adding an architecture: its file (a Translate function), its line in
// registry.cc, its golden case in tests/data/make_hf_golden.py.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model_folder.h"
#include "engine/weights.h"
#include "models/config.h"

namespace phasor {

class CheckpointConfig;

// A checkpoint in phasor's terms.
struct TranslatedModel {
  ModelConfig config;
  Weights weights;  // phasor's names; what phasor does not use keeps its own
  // What the architecture file found worth a warning, one line each (as
  // Encoder::LoadWarnings).
  std::vector<std::string> warnings = {};
};

struct Architecture {
  const char* name;                      // "bert"
  std::vector<std::string> model_types;  // the model_type values it reads
  // folder: the model folder; config_text: its config.json. Throws Error
  // naming the file, key and value, or the tensor, for what it cannot read.
  TranslatedModel (*translate)(const ModelFolder& folder, const std::string& config_text);
};

// Every architecture, in the order README lists them.
const std::vector<Architecture>& Architectures();

// The model_type of config_text ("" if it has none: phasor's own format).
// Throws Error naming source for invalid JSON or a model_type that is not a
// string.
std::string ModelTypeOf(const std::string& config_text, const std::string& source);

// The architecture that reads model_type; Error listing the supported ones if
// none does.
const Architecture& FindArchitecture(const std::string& model_type, const std::string& source);

// The prefix of the checkpoint's names before tail: "" (BertModel) or the one
// of its *For* checkpoints ("bert.", "roberta.", ...). Error if no name or two
// end in tail.
std::string FindPrefix(const Weights& w, const std::string& tail);

// Renames from to to, checking its shape against expected in the checkpoint's
// name: "model.safetensors: tensor 'bert.x': got [3], expected [4]".
void MoveTensor(Weights& w, const std::string& from, const std::string& to, const Shape& expected);

// The named tensors (each of shape each) stacked along their first dimension,
// taken out of w: q, k and v into in_proj. bfloat16 stays bfloat16 when all are.
Tensor StackTensors(Weights& w, const std::vector<std::string>& names, const Shape& each);
// The same for tensors of their own rows (shapes[i], the same columns): GQA's
// q [n_heads·d_head, d] and k, v [kv_heads·d_head, d].
Tensor StackRows(Weights& w, const std::vector<std::string>& names,
                 const std::vector<Shape>& shapes);

// The two halves of a tensor's rows swapped in place (a fused gate whose
// activated half comes first: ModernBERT's Wi, into phasor's up | gate).
void SwapRowHalves(Tensor& t);

// The prefix before "embed_tokens.weight": "" (*Model) or "model."
// (*ForCausalLM, *ForMaskedLM, ...); what sits outside it (lm_head, a masked
// LM's head) is dropped by the caller.
std::string DecoderPrefix(const Weights& w);

// The Llama family's layer (Qwen3, Gemma 3): input_layernorm, q/k/v/o_proj,
// q_norm, k_norm (with c.parts.qk_norm), the MLP's gate/up/down_proj (SwiGLU
// or GeGLU), and its norms: post_attention_layernorm before the MLP
// (Qwen3), or with c.parts.sandwich after attention, with
// pre_/post_feedforward_layernorm around the MLP (Gemma 3). Biases on q, k,
// v as c.bias.in_proj says, on o as c.bias.out_proj, on up/gate and down
// (Llama's mlp_bias) as c.bias.linear1 and linear2.
void TranslateDecoderLayer(Weights& w, const std::string& pre, int64_t i, const ModelConfig& c);

// BERT's embeddings under e (its "embeddings." after the checkpoint's prefix):
// word_embeddings, position_embeddings when the positions are a learned table,
// token_type_embeddings when the config has token types; and the norm of their
// sum under norm (e + "LayerNorm." in BERT's layout), weight and bias.
void MoveBertEmbeddings(Weights& w, const std::string& e, const std::string& norm,
                        const ModelConfig& c);

// The sizes Hugging Face configs name alike, in phasor's ranges
// (models/config_limits.h): vocab_size, hidden_size, num_attention_heads,
// num_hidden_layers, intermediate_size. max_heads bounds the heads: heads of a
// width of their own (head_dim) may outnumber hidden_size / heads; 0:
// hidden_size.
void ReadSizes(const CheckpointConfig& cfg, ModelConfig& c, int64_t max_heads = 0);

// What every rotary checkpoint sets the same way: positions kind rope at
// base, layout half (rotate_half), max_positions from max_position_embeddings
// (fallback when absent), the cached rows at most 8,192 of them (past them,
// rows are made as needed); and pad_token_id when the config has one.
void RotaryPositions(const CheckpointConfig& cfg, double base, int64_t fallback_positions,
                     ModelConfig& c);

// The layers a config names local: layer_types' "sliding_attention" entries
// (Error for a count other than n_layers, or a type other than it and
// "full_attention"), else those for which local_by_default(i) says so.
std::vector<int64_t> SlidingLayers(const CheckpointConfig& cfg, int64_t n_layers,
                                   bool (*local_by_default)(const CheckpointConfig&, int64_t));

// num_key_value_heads (default num_attention_heads): Error unless it divides
// n_heads.
int64_t KvHeads(const CheckpointConfig& cfg, int64_t n_heads);

// A rotary base: transformers 5's rope_parameters (per layer type when
// layer_type is given: "full_attention", "sliding_attention"), else the
// legacy key; fallback when neither. Error for a rope_type other than
// "default" there.
double RopeTheta(const CheckpointConfig& cfg, const std::string& legacy_key,
                 const std::string& layer_type, double fallback);

// What Llama, Mistral and Qwen2 share (their modeling files' LlamaModel
// shape): hidden_size, num_attention_heads, num_hidden_layers,
// intermediate_size, vocab_size; grouped-query heads (num_key_value_heads) of
// head_dim (default hidden_size / heads); pre-norm RMSNorm (rms_norm_eps),
// SwiGLU (hidden_act "silu"), causal, the final norm, no bias; the rotation
// (ReadDecoderRope, rope_theta default 10000, halves), max_position_embeddings
// (default max_positions), pad_token_id.
ModelConfig DecoderConfig(const CheckpointConfig& cfg, int64_t max_positions);

// The checkpoint of a config made by DecoderConfig from cfg (and its biases):
// the token table, the layers (TranslateDecoderLayer), the final norm; a
// causal LM's lm_head dropped. A warning if cfg has auto_map (the folder's
// own modeling code, not run).
TranslatedModel TranslateDecoder(const ModelFolder& folder, const CheckpointConfig& cfg,
                                 ModelConfig config);

// The rotation of a Llama-family decoder (Llama, Mistral, Qwen2): its base
// (rope_theta, default fallback) and scaling (rope_scaling, "type" or
// "rope_type"), or transformers 5's rope_parameters holding both. Scalings
// read: "default", "linear" (factor), "llama3" (factor, low_freq_factor,
// high_freq_factor, original_max_position_embeddings); others refused by name.
void ReadDecoderRope(const CheckpointConfig& cfg, double fallback, PositionalConfig& pos);

// The activation a checkpoint's config names (transformers' ACT2FN keys):
// "gelu" the erf form; "gelu_new", "gelu_pytorch_tanh" the tanh form; "silu",
// "swish"; "relu". Other names are refused by each reader's Expect first.
Activation CheckpointActivation(const std::string& name);

// What a checkpoint calls the parts of one encoder layer, after the layer's
// own prefix ("encoder.layer.3."); each is completed with "weight" and "bias".
struct LayerNames {
  const char* q;  // "attention.self.query."
  const char* k;
  const char* v;
  const char* out;    // attention's output projection: self_attn.out_proj
  const char* norm1;  // the norm of attention's sublayer (after it post-LN, before it pre-LN)
  const char* ff1;    // the feed-forward's products: linear1 [d_ff, d], linear2 [d, d_ff]
  const char* ff2;
  const char* norm2;  // the norm of the feed-forward's sublayer
};

// Renames one layer's tensors from from + names into phasor's "layers.{i}."
// (q, k and v stacked into in_proj), each shape checked in the checkpoint's
// own name.
void TranslateLayer(Weights& w, const std::string& from, int64_t i, const LayerNames& names,
                    int64_t d_model, int64_t d_ff);

// Appends one product to m's head (ModelConfig::head): the checkpoint's
// from + "weight" [out, in] and from + "bias" [out] (product.bias only),
// renamed to phasor's head.{i}.weight / .bias, their shapes checked in the
// checkpoint's names; in is d_model for the first product, the previous one's
// out after. The first form: a product with a bias.
void AddHeadProduct(TranslatedModel& m, const std::string& from, int64_t out,
                    HeadActivation activation);
void AddHeadProduct(TranslatedModel& m, const std::string& from, const DenseProduct& product);

// A LayerNorm after the head's last product (ModernBERT's head.norm): the
// checkpoint's from + "weight" [out] and, with norm.bias, from + "bias" into
// head.{i}.norm.*, shapes checked in the checkpoint's names.
void AddHeadNorm(TranslatedModel& m, const std::string& from, const HeadNorm& norm);

// RobertaClassificationHead and its copies (MPNetClassificationHead): from +
// "dense." (d_model → d_model, tanh) on the first token's final row, then
// from + "out_proj." (→ NumLabels(cfg)); a pooler's pooler + "weight" /
// "bias", which it does not read, dropped.
void AddRobertaClassificationHead(TranslatedModel& m, const CheckpointConfig& cfg,
                                  const std::string& from, const std::string& pooler);

// Whether the checkpoint's classification head is to be read: cfg's
// "architectures" name a *ForSequenceClassification (its head then
// required: a missing tensor is an error naming it), or name nothing and the
// folder holds tensor.
bool HasSequenceClassifier(const CheckpointConfig& cfg, const Weights& w,
                           const std::string& tensor);

// Whether a checkpoint is a *ForSequenceClassification one: its
// "architectures" name one, or it names none (other task heads, e.g.
// *ForTokenClassification, *ForMultipleChoice, also call their product
// "classifier": their tensors are left unused).
bool IsSequenceClassifier(const CheckpointConfig& cfg);

// The labels of a *ForSequenceClassification config: the size of id2label,
// else num_labels, else 2 (transformers' default).
int64_t NumLabels(const CheckpointConfig& cfg);

// A translation model's encoder (Marian, M2M100): its token table,
// pre + "encoder.embed_tokens.weight" or the "shared.weight" it shares with
// the decoder, into embedding.weight ([vocab, d_model] checked); then, in
// DropDecoder, what phasor does not run taken out without a warning: the
// decoder, the shared table, the LM head and its bias, and every tensor
// under pre + a prefix of also.
void MoveEncoderTokenTable(Weights& w, const std::string& pre, const Shape& expected);
void DropDecoder(Weights& w, const std::string& pre, const std::vector<std::string>& also = {});

// Reads the folder's weights (ModelFolder::weights): its model.safetensors,
// or the shards its index maps every tensor to, each tensor (and each index
// buffer a shard leaves out, such as position_ids) checked to be where the map
// says. Throws Error naming the file and tensor.
Weights LoadCheckpointWeights(const ModelFolder& folder);

}  // namespace phasor
