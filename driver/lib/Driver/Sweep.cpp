//===- Sweep.cpp - Design-space sweeps -----------------------------------===//
//
// The grid and its manifest, continuing a sweep (resume, extend), the rows
// of results.csv, the points run by forked children, and merging shards.
// See Sweep.h for the guarantees.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Sweep.h"

#include "PointRunner.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Simulate.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Sim/Core/ProgramIO.h"
#include "snapflow/Sim/Stats/ReportSchema.h"
#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Version.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <sys/wait.h>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

namespace {

/// Input columns of a row, in CSV order (the grid's axes after `index`).
const char *const kInputColumns[] = {"index",     "model",
                                     "chip",      "context",
                                     "batch",     "kv",
                                     "kv_format", "cla",
                                     "tp",        "weights_dtype",
                                     "mla_cache", "moe",
                                     "mtp",       "mtp_acceptance",
                                     "allow_ddr", "set"};
constexpr size_t kStatusColumn = std::size(kInputColumns);
constexpr size_t kReasonColumn = kStatusColumn + 1;

/// Splits a comma list; for KV policies a `key=value` item continues the
/// policy before it (`full,snapstream:budget=8,sinks=4` is two policies).
std::vector<std::string> splitList(StringRef text, bool policies) {
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> out;
  for (StringRef p : parts) {
    p = p.trim();
    if (policies && !out.empty() && p.contains('=') && !p.contains(':'))
      out.back() += "," + p.str();
    else
      out.push_back(p.str());
  }
  return out;
}

/// "KEY=V;KEY=V" -> its assignments.
std::vector<std::string> splitSet(StringRef set) {
  llvm::SmallVector<StringRef> parts;
  set.split(parts, ';', -1, /*KeepEmpty=*/false);
  return std::vector<std::string>(parts.begin(), parts.end());
}

/// The flag of a CSV axis column ("weights_dtype" -> "weights-dtype").
std::string flagOf(StringRef axis) {
  std::string flag = axis.str();
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

/// A point's identity as one map key.
std::string identityKey(llvm::ArrayRef<std::string> inputsWithoutIndex) {
  return llvm::join(inputsWithoutIndex, "\x1f");
}

/// The value at a dotted key of a report, as CSV text.
std::string lookup(const llvm::json::Object &report, StringRef key) {
  auto [head, rest] = key.split('.');
  const llvm::json::Value *v = report.get(head);
  if (!v)
    return "";
  if (!rest.empty()) {
    const llvm::json::Object *o = v->getAsObject();
    return o ? lookup(*o, rest) : "";
  }
  if (v->kind() == llvm::json::Value::Null)
    return "";
  if (auto s = v->getAsString())
    return s->str();
  if (auto i = v->getAsInteger())
    return std::to_string(*i);
  if (auto d = v->getAsNumber())
    return csv::number(*d);
  if (auto b = v->getAsBoolean())
    return *b ? "true" : "false";
  return "";
}

std::string csvLine(llvm::ArrayRef<std::string> fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i)
    line += (i ? "," : "") + csv::field(fields[i]);
  return line;
}

Error writeRows(StringRef path,
                const std::vector<std::vector<std::string>> &rows) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << csvLine(sweepColumns()) << "\n";
    for (const auto &r : rows)
      os << csvLine(r) << "\n";
    return Error::success();
  });
}

std::string pathIn(StringRef dir, StringRef name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

std::string describeValues(const std::vector<std::string> &values) {
  std::vector<std::string> shown;
  for (const std::string &v : values)
    shown.push_back(v.empty() ? "(default)" : v);
  return llvm::join(shown, ",");
}

} // namespace

//===----------------------------------------------------------------------===//
// Points and grids
//===----------------------------------------------------------------------===//

std::vector<std::string> SweepPoint::identity() const {
  return {model,    chip, std::to_string(context), batch,    kv,
          kvFormat, cla,  std::to_string(tp),      dtype,    mlaCache,
          moe,      mtp,  mtpAcceptance,           allowDdr, set};
}

std::vector<std::string> SweepPoint::inputs() const {
  std::vector<std::string> out = {std::to_string(index)};
  for (std::string &s : identity())
    out.push_back(std::move(s));
  return out;
}

llvm::Expected<SweepGrid> SweepGrid::parse(const SweepOptions &o) {
  SweepGrid g;
  g.models = splitList(o.models, false);
  g.chips = splitList(o.chips, false);
  g.batches = splitList(o.batches, false);
  g.kv = splitList(o.kv, true);
  // A format's key=value items belong to it, as a policy's do.
  g.kvFormats = splitList(o.kvFormats, true);
  g.clas = splitList(o.clas, false);
  g.dtypes = splitList(o.weightsDtypes, false);
  for (const std::string &c : splitList(o.contexts, false)) {
    auto n = parseTokens(c);
    if (!n)
      return n.takeError();
    g.contexts.push_back(*n);
  }
  for (const std::string &t : splitList(o.tps, false)) {
    int64_t n;
    if (StringRef(t).getAsInteger(10, n) || n < 1)
      return makeError("--tp: expected positive numbers, got '" + t + "'");
    g.tps.push_back(n);
  }
  g.mlaCaches = splitList(o.mlaCaches, false);
  g.moes = splitList(o.moes, false);
  g.mtps = splitList(o.mtps, false);
  g.mtpAcceptances = splitList(o.mtpAcceptances, false);
  g.allowDdrs = splitList(o.allowDdrs, false);
  auto check = [](const std::vector<std::string> &values, StringRef flag,
                  llvm::function_ref<bool(StringRef)> ok,
                  StringRef expected) -> Error {
    for (const std::string &v : values)
      if (!ok(v))
        return makeError(
            formatv("--{0}: expected {1}, got '{2}'", flag, expected, v));
    return Error::success();
  };
  if (Error e = check(
          g.mlaCaches, "mla-cache",
          [](StringRef v) {
            return v == "replicate" || v == "sequence" || v == "batch";
          },
          "replicate, sequence or batch"))
    return std::move(e);
  if (Error e = check(
          g.moes, "moe",
          [](StringRef v) { return v == "expert" || v == "split"; },
          "expert or split"))
    return std::move(e);
  if (Error e = check(
          g.mtps, "mtp",
          [](StringRef v) {
            int64_t n;
            return !v.getAsInteger(10, n) && n >= 0 &&
                   n <= models::BuildOptions::kMaxMtpDepth;
          },
          formatv("draft depths in [0, {0}]",
                  models::BuildOptions::kMaxMtpDepth)
              .str()))
    return std::move(e);
  if (Error e = check(
          g.mtpAcceptances, "mtp-acceptance",
          [](StringRef v) {
            double p;
            return !v.getAsDouble(p) && p >= 0 && p <= 1;
          },
          "probabilities in [0, 1]"))
    return std::move(e);
  if (Error e = check(
          g.allowDdrs, "allow-ddr",
          [](StringRef v) { return v == "true" || v == "false"; },
          "true or false"))
    return std::move(e);
  // --set KEY=V1,V2: one axis per flag; the grid takes their product,
  // counted before it is built (eight axes of ten values were 1e8 strings
  // and an out-of-memory abort, R03).
  std::vector<std::pair<std::string, std::vector<std::string>>> setAxes;
  CheckedInt combinations = 1;
  for (const std::string &axis : o.sets) {
    auto [key, list] = StringRef(axis).split('=');
    key = key.trim();
    if (key.empty() || !StringRef(axis).contains('='))
      return makeError("--set: expected KEY=VALUE[,VALUE...] such as "
                       "system.link_latency_ns=500,1000, got '" +
                       axis + "'");
    std::vector<std::string> values = splitList(list, false);
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
  g.sets = {""};
  for (const auto &[key, values] : setAxes) {
    std::vector<std::string> product;
    for (const std::string &prefix : g.sets)
      for (const std::string &v : values)
        product.push_back((prefix.empty() ? "" : prefix + ";") + key + "=" + v);
    g.sets = std::move(product);
  }
  if (Error e = check(
          g.clas, "cla",
          [](StringRef v) {
            int64_t n;
            return !v.getAsInteger(10, n) && n >= 1;
          },
          "share factors >= 1 (1: no sharing)"))
    return std::move(e);
  for (std::vector<std::string> *axis :
       {&g.kvFormats, &g.clas, &g.dtypes, &g.mlaCaches, &g.moes, &g.mtps,
        &g.mtpAcceptances, &g.allowDdrs})
    if (axis->empty())
      axis->push_back("");
  if (g.tps.empty())
    g.tps.push_back(0);
  for (const std::string &m : g.models) {
    auto c = models::ModelConfig::load(m);
    if (!c)
      return c.takeError();
    // Every share factor, checked against every model's layers.
    for (const std::string &s : g.clas) {
      int64_t n;
      if (!s.empty() && !StringRef(s).getAsInteger(10, n))
        if (Error e = c->setClaShareFactor(n, "--cla"))
          return std::move(e);
    }
  }
  for (const std::string &c : g.chips) {
    auto a = arch::ArchModel::load(c);
    if (!a)
      return a.takeError();
    // Every chip parameter value, checked by its rule on every chip (one
    // at a time: no rule relates two keys).
    for (const auto &[key, values] : setAxes)
      for (const std::string &v : values)
        if (auto changed = a->withOverrides({key + "=" + v}, "--set"); !changed)
          return changed.takeError();
  }
  {
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    for (const std::string &p : g.kv)
      if (auto s = kv::parsePolicy(&context, p); !s)
        return s.takeError();
    for (const std::string &f : g.kvFormats)
      if (!f.empty())
        if (auto s = kv::parseFormat(&context, f); !s)
          return s.takeError();
  }
  for (const std::string &b : g.batches) {
    int64_t n;
    if (b != "max" &&
        (StringRef(b).getAsInteger(10, n) || n <= 0 || n > models::kMaxBatch))
      return makeError(formatv("--batch: expected numbers in [1, {0}] or "
                               "max, got '{1}'",
                               models::kMaxBatch, b));
  }
  for (const std::string &d : g.dtypes)
    if (!d.empty() && d != "bf16" && d != "fp8")
      return makeError("--weights-dtype: expected bf16 or fp8, got '" + d +
                       "'");
  if (g.models.empty() || g.chips.empty() || g.contexts.empty() ||
      g.batches.empty() || g.kv.empty())
    return makeError("sweep needs at least one --model, --chip, --context, "
                     "--batch and --kv");
  // The grid's size, before its points are made.
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
  // A value twice would make two points with one identity.
  for (const auto &[axis, values] : g.axes()) {
    std::set<std::string> seen;
    for (const std::string &v : values)
      if (!seen.insert(v).second)
        return makeError(formatv("--{0}: '{1}' is given twice", axis, v));
  }
  return g;
}

std::vector<SweepPoint> SweepGrid::points() const {
  std::vector<SweepPoint> grid;
  for (const std::string &m : models)
    for (const std::string &c : chips)
      for (int64_t ctx : contexts)
        for (const std::string &b : batches)
          for (const std::string &p : kv)
            for (const std::string &format : kvFormats)
              for (const std::string &cla : clas)
                for (int64_t tp : tps)
                  for (const std::string &d : dtypes)
                    for (const std::string &mla : mlaCaches)
                      for (const std::string &moe : moes)
                        for (const std::string &mtp : mtps)
                          for (const std::string &acceptance : mtpAcceptances)
                            for (const std::string &ddr : allowDdrs)
                              for (const std::string &set : sets) {
                                SweepPoint pt;
                                pt.index = static_cast<int64_t>(grid.size());
                                pt.model = m;
                                pt.chip = c;
                                pt.context = ctx;
                                pt.batch = b;
                                pt.kv = p;
                                pt.kvFormat = format;
                                pt.cla = cla;
                                pt.tp = tp;
                                pt.dtype = d;
                                pt.mlaCache = mla;
                                pt.moe = moe;
                                pt.mtp = mtp;
                                pt.mtpAcceptance = acceptance;
                                pt.allowDdr = ddr;
                                pt.set = set;
                                grid.push_back(std::move(pt));
                              }
  return grid;
}

std::map<std::string, std::vector<std::string>> SweepGrid::axes() const {
  std::map<std::string, std::vector<std::string>> out;
  out["model"] = models;
  out["chip"] = chips;
  for (int64_t c : contexts)
    out["context"].push_back(std::to_string(c));
  out["batch"] = batches;
  out["kv"] = kv;
  out["kv_format"] = kvFormats;
  out["cla"] = clas;
  for (int64_t t : tps)
    out["tp"].push_back(std::to_string(t));
  out["weights_dtype"] = dtypes;
  out["mla_cache"] = mlaCaches;
  out["moe"] = moes;
  out["mtp"] = mtps;
  out["mtp_acceptance"] = mtpAcceptances;
  out["allow_ddr"] = allowDdrs;
  out["set"] = sets;
  return out;
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

namespace {
llvm::json::Array toArray(const std::vector<std::string> &v) {
  llvm::json::Array a;
  for (const std::string &s : v)
    a.push_back(s);
  return a;
}
llvm::json::Array toArray(const std::vector<int64_t> &v) {
  llvm::json::Array a;
  for (int64_t n : v)
    a.push_back(n);
  return a;
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
      {"shard",
       llvm::json::Object{{"index", shardIndex}, {"count", shardCount}}},
      {"grid",
       llvm::json::Object{{"model", toArray(grid.models)},
                          {"chip", toArray(grid.chips)},
                          {"context", toArray(grid.contexts)},
                          {"batch", toArray(grid.batches)},
                          {"kv", toArray(grid.kv)},
                          {"kv_format", toArray(grid.kvFormats)},
                          {"cla", toArray(grid.clas)},
                          {"tp", toArray(grid.tps)},
                          {"weights_dtype", toArray(grid.dtypes)},
                          {"mla_cache", toArray(grid.mlaCaches)},
                          {"moe", toArray(grid.moes)},
                          {"mtp", toArray(grid.mtps)},
                          {"mtp_acceptance", toArray(grid.mtpAcceptances)},
                          {"allow_ddr", toArray(grid.allowDdrs)},
                          {"set", toArray(grid.sets)}}},
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
  auto strings = [&](const llvm::json::Object &o, StringRef key,
                     std::vector<std::string> &out) {
    const llvm::json::Array *a = o.getArray(key);
    if (!a)
      return false;
    for (const llvm::json::Value &v : *a) {
      auto s = v.getAsString();
      if (!s)
        return false;
      out.push_back(s->str());
    }
    return true;
  };
  auto numbers = [&](const llvm::json::Object &o, StringRef key,
                     std::vector<int64_t> &out) {
    const llvm::json::Array *a = o.getArray(key);
    if (!a)
      return false;
    for (const llvm::json::Value &v : *a) {
      auto n = v.getAsInteger();
      if (!n)
        return false;
      out.push_back(*n);
    }
    return true;
  };
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
  const llvm::json::Object *shard = top->getObject("shard");
  if (!shard || !shard->getInteger("index") || !shard->getInteger("count"))
    return bad("shard");
  m.shardIndex = *shard->getInteger("index");
  m.shardCount = *shard->getInteger("count");
  const llvm::json::Object *grid = top->getObject("grid");
  if (!grid)
    return bad("grid");
  if (!strings(*grid, "model", m.grid.models))
    return bad("grid.model");
  if (!strings(*grid, "chip", m.grid.chips))
    return bad("grid.chip");
  if (!numbers(*grid, "context", m.grid.contexts))
    return bad("grid.context");
  if (!strings(*grid, "batch", m.grid.batches))
    return bad("grid.batch");
  if (!strings(*grid, "kv", m.grid.kv))
    return bad("grid.kv");
  // Axes added later: a manifest without them swept the default.
  for (auto [key, axis] : {std::pair{"kv_format", &m.grid.kvFormats},
                           std::pair{"cla", &m.grid.clas}}) {
    if (!grid->get(key))
      axis->push_back("");
    else if (!strings(*grid, key, *axis))
      return bad(std::string("grid.") + key);
  }
  if (!numbers(*grid, "tp", m.grid.tps))
    return bad("grid.tp");
  if (!strings(*grid, "weights_dtype", m.grid.dtypes))
    return bad("grid.weights_dtype");
  for (auto [key, axis] :
       {std::pair{"mla_cache", &m.grid.mlaCaches},
        std::pair{"moe", &m.grid.moes}, std::pair{"mtp", &m.grid.mtps},
        std::pair{"mtp_acceptance", &m.grid.mtpAcceptances},
        std::pair{"allow_ddr", &m.grid.allowDdrs},
        std::pair{"set", &m.grid.sets}})
    if (!strings(*grid, key, *axis))
      return bad(std::string("grid.") + key);
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

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

const std::vector<std::string> &snapflow::driver::sweepColumns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c(std::begin(kInputColumns),
                               std::end(kInputColumns));
    c.push_back("status");
    c.push_back("reason");
    for (const sim::ReportKey &k : sim::reportSchema())
      if (k.presence == sim::ReportPresence::Always && !k.list)
        c.push_back(std::string("report.") + k.key);
    c.push_back("accuracy.loss_pct");
    c.push_back("accuracy.reference");
    return c;
  }();
  return columns;
}

llvm::Expected<std::map<std::string, std::vector<std::string>>>
snapflow::driver::readSweepRows(StringRef path) {
  std::map<std::string, std::vector<std::string>> rows;
  if (!llvm::sys::fs::exists(path))
    return rows; // no file yet
  auto buffer = readInput(path, kDataFileLimit, "a sweep's rows");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  StringRef text = (*buffer)->getBuffer();
  std::string header = csvLine(sweepColumns());
  size_t columns = sweepColumns().size();
  bool first = true;
  int line = 0;
  // A file a spreadsheet saved back (a byte order mark, CRLF line ends)
  // holds the same rows; it was "not this snapflow's" (R19). The sweep
  // writes it back in its own form when the grid completes.
  text.consume_front("\xEF\xBB\xBF");
  while (!text.empty()) {
    size_t eol = text.find('\n');
    if (eol == StringRef::npos)
      break; // unterminated: written when the sweep was killed
    StringRef l = text.take_front(eol);
    l.consume_back("\r");
    text = text.drop_front(eol + 1);
    ++line;
    if (first) {
      if (l != header)
        return makeError(path + ":1: its columns are not this snapflow's; "
                                "start a new sweep directory");
      first = false;
      continue;
    }
    std::vector<std::string> cols = csv::split(l);
    int64_t index;
    if (cols.size() != columns || StringRef(cols[0]).getAsInteger(10, index))
      return makeError(formatv("{0}:{1}: a malformed row ({2} fields, "
                               "expected {3}); was the file edited?",
                               path, line, cols.size(), columns));
    std::string key = identityKey(
        llvm::ArrayRef(cols).slice(1, std::size(kInputColumns) - 1));
    if (!rows.emplace(key, std::move(cols)).second)
      return makeError(formatv("{0}:{1}: the point of this row is already "
                               "on an earlier line",
                               path, line));
  }
  return rows;
}

//===----------------------------------------------------------------------===//
// Running points
//===----------------------------------------------------------------------===//

namespace {

/// The workload options of a point (its batch set when it runs).
WorkloadOptions pointWorkload(const SweepPoint &p) {
  WorkloadOptions o;
  o.model = p.model;
  o.chip = p.chip;
  o.context = p.context;
  o.batch = 1; // set per point
  o.kv = p.kv;
  if (!p.kvFormat.empty())
    o.kvFormat = p.kvFormat;
  if (!p.cla.empty())
    StringRef(p.cla).getAsInteger(10, o.cla); // checked by the grid
  o.tp = p.tp;
  o.weightsDtype = p.dtype;
  o.set = splitSet(p.set);
  return o;
}

/// A point's inputs but its batch: the points that share a workload.
std::vector<std::string> workloadKey(const SweepPoint &p) {
  std::vector<std::string> id = p.identity();
  id.erase(id.begin() + 3); // the batch
  return id;
}

/// Every point's inputs checked as `snapflow run` checks them (a context
/// past the model's positions, a KV budget past the context, a TP the
/// heads do not divide), before anything is written: the first point that
/// could not run is named with the reason. What only compiling finds (a
/// point that does not fit) is the point's row, `failed`.
Error checkPoints(const std::vector<SweepPoint> &points) {
  // Each workload's resolved identity: the model and chip by fingerprint,
  // the policy and format by their labels, so two spellings of one point
  // (a model by name and by path, kivi2 and kivi:bits=2) are found; they
  // made two rows of one point (R23).
  std::map<std::string, std::vector<std::string>> resolved;
  std::map<std::string, const SweepPoint *> seen;
  for (const SweepPoint &p : points) {
    std::string key = identityKey(workloadKey(p));
    auto it = resolved.find(key);
    if (it == resolved.end()) {
      auto w = resolveWorkload(pointWorkload(p), /*needChip=*/true);
      if (!w)
        return makeError(formatv("point {0} ({1} {2} context {3} --kv {4}): "
                                 "{5}",
                                 p.index, p.model, p.chip, p.context, p.kv,
                                 llvm::toString(w.takeError())));
      it = resolved
               .emplace(key,
                        std::vector<std::string>{
                            w->config.fingerprint(), w->chip.fingerprint(),
                            std::to_string(p.context), w->kvLabel,
                            w->kvFormatLabel, p.cla, std::to_string(w->tp),
                            weightsDtypeLabel(*w), p.mlaCache, p.moe, p.mtp,
                            p.mtpAcceptance, p.allowDdr})
               .first;
    }
    std::vector<std::string> id = it->second;
    id.push_back(p.batch);
    auto [first, fresh] = seen.emplace(identityKey(id), &p);
    if (!fresh) {
      const SweepPoint &q = *first->second;
      return makeError(formatv(
          "points {0} and {1} are one point spelled two ways ({2}); give "
          "each value once",
          q.index, p.index,
          q.model != p.model
              ? "--model " + q.model + " and " + p.model + " are one config"
          : q.chip != p.chip
              ? "--chip " + q.chip + " and " + p.chip + " are one chip"
          : q.kv != p.kv ? "--kv " + q.kv + " and " + p.kv + " resolve alike"
          : q.kvFormat != p.kvFormat
              ? "--kv-format " + q.kvFormat + " and " + p.kvFormat +
                    " are one format"
              : std::string("their settings resolve alike")));
    }
  }
  return Error::success();
}

/// Everything compiled once and shared by the points of a sweep.
class PointPreparer {
public:
  // The IR is verified once, after the last pass (not after each).
  PointPreparer() { compile.verifyEachPass = false; }

  /// Resolves and compiles a point's decode program, serialized for its
  /// process; its errors are the point's (ProgramFailure: failed).
  /// A point's programs, serialized: decode, and (with --prefill) the
  /// prefill of one context-long prompt, or "" when it does not fit (the
  /// row then has no TTFT, as `run` says).
  struct Prepared {
    std::string decode, prefill;
  };
  llvm::Expected<Prepared> prepare(const SweepPoint &p, bool withPrefill) {
    WorkloadOptions o = options(p);
    auto w = workload(p, o);
    if (!w)
      return w.takeError();
    int64_t batch = 0;
    if (p.batch == "max") {
      std::string key = identityKey(workloadKey(p));
      auto it = maxBatches.find(key);
      if (it == maxBatches.end()) {
        auto largest = findMaxBatch(context, **w, o, compileOptions(p));
        if (!largest)
          return largest.takeError();
        it = maxBatches.emplace(key, *largest).first;
      }
      batch = it->second;
    } else {
      StringRef(p.batch).getAsInteger(10, batch); // checked by the grid
    }
    o.batch = batch;
    auto program = compileProgram(context, **w, o, compileOptions(p), batch,
                                  /*prefill=*/false);
    if (!program)
      return program.takeError();
    Prepared out{sim::serializeProgram(*program), {}};
    if (withPrefill) {
      auto pre = compileProgram(context, **w, o, compileOptions(p), 1,
                                /*prefill=*/true);
      if (pre)
        out.prefill = sim::serializeProgram(*pre);
      else if (Error e = llvm::handleErrors(pre.takeError(),
                                            [](const ProgramFailure &) {}))
        return std::move(e);
    }
    return out;
  }

private:
  static WorkloadOptions options(const SweepPoint &p) {
    return pointWorkload(p);
  }
  /// The compiler options of a point: the sweep's, with its axes' values.
  CompileOptions compileOptions(const SweepPoint &p) const {
    CompileOptions c = compile;
    if (!p.mlaCache.empty())
      c.pipeline.mlaCache = p.mlaCache;
    if (!p.moe.empty())
      c.pipeline.moe = p.moe;
    if (!p.allowDdr.empty())
      c.pipeline.allowDdr = p.allowDdr == "true";
    if (!p.mtp.empty())
      StringRef(p.mtp).getAsInteger(10, c.mtp); // checked by the grid
    if (!p.mtpAcceptance.empty())
      StringRef(p.mtpAcceptance).getAsDouble(c.mtpAcceptance);
    return c;
  }
  llvm::Expected<const Workload *> workload(const SweepPoint &p,
                                            const WorkloadOptions &o) {
    std::string key = identityKey(workloadKey(p));
    auto it = workloads.find(key);
    if (it == workloads.end()) {
      auto w = resolveWorkload(o, /*needChip=*/true);
      if (!w)
        return w.takeError();
      it = workloads.emplace(key, std::move(*w)).first;
    }
    return &it->second;
  }

  CompileOptions compile;
  // One thread: points compile one at a time while the others simulate.
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  std::map<std::string, Workload> workloads;
  std::map<std::string, int64_t> maxBatches;
};

/// A point being simulated.
struct Running {
  SweepPoint point;
  std::string report, err;
};

/// A row of results.csv for a finished point.
/// The published accuracy effect of a point's KV policy and format, quoted
/// (never simulated): of the published rows of the policy at the share of
/// the KV the point removes (a row's "25% removed" or "4x"; a row given as
/// a budget in tokens names no share and is not matched) and of the
/// format at the point's bits ("2 bits"), the largest loss relative to its
/// uncompressed score, in percent, and that row with its source. Empty and
/// "uncompressed" for full KV in bf16; empty and "no published row ..."
/// when nothing matches.
std::pair<std::string, std::string>
publishedAccuracy(const SweepPoint &p, const llvm::json::Object &report) {
  static mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  static std::map<std::string, int64_t> perPosition; // model -> tokens
  std::string label = report.getString("kv").value_or("").str();
  std::string format = report.getString("kv_format").value_or("").str();
  auto contextTokens = report.getInteger("context_tokens");
  if (label.empty() || !contextTokens)
    return {"", ""};
  auto per = perPosition.find(p.model);
  if (per == perPosition.end()) {
    auto c = models::ModelConfig::load(p.model);
    int64_t tokens = c ? c->tokensPerCachePosition() : 1;
    if (!c)
      llvm::consumeError(c.takeError());
    per = perPosition.emplace(p.model, tokens).first;
  }
  int64_t positions = (*contextTokens + per->second - 1) / per->second;
  auto policy = kv::parsePolicy(&context, label);
  if (!policy) {
    llvm::consumeError(policy.takeError());
    return {"", ""};
  }
  double kept = std::min(1.0, double(policy->getSlotsFor(positions)) /
                                  double(std::max<int64_t>(1, positions)));
  double removed = 100 * (1 - kept);
  // The share a row's setting names, in percent removed.
  auto shareOf = [](StringRef setting) -> std::optional<double> {
    llvm::SmallVector<StringRef> words;
    setting.split(words, ' ', -1, false);
    for (size_t i = 0; i < words.size(); ++i) {
      StringRef w = words[i].rtrim(',');
      double v;
      if (w.ends_with("%") && !w.drop_back().getAsDouble(v) &&
          i + 1 < words.size() && words[i + 1].starts_with("removed"))
        return v;
      if (w.ends_with("x") && !w.drop_back().getAsDouble(v) && v >= 1)
        return 100 * (1 - 1 / v);
    }
    return std::nullopt;
  };
  const kv::PublishedAccuracy *worst = nullptr;
  double worstLoss = 0;
  auto consider = [&](const kv::PublishedAccuracy &r) {
    double loss = r.full > 0 ? 100 * (r.full - r.score) / r.full : 0;
    if (!worst || loss > worstLoss)
      worst = &r, worstLoss = loss;
  };
  bool compressing = policy->isCompressing() && removed > 0.5;
  const kv::PublishedAccuracy *policyRow = nullptr, *formatRow = nullptr;
  if (compressing)
    for (const kv::PublishedAccuracy &r : policy->getPublishedAccuracy())
      if (auto share = shareOf(r.setting);
          share && std::abs(*share - removed) < 1) {
        consider(r);
        policyRow = &r;
      }
  bool quantized = !format.empty() && format != "bf16";
  int64_t bits = 0;
  if (quantized) {
    if (auto f = kv::parseFormat(&context, format)) {
      size_t at = format.find("bits=");
      if (at != std::string::npos)
        StringRef(format).substr(at + 5).consumeInteger(10, bits);
      for (const kv::PublishedAccuracy &r : f->getPublishedAccuracy())
        if (bits > 0 &&
            StringRef(r.setting).starts_with(std::to_string(bits) + " bits")) {
          consider(r);
          formatRow = &r;
        }
    } else {
      llvm::consumeError(f.takeError());
    }
  }
  if (!compressing && !quantized)
    return {"0.00", "uncompressed"};
  // A number only when every part of the compression has a published row:
  // a point whose policy has none is not bounded by its format's.
  bool policyMissing = compressing && !policyRow,
       formatMissing = quantized && !formatRow;
  if (policyMissing || formatMissing)
    return {"", formatv("no published row of {0}{1}{2}",
                        policyMissing
                            ? formatv("{0} at {1:f0}% removed",
                                      label.substr(0, label.find(':')), removed)
                                  .str()
                            : std::string(),
                        policyMissing && formatMissing ? " or of " : "",
                        formatMissing ? format : std::string())
                    .str()};
  // With a policy and a format, the larger of their published losses: the
  // two together were not published, so it is what is known, not a bound.
  return {
      formatv("{0:f2}", worstLoss).str(),
      formatv("{0}{1}, {2}, {3}: {4} against {5} uncompressed ({6})",
              compressing && quantized ? "larger of policy and format: " : "",
              worst->benchmark, worst->model, worst->setting, worst->score,
              worst->full, worst->source)
          .str()};
}

std::vector<std::string> makeRow(const SweepPoint &p, StringRef status,
                                 StringRef reason,
                                 const llvm::json::Object &report) {
  std::vector<std::string> row = p.inputs();
  row.push_back(status.str());
  // One line: a reason becomes one CSV field.
  std::string oneLine = reason.trim().str();
  std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
  row.push_back(oneLine);
  const std::vector<std::string> &columns = sweepColumns();
  for (size_t i = kReasonColumn + 1; i < columns.size(); ++i)
    if (StringRef(columns[i]).starts_with("report."))
      row.push_back(lookup(report, StringRef(columns[i]).drop_front(7)));
  auto [loss, reference] = publishedAccuracy(p, report);
  if (status != "ok")
    loss.clear(), reference.clear();
  row.push_back(loss);
  row.push_back(reference);
  return row;
}

/// The row of a point whose process exited with `status` (waitpid's).
std::vector<std::string> childRow(const Running &c, int status) {
  llvm::json::Object report;
  auto readText = [](StringRef path) {
    auto b = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    return b ? (*b)->getBuffer().trim().str() : std::string();
  };
  std::string stderrText = readText(c.err);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    auto buffer = llvm::MemoryBuffer::getFile(c.report);
    auto parsed = buffer ? llvm::json::parse((*buffer)->getBuffer())
                         : llvm::Expected<llvm::json::Value>(
                               makeError("the point wrote no report"));
    if (!parsed)
      return makeRow(c.point, "error", llvm::toString(parsed.takeError()),
                     report);
    if (!parsed->getAsObject())
      return makeRow(c.point, "error", "malformed report", report);
    return makeRow(c.point, "ok", "", *parsed->getAsObject());
  }
  if (WIFEXITED(status))
    return makeRow(c.point, WEXITSTATUS(status) == 2 ? "failed" : "error",
                   stderrText.empty()
                       ? formatv("exit code {0}", WEXITSTATUS(status)).str()
                       : stderrText,
                   report);
  std::string why = formatv("the simulation was killed by signal {0} ({1})",
                            WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                        .str();
  if (!stderrText.empty())
    why += ": " + stderrText;
  return makeRow(c.point, "error", why, report);
}

/// Progress: a bar on a terminal, a line per point otherwise.
class Progress {
public:
  Progress(llvm::raw_ostream &os, size_t total)
      : os(os), total(total), tty(llvm::sys::Process::StandardOutIsDisplayed()),
        start(std::chrono::steady_clock::now()) {}

  void done(const std::vector<std::string> &row) {
    ++finished;
    const std::string &status = row[kStatusColumn];
    if (status != "ok")
      ++failed;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double eta = elapsed / finished * (total - finished);
    if (tty) {
      int width = 30;
      int filled = total ? static_cast<int>(width * finished / total) : width;
      os << "\r[" << std::string(filled, '=')
         << std::string(width - filled, ' ')
         << formatv("] {0}/{1}  {2} failed  ETA {3:f0} s   ", finished, total,
                    failed, eta);
    } else {
      std::string tokens;
      if (status == "ok") {
        double t = 0;
        StringRef(row[columnOf("report.throughput_tokens_per_s")])
            .getAsDouble(t);
        tokens = formatv(" {0:f1} tokens/s", t).str();
      }
      // The other inputs a point was given, as their flags.
      std::string more;
      for (size_t c = 6; c < std::size(kInputColumns); ++c)
        if (!row[c].empty() &&
            !(StringRef(kInputColumns[c]) == "tp" && row[c] == "0"))
          more += " --" + flagOf(kInputColumns[c]) + " " + row[c];
      os << formatv("point {0} ({1}/{2}): {3} {4} context {5} batch {6} "
                    "--kv {7}{8}: {9}{10}; ETA {11:f0} s\n",
                    row[0], finished, total, row[1], row[2], row[3], row[4],
                    row[5], more, status, tokens, eta);
    }
    os.flush();
  }
  void end() {
    if (tty)
      os << "\n";
  }
  size_t failures() const { return failed; }

private:
  static size_t columnOf(StringRef name) {
    const auto &c = sweepColumns();
    return std::find(c.begin(), c.end(), name) - c.begin();
  }
  llvm::raw_ostream &os;
  size_t total, finished = 0, failed = 0;
  bool tty;
  std::chrono::steady_clock::time_point start;
};

/// The manifest a sweep with these options writes.
llvm::Expected<SweepManifest> describe(const SweepOptions &o,
                                       const SweepGrid &grid) {
  SweepManifest m;
  m.grid = grid;
  m.steps = o.steps;
  m.prefill = o.prefill;
  m.shardIndex = o.shardIndex;
  m.shardCount = o.shardCount;
  m.build = versionString();
  for (const std::string &c : grid.chips) {
    auto chip = arch::ArchModel::load(c);
    if (!chip)
      return chip.takeError();
    m.chips[c] = chip->fingerprint();
  }
  for (const std::string &name : grid.models) {
    auto model = models::ModelConfig::load(name);
    if (!model)
      return model.takeError();
    m.models[name] = model->fingerprint();
  }
  return m;
}

/// The rows of `rows` placed at the points of `grid` (renumbered), in grid
/// order; a row whose point is not in the grid is an error.
llvm::Expected<std::vector<std::vector<std::string>>>
placeRows(std::map<std::string, std::vector<std::string>> rows,
          const std::vector<SweepPoint> &grid, StringRef path) {
  std::vector<std::vector<std::string>> placed;
  for (const SweepPoint &p : grid) {
    auto it = rows.find(identityKey(p.identity()));
    if (it == rows.end())
      continue;
    it->second[0] = std::to_string(p.index);
    placed.push_back(std::move(it->second));
    rows.erase(it);
  }
  if (!rows.empty())
    return makeError(formatv(
        "{0}: {1} row(s) are not points of the grid "
        "(the first: {2}); was the file edited?",
        path, rows.size(),
        llvm::join(rows.begin()->second.begin() + 1,
                   rows.begin()->second.begin() + std::size(kInputColumns),
                   " ")));
  return placed;
}

} // namespace

namespace {
/// An exclusive lock on a sweep folder (`DIR/sweep.lock`, flock(2)), held
/// while the object lives; the system releases it when the process ends,
/// however it ends, so a killed sweep leaves no stale lock. The file names
/// its holder, for the refusal of a second sweep.
class SweepLock {
public:
  static llvm::Expected<SweepLock> take(StringRef dir) {
    std::string path = pathIn(dir, "sweep.lock");
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return makeError(
          "cannot create " + path + ": " +
          std::error_code(errno, std::generic_category()).message());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      char holder[256] = {0};
      ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
      ::close(fd);
      if (err != EWOULDBLOCK)
        return makeError(
            "cannot lock " + path + ": " +
            std::error_code(err, std::generic_category()).message());
      std::string who = StringRef(holder, n > 0 ? n : 0).trim().str();
      return makeError(dir + " is in use by another sweep" +
                       (who.empty() ? "" : " (" + who + ")") +
                       "; wait for it to end, or use another -o");
    }
    char host[128] = {0};
    ::gethostname(host, sizeof host - 1);
    std::string who = formatv("pid {0} on {1}", ::getpid(), host).str();
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) !=
                                       static_cast<ssize_t>(who.size())) {
      // The holder's name is for messages only; the lock is what counts.
    }
    return SweepLock(fd);
  }
  SweepLock(SweepLock &&o) : fd(o.fd) { o.fd = -1; }
  SweepLock(const SweepLock &) = delete;
  ~SweepLock() {
    if (fd < 0)
      return;
    // No holder to name once it ends (a killed one leaves its name, which
    // the next holder overwrites).
    if (::ftruncate(fd, 0) != 0) {
    }
    ::close(fd);
  }

private:
  explicit SweepLock(int fd) : fd(fd) {}
  int fd;
};
} // namespace

Error snapflow::driver::runSweep(const SweepOptions &o, llvm::raw_ostream &os) {
  if (o.outputDir.empty())
    return makeError("sweep needs -o DIR for its results");
  if (o.resume && o.extend)
    return makeError("--resume and --extend: choose one (--extend also "
                     "resumes)");
  if (o.steps < 1 || o.steps > kMaxSteps)
    return makeError(
        formatv("--steps must be from 1 to {0}, got {1}", kMaxSteps, o.steps));
  if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
    return makeError(formatv("--shard: expected i/N with 0 <= i < N, "
                             "got {0}/{1}",
                             o.shardIndex, o.shardCount));
  // The point server, forked while this process is small (PointRunner.h).
  auto started = PointRunner::start();
  if (!started)
    return started.takeError();
  PointRunner runner = std::move(*started);
  // The grid, checked before anything is written.
  auto grid = SweepGrid::parse(o);
  if (!grid)
    return grid.takeError();
  auto manifest = describe(o, *grid);
  if (!manifest)
    return manifest.takeError();
  std::vector<SweepPoint> points = grid->points();
  if (Error e = checkPoints(points))
    return e;

  // One sweep at a time in a folder: a second (a --resume started while
  // the first runs, a requeued Slurm task) would run the same points and
  // each would remove the other's reports (R08).
  if (std::error_code ec = llvm::sys::fs::create_directories(o.outputDir))
    return makeError("cannot create " + o.outputDir + ": " + ec.message());
  auto lock = SweepLock::take(o.outputDir);
  if (!lock)
    return lock.takeError();

  std::string results = pathIn(o.outputDir, "results.csv"),
              manifestPath = pathIn(o.outputDir, "sweep.json"),
              scratch = pathIn(o.outputDir, "points");
  bool hasResults = llvm::sys::fs::exists(results),
       hasManifest = llvm::sys::fs::exists(manifestPath);
  if ((hasResults || hasManifest) && !o.resume && !o.extend)
    return makeError(o.outputDir + " holds a sweep (" +
                     (hasManifest ? manifestPath : results) +
                     " exists); add --resume to continue that sweep, "
                     "--extend to add values to its grid, or choose "
                     "another -o");
  if (hasResults && !hasManifest)
    return makeError(results + " has no sweep.json beside it (an older "
                               "snapflow made it): its grid and build are "
                               "unknown. Start a new directory");
  if (hasManifest) {
    auto old = SweepManifest::read(manifestPath);
    if (!old)
      return old.takeError();
    if (Error e = checkContinuation(*old, *manifest, o.extend))
      return e;
  }

  // The rows done, renumbered in this grid's order.
  auto done = readSweepRows(results);
  if (!done)
    return done.takeError();
  auto placed = placeRows(std::move(*done), points, results);
  if (!placed)
    return placed.takeError();
  // A point whose process crashed or wrote no report (status `error`) runs
  // again; `ok` and `failed` rows are answers and stay.
  llvm::erase_if(*placed, [](const std::vector<std::string> &r) {
    return r.size() > kStatusColumn && r[kStatusColumn] == "error";
  });
  std::set<int64_t> doneIndices;
  for (const auto &r : *placed)
    doneIndices.insert(std::stoll(r[0]));

  if (std::error_code ec = llvm::sys::fs::create_directories(scratch))
    return makeError("cannot create " + scratch + ": " + ec.message());
  // The manifest first: whatever the rows, they are matched to points by
  // their inputs, so a kill between these two writes loses nothing.
  if (Error e = manifest->write(manifestPath))
    return e;
  if (Error e = writeRows(results, *placed))
    return e;
  // points/ holds the reports of running points only.
  {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(scratch, ec), end;
         it != end && !ec; it.increment(ec))
      llvm::sys::fs::remove(it->path());
  }

  std::vector<SweepPoint> mine, todo;
  for (const SweepPoint &p : points)
    if (p.index % o.shardCount == o.shardIndex) {
      mine.push_back(p);
      if (!doneIndices.count(p.index))
        todo.push_back(p);
    }
  int64_t jobs = std::max<int64_t>(1, o.jobs);
  os << formatv("sweep: {0} points, {1} in this shard, {2} already done, "
                "{3} to run with -j {4}\n",
                points.size(), mine.size(), mine.size() - todo.size(),
                todo.size(), jobs);
  os.flush();

  std::error_code ec;
  llvm::raw_fd_ostream resultsFile(results, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return makeError("cannot append to " + results + ": " + ec.message());
  Progress progress(os, todo.size());
  auto append = [&](const std::vector<std::string> &row) -> Error {
    // One write per row, flushed: a kill leaves whole rows and at most one
    // unterminated tail, which the next run drops. A row that cannot be
    // written (a full disk) stops the sweep: its point is not done, and
    // --resume runs it again (it printed `ok` and lost the row, R09).
    resultsFile << csvLine(row) << "\n";
    resultsFile.flush();
    if (resultsFile.has_error()) {
      std::error_code ec = resultsFile.error();
      resultsFile.clear_error();
      return makeError(formatv("cannot append point {0}'s row to {1}: {2}; "
                               "the rows before it are kept, and --resume "
                               "runs the rest",
                               row.empty() ? "?" : row[0], results,
                               ec.message()));
    }
    progress.done(row);
    return Error::success();
  };

  PointPreparer preparer;
  std::map<int64_t, Running> running;
  auto reap = [&]() -> Error {
    auto exit = runner.next();
    if (!exit)
      return exit.takeError();
    auto it = running.find(exit->index);
    if (it == running.end())
      return makeError(
          formatv("internal error: point {0} ended twice", exit->index));
    if (Error e = append(childRow(it->second, exit->status)))
      return e;
    llvm::sys::fs::remove(it->second.report);
    llvm::sys::fs::remove(it->second.err);
    running.erase(it);
    return Error::success();
  };
  for (const SweepPoint &p : todo) {
    while (static_cast<int64_t>(running.size()) >= jobs)
      if (Error e = reap())
        return e;
    // Compiled here, while the points sent before simulate.
    auto text = preparer.prepare(p, o.prefill);
    if (!text) {
      Error e = text.takeError();
      bool failure = e.isA<ProgramFailure>();
      if (Error a = append(makeRow(p, failure ? "failed" : "error",
                                   llvm::toString(std::move(e)), {})))
        return a;
      continue;
    }
    Running r;
    r.point = p;
    r.report = pathIn(scratch, std::to_string(p.index) + ".json");
    r.err = pathIn(scratch, std::to_string(p.index) + ".err");
    if (Error e = runner.submit(p.index, o.steps, text->decode, r.report, r.err,
                                text->prefill))
      return e;
    running.emplace(p.index, std::move(r));
  }
  while (!running.empty())
    if (Error e = reap())
      return e;
  progress.end();
  resultsFile.close();
  if (resultsFile.has_error()) {
    std::error_code ec = resultsFile.error();
    resultsFile.clear_error();
    return makeError("cannot write " + results + ": " + ec.message());
  }

  // Grid order, whatever order the points finished in.
  auto rows = readSweepRows(results);
  if (!rows)
    return rows.takeError();
  auto ordered = placeRows(std::move(*rows), points, results);
  if (!ordered)
    return ordered.takeError();
  if (Error e = writeRows(results, *ordered))
    return e;
  os << formatv("sweep: {0} rows in {1} ({2} failed in this run)\n",
                ordered->size(), results, progress.failures());
  if (ordered->size() == points.size() || o.shardCount == 1)
    if (Error e = drawSweep(o.outputDir, os))
      return e;
  return Error::success();
}

Error snapflow::driver::mergeSweeps(const std::vector<std::string> &dirs,
                                    const std::string &outputDir,
                                    llvm::raw_ostream &os) {
  if (dirs.empty() || outputDir.empty())
    return makeError("usage: snapflow sweep merge DIR... -o OUT");
  // The merge is a sweep of its own: written into a shard's folder it
  // would make the shard's sweep.json a whole sweep's, and the shard could
  // no longer resume (R11).
  for (const std::string &d : dirs) {
    bool same = false;
    if (!llvm::sys::fs::equivalent(d, outputDir, same) && same)
      return makeError(formatv("-o {0} is one of the folders merged; merge "
                               "into a new folder",
                               outputDir));
  }
  std::optional<SweepManifest> first;
  std::string firstDir;
  std::map<std::string, std::vector<std::string>> merged;
  std::set<int64_t> shards;
  for (const std::string &d : dirs) {
    auto m = SweepManifest::read(pathIn(d, "sweep.json"));
    if (!m)
      return m.takeError();
    if (!first) {
      first = *m;
      firstDir = d;
    } else {
      // The shards of one sweep: the same grid, build, steps and inputs.
      SweepManifest same = *m;
      same.shardIndex = first->shardIndex;
      if (Error e = checkContinuation(*first, same, /*extend=*/false))
        return makeError(formatv("{0} and {1} are not shards of one sweep: "
                                 "{2}",
                                 firstDir, d, llvm::toString(std::move(e))));
    }
    if (!shards.insert(m->shardIndex).second)
      return makeError(formatv("shard {0}/{1} is given twice ({2})",
                               m->shardIndex, m->shardCount, d));
    std::string path = pathIn(d, "results.csv");
    if (!llvm::sys::fs::exists(path))
      return makeError(path + ": no such file");
    auto rows = readSweepRows(path);
    if (!rows)
      return rows.takeError();
    for (auto &r : *rows)
      if (!merged.emplace(r.first, r.second).second)
        return makeError(formatv("point {0} is in more than one shard ({1})",
                                 r.second[0], path));
  }
  std::vector<SweepPoint> points = first->grid.points();
  auto placed = placeRows(std::move(merged), points, outputDir);
  if (!placed)
    return placed.takeError();
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return makeError("cannot create " + outputDir + ": " + ec.message());
  SweepManifest whole = *first;
  whole.shardIndex = 0;
  whole.shardCount = 1;
  if (Error e = whole.write(pathIn(outputDir, "sweep.json")))
    return e;
  std::string out = pathIn(outputDir, "results.csv");
  if (Error e = writeRows(out, *placed))
    return e;
  os << formatv("merged {0} rows from {1} shards into {2}", placed->size(),
                dirs.size(), out);
  if (placed->size() < points.size())
    os << formatv(" ({0} of the grid's {1} points are missing: a shard is "
                  "not finished or not given)",
                  points.size() - placed->size(), points.size());
  os << "\n";
  return drawSweep(outputDir, os);
}
