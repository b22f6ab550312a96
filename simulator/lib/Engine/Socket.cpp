//===- Socket.cpp - One socket's components -------------------------------===//

#include "snapflow/Sim/Engine/Socket.h"

using namespace snapflow;
using namespace snapflow::sim;

void Socket::connect() {
  for (int t = 0; t < 3; ++t)
    ports->tiers[t] = tiers[t].get();
  ports->network = network.get();
}

std::vector<Stats *> Socket::stats() {
  return {&tiers[0]->stats, &tiers[1]->stats,   &tiers[2]->stats,
          &network->stats,  &pcus->stats,       &dma->stats,
          &buffers->stats,  &collectives->stats};
}

StatsSnapshot snapflow::sim::snapshot(Socket &socket) {
  StatsSnapshot out;
  for (Stats *s : socket.stats())
    out.emplace_back(s->getValues().begin(), s->getValues().end());
  return out;
}
