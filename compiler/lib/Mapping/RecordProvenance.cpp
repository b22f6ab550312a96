//===- RecordProvenance.cpp - Record what compiled a module ---------------===//
//
// The pipeline's record of itself: snapflow's version and the pipeline's
// options become the module's df.provenance, so a df file carries what made
// it as it carries the chip it is for (df.target). The Loader reads it back
// with the model (llm.model, llm.model_fingerprint) and the KV policy and
// format kv-compress applied (kv.policy, kv.format) into the provenance
// every report, trace and CSV row records.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Mapping/Passes.h"

#include "snapflow/Support/Version.h"

#include "mlir/IR/Builders.h"

namespace snapflow {
#define GEN_PASS_DEF_RECORDPROVENANCE
#include "snapflow/Mapping/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {
struct RecordProvenancePass
    : public snapflow::impl::RecordProvenanceBase<RecordProvenancePass> {
  using RecordProvenanceBase::RecordProvenanceBase;

  void runOnOperation() override {
    Builder b(&getContext());
    df::setProvenance(
        getOperation(),
        b.getDictionaryAttr(
            {b.getNamedAttr("pipeline", b.getStringAttr(pipeline)),
             b.getNamedAttr("snapflow", b.getStringAttr(versionString()))}));
  }
};
} // namespace
