//===- Context.cpp - The driver's one MLIR context ------------------------===//

#include "snapflow/Driver/Context.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

mlir::MLIRContext &snapflow::driver::driverContext() {
  // Never destroyed: attributes of it live in Workloads until exit, and
  // compiles made at exit (none today) would otherwise race its destructor.
  static auto *context = [] {
    auto *c = new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
    // Every dialect a compile uses, loaded with the context: a process that
    // forks its calls (the Python module's server) loads them once.
    c->loadDialect<mlir::func::FuncDialect, snapflow::llm::LLMDialect,
                   snapflow::kv::KVDialect, snapflow::df::DFDialect>();
    return c;
  }();
  return *context;
}
