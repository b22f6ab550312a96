//===- Buckets.cpp - Slots, shape buckets and their graphs ----------------===//
//
// The second phase of a serving run (Phases.h). A static-graph deployment
// keeps one compiled graph per shape: prompt lengths and decode contexts
// round up to power-of-two buckets, each bucket is compiled, and the
// deployment must fit the chip's DDR (every model's weights) and, with a
// static cache, its HBM (every model resident).
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Errors.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;
using llvm::Error;

void Buckets::add(const Request &r, int64_t context) {
  prefill.insert(bucketFor(r.promptTokens, context));
  shortest = std::min(shortest, r.promptTokens + 1);
  longest = std::max(longest, r.promptTokens + r.outputTokens);
}

void Buckets::close(int64_t context) {
  for (int64_t t = bucketFor(std::min(shortest, context), context);; t *= 2) {
    decode.insert(std::min(t, context));
    if (t >= longest || t >= context)
      break;
  }
  // The full-context graph fixes the KV allocation and the resident
  // tensors.
  decode.insert(context);
}

namespace {

double maxTensorBytes(const std::vector<sim::Program> &programs,
                      arch::MemoryTier tier) {
  double most = 0;
  for (const sim::Program &p : programs)
    most = std::max(most, double(p.tensorBytes(tier)));
  return most;
}

std::string gibText(double bytes) {
  return llvm::formatv("{0:f2} GiB", bytes / double(1ull << 30)).str();
}

/// One model's slots and graphs: a prefill graph per prompt bucket (one
/// sequence), a decode graph per context bucket (every slot), and with
/// several static graphs, a decode graph per bucket of each smaller one.
Error buildModel(Prepared &m, const CompileOptions &c, bool chunked,
                 bool several, const BatchSet &batches) {
  const WorkloadOptions &o = m.o;
  // Slots: --batch, or the most that fit at the full context.
  int64_t slots = o.batch;
  if (m.maxBatch) {
    auto largest = findMaxBatch(m.w, o, c);
    if (!largest)
      return largest.takeError();
    slots = *largest;
  }
  m.cfg().slots = slots;
  const Buckets &buckets = m.buckets;
  // The chunked schedule's prefill graphs run a chunk per step.
  CompileOptions prefillOptions = c;
  if (chunked && c.prefillChunk == kPrefillChunkAuto)
    prefillOptions.prefillChunk = kScheduleChunk;
  m.prefillChunk = prefillOptions.prefillChunk;
  m.programs.reserve(buckets.prefill.size() + buckets.decode.size());
  auto build = [&](bool prefill, int64_t tokens, int64_t batch,
                   std::vector<sim::Program> &into) -> Error {
    // The bucket's policy as an attribute (the workload's, or full when
    // the bucket is within its budget); `kv` records it in the module.
    Workload bw = m.w;
    bw.kvPolicy = m.w.policyFor(tokens);
    WorkloadOptions bo = o;
    bo.context = tokens;
    bo.kv = bw.kvLabel();
    auto p = compileProgram(bw, bo, prefill ? prefillOptions : c,
                            prefill ? 1 : batch, prefill);
    if (!p) {
      std::string why = llvm::toString(p.takeError());
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "{0}the {1} graph for {2} tokens{3} (bucket of --serve) cannot "
          "run: {4}",
          several ? m.w.config.name + ": " : std::string(),
          arch::phaseName(prefill ? arch::Phase::Prefill : arch::Phase::Decode),
          tokens,
          !prefill && batch != slots
              ? llvm::formatv(", batch {0},", batch).str()
              : std::string(),
          why));
    }
    if (Error e = checkFits(*p, m.w.chip))
      return e;
    into.push_back(std::move(*p));
    if (&into == &m.programs)
      m.shapes.push_back({prefill, tokens});
    return Error::success();
  };
  for (int64_t b : buckets.prefill)
    if (Error e = build(true, b, 1, m.programs))
      return e;
  for (int64_t b : buckets.decode)
    if (Error e = build(false, b, slots, m.programs))
      return e;
  // Several static graphs: the smaller ones at every decode bucket.
  if (batches.given()) {
    if (several)
      return makeError("--batch " +
                       std::string(batches.autoPick ? "auto" : "with a list") +
                       " compiles several static graphs of one model; a "
                       "deployment of several gives each one batch");
    m.graphSizes = graphSizes(batches, slots);
    if (m.graphSizes.size() < 2) // one graph after all
      m.graphSizes.clear();
    m.graphPrograms.reserve(m.graphSizes.size() * buckets.decode.size());
    for (size_t g = 0; g + 1 < m.graphSizes.size(); ++g)
      for (int64_t b : buckets.decode)
        if (Error e = build(false, b, m.graphSizes[g], m.graphPrograms))
          return e;
  }
  // Prefix caching, prefill-first: each prompt bucket's prefill also run in
  // block-sized chunks (at least 512 tokens), the shape of its cost over
  // the prompt; a prefill whose leading chunks are cached costs the rest's
  // share of its own graph's time (Serving.h, CostTable::prefillProfileS).
  if (m.prefixBlockTokens > 0 && !chunked) {
    CompileOptions profile = c;
    profile.prefillChunk = std::max(kScheduleChunk, m.prefixBlockTokens);
    m.profiles.reserve(buckets.prefill.size());
    for (int64_t b : buckets.prefill) {
      Workload bw = m.w;
      bw.kvPolicy = m.w.policyFor(b);
      WorkloadOptions bo = o;
      bo.context = b;
      bo.kv = bw.kvLabel();
      auto p = compileProgram(bw, bo, profile, 1, /*prefill=*/true);
      if (!p)
        return p.takeError();
      m.profiles.push_back(std::move(*p));
    }
  }
  m.res = residency(m.full());
  m.deployed.weightBytes = double(m.full().weightBytes);
  m.deployed.hbmBytes = maxTensorBytes(m.programs, arch::MemoryTier::HBM);
  // DDR holds every model's weights, whether cached in HBM or not, and
  // whatever its graphs place in DDR.
  m.ddrBytes = m.deployed.weightBytes +
               maxTensorBytes(m.programs, arch::MemoryTier::DDR);
  return Error::success();
}

} // namespace

Residency phases::residency(const sim::Program &p) {
  Residency r;
  for (const sim::Tensor &t : p.tensors)
    (t.isKV ? r.kv : r.bytes)[static_cast<int>(t.tier)] += double(t.bytes);
  return r;
}

llvm::Expected<double> phases::buildGraphs(Models &models,
                                           const CompileOptions &c,
                                           Schedule schedule,
                                           const BatchSet &batches) {
  auto start = std::chrono::steady_clock::now();
  for (auto &m : models)
    if (Error e = buildModel(*m, c, schedule == Schedule::Chunked,
                             models.size() > 1, batches))
      return std::move(e);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

Error phases::checkPlacement(const Models &models, const arch::ArchModel &chip,
                             CacheOptions &cache) {
  cache.hbmBytes = double(chip.tierBytesPerSocket(arch::MemoryTier::HBM));
  if (models.size() < 2)
    return Error::success();
  // DDR holds every model's weights; HBM each resident model.
  double ddr = 0, hbm = 0;
  std::string ddrParts, hbmParts;
  for (const auto &m : models) {
    ddr += m->ddrBytes;
    hbm += m->deployed.hbmBytes;
    ddrParts += llvm::formatv("{0}{1} {2}", ddrParts.empty() ? "" : " + ",
                              m->deployed.name, gibText(m->ddrBytes));
    hbmParts += llvm::formatv("{0}{1} {2}", hbmParts.empty() ? "" : " + ",
                              m->deployed.name, gibText(m->deployed.hbmBytes));
  }
  double ddrCap = double(chip.tierBytesPerSocket(arch::MemoryTier::DDR));
  double hbmCap = double(chip.tierBytesPerSocket(arch::MemoryTier::HBM));
  if (ddr > ddrCap)
    return llvm::make_error<ProgramFailure>(llvm::formatv(
        "the deployment does not fit: DDR binds: every model's weights "
        "stay in DDR, {0} = {1} per socket, above the {2} of {3}",
        ddrParts, gibText(ddr), gibText(ddrCap), chip.getName()));
  if (cache.policy == CachePolicy::Static && hbm > hbmCap)
    return llvm::make_error<ProgramFailure>(llvm::formatv(
        "the deployment does not fit: HBM binds: --model-cache static keeps "
        "every model resident, {0} = {1} per socket, above the {2} of {3}; "
        "cache them (--model-cache on-demand or prewarm) or give fewer "
        "slots (--batch)",
        hbmParts, gibText(hbm), gibText(hbmCap), chip.getName()));
  return Error::success();
}
