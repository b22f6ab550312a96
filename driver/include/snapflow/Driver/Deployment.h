//===- Deployment.h - Several models served on one chip ---------*- C++ -*-===//
//
// The models `snapflow run --serve` deploys together: from `--model a,b,...`
// (each with the shared --kv, --batch and --context) or a deployment file
// (`--deployment FILE`, YAML), where each model may set its own KV policy,
// KV format, weight dtype, slots and context. docs/Serving.md documents the
// file; every error names the file, line and column of the value at fault.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_DEPLOYMENT_H
#define SNAPFLOW_DRIVER_DEPLOYMENT_H

#include "snapflow/Driver/OptionValues.h"

#include <optional>

#include "snapflow/Driver/Workload.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace snapflow {
namespace driver {

/// One model of a deployment: its options, and whether its slots are the
/// most that fit at its context (`batch: max`, `--batch max`).
struct DeployedWorkload {
  WorkloadOptions options;
  bool maxBatch = false;
  /// Where the context came from, for errors about it: "--context", or a
  /// deployment file's "'context' at deploy.yaml:3".
  std::string contextFrom = "--context";
};

/// The nodes a deployment file names (top-level keys beside `models`):
/// `nodes: N`, `router: NAME`, `disaggregate: P:D`, each read as its flag
/// is (--nodes, --router, --disaggregate); none given: the command's.
struct DeploymentNodes {
  std::optional<int64_t> nodes;
  std::optional<sim::serving::Router> router;
  std::optional<NodeSplit> disaggregate;
  /// Where each was given, for an error when the command gives it too.
  std::string nodesAt, routerAt, disaggregateAt;
};

/// The deployment `--model a,b,...` names: every model with `shared`'s
/// options. An empty name is an error.
llvm::Expected<std::vector<DeployedWorkload>>
splitModels(const WorkloadOptions &shared, bool maxBatch);

/// Reads a deployment file:
///
///   models:
///     - model: llama-3.1-70b      # a name `snapflow list` shows, or a config
///       batch: 8                  # slots, or max
///       context: 32k
///       kv: snapstream:ratio=4
///     - model: llama-3.2-1b       # keys left out take the command's flags
///   disaggregate: 3:1             # optional: nodes (or nodes: 4), router
///
/// Per model: `model` (required) and the other keys WorkloadOptions.def
/// gives (`batch`, `context`, `kv`, `kv_format`, `weights_dtype`), each read
/// as its flag is; `shared` gives the rest (chip, --set, --tp, --cla). Each
/// model is resolved (config, chip, policy, format) here, so a bad value is
/// reported at its line.
llvm::Expected<std::vector<DeployedWorkload>>
readDeployment(llvm::StringRef path, const WorkloadOptions &shared,
               bool maxBatch, DeploymentNodes *nodes = nullptr);

/// readDeployment of a file's text: `path` names it in errors, and a
/// relative config path in it is found beside `path`.
llvm::Expected<std::vector<DeployedWorkload>>
parseDeployment(llvm::StringRef text, llvm::StringRef path,
                const WorkloadOptions &shared, bool maxBatch,
                DeploymentNodes *nodes = nullptr);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_DEPLOYMENT_H
