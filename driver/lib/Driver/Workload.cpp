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
using llvm::StringRef;

char ProgramFailure::ID;

std::string snapflow::driver::weightsDtypeLabel(const Workload &w) {
  return models::weightDtypeName(w.weightsDtype.value_or(w.config.weightDtype))
      .str();
}

llvm::Expected<int64_t> snapflow::driver::parseTokens(StringRef s,
                                                      StringRef what) {
  StringRef digits = s.trim();
  int64_t scale = 1;
  if (digits.ends_with_insensitive("k")) {
    scale = 1024;
    digits = digits.drop_back();
  } else if (digits.ends_with_insensitive("m")) {
    scale = 1024 * 1024;
    digits = digits.drop_back();
  }
  int64_t n;
  if (digits.getAsInteger(10, n) || n <= 0)
    return makeError(what +
                     ": expected a positive number of tokens like 8192, 8k "
                     "or 1M, got '" +
                     s + "'");
  std::optional<int64_t> tokens = (CheckedInt(n) * scale).get();
  if (!tokens)
    return makeError(what + ": '" + s + "' tokens exceeds a 64-bit count");
  return *tokens;
}

llvm::Expected<std::string> snapflow::driver::parseText(StringRef text,
                                                        StringRef) {
  return text.str();
}

llvm::Expected<int64_t> snapflow::driver::parseBatch(StringRef text,
                                                     StringRef what) {
  if (text == "max")
    return kBatchMax;
  int64_t n;
  if (text.getAsInteger(10, n) || n < 1)
    return makeError(what + " must be a number of slots >= 1 or max, got '" +
                     text + "'");
  return n;
}

llvm::Expected<int64_t> snapflow::driver::parseAtLeastOne(StringRef text,
                                                          StringRef what) {
  int64_t n;
  if (text.getAsInteger(10, n))
    return makeError(what + " must be a number >= 1, got '" + text + "'");
  if (n < 1)
    return makeError(what + " must be >= 1, got " + text);
  return n;
}

llvm::Expected<std::optional<models::WeightDtype>>
snapflow::driver::parseWeightsDtype(StringRef text, StringRef what) {
  if (auto d = models::parseWeightDtype(text))
    return d;
  return makeError(what + " must be bf16 or fp8, got '" + text + "'");
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
