// What a sentence-transformers folder declares after its Transformer module:
// the pooling of 1_Pooling/config.json, Dense modules (2_Dense) and a
// Normalize module, read from modules.json (`--pool model`, Python
// pool="model"): pooling, then each Dense, then Normalize.
#pragma once

#include <string>

#include "engine/model_folder.h"
#include "engine/weights.h"
#include "models/config.h"
#include "models/pooling.h"

namespace phasor {

// The pooling the folder's modules.json declares (ModelFolder::modules). Throws Error naming the
// file, and the key or module, for: no modules.json (not a sentence-transformers folder), invalid
// JSON, a module phasor does not apply, a pooling mode it lacks (weightedmean) or several modes at
// once (their concatenation), include_prompt false, modules out of the order Pooling, Dense,
// Normalize. spec.dense is set when Dense modules follow the pooling (the model applies them:
// ReadSentenceDense).
PoolSpec DeclaredPooling(const ModelFolder& folder);

// The Dense modules of dir's modules.json, if it has any, added to the model:
// each one's config.json (in_features, out_features, bias,
// activation_function: torch.nn.modules.activation.Tanh or ReLU,
// torch.nn.modules.linear.Identity) appended to config.sentence_dense, its
// model.safetensors' linear.weight [out, in] and linear.bias [out] put into
// weights as sentence_dense.{i}.weight / .bias (a zero bias when bias is
// false). No modules.json, or none listed: nothing. Throws Error naming the
// file and key, value or tensor: an unknown activation, in_features other
// than the width before it, a misshapen or missing tensor.
void ReadSentenceDense(const ModelFolder& folder, ModelConfig& config, Weights& weights);

}  // namespace phasor
