// What a sentence-transformers folder declares after its Transformer module:
// the pooling of 1_Pooling/config.json and a 2_Normalize module, read from
// modules.json (`--pool model`, Python pool="model").
#pragma once

#include <string>

#include "models/pooling.h"

namespace phasor {

// The pooling dir's modules.json declares. Throws Error naming the file, and
// the key or module, for: no modules.json (not a sentence-transformers
// folder), invalid JSON, a module phasor does not apply yet (Dense), a pooling
// mode it lacks (weightedmean) or several modes at once (their concatenation),
// include_prompt false.
PoolSpec DeclaredPooling(const std::string& dir);

}  // namespace phasor
