#include "serving/routes/routes.h"

namespace phasor::serving {

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = {
      {"POST", "/v1/embeddings", true, OpenAiEmbeddings},
      {"POST", "/embed", true, Embed},
      {"POST", "/rerank", true, Rerank},
      {"POST", "/predict", true, Predict},
      {"POST", "/tokenize", true, Tokenize},
      {"GET", "/health", false, Health},
      {"GET", "/info", false, Info},
      {"GET", "/metrics", false, MetricsPage},
  };
  return routes;
}

}  // namespace phasor::serving
