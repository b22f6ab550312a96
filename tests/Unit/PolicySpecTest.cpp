//===- PolicySpecTest.cpp - KV policy strings -----------------------------===//

#include "snapflow/Dialect/KV/PolicySpec.h"

#include "gtest/gtest.h"

using namespace snapflow::kv;

namespace {
std::string errorOf(llvm::StringRef text, int64_t context = 131072) {
  auto spec = PolicySpec::parse(text);
  if (!spec)
    return llvm::toString(spec.takeError());
  auto r = resolve(*spec, context);
  if (!r)
    return llvm::toString(r.takeError());
  return "";
}
} // namespace

// The fully spelled SnapStream string sets every number.
TEST(PolicySpec, FullSnapStream) {
  auto spec = PolicySpec::parse(
      "snapstream:budget=32768,sinks=4,recent=4096,obs_window=32,kernel=7,"
      "pool=max");
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  auto r = resolve(*spec, 131072);
  ASSERT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r->slots, 32768);
  EXPECT_EQ(r->sinks, 4);
  EXPECT_EQ(r->recent, 4096);
  EXPECT_EQ(r->obsWindow, 32);
  EXPECT_EQ(r->kernel, 7);
  EXPECT_TRUE(r->maxPool);
}

// ratio=4 at 128K gives a 32768-token budget, with default sinks 4, ring
// min(4096, 32768 / 4) = 4096, window 32, kernel 7.
TEST(PolicySpec, RatioDefaults) {
  auto spec = PolicySpec::parse("snapstream:ratio=4");
  ASSERT_TRUE(static_cast<bool>(spec));
  auto r = resolve(*spec, 131072);
  ASSERT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r->slots, 32768);
  EXPECT_EQ(r->sinks, 4);
  EXPECT_EQ(r->recent, 4096);
  // At 8K context: budget 2048, ring min(4096, 512) = 512.
  auto small = resolve(*spec, 8192);
  ASSERT_TRUE(static_cast<bool>(small));
  EXPECT_EQ(small->slots, 2048);
  EXPECT_EQ(small->recent, 512);
}

// full keeps every token; streaming keeps sinks + window.
TEST(PolicySpec, FullAndStreaming) {
  auto full = resolve(*PolicySpec::parse("full"), 4096);
  ASSERT_TRUE(static_cast<bool>(full));
  EXPECT_EQ(full->slots, 4096);
  auto s = resolve(*PolicySpec::parse("streaming:sinks=4,window=2044"), 8192);
  ASSERT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s->slots, 2048);
}

// Bad strings name the bad key or value.
TEST(PolicySpec, Errors) {
  EXPECT_NE(errorOf("snapstream:budgett=5").find("unknown key 'budgett'"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=x").find("budget must be a non-negative"),
            std::string::npos);
  EXPECT_NE(errorOf("h2o").find("unknown KV policy 'h2o'"), std::string::npos);
  EXPECT_NE(errorOf("full:budget=4").find("unknown key 'budget' for full"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream").find("needs budget=N or ratio=R"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=8,ratio=4").find("not both"),
            std::string::npos);
  EXPECT_NE(errorOf("snapkv:budget=64,pool=min").find("pool must be max or avg"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=4,budget=5").find("given twice"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=4096,sinks=4,recent=4096")
                .find("sinks + recent (4 + 4096) exceeds the budget (4096)"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=65536", 8192)
                .find("budget of 65536 tokens exceeds the context of 8192"),
            std::string::npos);
  EXPECT_NE(errorOf("snapstream:budget=4096,kernel=4").find("odd"),
            std::string::npos);
}

// str() spells what parse() reads.
TEST(PolicySpec, RoundTrip) {
  auto spec = PolicySpec::parse("snapstream:budget=1024,sinks=2,pool=avg");
  ASSERT_TRUE(static_cast<bool>(spec));
  EXPECT_EQ(spec->str(), "snapstream:budget=1024,sinks=2,pool=avg");
  auto again = PolicySpec::parse(spec->str());
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->str(), spec->str());
}
