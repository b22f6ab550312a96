//===- ArchModelTest.cpp - Chip YAML loader accepts and rejects ----------===//

#include "snapflow/Arch/ArchModel.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

using namespace snapflow::arch;

namespace {

std::string readChip(const std::string &name) {
  std::ifstream in(std::string(SNAPFLOW_SOURCE_DIR) + "/arch/chips/" + name +
                   ".yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Replaces the first occurrence of `from` in `text` with `to`.
std::string edit(std::string text, const std::string &from,
                 const std::string &to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "test edit target not found: " << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

/// Parses `text` and returns the error message ("" when it parsed).
std::string errorOf(const std::string &text) {
  auto model = ArchModel::parse(text, "chip.yaml");
  if (model)
    return "";
  return llvm::toString(model.takeError());
}

} // namespace

// Every built-in chip loads and has the numbers its file states.
TEST(ArchModel, BuiltinsLoad) {
  for (const std::string &name : ArchModel::builtinNames()) {
    auto model = ArchModel::load(name);
    ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
    EXPECT_EQ(model->getName(), name);
  }
  EXPECT_GE(ArchModel::builtinNames().size(), 3u);
}

// sn40l: 1040 PCUs x 384 FLOP/cycle x 1.6 GHz = 638.976 TFLOP/s (published
// 638), 1040 PMUs x 500000 B = 520 MB SRAM, 64 GiB HBM at 1.6 TB/s.
TEST(ArchModel, SN40LDerivedQuantities) {
  auto m = ArchModel::load("sn40l");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_DOUBLE_EQ(m->peakSystolicFlopsPerS(), 1040.0 * 384 * 1.6e9);
  EXPECT_EQ(m->tierBytesPerSocket(MemoryTier::SRAM), 1040LL * 500000);
  EXPECT_EQ(m->tierBytesPerSocket(MemoryTier::HBM), 64LL << 30);
  EXPECT_DOUBLE_EQ(m->tierBytesPerS(MemoryTier::HBM), 1.6e12);
  EXPECT_EQ(m->numSockets(), 1);
  EXPECT_TRUE(m->getSource("socket.pcu_count").starts_with("published:"));
  auto node = ArchModel::load("sn40l-16");
  ASSERT_TRUE(static_cast<bool>(node));
  EXPECT_EQ(node->numSockets(), 16);
}

// The sn40l PCU's systolic array is 32 lanes x 384 / 2 / 32 = 6 stages. A
// GEMM of M rows fills it in whole tiles along the side that wastes less:
//   M = 1:   1/32 or 1/6            -> 1/6 (one decode token)
//   M = 4:   4/32 or 4/6            -> 2/3 (a GQA group of 4, one token)
//   M = 33:  33/64 or 33/36         -> 11/12
//   M = 48:  48/64 or 48/48         -> 1
//   M = 384: 384/384                -> 1 (3 tokens of 128 MLA heads)
// and M <= 0 (not known) counts as full.
TEST(ArchModel, SystolicUtilizationFillsWholeTiles) {
  auto m = ArchModel::load("sn40l");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->socket().pcuLanes, 32);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(1), 1.0 / 6);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(4), 4.0 / 6);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(33), 33.0 / 36);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(48), 1.0);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(384), 1.0);
  EXPECT_DOUBLE_EQ(m->systolicUtilization(0), 1.0);
}

// A chip file on disk loads by path, and its origin names the file.
TEST(ArchModel, LoadsFromPath) {
  std::string path = std::string(SNAPFLOW_SOURCE_DIR) + "/arch/chips/tiny.yaml";
  auto m = ArchModel::load(path);
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->getOrigin(), path);
  EXPECT_EQ(m->socket().pcuCount, 4);
}

// An unknown name is refused with the list of built-ins.
TEST(ArchModel, UnknownNameListsBuiltins) {
  auto m = ArchModel::load("sn50");
  ASSERT_FALSE(static_cast<bool>(m));
  std::string msg = llvm::toString(m.takeError());
  EXPECT_NE(msg.find("unknown chip 'sn50'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sn40l-16"), std::string::npos) << msg;
}

// A missing file is an error naming the path.
TEST(ArchModel, MissingFile) {
  auto m = ArchModel::load("/nonexistent/chip.yaml");
  ASSERT_FALSE(static_cast<bool>(m));
  EXPECT_NE(llvm::toString(m.takeError()).find("/nonexistent/chip.yaml"),
            std::string::npos);
}

// An unknown key is reported at its line and column.
TEST(ArchModel, RejectsUnknownKey) {
  std::string text = edit(readChip("tiny"), "  pcu_count:", "  pcu_cnt:");
  std::string msg = errorOf(text);
  EXPECT_NE(msg.find("unknown key 'pcu_cnt' in 'socket'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("chip.yaml:"), std::string::npos) << msg;
  // The nearest key is suggested.
  EXPECT_NE(msg.find("in 'socket'; did you mean 'pcu_count'?"),
            std::string::npos)
      << msg;
  // The renamed key is now also missing.
  EXPECT_NE(msg.find("missing key 'pcu_count'"), std::string::npos) << msg;
  // A key near nothing gets no guess.
  msg = errorOf(edit(readChip("tiny"), "  pcu_count:", "  pcus:"));
  EXPECT_NE(msg.find("unknown key 'pcus' in 'socket'\n"), std::string::npos)
      << msg;
}

// A section written from scratch with most keys left out gets one error
// listing them, not one per key burying the others.
TEST(ArchModel, ManyMissingKeysAreOneError) {
  std::string text = readChip("tiny");
  size_t socket = text.find("\nsocket:");
  size_t system = text.find("\nsystem:");
  ASSERT_NE(socket, std::string::npos);
  ASSERT_NE(system, std::string::npos);
  // Keep `socket:` and its first key, clock_hz, with its value and source
  // (tiny.yaml lists pcu_count next).
  size_t clock = text.find("  clock_hz:", socket);
  size_t next = text.find("  pcu_count:", clock);
  ASSERT_NE(next, std::string::npos);
  std::string only = text.substr(0, socket) + "\nsocket:\n" +
                     text.substr(clock, next - clock) + text.substr(system);
  std::string msg = errorOf(only);
  EXPECT_NE(msg.find("keys missing in 'socket': pcu_count, "),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("missing key 'pcu_count'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("clock_hz,"), std::string::npos) << msg;
}

// A zero size and a negative size are refused with the rule.
TEST(ArchModel, RejectsZeroAndNegativeSizes) {
  std::string base = readChip("tiny");
  size_t at = base.find("hbm_bytes:");
  ASSERT_NE(at, std::string::npos);
  size_t valueAt = base.find("value:", at);
  size_t eol = base.find('\n', valueAt);
  std::string zero = base.substr(0, valueAt) + "value: 0" + base.substr(eol);
  std::string neg = base.substr(0, valueAt) + "value: -5" + base.substr(eol);
  EXPECT_NE(errorOf(zero).find("'socket.hbm_bytes' must be bytes from 1 to "
                               "1125899906842624, got '0'"),
            std::string::npos)
      << errorOf(zero);
  EXPECT_NE(errorOf(neg).find("'socket.hbm_bytes' must be bytes from 1 to "
                              "1125899906842624, got '-5'"),
            std::string::npos)
      << errorOf(neg);
}

// Every value has a sane range, so no count, size, rate or time can make
// the cost arithmetic wrap or SystemC's time saturate (issue 13, defects 2,
// 6, 11 and 12: INT64_MAX channels aborted, INT64_MAX PCUs looped for 2^63
// steps, a 1e308 Hz clock or a 0.5 B/s HBM gave utilisation in the
// millions of percent).
TEST(ArchModel, RejectsValuesOutsideTheirRange) {
  std::string base = readChip("tiny");
  auto with = [&](const std::string &key, const std::string &value) {
    size_t at = base.find(key + ":");
    size_t valueAt = base.find("value:", at);
    size_t eol = base.find('\n', valueAt);
    return base.substr(0, valueAt) + "value: " + value + base.substr(eol);
  };
  struct Case {
    const char *key, *value, *message;
  } cases[] = {
      {"hbm_channels", "9223372036854775807",
       "'socket.hbm_channels' must be channels from 1 to 4096"},
      {"pcu_count", "9223372036854775807",
       "'socket.pcu_count' must be PCUs from 1 to 1000000"},
      {"clock_hz", "1e308",
       "'socket.clock_hz' must be Hz from 1e+06 to "
       "1e+11, got '1e308'"},
      {"clock_hz", "1e-308", "got '1e-308'"},
      {"hbm_bytes_per_s", "0.5",
       "'socket.hbm_bytes_per_s' must be bytes/s from 1e+06 to 1e+15"},
      {"noc_hop_latency_cycles", "9223372036854775807",
       "'socket.noc_hop_latency_cycles' must be cycles from 0 to 1000000"},
      {"sockets", "1025", "'system.sockets' must be sockets from 1 to 1024"},
  };
  for (const Case &c : cases) {
    std::string msg = errorOf(with(c.key, c.value));
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.key << ": " << msg;
  }
  // The edges are allowed.
  EXPECT_EQ(errorOf(with("hbm_channels", "4096")), "");
  EXPECT_EQ(errorOf(with("noc_hop_latency_cycles", "0")), "");
}

// An integer key with a fractional value is refused; 6.4e10 spellings of
// integers are accepted.
TEST(ArchModel, IntegerKeys) {
  std::string base = readChip("tiny");
  size_t at = base.find("pcu_count:");
  size_t valueAt = base.find("value:", at);
  size_t eol = base.find('\n', valueAt);
  std::string frac = base.substr(0, valueAt) + "value: 4.5" + base.substr(eol);
  EXPECT_NE(errorOf(frac).find("'socket.pcu_count' must be an integer"),
            std::string::npos)
      << errorOf(frac);
  std::string sci = base.substr(0, valueAt) + "value: 4e0" + base.substr(eol);
  EXPECT_EQ(errorOf(sci), "");
}

// Every value carries a source that says published, inferred or test.
TEST(ArchModel, RequiresSource) {
  std::string base = readChip("tiny");
  size_t at = base.find("pcu_count:");
  size_t srcAt = base.find("source:", at);
  size_t eol = base.find('\n', srcAt);
  std::string bad =
      base.substr(0, srcAt) + "source: \"guess\"" + base.substr(eol);
  EXPECT_NE(errorOf(bad).find("must start with 'published:'"),
            std::string::npos)
      << errorOf(bad);
  std::string missing =
      base.substr(0, srcAt) + "sauce: \"test: x\"" + base.substr(eol);
  EXPECT_NE(errorOf(missing).find("missing key 'source' in 'socket.pcu_count'"),
            std::string::npos)
      << errorOf(missing);
}

// A wrong schema version and a bad enum value are refused.
TEST(ArchModel, VersionAndEnums) {
  std::string base = readChip("tiny");
  EXPECT_NE(errorOf(edit(base, "snapflow_arch_version: 1",
                         "snapflow_arch_version: 2"))
                .find("unsupported snapflow_arch_version '2'"),
            std::string::npos);
  EXPECT_NE(errorOf(edit(base, "value: ring", "value: torus"))
                .find("must be one of ring, fully_connected, switch"),
            std::string::npos);
}

// A YAML syntax error is reported alone, at its line.
TEST(ArchModel, SyntaxErrorAlone) {
  std::string msg = errorOf("snapflow_arch_version: 1\nname: [oops\n");
  EXPECT_NE(msg.find("chip.yaml:"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("missing key"), std::string::npos) << msg;
}

// Missing top-level sections are each named.
TEST(ArchModel, MissingSections) {
  std::string msg = errorOf("snapflow_arch_version: 1\nname: x\n");
  EXPECT_NE(msg.find("missing key 'description'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing key 'socket'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing key 'system'"), std::string::npos) << msg;
}

// A chip survives the trip through its value texts (the form the df.target
// attribute carries in IR): same parameters, same fingerprint.
TEST(ArchModel, ValuesRoundTrip) {
  for (const std::string &name : ArchModel::builtinNames()) {
    auto chip = ArchModel::load(name);
    ASSERT_TRUE(static_cast<bool>(chip));
    std::vector<std::pair<std::string, std::string>> values;
    for (const ArchParamInfo &p : ArchModel::paramInfos())
      values.push_back({p.dottedKey(), chip->getValueText(p)});
    auto again = ArchModel::fromValues(chip->getName(), "", values, "<ir>");
    ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
    EXPECT_TRUE(chip->differences(*again).empty()) << name;
    EXPECT_EQ(chip->fingerprint(), again->fingerprint());
    EXPECT_EQ(chip->fingerprint().size(), 16u);
    EXPECT_EQ(again->socket().hbmBytesPerS, chip->socket().hbmBytesPerS);
  }
}

// fromValues applies a chip file's rules and names every key at fault;
// differences and the fingerprint see a changed value.
TEST(ArchModel, FromValuesChecksAndCompares) {
  auto chip = ArchModel::load("sn40l");
  ASSERT_TRUE(static_cast<bool>(chip));
  std::vector<std::pair<std::string, std::string>> values;
  for (const ArchParamInfo &p : ArchModel::paramInfos())
    values.push_back({p.dottedKey(), chip->getValueText(p)});
  for (auto &[key, text] : values)
    if (key == "socket.hbm_bytes_per_s")
      text = "8e11";
  auto slow = ArchModel::fromValues("sn40l", "", values, "<ir>");
  ASSERT_TRUE(static_cast<bool>(slow));
  std::vector<std::string> diff = chip->differences(*slow);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0], "socket.hbm_bytes_per_s 1.6e+12 vs 8e+11");
  EXPECT_NE(chip->fingerprint(), slow->fingerprint());

  auto bad = values;
  bad[1].second = "-3"; // socket.pcu_count
  bad.push_back({"socket.pcu_cnt", "1"});
  bad.erase(bad.begin() + 2);
  std::string msg =
      llvm::toString(ArchModel::fromValues("x", "", bad, "<ir>").takeError());
  EXPECT_NE(msg.find("<ir>: error: 'socket.pcu_count' must be PCUs from 1 to "
                     "1000000, got '-3'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("unknown chip parameter 'socket.pcu_cnt'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("missing chip parameter 'socket.pcu_systolic_flops_per_"
                     "cycle'"),
            std::string::npos)
      << msg;
}

// What-if overrides (issue 9, --set): the named keys change, nothing else;
// the name stays, the fingerprint changes, the source says who set it.
TEST(ArchModel, OverridesChangeOnlyTheirKeys) {
  auto chip = ArchModel::load("sn40l-16");
  ASSERT_TRUE(static_cast<bool>(chip));
  auto fast = chip->withOverrides(
      {"system.link_latency_ns=500", "socket.hbm_bytes_per_s = 3.2e12"},
      "--set");
  ASSERT_TRUE(static_cast<bool>(fast)) << llvm::toString(fast.takeError());
  std::vector<std::string> diff = chip->differences(*fast);
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0], "socket.hbm_bytes_per_s 1.6e+12 vs 3.2e+12");
  EXPECT_EQ(diff[1].rfind("system.link_latency_ns ", 0), 0u) << diff[1];
  EXPECT_EQ(fast->system().linkLatencyNs, 500);
  EXPECT_EQ(fast->getName(), "sn40l-16");
  EXPECT_NE(fast->fingerprint(), chip->fingerprint());
  EXPECT_EQ(fast->getSource("system.link_latency_ns")
                .str()
                .rfind("what-if: set by --set; sn40l-16 has ", 0),
            0u)
      << fast->getSource("system.link_latency_ns").str();
  EXPECT_EQ(fast->getSource("socket.clock_hz"),
            chip->getSource("socket.clock_hz"));
  // No overrides: the same chip.
  auto same = chip->withOverrides({}, "--set");
  ASSERT_TRUE(static_cast<bool>(same));
  EXPECT_EQ(same->fingerprint(), chip->fingerprint());
}

TEST(ArchModel, OverrideErrorsNameTheKey) {
  auto chip = ArchModel::load("sn40l");
  ASSERT_TRUE(static_cast<bool>(chip));
  auto error = [&](std::vector<std::string> set) {
    auto m = chip->withOverrides(set, "--set");
    return m ? std::string("accepted") : llvm::toString(m.takeError());
  };
  EXPECT_EQ(error({"system.link_latency=5"}),
            "--set: error: 'system.link_latency' is not a chip parameter; did "
            "you mean 'system.link_latency_ns'? (`snapflow list "
            "--components` names every parameter)");
  EXPECT_EQ(error({"hbm"}), "--set: error: expected KEY=VALUE with a chip key "
                            "such as system.link_latency_ns=500, got 'hbm'");
  EXPECT_EQ(error({"socket.pcu_count=0"}),
            "--set: error: 'socket.pcu_count' must be PCUs from 1 to 1000000, "
            "got '0'");
  EXPECT_EQ(error({"socket.pcu_count=4", "socket.pcu_count=8"}),
            "--set: error: 'socket.pcu_count' is set twice");
  EXPECT_EQ(error({"system.topology=torus"}).find("--set: error: "), 0u);
}
