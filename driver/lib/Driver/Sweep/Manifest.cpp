//===- Manifest.cpp - A sweep folder's record of itself -------------------===//
//
// DIR/sweep.json: the grid (each axis of SweepAxes.def under its column),
// the steps, prefill and shard, the build and the fingerprint of every chip
// and model; and whether a sweep may continue in a folder (checkContinuation).
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/Output.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <type_traits>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

namespace {
/// An axis value in sweep.json: numbers stay numbers.
template <class Traits>
llvm::json::Value jsonOf(const typename Traits::type &v) {
  if constexpr (std::is_same_v<typename Traits::type, int64_t>)
    return v;
  else
    return Traits::print(v);
}

/// A value of sweep.json read by its axis's rule.
template <class Traits>
std::optional<typename Traits::type> parseValue(llvm::StringRef text) {
  if constexpr (std::is_same_v<Traits, ChipSetAxis>) {
    return ChipSets{text.str()};
  } else {
    auto v = Traits::parse(text, "");
    if (!v) {
      llvm::consumeError(v.takeError());
      return std::nullopt;
    }
    return std::move(*v);
  }
}

/// The grid as sweep.json holds it: each axis's values under its column,
/// token counts and TP degrees as numbers, the rest as their text.
llvm::json::Object gridJson(const SweepGrid &grid) {
  llvm::json::Object out;
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, ...)                \
  {                                                                            \
    llvm::json::Array a;                                                       \
    for (const auto &v : grid.VALUES)                                          \
      a.push_back(jsonOf<TRAITS>(v));                                          \
    out[COLUMN] = std::move(a);                                                \
  }
#include "snapflow/Driver/SweepAxes.def"
  return out;
}

/// Reads an axis's values back; false when one is malformed.
template <class Traits>
bool readValues(const llvm::json::Array &a,
                std::vector<typename Traits::type> &out) {
  for (const llvm::json::Value &v : a) {
    if constexpr (std::is_same_v<typename Traits::type, int64_t>) {
      auto n = v.getAsInteger();
      if (!n)
        return false;
      out.push_back(*n);
    } else {
      auto s = v.getAsString();
      if (!s)
        return false;
      if (Traits::print(Traits::initial()) == *s) {
        out.push_back(Traits::initial()); // an axis left at its default
        continue;
      }
      auto parsed = parseValue<Traits>(*s);
      if (!parsed)
        return false;
      out.push_back(std::move(*parsed));
    }
  }
  return true;
}
llvm::json::Object toObject(const std::map<std::string, std::string> &m) {
  llvm::json::Object o;
  for (const auto &[k, v] : m)
    o[k] = v;
  return o;
}
} // namespace

llvm::json::Value SweepManifest::toJSON() const {
  return llvm::json::Object{
      {"snapflow", build},
      {"steps", steps},
      {"prefill", prefill},
      {"serve", serve ? llvm::json::Value(*serve) : llvm::json::Value(nullptr)},
      {"shard",
       llvm::json::Object{{"index", shardIndex}, {"count", shardCount}}},
      {"grid", gridJson(grid)},
      {"fingerprints", llvm::json::Object{{"chips", toObject(chips)},
                                          {"models", toObject(models)}}},
  };
}

llvm::Expected<SweepManifest> SweepManifest::read(StringRef path) {
  auto buffer = readInput(path, kConfigFileLimit, "a sweep manifest");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  auto value = parseJson((*buffer)->getBuffer(), path);
  if (!value)
    return value.takeError();
  SweepManifest m;
  llvm::json::Path::Root root;
  llvm::json::ObjectMapper map(*value, root);
  auto stringMap = [&](const llvm::json::Object *o,
                       std::map<std::string, std::string> &out) {
    if (!o)
      return false;
    for (const auto &kv : *o) {
      auto s = kv.second.getAsString();
      if (!s)
        return false;
      out[kv.first.str()] = s->str();
    }
    return true;
  };
  const llvm::json::Object *top = value->getAsObject();
  if (!top)
    return makeError(path + ": expected a JSON object");
  auto bad = [&](StringRef key) {
    return makeError(path + ": '" + key +
                     "' is missing or malformed; this folder was not made by "
                     "snapflow sweep, or was edited");
  };
  if (auto b = top->getString("snapflow"))
    m.build = b->str();
  else
    return bad("snapflow");
  if (auto s = top->getInteger("steps"))
    m.steps = *s;
  else
    return bad("steps");
  // Absent in the manifests of sweeps before --prefill: decode only.
  if (const llvm::json::Value *v = top->get("prefill")) {
    if (!v->getAsBoolean())
      return bad("prefill");
    m.prefill = *v->getAsBoolean();
  }
  // Absent or null: a decode sweep.
  if (const llvm::json::Value *v = top->get("serve");
      v && v->kind() != llvm::json::Value::Null) {
    if (!v->getAsString())
      return bad("serve");
    m.serve = v->getAsString()->str();
  }
  const llvm::json::Object *shard = top->getObject("shard");
  if (!shard || !shard->getInteger("index") || !shard->getInteger("count"))
    return bad("shard");
  m.shardIndex = *shard->getInteger("index");
  m.shardCount = *shard->getInteger("count");
  const llvm::json::Object *grid = top->getObject("grid");
  if (!grid)
    return bad("grid");
  // Each axis under its column; an axis added later is absent from the
  // manifests of sweeps before it, which swept its default.
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, FLAG, PRESENCE,     \
                            ...)                                               \
  if (const llvm::json::Array *a = grid->getArray(COLUMN)) {                   \
    if (!readValues<TRAITS>(*a, m.grid.VALUES))                                \
      return bad(std::string("grid.") + COLUMN);                               \
  } else if (AxisPresence::PRESENCE == AxisPresence::Later) {                  \
    m.grid.VALUES.push_back(TRAITS::initial());                                \
  } else {                                                                     \
    return bad(std::string("grid.") + COLUMN);                                 \
  }
#include "snapflow/Driver/SweepAxes.def"
  const llvm::json::Object *fp = top->getObject("fingerprints");
  if (!fp || !stringMap(fp->getObject("chips"), m.chips))
    return bad("fingerprints.chips");
  if (!stringMap(fp->getObject("models"), m.models))
    return bad("fingerprints.models");
  (void)map;
  return m;
}

Error SweepManifest::write(StringRef path) const {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << formatv("{0:2}", toJSON()) << "\n";
    return Error::success();
  });
}

Error snapflow::driver::checkContinuation(const SweepManifest &old,
                                          const SweepManifest &now,
                                          bool extend) {
  std::string how = extend ? "--extend" : "--resume";
  if (old.build != now.build)
    return makeError(formatv(
        "{0}: the sweep was run by snapflow {1}, this is {2}; rows of two "
        "builds would mix two models of the chip. Start a new directory",
        how, old.build, now.build));
  if (old.steps != now.steps)
    return makeError(formatv("{0}: the sweep ran --steps {1}, not {2}", how,
                             old.steps, now.steps));
  if (old.prefill != now.prefill)
    return makeError(formatv("{0}: the sweep ran {1} --prefill", how,
                             old.prefill ? "with" : "without"));
  if (old.serve != now.serve)
    return makeError(formatv("{0}: the sweep {1}, not {2}", how,
                             old.serve ? "served with '" + *old.serve + "'"
                                       : std::string("ran decode steps"),
                             now.serve ? "serving with '" + *now.serve + "'"
                                       : std::string("decode steps")));
  if (old.shardIndex != now.shardIndex || old.shardCount != now.shardCount)
    return makeError(formatv("{0}: the directory holds shard {1}/{2}, not "
                             "{3}/{4}",
                             how, old.shardIndex, old.shardCount,
                             now.shardIndex, now.shardCount));
  if (extend && now.shardCount > 1)
    return makeError("--extend with --shard: a larger grid numbers its "
                     "points anew, so the shards would no longer split it; "
                     "extend an unsharded sweep, or start new shard "
                     "directories");
  for (const auto &[name, print] : old.chips) {
    auto it = now.chips.find(name);
    if (it != now.chips.end() && it->second != print)
      return makeError(formatv("{0}: chip '{1}' changed since the sweep ran "
                               "(fingerprint {2}, now {3}); its rows would "
                               "describe another chip. Start a new directory",
                               how, name, print, it->second));
  }
  for (const auto &[name, print] : old.models) {
    auto it = now.models.find(name);
    if (it != now.models.end() && it->second != print)
      return makeError(formatv("{0}: model '{1}' changed since the sweep ran "
                               "(fingerprint {2}, now {3}). Start a new "
                               "directory",
                               how, name, print, it->second));
  }
  auto oldAxes = old.grid.axes(), nowAxes = now.grid.axes();
  for (const auto &[axis, values] : oldAxes) {
    const std::vector<std::string> &mine = nowAxes[axis];
    if (values == mine)
      continue;
    std::vector<std::string> dropped;
    for (const std::string &v : values)
      if (!llvm::is_contained(mine, v))
        dropped.push_back(v);
    std::string was = describeValues(values), is = describeValues(mine);
    if (!extend)
      return makeError(formatv(
          "--resume: the grid differs in --{0} (the sweep has {1}, this "
          "command {2}). Rerun with the sweep's values, or use --extend to "
          "add values and run exactly the missing points",
          flagOf(axis), was, is));
    if (!dropped.empty())
      return makeError(formatv(
          "--extend: --{0} drops {1} (the sweep has {2}, this command {3}); "
          "an extended grid keeps every value the sweep ran",
          flagOf(axis), describeValues(dropped), was, is));
  }
  return Error::success();
}
