//===- Context.cpp - The driver's one MLIR context ------------------------===//

#include "snapflow/Driver/Context.h"

#include "mlir/IR/MLIRContext.h"

mlir::MLIRContext &snapflow::driver::driverContext() {
  // Never destroyed: attributes of it live in Workloads until exit, and
  // compiles made at exit (none today) would otherwise race its destructor.
  static auto *context =
      new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
  return *context;
}
