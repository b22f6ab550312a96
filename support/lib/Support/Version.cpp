//===- Version.cpp - snapflow's version
//------------------------------------===//

#include "snapflow/Support/Version.h"

#include "SnapflowVersion.inc"

std::string snapflow::versionString() {
  return std::string(SNAPFLOW_VERSION) + " (" + SNAPFLOW_REVISION + ")";
}
