//===- Workload.cpp - What to compile and simulate
//-------------------------===//

#include "snapflow/Driver/Workload.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Support/CheckedInt.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"

using namespace snapflow;
using namespace snapflow::driver;
using llvm::formatv;

char ProgramFailure::ID;

std::string snapflow::driver::weightsDtypeLabel(const Workload &w) {
  return models::weightDtypeName(w.weightsDtype.value_or(w.config.weightDtype))
      .str();
}

std::string Workload::kvLabel() const {
  if (!kvPolicy) // resolved without a chip: no policy
    return "";
  return llvm::cast<kv::KVPolicyAttrInterface>(kvPolicy).getLabel();
}

std::string Workload::kvFormatLabel() const {
  return kvFormat ? llvm::cast<kv::KVFormatAttrInterface>(kvFormat).getLabel()
                  : "bf16";
}

mlir::Attribute Workload::policyFor(int64_t tokens) const {
  // kvSlots counts cache positions (a Block Transformer's are blocks).
  if (!kvCompressing || kvSlots >= config.cachePositions(tokens))
    return kv::FullPolicyAttr::get(kvPolicy.getContext());
  return kvPolicy;
}

llvm::Expected<Workload>
snapflow::driver::resolveWorkload(const WorkloadOptions &o, bool needChip) {
  Workload w;
  auto config = models::ModelConfig::load(o.model);
  if (!config)
    return config.takeError();
  w.config = std::move(*config);
  if (o.cla != 0)
    if (llvm::Error e = w.config.setClaShareFactor(o.cla, "--cla"))
      return std::move(e);
  if (o.batch <= 0 || o.batch > models::kMaxBatch)
    return makeError(formatv("--batch must be in [1, {0}], got {1}",
                             models::kMaxBatch, o.batch));
  if (o.context <= 0)
    return makeError(formatv("--context must be > 0, got {0}", o.context));
  // Checked here, before any loop over context buckets, as well as where the
  // graph is built.
  if (o.context > w.config.maxPositionEmbeddings)
    return makeError(formatv("--context {0} exceeds the model's "
                             "max_position_embeddings ({1}) in {2}",
                             o.context, w.config.maxPositionEmbeddings,
                             w.config.origin));
  // A Block Transformer's cache holds whole blocks: --context 1 ran as a
  // context of 4 and said so only in its header (R24).
  if (int64_t per = w.config.tokensPerCachePosition();
      per > 1 && o.context % per != 0)
    return makeError(formatv(
        "--context {0} is not a whole number of {1}'s {2}-token blocks; "
        "use {3}",
        o.context, w.config.name, per,
        o.context < per ? per : o.context / per * per));
  w.weightsDtype = o.weightsDtype;
  if (!needChip)
    return w;
  auto chip = arch::ArchModel::load(o.chip);
  if (chip && !o.set.empty())
    chip = chip->withOverrides(o.set, "--set");
  if (!chip)
    return chip.takeError();
  w.chip = std::move(*chip);
  {
    mlir::MLIRContext &context = driverContext();
    int64_t positions = w.config.cachePositions(o.context);
    auto policy = kv::resolvePolicy(&context, o.kv, positions);
    if (!policy) // the message names the policy string
      return policy.takeError();
    w.kvPolicy = *policy;
    w.kvSlots = policy->getSlotsFor(positions);
    w.kvCompressing = policy->isCompressing();
    w.kvObservedQueries = policy->getObservedQueries();
    auto format = kv::parseFormat(&context, o.kvFormat);
    if (!format) // the message names the format string
      return format.takeError();
    w.kvFormat = *format;
  }
  // tp 0 in the options means "not given": every socket of the chip.
  w.tp = o.tp == 0 ? w.chip.numSockets() : o.tp;
  if (w.tp < 1 || w.tp > w.chip.numSockets())
    return makeError(formatv("--tp {0} is not possible on {1}, which has {2} "
                             "socket(s)",
                             w.tp, w.chip.getName(), w.chip.numSockets()));
  return w;
}
