//===- snapflow-opt.cpp - Run snapflow passes on MLIR files ---------------===//
//
// MlirOptMain with snapflow's dialects (llm, kv, df), func, and snapflow's
// passes; nothing else is registered, which keeps this tool fast to build.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Conversion/Passes.h"
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"
#include "snapflow/Mapping/Passes.h"
#include "snapflow/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  snapflow::kv::registerSnapflowKVPasses();
  snapflow::llm::registerSnapflowLLMPasses();
  snapflow::registerSnapflowMappingPasses();
  snapflow::df::registerSnapflowDataflowPasses();
  snapflow::registerSnapflowConversionPasses();
  snapflow::registerSnapflowPipeline();
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, snapflow::llm::LLMDialect,
                  snapflow::kv::KVDialect, snapflow::df::DFDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "snapflow optimizer driver\n", registry));
}
