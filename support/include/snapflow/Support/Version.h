//===- Version.h - snapflow's version --------------------------*- C++ -*-===//
//
// The version every result records (reports, CSV rows, traces, sweep
// manifests, the df.provenance of a compiled module) and `snapflow
// --version` prints.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_VERSION_H
#define SNAPFLOW_SUPPORT_VERSION_H

#include <string>

namespace snapflow {

/// snapflow's version and the source revision it was built from
/// ("0.9.0 (a1b2c3d4e5f6-dirty)"; "unknown" outside a git checkout).
std::string versionString();

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_VERSION_H
