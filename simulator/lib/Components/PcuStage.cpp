//===- PcuStage.cpp - A pipeline stage on a group of PCUs -----------------===//

#include "snapflow/Sim/Components/PcuStage.h"

#include <cmath>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &PcuStage::info() {
  static const ParamInfo params[] = {
      {"systolic_rate", "FLOP/cycle", "socket.pcu_systolic_flops_per_cycle",
       "FLOPs per PCU per cycle of a gemm stage whose rows fill the array"},
      {"lanes", "lanes", "socket.pcu_lanes",
       "one side of the systolic array: a gemm of fewer rows, or rows not a "
       "multiple of a side, leaves part of it idle"},
      {"simd_rate", "FLOP/cycle", "socket.pcu_simd_flops_per_cycle",
       "operations per PCU per cycle of the other stages"},
      {"pipeline_fill", "cycles", "socket.pcu_pipeline_fill_cycles",
       "added to a stage's first step of each run"},
      {"period", "ps", "socket.clock_hz", "one clock cycle"},
      {"systolic_energy, simd_energy", "pJ/FLOP",
       "socket.pcu_systolic_pj_per_flop, socket.pcu_simd_pj_per_flop",
       "energy of a FLOP of a gemm stage, of another stage"},
  };
  static const StatInfo stats[] = {
      {"busy", "PCU-ps", "PCU time spent computing (PCUs x duration)",
       StatRole::PcuBusy},
      {"flops", "FLOP", "floating-point operations computed", StatRole::Flops},
      {"steps", "steps", "stage steps (one tile's worth of work each)"},
      {"energy", "pJ", "dynamic energy of the FLOPs", StatRole::Energy},
  };
  static const NodeKind runs[] = {NodeKind::Stage};
  static const ComponentInfo info{
      "PCU stage",
      "a df.stage: compute steps on its PCUs, paced by its streams",
      params,
      stats,
      runs,
      /*copies=*/false,
      /*ownClock=*/true};
  return info;
}

static ComponentRegistration
    registration({&PcuStage::info, [](const BuildContext &ctx) {
                    return single(std::make_unique<PcuStage>(ctx.chip));
                  }});

PcuStage::PcuStage(const arch::ArchModel &chip)
    : Component(info()), chip(chip) {
  const arch::SocketParams &s = chip.socket();
  periodPs = 1e12 / s.clockHz;
  systolicPerCycle = double(s.pcuSystolicFlopsPerCycle);
  simdPerCycle = double(s.pcuSimdFlopsPerCycle);
  fillCycles = double(s.pcuPipelineFillCycles);
  systolicPj = s.pcuSystolicPjPerFlop;
  simdPj = s.pcuSimdPjPerFlop;
}

void PcuStage::run(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  // A gemm of few rows fills its systolic arrays only in part.
  bool systolic = n.stageKind == StageKind::Gemm;
  double rate =
      systolic ? systolicPerCycle * chip.systolicUtilization(double(n.gemmRows))
               : simdPerCycle;
  // A FLOP costs the same however full the array: idle lanes' leakage and
  // clocking are static power.
  double stepPj = double(n.flopsPerTile) * (systolic ? systolicPj : simdPj);
  if (r.nodeTiles(index) == 0) {
    // Idle this chunk (the selection before the last one): what reaches it
    // is taken and dropped.
    for (int in : n.inputs)
      for (int64_t t = 0, tiles = r.streamTiles(in); t < tiles; ++t)
        r.pop(index, in);
    return;
  }
  int64_t steps = r.nodeTiles(index);
  std::vector<int64_t> got(n.inputs.size(), 0), put(n.outputs.size(), 0);
  for (int64_t step = 0; step < steps; ++step) {
    // Inputs in proportion to progress: an input of T tiles has delivered
    // ceil((step + 1) T / steps) before this step runs.
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      int64_t total = r.streamTiles(n.inputs[i]);
      int64_t need = ((step + 1) * total + steps - 1) / steps;
      while (got[i] < need) {
        r.pop(index, n.inputs[i]);
        ++got[i];
      }
    }
    double cycles = std::ceil(double(n.flopsPerTile) / (double(n.pcus) * rate));
    if (step == 0)
      cycles += fillCycles;
    double ps = cycles * periodPs * r.oversubscription;
    r.spend(index, ps);
    r.charge(index, PathPart::Compute);
    r.nodes[index].touch();
    stats[BusyPcuPs] += cycles * periodPs * double(n.pcus);
    stats[Flops] += double(n.flopsPerTile);
    stats[Steps] += 1;
    stats[EnergyPj] += stepPj;
    r.nodes[index].flops += double(n.flopsPerTile);
    r.nodes[index].energy[EnergyAction::Compute] += stepPj;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      int64_t total = n.outputTiles[k];
      int64_t target = step + 1 == steps ? total : (step + 1) * total / steps;
      while (put[k] < target) {
        r.push(index, n.outputs[k], n.pcus);
        ++put[k];
      }
    }
  }
}
