//===- Points.cpp - A point's options, checks and programs ----------------===//
//
// What a point runs with (each axis's value applied to the workload and
// compile options, as SweepAxes.def's TARGET says), every point checked
// before any runs, and each point compiled for the process that simulates
// it.
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Sim/Core/ProgramIO.h"

#include "llvm/Support/FormatVariadic.h"

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

namespace {

/// Sets every option a point's axes stand for.
void applyAxes(const SweepPoint &p, WorkloadOptions &w, CompileOptions &c) {
  int64_t unused = 0;
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, FLAG, PRESENCE,     \
                            CLI_DEFAULT, VALUE_DESC, HELP, TARGET, ...)        \
  TRAITS::apply(TARGET, p.FIELD);
#include "snapflow/Driver/SweepAxes.def"
  (void)unused;
  (void)c;
  (void)w;
}

/// The position of an axis column in a point's identity.
size_t axisIndex(StringRef column) {
  llvm::ArrayRef<SweepAxisInfo> axes = sweepAxes();
  for (size_t i = 0; i < axes.size(); ++i)
    if (column == axes[i].column)
      return i;
  llvm_unreachable("no such sweep axis");
}

/// A point's inputs but its batch: the points that share a workload.
std::vector<std::string> workloadKey(const SweepPoint &p) {
  std::vector<std::string> id = p.identity();
  id.erase(id.begin() + axisIndex("batch"));
  return id;
}

} // namespace

WorkloadOptions sweep::pointWorkload(const SweepPoint &p) {
  WorkloadOptions w;
  CompileOptions c;
  applyAxes(p, w, c);
  w.batch = 1; // set per point
  return w;
}

CompileOptions sweep::pointCompileOptions(const SweepPoint &p,
                                          CompileOptions base) {
  WorkloadOptions w;
  applyAxes(p, w, base);
  return base;
}

Error sweep::checkPoints(const std::vector<SweepPoint> &points) {
  // Each workload's resolved identity: the model and chip by fingerprint
  // (the chip's with its --set values), the policy and format by their
  // labels, so two spellings of one point (a model by name and by path,
  // kivi2 and kivi:bits=2) are found; they made two rows of one point (R23).
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
      std::vector<std::string> id = p.identity();
      id[axisIndex("model")] = w->config.fingerprint();
      id[axisIndex("chip")] = w->chip.fingerprint();
      id[axisIndex("kv")] = w->kvLabel();
      id[axisIndex("kv_format")] = w->kvFormatLabel();
      id[axisIndex("tp")] = std::to_string(w->tp);
      id[axisIndex("weights_dtype")] = weightsDtypeLabel(*w);
      id[axisIndex("set")].clear(); // in the chip's fingerprint
      id[axisIndex("batch")].clear();
      it = resolved.emplace(key, std::move(id)).first;
    }
    std::vector<std::string> id = it->second;
    id[axisIndex("batch")] = BatchAxis::print(p.batch);
    auto [first, fresh] = seen.emplace(identityKey(id), &p);
    if (!fresh) {
      const SweepPoint &q = *first->second;
      std::string qf = OptionalAxis<PolicyAxis>::print(q.kvFormat),
                  pf = OptionalAxis<PolicyAxis>::print(p.kvFormat);
      return makeError(formatv(
          "points {0} and {1} are one point spelled two ways ({2}); give "
          "each value once",
          q.index, p.index,
          q.model != p.model
              ? "--model " + q.model + " and " + p.model + " are one config"
          : q.chip != p.chip
              ? "--chip " + q.chip + " and " + p.chip + " are one chip"
          : q.kv != p.kv ? "--kv " + q.kv + " and " + p.kv + " resolve alike"
          : qf != pf ? "--kv-format " + qf + " and " + pf + " are one format"
                     : std::string("their settings resolve alike")));
    }
  }
  return Error::success();
}

// The IR is verified once, after the last pass (not after each).
PointPreparer::PointPreparer() { compile.verifyEachPass = false; }

llvm::Expected<PointPreparer::Prepared>
PointPreparer::prepare(const SweepPoint &p, bool withPrefill) {
  WorkloadOptions o = pointWorkload(p);
  CompileOptions c = pointCompileOptions(p, compile);
  auto w = workload(p, o);
  if (!w)
    return w.takeError();
  int64_t batch = p.batch.value;
  if (p.batch.isMax()) {
    std::string key = identityKey(workloadKey(p));
    auto it = maxBatches.find(key);
    if (it == maxBatches.end()) {
      auto largest = findMaxBatch(**w, o, c);
      if (!largest)
        return largest.takeError();
      it = maxBatches.emplace(key, *largest).first;
    }
    batch = it->second;
  }
  o.batch = batch;
  auto program = compileProgram(**w, o, c, batch, /*prefill=*/false);
  if (!program)
    return program.takeError();
  Prepared out{sim::serializeProgram(*program), {}};
  if (withPrefill) {
    auto pre = compileProgram(**w, o, c, 1, /*prefill=*/true);
    if (pre)
      out.prefill = sim::serializeProgram(*pre);
    else if (Error e = llvm::handleErrors(pre.takeError(),
                                          [](const ProgramFailure &) {}))
      return std::move(e);
  }
  return out;
}

llvm::Expected<const Workload *>
PointPreparer::workload(const SweepPoint &p, const WorkloadOptions &o) {
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
