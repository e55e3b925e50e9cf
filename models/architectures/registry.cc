// The architectures phasor reads, one line each (models/architectures/architecture.h).
#include "models/architectures/architecture.h"

namespace phasor {

TranslatedModel TranslateBert(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateDistilBert(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateMarian(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateM2M100(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateNomicBert(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateModernBert(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateQwen3(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateGemma3Text(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateQwen2(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateLlama(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateMistral(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateNewGte(const ModelFolder& folder, const std::string& config_text);
TranslatedModel TranslateMpnet(const ModelFolder& folder, const std::string& config_text);

const std::vector<Architecture>& Architectures() {
  static const std::vector<Architecture> list = {
      {"bert", {"bert"}, TranslateBert},
      {"roberta", {"roberta", "xlm-roberta", "camembert"}, TranslateBert},
      {"distilbert", {"distilbert"}, TranslateDistilBert},
      {"marian", {"marian"}, TranslateMarian},
      {"m2m_100", {"m2m_100"}, TranslateM2M100},
      {"nomic_bert", {"nomic_bert"}, TranslateNomicBert},
      {"modernbert", {"modernbert"}, TranslateModernBert},
      {"qwen3", {"qwen3"}, TranslateQwen3},
      {"qwen2", {"qwen2"}, TranslateQwen2},
      {"llama", {"llama"}, TranslateLlama},
      {"mistral", {"mistral"}, TranslateMistral},
      {"gemma3_text", {"gemma3_text"}, TranslateGemma3Text},
      {"new", {"new"}, TranslateNewGte},
      {"mpnet", {"mpnet"}, TranslateMpnet},
  };
  return list;
}

}  // namespace phasor
