//===- SweepAxis.h - The value types of a sweep's axes ----------*- C++ -*-===//
//
// How each axis of SweepAxes.def reads, prints and applies its values. An
// axis names its traits: `type` (the C++ type of a value), `split` (how its
// comma list splits), `parse` (a value from its text, or what was
// expected), `print` (its text in a CSV cell, the manifest and a title),
// `json` (its sweep.json value) and `apply` (setting the option it stands
// for). `OptionalAxis<T>` is T's axis that may be left unset: one point
// with the option's default, printed as "".
//
// Enum-valued options (the MLA cache layout, the MoE mapping, the weights'
// dtype) are enums here with one parse and one name function each.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SWEEPAXIS_H
#define SNAPFLOW_DRIVER_SWEEPAXIS_H

#include "snapflow/Dialect/LLM/Transforms/Mappings.h"
#include "snapflow/Models/ModelConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// The MLA latent cache's layout and the MoE mapping under TP
/// (`--mla-cache`, `--moe`): shard-tp's enums.
using llm::MlaCache;
using llm::mlaCacheName;
using llm::MoeMapping;
using llm::moeMappingName;
using llm::parseMlaCache;
using llm::parseMoeMapping;

/// Whether an axis's comma list is plain, or keyed: a `key=value` item
/// continues the item before it (`full,snapstream:budget=8,sinks=4` is two
/// policies).
enum class AxisSplit { Plain, Keyed };
/// Whether a grid needs the axis (SweepAxes.def, PRESENCE).
enum class AxisPresence { Required, Default, Later };
/// How a sweep's charts use the axis (SweepAxes.def, ROLE).
enum class AxisRole { Scope, Setting, Variant };

/// The batch of a point: a number, or 0 for the largest that fits ("max").
struct Batch {
  int64_t value = 0;
  bool isMax() const { return value == 0; }
  bool operator==(const Batch &o) const { return value == o.value; }
};

/// The chip parameters a point changes: "KEY=VALUE;KEY=VALUE" ("" none).
/// The product of the --set axes (each `KEY=V1,V2,...`) in the order given.
struct ChipSets {
  std::string text;
  bool operator==(const ChipSets &o) const { return text == o.text; }
};

// The traits of each kind of axis. `parse` returns the value, or an error
// naming the flag, what it expected and the value given
// ("--batch: expected numbers in [1, 1048576] or max, got '0'").

struct TextAxis {
  using type = std::string;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(const type &v) { return v; }
  static llvm::json::Value json(const type &v) { return v; }
  static type initial() { return {}; }
  static void apply(std::string &target, const type &v) { target = v; }
};
/// A KV policy or format: text a kv parser checks with the grid.
struct PolicyAxis : TextAxis {
  static constexpr AxisSplit split = AxisSplit::Keyed;
};
/// A token count: 8192, 8k, 128K, 1M (parseTokens).
struct TokensAxis {
  using type = int64_t;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return std::to_string(v); }
  static llvm::json::Value json(type v) { return v; }
  static type initial() { return 0; }
  static void apply(int64_t &target, type v) { target = v; }
};
struct BatchAxis {
  using type = Batch;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(Batch v) {
    return v.isMax() ? "max" : std::to_string(v.value);
  }
  static llvm::json::Value json(Batch v) { return print(v); }
  static type initial() { return {}; }
  /// Resolved per point (the largest batch is searched for).
  static void apply(int64_t &, Batch) {}
};
/// Tensor-parallel sockets; 0 (the default, printed "0"): every socket.
struct TpAxis : TokensAxis {
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
};
/// A cross-layer attention share factor, >= 1 (1: no sharing).
struct ShareFactorAxis {
  using type = int64_t;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return std::to_string(v); }
  static void apply(int64_t &target, type v) { target = v; }
};
/// An MTP draft depth, 0 to models::BuildOptions::kMaxMtpDepth.
struct MtpDepthAxis : ShareFactorAxis {
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
};
/// A probability in [0, 1], printed in the shortest text that reads back.
struct ProbabilityAxis {
  using type = double;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v);
  static void apply(double &target, type v) { target = v; }
};
struct BoolAxis {
  using type = bool;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return v ? "true" : "false"; }
  static void apply(bool &target, type v) { target = v; }
};
struct MlaCacheAxis {
  using type = MlaCache;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return mlaCacheName(v).str(); }
  static void apply(std::string &target, type v) { target = print(v); }
};
struct MoeAxis {
  using type = MoeMapping;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return moeMappingName(v).str(); }
  static void apply(std::string &target, type v) { target = print(v); }
};
/// The weights' dtype (`--weights-dtype`), the model reader's enum.
struct DtypeAxis {
  using type = models::WeightDtype;
  using option = std::string;
  static constexpr AxisSplit split = AxisSplit::Plain;
  static llvm::Expected<type> parse(llvm::StringRef text, llvm::StringRef flag);
  static std::string print(type v) { return models::weightDtypeName(v).str(); }
  /// Sets WorkloadOptions::weightsDtype, the same enum.
  static void apply(std::optional<type> &target, type v) { target = v; }
};
/// The --set axes' product (parsed from the repeatable flag, not a list).
struct ChipSetAxis {
  using type = ChipSets;
  using option = std::vector<std::string>; ///< each --set KEY=V1,V2,...
  static std::string print(const ChipSets &v) { return v.text; }
  static llvm::json::Value json(const ChipSets &v) { return v.text; }
  static type initial() { return {}; }
  /// "KEY=V;KEY=V" -> the --set assignments.
  static void apply(std::vector<std::string> &target, const ChipSets &v);
};

/// An axis that may be left unset: its one point has the option's default
/// (printed ""; `apply` leaves the option alone).
template <class T> struct OptionalAxis {
  using type = std::optional<typename T::type>;
  using option = typename T::option;
  static constexpr AxisSplit split = T::split;
  static llvm::Expected<type> parse(llvm::StringRef text,
                                    llvm::StringRef flag) {
    auto v = T::parse(text, flag);
    if (!v)
      return v.takeError();
    return type(std::move(*v));
  }
  static std::string print(const type &v) { return v ? T::print(*v) : ""; }
  static llvm::json::Value json(const type &v) { return print(v); }
  static type initial() { return std::nullopt; }
  template <class Target> static void apply(Target &target, const type &v) {
    if (v)
      T::apply(target, *v);
  }
};

/// Splits a comma list as an axis of `split` reads it.
std::vector<std::string> splitAxisList(llvm::StringRef text, AxisSplit split);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SWEEPAXIS_H
