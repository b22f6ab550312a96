//===- Profile.cpp - Where a step's time went, by operator ----------------===//

#include "snapflow/Sim/Core/Results.h"

#include "llvm/Support/ErrorHandling.h"

using namespace snapflow;
using namespace snapflow::sim;

llvm::StringRef snapflow::sim::resourceName(Resource resource) {
  switch (resource) {
  case Resource::PCU:
    return "pcu";
  case Resource::SRAM:
    return "sram";
  case Resource::HBM:
    return "hbm";
  case Resource::DDR:
    return "ddr";
  case Resource::NoC:
    return "noc";
  case Resource::Link:
    return "link";
  case Resource::Launch:
    return "launch";
  }
  llvm_unreachable("unknown resource");
}

llvm::StringRef snapflow::sim::energyActionName(EnergyAction action) {
  switch (action) {
  case EnergyAction::Compute:
    return "compute";
  case EnergyAction::SRAM:
    return "sram";
  case EnergyAction::HBM:
    return "hbm";
  case EnergyAction::DDR:
    return "ddr";
  case EnergyAction::Network:
    return "network";
  case EnergyAction::Link:
    return "links";
  }
  llvm_unreachable("unknown energy action");
}

double ActionEnergy::total() const {
  double sum = 0;
  for (double v : pj)
    sum += v;
  return sum;
}

void ActionEnergy::add(const ActionEnergy &other, double times) {
  for (int a = 0; a < kNumEnergyActions; ++a)
    pj[a] += other.pj[a] * times;
}

double OperatorProfile::criticalTotalPs() const {
  double sum = 0;
  for (double ps : criticalPs)
    sum += ps;
  return sum;
}

bool OperatorProfile::empty() const {
  if (criticalTotalPs() != 0 || busyPs != 0 || flops != 0 || linkBytes != 0 ||
      energy.total() != 0)
    return false;
  for (double b : bytes)
    if (b != 0)
      return false;
  return true;
}

void Profile::add(const Profile &other, double times) {
  for (int k = 0; k < arch::kNumOpKinds; ++k) {
    OperatorProfile &to = ops[k];
    const OperatorProfile &from = other.ops[k];
    for (int r = 0; r < kNumResources; ++r)
      to.criticalPs[r] += from.criticalPs[r] * times;
    to.busyPs += from.busyPs * times;
    to.flops += from.flops * times;
    for (int t = 0; t < 3; ++t)
      to.bytes[t] += from.bytes[t] * times;
    to.linkBytes += from.linkBytes * times;
    to.simdFlops += from.simdFlops * times;
    to.energy.add(from.energy, times);
  }
  if (sections.size() < other.sections.size())
    sections.resize(other.sections.size());
  for (size_t i = 0; i < other.sections.size(); ++i) {
    SectionShare &to = sections[i];
    const SectionShare &from = other.sections[i];
    for (int k = 0; k < arch::kNumOpKinds; ++k)
      to.criticalPs[k] += from.criticalPs[k] * times;
    to.ps += from.ps * times;
    to.calls += from.calls * times;
    to.energyPj += from.energyPj * times;
  }
}

double Profile::criticalPs() const {
  double sum = 0;
  for (const OperatorProfile &op : ops)
    sum += op.criticalTotalPs();
  return sum;
}

Breakdown Profile::breakdown() const {
  Breakdown b;
  for (const OperatorProfile &op : ops) {
    auto at = [&](Resource r) { return op.criticalPs[static_cast<int>(r)]; };
    b.computePs += at(Resource::PCU);
    b.memoryPs += at(Resource::SRAM) + at(Resource::HBM) + at(Resource::DDR);
    b.networkPs += at(Resource::NoC);
    b.collectivePs += at(Resource::Link);
    b.reconfigPs += at(Resource::Launch);
  }
  return b;
}
