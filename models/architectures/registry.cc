// The architectures phasor reads, one line each (models/architectures/architecture.h).
#include "models/architectures/architecture.h"

namespace phasor {

TranslatedModel TranslateBert(const std::string& dir, const std::string& config_text);
TranslatedModel TranslateDistilBert(const std::string& dir, const std::string& config_text);

const std::vector<Architecture>& Architectures() {
  static const std::vector<Architecture> list = {
      {"bert", {"bert"}, TranslateBert},
      {"roberta", {"roberta", "xlm-roberta", "camembert"}, TranslateBert},
      {"distilbert", {"distilbert"}, TranslateDistilBert},
  };
  return list;
}

}  // namespace phasor
