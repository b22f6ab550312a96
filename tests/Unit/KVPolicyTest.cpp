//===- KVPolicyTest.cpp - KV policies as attributes
//------------------------===//
//
// The #kv.* attributes are the only representation of a policy: these cases
// parse command-line strings into them, resolve them for a context, print
// their labels back, and check every error names the string and the fault.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

using namespace snapflow::kv;

namespace {
struct Policies {
  mlir::MLIRContext ctx;

  KVPolicyAttrInterface resolved(llvm::StringRef text,
                                 int64_t context = 131072) {
    auto p = resolvePolicy(&ctx, text, context);
    EXPECT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    return p ? *p : KVPolicyAttrInterface();
  }
  std::string errorOf(llvm::StringRef text, int64_t context = 131072) {
    auto p = resolvePolicy(&ctx, text, context);
    return p ? "" : llvm::toString(p.takeError());
  }
};
} // namespace

// The fully spelled SnapStream string sets every number, and its label is
// the string.
TEST(KVPolicy, FullSnapStream) {
  Policies p;
  auto r = llvm::cast<SnapStreamPolicyAttr>(p.resolved(
      "snapstream:budget=32768,sinks=4,recent=4096,obs_window=32,kernel=7,"
      "pool=max"));
  EXPECT_EQ(r.getSlotsFor(131072), 32768);
  EXPECT_EQ(r.getSinkTokens(), 4);
  EXPECT_EQ(r.getRecentTokens(), 4096);
  EXPECT_EQ(r.getObsWindow(), 32);
  EXPECT_EQ(r.getKernel(), 7);
  EXPECT_EQ(r.getPool(), PoolKind::max);
  EXPECT_TRUE(r.isResolved());
  EXPECT_EQ(r.getLabel(), "snapstream:budget=32768,sinks=4,recent=4096,"
                          "obs_window=32,kernel=7,pool=max");
}

// ratio=4 at 128K gives a 32768-token budget, with default sinks 4, ring
// min(4096, 32768 / 4) = 4096, window 32, kernel 7; at 8K, budget 2048 and
// ring min(4096, 512) = 512. Unresolved, the attribute keeps the ratio.
TEST(KVPolicy, RatioDefaults) {
  Policies p;
  auto open = parsePolicy(&p.ctx, "snapstream:ratio=4");
  ASSERT_TRUE(static_cast<bool>(open));
  EXPECT_FALSE(open->isResolved());
  EXPECT_EQ(open->getLabel(), "snapstream:ratio=4");
  EXPECT_EQ(open->getSlotsFor(131072), 32768);
  auto r = p.resolved("snapstream:ratio=4");
  EXPECT_EQ(r.getSlotsFor(131072), 32768);
  EXPECT_EQ(r.getSinkTokens(), 4);
  EXPECT_EQ(r.getRecentTokens(), 4096);
  auto small = p.resolved("snapstream:ratio=4", 8192);
  EXPECT_EQ(small.getSlotsFor(8192), 2048);
  EXPECT_EQ(small.getRecentTokens(), 512);
  EXPECT_EQ(small.getLabel(), "snapstream:budget=2048,sinks=4,recent=512,"
                              "obs_window=32,kernel=7,pool=max");
}

// full keeps every token; streaming keeps sinks + window; snapkv's recent
// region is its observation window.
TEST(KVPolicy, FullStreamingSnapKV) {
  Policies p;
  auto full = p.resolved("full", 4096);
  EXPECT_EQ(full.getSlotsFor(4096), 4096);
  EXPECT_FALSE(full.isCompressing());
  EXPECT_EQ(full.getLabel(), "full");
  auto s = p.resolved("streaming:window=2044", 8192);
  EXPECT_EQ(s.getSlotsFor(8192), 2048);
  EXPECT_EQ(s.getLabel(), "streaming:sinks=4,window=2044");
  EXPECT_FALSE(s.selectsAtPrefill());
  auto kv = p.resolved("snapkv:budget=64,pool=avg", 1024);
  EXPECT_EQ(kv.getRecentTokens(), 32);
  EXPECT_EQ(kv.getSinkTokens(), 0);
  EXPECT_TRUE(kv.selectsAtPrefill());
  EXPECT_EQ(kv.getLabel(), "snapkv:budget=64,obs_window=32,kernel=7,pool=avg");
}

// A label reads back to the same attribute.
TEST(KVPolicy, LabelRoundTrip) {
  Policies p;
  for (llvm::StringRef text :
       {"full", "streaming:window=100", "snapkv:ratio=8",
        "snapstream:budget=1024,sinks=2,pool=avg", "arkvale:ratio=8"}) {
    auto r = p.resolved(text, 8192);
    auto again = parsePolicy(&p.ctx, r.getLabel());
    ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
    EXPECT_EQ(*again, r) << text.str();
  }
}

// h2o:ratio=5 at 128K: budget ceil(131072 / 5) = 26215, recent 26215 / 2 =
// 13107 (the official equal heavy and recent ratios), so 13108 heavy
// hitters; no sinks. Its state is one f32 score per slot and KV-head group.
TEST(KVPolicy, H2ODefaults) {
  Policies p;
  auto r = p.resolved("h2o:ratio=5");
  EXPECT_EQ(r.getSlotsFor(131072), 26215);
  EXPECT_EQ(r.getRecentTokens(), 13107);
  EXPECT_EQ(r.getSinkTokens(), 0);
  EXPECT_TRUE(r.isCompressing());
  EXPECT_TRUE(r.selectsAtPrefill());
  EXPECT_EQ(r.getLabel(), "h2o:budget=26215,recent=13107");
  EXPECT_EQ(r.getSlotStateBytes(8), 32);
  EXPECT_EQ(p.resolved("h2o:budget=100,recent=10").getRecentTokens(), 10);
  EXPECT_NE(p.errorOf("h2o:budget=100,recent=100")
                .find("h2o recent (100) must be smaller than the budget (100)"),
            std::string::npos);
  EXPECT_NE(p.errorOf("h2o:budget=1").find("too small for h2o"),
            std::string::npos);
}

// scissorhands:ratio=4 at 128K: budget 32768, 4 sinks, 10 recent, a history
// of 400 steps, i.e. 400 / 8 = 50 B per slot and group (400 B for 8 KV
// heads); the stateless policies keep none.
TEST(KVPolicy, ScissorhandsDefaults) {
  Policies p;
  auto r = p.resolved("scissorhands:ratio=4");
  EXPECT_EQ(r.getSlotsFor(131072), 32768);
  EXPECT_EQ(r.getSinkTokens(), 4);
  EXPECT_EQ(r.getRecentTokens(), 10);
  EXPECT_EQ(r.getLabel(),
            "scissorhands:budget=32768,sinks=4,recent=10,history=400");
  EXPECT_EQ(r.getSlotStateBytes(8), 400);
  EXPECT_EQ(p.resolved("scissorhands:budget=64,history=9").getSlotStateBytes(1),
            2);
  EXPECT_EQ(p.resolved("snapstream:ratio=4").getSlotStateBytes(8), 0);
  EXPECT_EQ(p.resolved("full").getSlotStateBytes(8), 0);
  EXPECT_NE(
      p.errorOf("scissorhands:budget=14")
          .find("sinks + recent (4 + 10) must be smaller than the budget (14)"),
      std::string::npos);
}

// arkvale:ratio=5 at 128K: ceil(131072 / 5) = 26215 tokens, rounded up to
// whole 32-token pages: 26240 (820 pages). The official benchmark scripts'
// 1 sink page and 2 window pages (64 tokens), page_topks 32 less the code's
// n_sink + (n_win - 1) = 30 chosen pages, min(10, 30) = 10 recalled per
// step; the backup and digests cover the 128K context, 4096 pages. A
// budget of 4 pages leaves one page to choose (and to recall).
TEST(KVPolicy, ArkValeDefaults) {
  Policies p;
  auto r = p.resolved("arkvale:ratio=5");
  EXPECT_EQ(r.getSlotsFor(131072), 26240);
  EXPECT_EQ(r.getSinkTokens(), 32);
  EXPECT_EQ(r.getRecentTokens(), 64);
  EXPECT_EQ(r.getPageTokens(), 32);
  EXPECT_EQ(r.getBackupTokens(), 131072);
  EXPECT_TRUE(r.selectsAtPrefill());
  EXPECT_EQ(r.getLabel(), "arkvale:budget=26240,page=32,sinks=1,window=2,"
                          "topk=30,recall=10,tokens=131072");
  EXPECT_EQ(r.getSlotStateBytes(8), 0);
  EXPECT_EQ(p.resolved("arkvale:budget=128", 1024).getLabel(),
            "arkvale:budget=128,page=32,sinks=1,window=2,topk=1,recall=1,"
            "tokens=1024");
  // A context that is not a whole number of pages is backed up in pages.
  EXPECT_EQ(p.resolved("arkvale:budget=128", 1000).getBackupTokens(), 1024);
  EXPECT_NE(p.errorOf("arkvale:ratio=1", 1000)
                .find("KV budget of 1024 tokens exceeds the context of 1000"),
            std::string::npos);
  EXPECT_NE(p.errorOf("arkvale:budget=100")
                .find("arkvale budget (100 tokens) must be a whole number of "
                      "32-token pages"),
            std::string::npos);
  // Policies without a backup keep none, and select tokens, not pages.
  EXPECT_EQ(p.resolved("h2o:ratio=5").getBackupTokens(), 0);
  EXPECT_EQ(p.resolved("snapstream:ratio=4").getPageTokens(), 1);
}

// Bad strings name the string and the bad key or value.
TEST(KVPolicy, Errors) {
  Policies p;
  EXPECT_NE(p.errorOf("snapstream:budgett=5")
                .find("unknown key 'budgett' for "
                      "snapstream (keys: budget"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=x")
                .find("KV policy "
                      "'snapstream:budget=x'"),
            std::string::npos);
  // A value the key cannot take is named with its key, never in the
  // attribute parser's terms ("expected '>'").
  for (const auto &[text, msg] :
       std::vector<std::pair<std::string, std::string>>{
           {"snapstream:budget=abc", "bad value 'abc' for key 'budget'"},
           {"snapstream:budget=1e3", "bad value '1e3' for key 'budget'"},
           {"snapstream:ratio=4:x", "bad value '4:x' for key 'ratio'"},
           {"snapstream:budget=64,sinks=x", "bad value 'x' for key 'sinks'"}}) {
    std::string err = p.errorOf(text);
    EXPECT_NE(err.find(msg), std::string::npos) << err;
    EXPECT_NE(err.find("(keys: budget"), std::string::npos) << err;
    EXPECT_EQ(err.find("expected '>'"), std::string::npos) << err;
  }
  EXPECT_NE(p.errorOf("quest").find("unknown KV policy 'quest' (expected "
                                    "full, streaming, snapkv, snapstream, "
                                    "h2o, scissorhands"),
            std::string::npos)
      << p.errorOf("quest");
  EXPECT_NE(p.errorOf("full:budget=4").find("unknown key 'budget' for full"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream")
                .find("needs budget=N or ratio=R, not "
                      "neither"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=8,ratio=4").find("not both"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapkv:budget=64,pool=min").find("pool"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=4,budget=5")
                .find("key 'budget' given twice"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=4096,sinks=4,recent=4096")
                .find("sinks + recent (4 + 4096) exceeds the budget (4096)"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=65536", 8192)
                .find("budget of 65536 tokens exceeds the context of 8192"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:budget=4096,kernel=4").find("odd"),
            std::string::npos);
  EXPECT_NE(p.errorOf("snapstream:").find("empty parameter list"),
            std::string::npos);
  EXPECT_NE(p.errorOf("streaming:window=9000", 8192)
                .find("sinks + window = 9004 tokens exceeds the context"),
            std::string::npos);
}

// Near-INT64_MAX numbers cannot slip past the budget check by wrapping
// (reliability finding 13): sinks + recent is checked, not summed.
TEST(KVPolicy, NoOverflowPastTheBudget) {
  Policies p;
  std::string big = std::to_string(INT64_MAX);
  std::string err =
      p.errorOf("snapstream:budget=4096,sinks=" + big + ",recent=" + big);
  EXPECT_NE(err.find("exceeds the budget (4096)"), std::string::npos) << err;
  // A ratio of 1 keeps every token; a huge ratio gives a budget of 1.
  EXPECT_EQ(p.resolved("snapkv:ratio=1,obs_window=1", 100).getSlotsFor(100),
            100);
  EXPECT_NE(p.errorOf("snapkv:ratio=" + big, 100)
                .find("KV budget of 1 token(s) is too small for snapkv"),
            std::string::npos)
      << p.errorOf("snapkv:ratio=" + big, 100);
  // Streaming's sinks + window (defect 15: it wrapped into an internal
  // "-9223372036854775808 slots" verifier error).
  err = p.errorOf("streaming:sinks=" + big + ",window=1", 4096);
  EXPECT_NE(err.find("streaming sinks + window exceeds a 64-bit count"),
            std::string::npos)
      << err;
}

// Every policy is listed with its usage.
TEST(KVPolicy, Listed) {
  std::string list = describePolicies();
  for (const char *name : {"full", "streaming", "snapkv", "snapstream"})
    EXPECT_NE(list.find(std::string("  ") + name), std::string::npos) << name;
}

// Formats: the shorthands stand for their spellings with the defaults filled
// in (the official settings); `bf16` is no format; a label reads back to
// the same attribute; errors name the string and what is wrong.
TEST(KVFormat, ShorthandsAndDefaults) {
  mlir::MLIRContext ctx;
  auto label = [&](llvm::StringRef text) -> std::string {
    auto f = parseFormat(&ctx, text);
    if (!f)
      return "error: " + llvm::toString(f.takeError());
    return *f ? f->getLabel() : "none";
  };
  EXPECT_EQ(label("bf16"), "none");
  EXPECT_EQ(label("fp8"), "fp8");
  EXPECT_EQ(label("kivi2"), "kivi:bits=2,group=32,residual=128");
  EXPECT_EQ(label("kivi4"), "kivi:bits=4,group=32,residual=128");
  EXPECT_EQ(label("kivi:bits=2,residual=32"),
            "kivi:bits=2,group=32,residual=32");
  EXPECT_EQ(label("kivi2:group=16"), "kivi:bits=2,group=16,residual=128");
  EXPECT_EQ(label("quarot4"), "quarot:bits=4");
  EXPECT_EQ(label("quarot"), "quarot:bits=4");
  EXPECT_EQ(label("zipcache"),
            "zipcache:high=4,low=2,salient=60,gap=100,probes=10");
  EXPECT_EQ(label(label("zipcache")), label("zipcache"));
  EXPECT_EQ(label("kivi"),
            "error: KV format 'kivi': needs key=value parameters (keys: bits "
            "(2|4, required), group (32), residual (128, a multiple of "
            "group))");
  EXPECT_EQ(label("kivi:bits=2,depth=3"),
            "error: KV format 'kivi:bits=2,depth=3': unknown key 'depth' for "
            "kivi (keys: bits (2|4, required), group (32), residual (128, a "
            "multiple of group))");
  EXPECT_EQ(label("int3"),
            "error: unknown KV format 'int3' (expected bf16, fp8, kivi, "
            "quarot, zipcache, kivi2, kivi4, quarot4; see `snapflow list`)");
}

// A format's bits per token of one layer, for a GQA cache of 8 KV heads of
// 128 (1,024 key and 1,024 value channels, bf16) and a latent of 512 + 64:
// fp8 8 x 2,048; kivi2 2,048 x 2 + 1,024 + 1,024 = 6,144 (latent: 576 x 2
// + 576 = 1,728); quarot4 2,048 x 4 + 16 heads x 32 = 8,704 (latent:
// 576 x 4 + 32 = 2,336); zipcache ceil(2,048 x 3.2) + 33 = 6,587.
TEST(KVFormat, TokenBits) {
  mlir::MLIRContext ctx;
  CacheShape gqa{1024, 1024, 128, 16, 16}, mla{576, 0, 512, 1, 16};
  auto bits = [&](llvm::StringRef text, const CacheShape &s) {
    return cantFail(parseFormat(&ctx, text)).getTokenBits(s);
  };
  EXPECT_EQ(bits("fp8", gqa), 16384);
  EXPECT_EQ(bits("kivi2", gqa), 6144);
  EXPECT_EQ(bits("kivi2", mla), 1728);
  EXPECT_EQ(bits("quarot4", gqa), 8704);
  EXPECT_EQ(bits("quarot4", mla), 2336);
  EXPECT_EQ(bits("zipcache", gqa), 6587);
}

// Every quoted accuracy row names its benchmark, model, setting and source,
// and its scores are percentages; the rows are figures read from
// SEED-SYSTEMS.md section 9, never computed here.
template <typename Attr> static void checkPublishedRows(int &rows) {
  for (const PublishedAccuracy &r : Attr::getPublishedAccuracy()) {
    ++rows;
    EXPECT_FALSE(llvm::StringRef(r.benchmark).empty());
    EXPECT_FALSE(llvm::StringRef(r.model).empty());
    EXPECT_FALSE(llvm::StringRef(r.setting).empty());
    EXPECT_FALSE(llvm::StringRef(r.source).empty());
    EXPECT_GT(r.full, 0) << r.setting;
    EXPECT_LE(r.full, 100) << r.setting;
    EXPECT_GT(r.score, 0) << r.setting;
    EXPECT_LE(r.score, 100) << r.setting;
  }
}

TEST(KVPolicy, PublishedAccuracy) {
  int rows = 0;
  checkPublishedRows<SnapKVPolicyAttr>(rows);
  checkPublishedRows<StreamingPolicyAttr>(rows);
  checkPublishedRows<H2OPolicyAttr>(rows);
  checkPublishedRows<KIVIFormatAttr>(rows);
  // 16 SnapKV, 13 StreamingLLM, 15 H2O and 8 KIVI rows.
  EXPECT_EQ(rows, 16 + 13 + 15 + 8);
  // The methods without a source say so rather than borrow another's.
  EXPECT_TRUE(SnapStreamPolicyAttr::getPublishedAccuracy().empty());
  EXPECT_TRUE(ArkValePolicyAttr::getPublishedAccuracy().empty());
  EXPECT_TRUE(ScissorhandsPolicyAttr::getPublishedAccuracy().empty());
  EXPECT_TRUE(QuaRotFormatAttr::getPublishedAccuracy().empty());
  EXPECT_TRUE(ZipCacheFormatAttr::getPublishedAccuracy().empty());
  std::string text = describePublishedAccuracy();
  for (const char *name :
       {"full", "streaming", "snapkv", "snapstream", "h2o", "scissorhands",
        "arkvale", "bf16", "fp8", "kivi", "quarot", "zipcache"})
    EXPECT_NE(text.find(std::string("  ") + name + " "), std::string::npos)
        << name;
}
