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
  json.replace(json.find("\"llama\""), 7, "\"falcon\"");
  EXPECT_NE(errorOf(json).find("cfg.json:1:2: error: field 'model_type' is "
                               "'falcon'; supported: llama, deepseek_v2, "),
            std::string::npos)
      << errorOf(json);
  // Malformed JSON is located the LLVM way, file:line:col.
  EXPECT_NE(errorOf("{\"model_type\": 1,\n  ,}")
                .find("cfg.json:2:3: error: not JSON: "),
            std::string::npos)
      << errorOf("{\"model_type\": 1,\n  ,}");
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
  // An optional count has its range too (reliability defect 27).
  json = kLlama;
  json.replace(json.find("\"num_key_value_heads\": 2"), 24,
               "\"num_key_value_heads\": -1");
  EXPECT_NE(errorOf(json).find("field 'num_key_value_heads' is -1; snapflow "
                               "accepts 1 to 16384"),
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

// Cross-layer attention: cla_share_factor groups the layers (honoured unless
// use_cla is false); groups of 2 over 5 layers are (0, 1), (2, 3), (4): 3
// cache layers, layers 0, 2 and 4 produce K/V, and an MTP layer (index >= 5)
// caches after the groups. The fingerprint changes with the factor and is
// the old one without it (sweeps keep matching their manifests).
TEST(ModelConfig, CrossLayerAttention) {
  std::string five = std::string(kLlama);
  five.replace(five.find("\"num_hidden_layers\": 2"), 22,
               "\"num_hidden_layers\": 5");
  auto plain = ModelConfig::parse(five, "cfg.json");
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_EQ(plain->claShareFactor, 1);
  EXPECT_EQ(plain->cacheLayers(), 5);
  std::string withCla =
      five.substr(0, five.size() - 1) + ", \"cla_share_factor\": 2}";
  auto cla = ModelConfig::parse(withCla, "cfg.json");
  ASSERT_TRUE(static_cast<bool>(cla)) << llvm::toString(cla.takeError());
  EXPECT_EQ(cla->claShareFactor, 2);
  EXPECT_EQ(cla->cacheLayers(), 3);
  EXPECT_TRUE(cla->producesKV(0));
  EXPECT_FALSE(cla->producesKV(1));
  EXPECT_TRUE(cla->producesKV(4));
  EXPECT_EQ(cla->cacheLayer(3), 1);
  EXPECT_EQ(cla->cacheLayer(4), 2);
  EXPECT_TRUE(cla->producesKV(5));
  EXPECT_EQ(cla->cacheLayer(5), 3);
  EXPECT_NE(cla->fingerprint(), plain->fingerprint());
  auto off = ModelConfig::parse(withCla.substr(0, withCla.size() - 1) +
                                    ", \"use_cla\": false}",
                                "cfg.json");
  ASSERT_TRUE(static_cast<bool>(off));
  EXPECT_EQ(off->claShareFactor, 1);
  EXPECT_EQ(off->fingerprint(), plain->fingerprint());
  llvm::Error e = plain->setClaShareFactor(6, "--cla");
  EXPECT_EQ(llvm::toString(std::move(e)),
            "--cla 6: the CLA sharing factor must be in [1, 5] "
            "(num_hidden_layers of )");
  EXPECT_FALSE(static_cast<bool>(plain->setClaShareFactor(5, "--cla")));
  EXPECT_EQ(plain->cacheLayers(), 1);
}

// A head's rotary channels come in pairs: an odd head_dim, given or derived
// from hidden_size / num_attention_heads, is the config's error at the
// field, not llm.rope's verifier's (issue 32, R17).
TEST(ModelConfig, OddHeadWidthIsRefused) {
  std::string json = kLlama;
  json.insert(json.rfind('}'), ", \"head_dim\": 3");
  EXPECT_NE(errorOf(json).find("error: a head is 3 channels; rotary position "
                               "embeddings rotate pairs of channels, so it "
                               "must be even"),
            std::string::npos)
      << errorOf(json);
  json = kLlama;
  json.replace(json.find("\"hidden_size\": 64"), 17, "\"hidden_size\": 60");
  EXPECT_NE(errorOf(json).find("a head is 15 channels (hidden_size 60 / "
                               "num_attention_heads 4)"),
            std::string::npos)
      << errorOf(json);
}

// A key that changes the architecture and that the llama graph does not
// build is refused, naming it, instead of left out (issue 34: a Mixtral
// config renamed llama was built without its experts, 7.24 B parameters
// of 46.7 B). Its "off" values (false, null, 0) are accepted.
TEST(ModelConfig, LlamaRefusesArchitectureKeysItDoesNotBuild) {
  std::string json = kLlama;
  json.insert(json.rfind('}'), ",\n  \"num_local_experts\": 8");
  EXPECT_EQ(errorOf(json),
            "cfg.json:4:3: error: field 'num_local_experts' is 8: experts (a "
            "Mixtral config is model_type mixtral), which snapflow's llama "
            "graph does not build; refused rather than left out");
  json = kLlama;
  json.insert(json.rfind('}'), ", \"mlp_bias\": true");
  EXPECT_NE(errorOf(json).find("field 'mlp_bias' is true: biases on "
                               "the MLP projections"),
            std::string::npos)
      << errorOf(json);
  // LlamaAttention's attention_bias (q, k, v and o) is built.
  json = kLlama;
  json.insert(json.rfind('}'), ", \"attention_bias\": true");
  EXPECT_EQ(errorOf(json), "");
  json = kLlama;
  json.insert(json.rfind('}'), ", \"attention_bias\": false, "
                               "\"mlp_bias\": false, \"sliding_window\": "
                               "null, \"num_local_experts\": 0");
  EXPECT_EQ(errorOf(json), "");
}

namespace {
/// A small config of model_type `type` with `extra` keys appended.
std::string withType(const std::string &type, const std::string &extra = "") {
  std::string json = kLlama;
  json.replace(json.find("\"llama\""), 7, "\"" + type + "\"");
  if (!extra.empty())
    json.insert(json.rfind('}'), ", " + extra);
  return json;
}
} // namespace

// Every family refuses another family's architecture keys, naming the key
// and itself: a qwen2 config carrying experts is not built without them.
TEST(ModelConfig, EveryFamilyRefusesForeignKeys) {
  EXPECT_NE(errorOf(withType("qwen2", "\"num_local_experts\": 8"))
                .find("field 'num_local_experts' is 8: experts (a Mixtral "
                      "config is model_type mixtral), which snapflow's qwen2 "
                      "graph does not build"),
            std::string::npos);
  EXPECT_NE(errorOf(withType("mistral", "\"use_qk_norm\": true"))
                .find("field 'use_qk_norm' is true: norms on queries and "
                      "keys, which snapflow's mistral graph does not build"),
            std::string::npos);
  EXPECT_NE(errorOf(withType("phi3", "\"attn_logit_softcapping\": 50.0"))
                .find("which snapflow's phi3 graph does not build"),
            std::string::npos);
}

// Gemma 3 and Llama 4 nest their decoder in text_config: a missing field
// is named and located there (it was "missing field 'hidden_size'" at the
// line holding text_config's).
TEST(ModelConfig, NestedTextConfigIsReadAndLocated) {
  std::string json = R"({"model_type": "gemma3", "text_config": {
  "num_hidden_layers": 12, "num_attention_heads": 4,
  "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128}})";
  EXPECT_EQ(errorOf(json),
            "cfg.json: error: missing field 'text_config.hidden_size' "
            "(integer)");
  json.insert(json.find("\"num_hidden_layers\""), "\"hidden_size\": 64, ");
  auto c = ModelConfig::parse(json, "cfg.json");
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  // Gemma3TextConfig's defaults: vocab 262208, tied, 5 local : 1 global.
  EXPECT_EQ(c->vocabSize, 262208);
  EXPECT_TRUE(c->tieWordEmbeddings);
  EXPECT_EQ(c->windowedLayers(), 10);
  EXPECT_FALSE(c->isWindowed(5));
  EXPECT_TRUE(c->isWindowed(6));
  EXPECT_EQ(c->qkNorm, QKNorm::BeforeRope);
  // Without text_config, gemma3 says what it needs.
  EXPECT_EQ(errorOf(R"({"model_type": "gemma3"})"),
            "cfg.json: error: missing field 'text_config' (object)");
}

// layer_types must list every layer, with known types.
TEST(ModelConfig, LayerTypesAreChecked) {
  EXPECT_NE(
      errorOf(withType("gpt_oss", "\"num_local_experts\": 4, "
                                  "\"num_experts_per_tok\": 2, "
                                  "\"layer_types\": [\"full_attention\"]"))
          .find("field 'layer_types' lists 1 layers; num_hidden_layers "
                "is 2"),
      std::string::npos);
  EXPECT_NE(errorOf(withType("gpt_oss", "\"num_local_experts\": 4, "
                                        "\"num_experts_per_tok\": 2, "
                                        "\"layer_types\": [\"full_attention\", "
                                        "\"linear_attention\"]"))
                .find("holds 'linear_attention'; snapflow builds "
                      "full_attention, sliding_attention and "
                      "chunked_attention"),
            std::string::npos);
}
