//===- Energy.cpp - Joules and watts of a run at the node -----------------===//

#include "snapflow/Sim/Stats/Energy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace snapflow;
using namespace snapflow::sim;
using llvm::json::Object;

int64_t snapflow::sim::groupsPerNode(int64_t tp, const arch::ArchModel &chip) {
  return std::max<int64_t>(1, chip.numSockets() / std::max<int64_t>(1, tp));
}

namespace {
/// The sockets of the node's copies of a `tp`-socket group.
int64_t actingSockets(int64_t tp, const arch::ArchModel &chip) {
  return std::max<int64_t>(1, tp) * groupsPerNode(tp, chip);
}
} // namespace

NodeEnergy snapflow::sim::nodeEnergy(const ActionEnergy &perSocket,
                                     double seconds, int64_t tp,
                                     const arch::ArchModel &chip) {
  NodeEnergy e;
  int64_t acting = actingSockets(tp, chip);
  e.dynamic.add(perSocket, double(acting));
  e.seconds = seconds;
  int64_t sockets = std::max(acting, chip.numSockets());
  e.staticJ = chip.socketStaticW() * double(sockets) * seconds;
  e.hostJ = chip.system().hostW * seconds;
  e.overheadJ = (chip.system().wallPowerFactor - 1) *
                (e.dynamicJ() + e.staticJ + e.hostJ);
  return e;
}

double snapflow::sim::nodePowerW(double socketDynamicW, int64_t tp,
                                 const arch::ArchModel &chip) {
  return nodeEnergy({}, 1.0, tp, chip).totalJ() +
         socketDynamicW * double(actingSockets(tp, chip)) *
             chip.system().wallPowerFactor;
}

double snapflow::sim::idlePowerW(const arch::ArchModel &chip) {
  return nodePowerW(0, chip.numSockets(), chip);
}

ActionEnergy snapflow::sim::stepEnergy(const JobResult &job) {
  ActionEnergy e = job.copyEnergy;
  for (const OperatorProfile &op : job.profile.ops)
    e.add(op.energy);
  return e;
}

namespace {

/// The highest dynamic power of a socket over a step: its most
/// power-dense section, its runs' energy over their time, and never below
/// the step's average (`averageW`).
double peakDynamicW(const JobResult &job, double averageW) {
  double most = averageW;
  for (const Profile::SectionShare &s : job.profile.sections)
    if (s.ps > 0)
      most = std::max(most, s.energyPj / s.ps); // pJ/ps = W
  return most;
}

Object byAction(const NodeEnergy &e) {
  Object o;
  for (int a = 0; a < kNumEnergyActions; ++a)
    o[energyActionName(static_cast<EnergyAction>(a))] = e.dynamic.pj[a] * 1e-12;
  o["static"] = e.staticJ;
  o["host"] = e.hostJ;
  o["overhead"] = e.overheadJ;
  return o;
}

} // namespace

Object snapflow::sim::energyObject(const JobResult *decode,
                                   const JobResult *prefill,
                                   const Program &decodeProgram,
                                   const Program *prefillProgram,
                                   const arch::ArchModel &chip) {
  int64_t tp = decodeProgram.tp;
  double groups = double(groupsPerNode(tp, chip));
  ActionEnergy perSocket = decode ? stepEnergy(*decode) : ActionEnergy();
  NodeEnergy step =
      nodeEnergy(perSocket, decode ? decode->stepPs * 1e-12 : 0, tp, chip);
  double socketDynamicW =
      step.seconds > 0 ? perSocket.total() * 1e-12 / step.seconds : 0;
  double peakSocketDynamicW =
      decode ? peakDynamicW(*decode, socketDynamicW) : 0;
  // Tokens the node makes a step, and requests it serves a step.
  bool isPrefill = decodeProgram.phase == arch::Phase::Prefill;
  double requests = double(decodeProgram.batch) * groups;
  double tokens = requests * (isPrefill ? double(decodeProgram.tokens)
                                        : decodeProgram.tokensPerStep);
  double perToken = tokens > 0 ? step.totalJ() / tokens : 0;
  // A request: its prompt's share of a prefill step, then the tokens it
  // generates over the run's steps.
  double prefillPerPrompt = 0;
  if (prefill && prefillProgram) {
    NodeEnergy pre = nodeEnergy(stepEnergy(*prefill), prefill->stepPs * 1e-12,
                                prefillProgram->tp, chip);
    prefillPerPrompt =
        pre.totalJ() / (double(std::max<int64_t>(1, prefillProgram->batch)) *
                        double(groupsPerNode(prefillProgram->tp, chip)));
  }
  double perRequest =
      isPrefill ? (requests > 0 ? step.totalJ() / requests : 0)
                : prefillPerPrompt + perToken * decodeProgram.tokensPerStep *
                                         double(decode ? decode->steps : 0);
  double socketStaticW = chip.socketStaticW();
  Object o{
      {"joules_per_step", step.totalJ()},
      {"joules_per_token", perToken},
      {"joules_per_request", perRequest},
      {"groups_per_node", groups},
      {"idle_power_w", idlePowerW(chip)},
      {"average_power_w", Object{{"socket", socketDynamicW + socketStaticW},
                                 {"node", step.watts()}}},
      // The node at its peak: every acting socket at its peak together.
      {"peak_power_w",
       Object{{"socket", peakSocketDynamicW + socketStaticW},
              {"node", nodePowerW(peakSocketDynamicW, tp, chip)}}},
      {"by_action_j", byAction(step)},
  };
  if (prefill)
    o["prefill_joules_per_prompt"] = prefillPerPrompt;
  return o;
}

void snapflow::sim::printEnergy(llvm::raw_ostream &os, const Object &report) {
  const Object *e = report.getObject("energy");
  if (!e)
    return;
  auto num = [&](const Object *o, llvm::StringRef key) {
    return o ? o->getNumber(key).value_or(0) : 0.0;
  };
  const Object *avg = e->getObject("average_power_w");
  const Object *peak = e->getObject("peak_power_w");
  auto kw = [](double w) { return llvm::formatv("{0:f2} kW", w / 1e3).str(); };
  os << llvm::formatv("  energy         {0:f3} J/token, {1:f1} J per step, "
                      "{2:f1} J per request; node {3} average, {4} peak, {5} "
                      "idle\n",
                      num(e, "joules_per_token"), num(e, "joules_per_step"),
                      num(e, "joules_per_request"), kw(num(avg, "node")),
                      kw(num(peak, "node")), kw(num(e, "idle_power_w")));
  // The step's joules by what spent them, largest first.
  const Object *by = e->getObject("by_action_j");
  if (!by)
    return;
  std::vector<std::pair<double, std::string>> parts;
  double total = 0;
  for (const auto &kv : *by) {
    double j = kv.second.getAsNumber().value_or(0);
    total += j;
    parts.push_back({j, kv.first.str()});
  }
  if (total <= 0)
    return;
  llvm::sort(parts, [](const auto &a, const auto &b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  std::string text;
  for (const auto &[j, name] : parts)
    if (j > 0)
      text += llvm::formatv("{0}{1} {2:f1}%", text.empty() ? "" : ", ", name,
                            100 * j / total)
                  .str();
  os << "  energy by use  " << text << "\n";
}
