//===- Grid.cpp - A sweep's axes, grid and points -------------------------===//
//
// The axes of SweepAxes.def: their values read and printed by their traits
// (SweepAxis.h), the grid checked before any point runs, and its points in
// grid order.
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Support/CheckedInt.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Value types
//===----------------------------------------------------------------------===//

namespace {
/// A value that is not what the axis takes.
Error expected(StringRef flag, const llvm::Twine &what, StringRef text) {
  return makeError(
      formatv("--{0}: expected {1}, got '{2}'", flag, what.str(), text));
}
} // namespace

llvm::Expected<std::string> TextAxis::parse(StringRef text, StringRef) {
  return text.str();
}

llvm::Expected<int64_t> TokensAxis::parse(StringRef text, StringRef flag) {
  return parseTokens(text, "--" + flag.str());
}

llvm::Expected<Batch> BatchAxis::parse(StringRef text, StringRef flag) {
  if (text == "max")
    return Batch{};
  int64_t n;
  if (text.getAsInteger(10, n) || n <= 0 || n > models::kMaxBatch)
    return expected(
        flag, formatv("numbers in [1, {0}] or max", models::kMaxBatch), text);
  return Batch{n};
}

llvm::Expected<int64_t> TpAxis::parse(StringRef text, StringRef flag) {
  int64_t n;
  if (text.getAsInteger(10, n) || n < 1)
    return expected(flag, "positive numbers", text);
  return n;
}

llvm::Expected<int64_t> ShareFactorAxis::parse(StringRef text, StringRef flag) {
  int64_t n;
  if (text.getAsInteger(10, n) || n < 1)
    return expected(flag, "share factors >= 1 (1: no sharing)", text);
  return n;
}

llvm::Expected<int64_t> MtpDepthAxis::parse(StringRef text, StringRef flag) {
  int64_t n;
  if (text.getAsInteger(10, n) || n < 0 ||
      n > models::BuildOptions::kMaxMtpDepth)
    return expected(
        flag,
        formatv("draft depths in [0, {0}]", models::BuildOptions::kMaxMtpDepth),
        text);
  return n;
}

llvm::Expected<double> ProbabilityAxis::parse(StringRef text, StringRef flag) {
  double p;
  if (text.getAsDouble(p) || !(p >= 0 && p <= 1))
    return expected(flag, "probabilities in [0, 1]", text);
  return p;
}

std::string ProbabilityAxis::print(double v) { return csv::number(v); }

llvm::Expected<bool> BoolAxis::parse(StringRef text, StringRef flag) {
  if (text != "true" && text != "false")
    return expected(flag, "true or false", text);
  return text == "true";
}

llvm::Expected<MlaCache> MlaCacheAxis::parse(StringRef text, StringRef flag) {
  if (auto m = parseMlaCache(text))
    return *m;
  return expected(flag, "replicate, sequence or batch", text);
}

llvm::Expected<MoeMapping> MoeAxis::parse(StringRef text, StringRef flag) {
  if (auto m = parseMoeMapping(text))
    return *m;
  return expected(flag, "expert or split", text);
}

llvm::Expected<models::WeightDtype> DtypeAxis::parse(StringRef text,
                                                     StringRef flag) {
  if (auto d = models::parseWeightDtype(text))
    return *d;
  return expected(flag, "bf16 or fp8", text);
}

void ChipSetAxis::apply(std::vector<std::string> &target, const ChipSets &v) {
  llvm::SmallVector<StringRef> parts;
  StringRef(v.text).split(parts, ';', -1, /*KeepEmpty=*/false);
  target.assign(parts.begin(), parts.end());
}

std::vector<std::string> snapflow::driver::splitAxisList(StringRef text,
                                                         AxisSplit split) {
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> out;
  for (StringRef p : parts) {
    p = p.trim();
    if (split == AxisSplit::Keyed && !out.empty() && p.contains('=') &&
        !p.contains(':'))
      out.back() += "," + p.str();
    else
      out.push_back(p.str());
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Axes and points
//===----------------------------------------------------------------------===//

llvm::ArrayRef<SweepAxisInfo> snapflow::driver::sweepAxes() {
  static const SweepAxisInfo axes[] = {
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, FLAG, PRESENCE,     \
                            CLI_DEFAULT, VALUE_DESC, HELP, TARGET, ROLE,       \
                            TITLE, UNSET)                                      \
  {COLUMN,                                                                     \
   FLAG,                                                                       \
   AxisPresence::PRESENCE,                                                     \
   TRAITS::print(TRAITS::initial()),                                           \
   AxisRole::ROLE,                                                             \
   TITLE,                                                                      \
   UNSET},
#include "snapflow/Driver/SweepAxes.def"
  };
  return axes;
}

std::vector<std::string> SweepPoint::identity() const {
  return {
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, ...) TRAITS::print(FIELD),
#include "snapflow/Driver/SweepAxes.def"
  };
}

std::vector<std::string> SweepPoint::inputs() const {
  std::vector<std::string> row = identity();
  row.insert(row.begin(), std::to_string(index));
  return row;
}

bool SweepPoint::isDefault(size_t axis) const {
  size_t k = 0;
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, ...)                        \
  if (k++ == axis)                                                             \
    return TRAITS::print(FIELD) == TRAITS::print(TRAITS::initial());
#include "snapflow/Driver/SweepAxes.def"
  return false;
}

std::vector<SweepPoint> SweepGrid::points() const {
  // An odometer over the axes, the last turning fastest.
  const size_t sizes[] = {
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, ...) VALUES.size(),
#include "snapflow/Driver/SweepAxes.def"
  };
  std::vector<SweepPoint> grid;
  for (size_t n : sizes)
    if (n == 0)
      return grid;
  std::vector<size_t> at(kSweepAxes, 0);
  while (true) {
    SweepPoint pt;
    pt.index = static_cast<int64_t>(grid.size());
    size_t k = 0;
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, ...) pt.FIELD = VALUES[at[k++]];
#include "snapflow/Driver/SweepAxes.def"
    grid.push_back(std::move(pt));
    size_t axis = kSweepAxes;
    while (axis > 0 && ++at[axis - 1] == sizes[axis - 1])
      at[--axis] = 0;
    if (axis == 0)
      return grid;
  }
}

std::map<std::string, std::vector<std::string>> SweepGrid::axes() const {
  std::map<std::string, std::vector<std::string>> out;
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, ...)                \
  for (const auto &v : VALUES)                                                 \
    out[COLUMN].push_back(TRAITS::print(v));
#include "snapflow/Driver/SweepAxes.def"
  return out;
}

//===----------------------------------------------------------------------===//
// Parsing and checking a grid
//===----------------------------------------------------------------------===//

namespace {

/// Reads an axis's comma list into typed values; an axis not given holds
/// its default alone, unless the grid needs it.
template <class Traits>
Error readAxis(const typename Traits::option &list, StringRef flag,
               AxisPresence presence, std::vector<typename Traits::type> &out) {
  for (const std::string &text : splitAxisList(list, Traits::split)) {
    auto v = Traits::parse(text, flag);
    if (!v)
      return v.takeError();
    out.push_back(std::move(*v));
  }
  if (out.empty() && presence != AxisPresence::Required)
    out.push_back(Traits::initial());
  return Error::success();
}

/// The chip parameters are read by readChipSets.
template <>
Error readAxis<ChipSetAxis>(const std::vector<std::string> &, StringRef,
                            AxisPresence, std::vector<ChipSets> &) {
  return Error::success();
}

/// --set KEY=V1,V2: one axis per flag; the grid takes their product,
/// counted before it is built (eight axes of ten values were 1e8 strings
/// and an out-of-memory abort, R03). Returns each axis's key and values.
llvm::Expected<std::vector<std::pair<std::string, std::vector<std::string>>>>
readChipSets(const std::vector<std::string> &flags,
             std::vector<ChipSets> &out) {
  std::vector<std::pair<std::string, std::vector<std::string>>> setAxes;
  CheckedInt combinations = 1;
  for (const std::string &axis : flags) {
    auto [key, list] = StringRef(axis).split('=');
    key = key.trim();
    if (key.empty() || !StringRef(axis).contains('='))
      return makeError("--set: expected KEY=VALUE[,VALUE...] such as "
                       "system.link_latency_ns=500,1000, got '" +
                       axis + "'");
    std::vector<std::string> values = splitAxisList(list, AxisSplit::Plain);
    if (values.empty())
      return makeError("--set " + key.str() + ": no value");
    combinations *= static_cast<int64_t>(values.size());
    if (combinations.overflowed() || combinations.value() > kMaxSweepPoints)
      return makeError(formatv("--set: the chip parameters' values make more "
                               "than {0} combinations; a sweep runs at most "
                               "{0} points (narrow an axis)",
                               kMaxSweepPoints));
    setAxes.push_back({key.str(), std::move(values)});
  }
  std::vector<std::string> product = {""};
  for (const auto &[key, values] : setAxes) {
    std::vector<std::string> next;
    for (const std::string &prefix : product)
      for (const std::string &v : values)
        next.push_back((prefix.empty() ? "" : prefix + ";") + key + "=" + v);
    product = std::move(next);
  }
  for (std::string &text : product)
    out.push_back(ChipSets{std::move(text)});
  return setAxes;
}

/// What only loading finds: models (and every share factor against their
/// layers), chips (and every chip parameter value by its rule on each),
/// policies and formats by the kv parsers.
Error checkResolvable(
    const SweepGrid &g,
    const std::vector<std::pair<std::string, std::vector<std::string>>>
        &setAxes) {
  for (const std::string &m : g.models) {
    auto c = models::ModelConfig::load(m);
    if (!c)
      return c.takeError();
    for (const std::optional<int64_t> &s : g.clas)
      if (s)
        if (Error e = c->setClaShareFactor(*s, "--cla"))
          return e;
  }
  for (const std::string &c : g.chips) {
    auto a = arch::ArchModel::load(c);
    if (!a)
      return a.takeError();
    // One at a time: no rule relates two keys.
    for (const auto &[key, values] : setAxes)
      for (const std::string &v : values)
        if (auto changed = a->withOverrides({key + "=" + v}, "--set"); !changed)
          return changed.takeError();
  }
  mlir::MLIRContext &context = driverContext();
  for (const std::string &p : g.kv)
    if (auto s = kv::parsePolicy(&context, p); !s)
      return s.takeError();
  for (const std::optional<std::string> &f : g.kvFormats)
    if (f)
      if (auto s = kv::parseFormat(&context, *f); !s)
        return s.takeError();
  return Error::success();
}

/// The grid's size before its points are made, and no value twice (two
/// points with one identity).
Error checkSize(const SweepGrid &g) {
  CheckedInt size = 1;
  std::string shape;
  for (const auto &[axis, values] : g.axes()) {
    size *= static_cast<int64_t>(std::max<size_t>(1, values.size()));
    if (values.size() > 1)
      shape += formatv("{0}{1} {2}", shape.empty() ? "" : " x ", axis,
                       values.size());
  }
  if (size.overflowed() || size.value() > kMaxSweepPoints)
    return makeError(formatv("the grid has {0} points ({1}); a sweep runs at "
                             "most {2} (narrow an axis, or split the grid "
                             "into several sweeps)",
                             size.overflowed() ? std::string("over 2^63")
                                               : std::to_string(size.value()),
                             shape, kMaxSweepPoints));
  for (const auto &[axis, values] : g.axes()) {
    std::set<std::string> seen;
    for (const std::string &v : values)
      if (!seen.insert(v).second)
        return makeError(formatv("--{0}: '{1}' is given twice", axis, v));
  }
  return Error::success();
}

} // namespace

llvm::Expected<SweepGrid> SweepGrid::parse(const SweepOptions &o) {
  SweepGrid g;
  // Every axis but the chip parameters, by its traits.
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, FLAG, PRESENCE,     \
                            ...)                                               \
  if (Error e =                                                                \
          readAxis<TRAITS>(o.VALUES, FLAG, AxisPresence::PRESENCE, g.VALUES))  \
    return std::move(e);
#include "snapflow/Driver/SweepAxes.def"
  auto setAxes = readChipSets(o.sets, g.sets);
  if (!setAxes)
    return setAxes.takeError();
  if (Error e = checkResolvable(g, *setAxes))
    return std::move(e);
  if (g.models.empty() || g.chips.empty() || g.contexts.empty() ||
      g.batches.empty() || g.kv.empty())
    return makeError("sweep needs at least one --model, --chip, --context, "
                     "--batch and --kv");
  if (Error e = checkSize(g))
    return std::move(e);
  return g;
}
