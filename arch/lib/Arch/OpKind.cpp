//===- OpKind.cpp - Model operator kinds ----------------------------------===//

#include "snapflow/Arch/OpKind.h"

#include "snapflow/Support/EnumNames.h"

#include "llvm/Support/ErrorHandling.h"

#include <string>

using namespace snapflow;
using namespace snapflow::arch;

llvm::StringRef snapflow::arch::opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::Embedding:
    return "embedding";
  case OpKind::Norm:
    return "norm";
  case OpKind::QKVProjection:
    return "qkv_projection";
  case OpKind::Attention:
    return "attention";
  case OpKind::OutputProjection:
    return "output_projection";
  case OpKind::Residual:
    return "residual";
  case OpKind::MLP:
    return "mlp";
  case OpKind::Router:
    return "router";
  case OpKind::RoutedExperts:
    return "routed_experts";
  case OpKind::SharedExperts:
    return "shared_experts";
  case OpKind::MTPProjection:
    return "mtp_projection";
  case OpKind::LMHead:
    return "lm_head";
  case OpKind::Sampling:
    return "sampling";
  case OpKind::KVUpkeep:
    return "kv_upkeep";
  case OpKind::KVSelection:
    return "kv_selection";
  case OpKind::AllReduce:
    return "all_reduce";
  case OpKind::AllGather:
    return "all_gather";
  case OpKind::AllToAll:
    return "all_to_all";
  case OpKind::KernelLaunch:
    return "kernel_launch";
  case OpKind::Other:
    return "other";
  }
  llvm_unreachable("unknown operator kind");
}

std::optional<OpKind> snapflow::arch::parseOpKind(llvm::StringRef name) {
  return enumByName<OpKind>(name, kNumOpKinds, opKindName);
}

std::string snapflow::arch::opKindNames(llvm::StringRef separator) {
  return enumNames<OpKind>(kNumOpKinds, opKindName, separator);
}

bool snapflow::arch::isTaggedOpKind(OpKind kind) {
  return kind != OpKind::KernelLaunch && kind != OpKind::Other;
}
