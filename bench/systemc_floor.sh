#!/usr/bin/env bash
# The SystemC kernel's own cost of what full detail does for every tile a
# load brings in (issue 39): the load's thread waits until the tile lands
# (a timed wait: its next FCFS reservation must be made at that time) and
# the stage it feeds, waiting for the tile, is woken (an event notified for
# the next delta cycle). PAIRS load/stage pairs of SystemC threads (default
# 16, a section's loads) move TILES tiles in all with nothing else done;
# prints the kernel's nanoseconds per tile for the timed wait alone and for
# the pair, and the tiles per wall-second that bounds. Built here with the
# system's SystemC (Debian libsystemc-dev), -O2, as the project links it.
# Usage: bench/systemc_floor.sh [PAIRS [TILES]]   (figures in bench/README.md)
source "$(dirname "$0")/common.sh"
pairs=${1:-16}
tiles=${2:-4000000}
cat > "$tmp/floor.cpp" <<'CPP'
#include <systemc>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
using namespace sc_core;
static long left;
struct Pair : sc_module {
  bool withStage;
  long avail = 0, n = 0;
  int id, stageWaiting = 0;
  sc_event added;
  Pair(sc_module_name name, int id, bool withStage)
      : sc_module(name), withStage(withStage), id(id) {
    SC_THREAD(load);
    if (withStage)
      SC_THREAD(stage);
  }
  SC_HAS_PROCESS(Pair);
  void load() {
    while (left > 0) {
      --left;
      wait(sc_time::from_value(1000 + (id * 37 + n++) % 500));
      ++avail;
      if (stageWaiting)
        added.notify(SC_ZERO_TIME);
    }
  }
  void stage() {
    for (;;) {
      while (avail == 0) {
        ++stageWaiting;
        wait(added);
        --stageWaiting;
      }
      --avail;
    }
  }
};
int sc_main(int argc, char **argv) {
  int pairs = std::atoi(argv[1]);
  long tiles = std::atol(argv[2]);
  bool withStage = argv[3][0] == '1';
  left = tiles;
  std::vector<std::unique_ptr<Pair>> v;
  for (int i = 0; i < pairs; ++i)
    v.push_back(std::make_unique<Pair>(
        sc_gen_unique_name("pair"), i, withStage));
  auto t0 = std::chrono::steady_clock::now();
  sc_start();
  double s = std::chrono::duration<double>(
                 std::chrono::steady_clock::now() - t0).count();
  std::printf("%.1f\n", s / double(tiles) * 1e9);
  return 0;
}
CPP
${CXX:-clang++-19} -O2 -std=c++17 "$tmp/floor.cpp" -o "$tmp/floor" $(pkg-config --cflags --libs systemc)
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
best() { for _ in 1 2 3; do "$tmp/floor" "$pairs" "$tiles" "$1"; done | sort -g | head -1; }
timed=$(best 0)
pair=$(best 1)
printf 'timed wait alone        %6.1f ns a tile\n' "$timed"
printf 'timed wait + stage wake %6.1f ns a tile: at most %.3g loaded tiles/wall-s\n' \
  "$pair" "$(python3 -c "print(1e9 / $pair)")"
