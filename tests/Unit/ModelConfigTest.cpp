//===- ModelConfigTest.cpp - Hugging Face config.json reader --------------===//

#include "snapflow/Models/ModelConfig.h"

#include "gtest/gtest.h"

using namespace snapflow::models;

namespace {
std::string errorOf(const std::string &json) {
  auto c = ModelConfig::parse(json, "cfg.json");
  return c ? "" : llvm::toString(c.takeError());
}
const char *kLlama = R"({"model_type": "llama", "hidden_size": 64,
  "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
  "num_key_value_heads": 2, "vocab_size": 100, "max_position_embeddings": 256})";
} // namespace

// Every built-in config parses with the architecture its model_type names.
TEST(ModelConfig, Builtins) {
  for (const std::string &name : ModelConfig::builtinNames()) {
    auto c = ModelConfig::load(name);
    ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  }
  auto r1 = ModelConfig::load("deepseek-r1");
  ASSERT_TRUE(static_cast<bool>(r1));
  EXPECT_EQ(r1->arch, Architecture::DeepSeekV3);
  EXPECT_EQ(r1->weightDtype, WeightDtype::FP8);
  EXPECT_EQ(r1->numMtpLayers, 1);
  EXPECT_TRUE(r1->isMoELayer(3));
  EXPECT_FALSE(r1->isMoELayer(2));
  auto lite = ModelConfig::load("deepseek-v2-lite");
  ASSERT_TRUE(static_cast<bool>(lite));
  EXPECT_EQ(lite->qLoraRank, 0); // q_lora_rank: null
  auto l1 = ModelConfig::load("llama-3.2-1b");
  ASSERT_TRUE(static_cast<bool>(l1));
  EXPECT_TRUE(l1->tieWordEmbeddings);
  EXPECT_EQ(l1->headDim, 64);
}

// A minimal llama config parses; head_dim defaults to hidden / heads.
TEST(ModelConfig, MinimalLlama) {
  auto c = ModelConfig::parse(kLlama, "cfg.json");
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->headDim, 16);
  EXPECT_EQ(c->weightDtype, WeightDtype::BF16);
}

// A missing field names the file and the field.
TEST(ModelConfig, MissingField) {
  std::string json = kLlama;
  json.replace(json.find("\"hidden_size\": 64,"), 18, "");
  EXPECT_EQ(errorOf(json),
            "cfg.json: error: missing field 'hidden_size' (integer)");
}

// Wrong types, impossible values and unknown model types are refused.
TEST(ModelConfig, WrongFields) {
  std::string json = kLlama;
  json.replace(json.find("\"num_hidden_layers\": 2"), 22,
               "\"num_hidden_layers\": \"2\"");
  EXPECT_NE(errorOf(json).find("field 'num_hidden_layers' must be an integer"),
            std::string::npos);
  json = kLlama;
  json.replace(json.find("\"num_key_value_heads\": 2"), 24,
               "\"num_key_value_heads\": 3");
  EXPECT_NE(errorOf(json).find("is not a multiple of 'num_key_value_heads'"),
            std::string::npos);
  json = kLlama;
  json.replace(json.find("\"llama\""), 7, "\"mistral\"");
  EXPECT_NE(errorOf(json).find("field 'model_type' is 'mistral'"),
            std::string::npos);
  EXPECT_NE(errorOf("{\"model_type\": ").find("cfg.json: error: malformed JSON"),
            std::string::npos);
}

// Counts outside their documented range are refused at the field, with its
// line and column, before any product of them can wrap (issue 8, defect 5).
TEST(ModelConfig, LimitsAreLocated) {
  std::string json = kLlama;
  json.replace(json.find("\"vocab_size\": 100"), 17,
               "\"vocab_size\": 1000000000000000");
  std::string error = errorOf(json);
  EXPECT_NE(error.find("cfg.json:"), std::string::npos) << error;
  EXPECT_NE(error.find(": error: field 'vocab_size' is 1000000000000000; "
                       "snapflow accepts 1 to 16777216"),
            std::string::npos)
      << error;
  json = kLlama;
  json.replace(json.find("\"num_hidden_layers\": 2"), 22,
               "\"num_hidden_layers\": 0");
  EXPECT_NE(errorOf(json).find("field 'num_hidden_layers' is 0; snapflow "
                               "accepts 1 to 4096"),
            std::string::npos);
  json = kLlama;
  json.insert(json.rfind('}'), ", \"rms_norm_eps\": -1");
  EXPECT_NE(errorOf(json).find("field 'rms_norm_eps' must be a finite number "
                               "> 0, got -1"),
            std::string::npos)
      << errorOf(json);
}

// An unknown model name lists the built-ins; a missing path is named.
TEST(ModelConfig, UnknownModel) {
  auto c = ModelConfig::load("gpt-5");
  ASSERT_FALSE(static_cast<bool>(c));
  EXPECT_NE(llvm::toString(c.takeError()).find("llama-3.1-8b"),
            std::string::npos);
  auto p = ModelConfig::load("/nonexistent/config.json");
  ASSERT_FALSE(static_cast<bool>(p));
  EXPECT_NE(llvm::toString(p.takeError()).find("/nonexistent/config.json"),
            std::string::npos);
}
