//===- Simulator.h - The cycle-approximate SN40L-like model ----*- C++ -*-===//
//
// Runs df programs on a SystemC model of one socket (or every socket of the
// TP group) of the chip an ArchModel describes: a process per stage, load,
// store, buffer and collective, bounded tile streams between them, HBM/DDR/
// SRAM and peer links as shared bandwidth servers, and a section controller
// that loads sections (reconfiguration cost) and runs their kernel loops.
// Time is annotated per tile (loosely timed), never ticked per cycle.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_ENGINE_SIMULATOR_H
#define SNAPFLOW_SIM_ENGINE_SIMULATOR_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Results.h"

#include <vector>

namespace snapflow {
namespace sim {

/// Runs `jobs` one after the other in one SystemC elaboration. SystemC allows
/// one elaboration per process: call this once per process.
SimResult simulate(const std::vector<Job> &jobs, const arch::ArchModel &chip,
                   const SimOptions &options);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_ENGINE_SIMULATOR_H
