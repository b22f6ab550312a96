//===- AssignTarget.cpp - Record the chip a module is compiled for --------===//
//
// The first mapping step: the chip named on the command line (a built-in
// name or a YAML path) becomes the module's df.target, with every parameter.
// From here on the chip is a property of the IR: tile-and-map, plan-memory,
// the Loader and the simulator all read it from the module, so a program
// cannot silently meet a different chip of the same name, and two passes
// cannot map one module for two chips.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Mapping/Passes.h"

#include "snapflow/Arch/ArchModel.h"

#include "llvm/ADT/StringExtras.h"

namespace snapflow {
#define GEN_PASS_DEF_ASSIGNTARGET
#include "snapflow/Mapping/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

struct AssignTargetPass
    : public snapflow::impl::AssignTargetBase<AssignTargetPass> {
  using AssignTargetBase::AssignTargetBase;
  /// With the chip already resolved by the caller (the driver, from
  /// `--chip` and `--set`): nothing to load or parse.
  explicit AssignTargetPass(arch::ArchModel resolved)
      : resolved(std::move(resolved)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    df::TargetAttr existing = df::getTarget(module);
    if (chip.empty() && !resolved) {
      if (existing)
        return; // already targeted: nothing to record
      module.emitError("assign-target: give chip=NAME|PATH (the module has "
                       "no df.target yet)");
      return signalPassFailure();
    }
    llvm::Expected<arch::ArchModel> model =
        resolved ? llvm::Expected<arch::ArchModel>(*resolved)
                 : arch::ArchModel::load(chip);
    if (model && !resolved && !set.empty()) {
      llvm::SmallVector<StringRef> parts;
      StringRef(set).split(parts, ',', -1, /*KeepEmpty=*/false);
      std::vector<std::string> assignments(parts.begin(), parts.end());
      model = model->withOverrides(assignments, "set");
    }
    if (!model) {
      module.emitError() << "assign-target: "
                         << llvm::toString(model.takeError());
      return signalPassFailure();
    }
    df::TargetAttr target = df::TargetAttr::get(&getContext(), *model);
    if (!existing)
      return df::setTarget(module, target);
    if (existing == target)
      return;
    // Same parameters under another name are the same chip for every
    // pass; anything else is a second chip for one module.
    const arch::ArchModel &before = existing.getArchModel();
    std::vector<std::string> diff = before.differences(*model);
    if (diff.empty())
      return;
    module.emitError() << "assign-target: the module is compiled for '"
                       << before.getName() << "' (" << before.fingerprint()
                       << "), not '" << model->getName() << "' ("
                       << model->fingerprint() << "); they differ in "
                       << llvm::join(diff, ", ");
    signalPassFailure();
  }

  std::optional<arch::ArchModel> resolved;
};

} // namespace

std::unique_ptr<Pass> snapflow::createAssignTarget(arch::ArchModel chip) {
  return std::make_unique<AssignTargetPass>(std::move(chip));
}
