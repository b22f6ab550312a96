//===- ReportSchema.cpp - Every key of the simulation report --------------===//

#include "snapflow/Sim/Stats/ReportSchema.h"

#include "llvm/Support/FormatVariadic.h"

using namespace snapflow;
using namespace snapflow::sim;

namespace {
using P = ReportPresence;

/// The keys, in the report's (alphabetical) order.
const ReportKey kKeys[] = {
    {"batch", "sequences", "sequences per step (the decode program's batch)"},
    {"binds.operator", "-",
     "what binds: the model operator with the largest share of the step's "
     "critical path on one resource (profile.operators); empty when the "
     "step has no critical path"},
    {"binds.resource", "-",
     "the resource it waited on there: pcu, sram, hbm, ddr, noc, link or "
     "launch"},
    {"binds.s", "s", "that operator's critical-path time on that resource"},
    {"binds.share", "fraction", "binds.s over the step latency"},
    {"breakdown.collective_s", "s",
     "of the step's critical path, time waiting for collectives to land"},
    {"breakdown.compute_s", "s", "of the step's critical path, time computing"},
    {"breakdown.memory_s", "s",
     "of the step's critical path, time waiting for loads and stores"},
    {"breakdown.network_s", "s",
     "of the step's critical path, time crossing the on-chip network"},
    {"breakdown.reconfig_s", "s",
     "of the step's critical path, kernel launches: program loads "
     "(reconfigurations) and every call's argument load and execute"},
    {"chip", "-", "the chip simulated (its name)"},
    {"chip_changes", "-",
     "parameters in which the chip simulated differs from the built-in chip "
     "of its name (--set, or an edited file), each 'key value vs built-in'; "
     "empty otherwise",
     P::Always, false, /*list=*/true},
    {"chip_fingerprint", "-", "hash of every parameter of the chip simulated"},
    {"collectives.bytes_per_step", "bytes",
     "message bytes of the decode step's collectives"},
    {"collectives.exposed_s_per_step", "s",
     "of their latency, the part after their producer's last tile"},
    {"collectives.latency_s_per_step", "s",
     "their latencies summed: first input tile to last output tile"},
    {"collectives.ops", "-",
     "per df.collective: section, op, node (its position in the section), "
     "kind, algorithm, group, bytes, "
     "per_step, latency_s, exposed_s, model_s (the cost model, unqueued)",
     P::Always, false, /*list=*/true},
    {"collectives.per_step", "collectives", "collectives one decode step runs"},
    {"compile_options", "-",
     "the compiler's options, as `snapflow-opt --snapflow-pipeline` reads "
     "them (the module's df.provenance; empty for a hand-written program)"},
    {"compiled_by", "-",
     "version and source revision of the snapflow that compiled the "
     "program (empty for a hand-written program)"},
    {"compiled_for", "-", "the chip the program was compiled for", P::WhatIf},
    {"compiled_for_fingerprint", "-", "hash of every parameter of that chip",
     P::WhatIf},
    {"context_tokens", "tokens",
     "context per sequence (decode) or prompt (prefill)"},
    {"energy.average_power_w.node", "W",
     "the node's average power at the wall over a decode step: every "
     "socket's actions and static power, the host's, the wall's losses "
     "(docs/Energy.md)"},
    {"energy.average_power_w.socket", "W",
     "a socket's average power over a decode step: its actions and its "
     "static power (compute dies, HBM, DDR)"},
    {"energy.by_action_j.compute", "J",
     "of a step's energy at the node, the PCUs' FLOPs"},
    {"energy.by_action_j.ddr", "J",
     "of a step's energy at the node, DDR reads and writes"},
    {"energy.by_action_j.hbm", "J",
     "of a step's energy at the node, HBM reads and writes"},
    {"energy.by_action_j.host", "J",
     "of a step's energy at the node, the host's power (system.host_w) over "
     "the step"},
    {"energy.by_action_j.links", "J",
     "of a step's energy at the node, bits over the peer links"},
    {"energy.by_action_j.network", "J",
     "of a step's energy at the node, tiles' hops over the on-chip mesh"},
    {"energy.by_action_j.overhead", "J",
     "of a step's energy at the node, the wall's losses "
     "(system.wall_power_factor - 1 of the rest)"},
    {"energy.by_action_j.sram", "J",
     "of a step's energy at the node, PMU reads and writes (streams' "
     "buffers, SRAM tensors)"},
    {"energy.by_action_j.static", "J",
     "of a step's energy at the node, every socket's static power over the "
     "step"},
    {"energy.groups_per_node", "groups",
     "copies of the TP group the node holds (system.sockets / tp, at least "
     "1): the node's energy and tokens are theirs together"},
    {"energy.idle_power_w", "W",
     "the node's power with nothing running: static and host power, with "
     "the wall's losses"},
    {"energy.joules_per_request", "J",
     "a request's energy at the node: its prompt's share of the prefill "
     "step, then its tokens over the run's decode steps (a prefill "
     "program: a prompt's share of the step)"},
    {"energy.joules_per_step", "J",
     "a decode step's energy at the node, every group and socket"},
    {"energy.joules_per_token", "J",
     "energy at the node per token generated (a prefill program: per "
     "prompt token)"},
    {"energy.peak_power_w.node", "W",
     "the node's power with every acting socket at its peak"},
    {"energy.peak_power_w.socket", "W",
     "a socket's power in its most power-dense section of the step: its "
     "runs' energy over their time, plus static power"},
    {"energy.prefill_joules_per_prompt", "J",
     "a prompt's share of the prefill step's energy at the node",
     P::WithPrefill},
    {"iterations_fast_forwarded", "iterations",
     "identical loop iterations of the decode steps (of a prefill "
     "program, its own) accounted, not simulated"},
    {"iterations_simulated", "iterations",
     "loop iterations of the simulated decode steps (of a prefill "
     "program, its own) simulated"},
    {"kv", "-",
     "the KV policy as resolved for the context, every number fixed "
     "(kv.policy; empty for a hand-written program)"},
    {"kv_backup_bytes_per_socket", "bytes",
     "a KV policy's page backup held in DDR per socket (ArkVale; 0 for "
     "none)"},
    {"kv_cache_bytes_per_socket", "bytes",
     "KV cache held per socket in HBM: K/V slots, a policy's per-slot "
     "state and page digests"},
    {"kv_format", "-",
     "the KV element format as resolved (kv.format; bf16: none)"},
    {"kv_upkeep.bytes_per_step", "bytes",
     "of the step's traffic per socket, what the KV policy and format "
     "add: their ops' (eviction, scoring, recall, backup, quantization) "
     "and an attention's kept probabilities, by the cost model"},
    {"kv_upkeep.flops_per_step", "FLOPs",
     "of the step's FLOPs per socket, what the KV policy and format add: "
     "their ops' and an attention's share (probabilities kept for "
     "eviction, dequantizing, rotations), by the cost model"},
    {"kv_window_bytes_per_socket", "bytes",
     "of kv_cache_bytes_per_socket, the rings of the sliding-window and "
     "chunked layers, which no KV policy compresses (0 for none)"},
    {"memory.capacity_bytes.ddr", "bytes", "DDR a socket has"},
    {"memory.capacity_bytes.hbm", "bytes", "HBM a socket has"},
    {"memory.capacity_bytes.sram", "bytes", "SRAM a socket has (all PMUs)"},
    {"memory.peak_bytes.ddr", "bytes", "peak DDR occupancy per socket"},
    {"memory.peak_bytes.hbm", "bytes", "peak HBM occupancy per socket"},
    {"memory.peak_bytes.sram", "bytes", "peak SRAM occupancy per socket"},
    {"model", "-",
     "the model compiled (llm.model: its built-in name or config path; "
     "empty for a hand-written program)"},
    {"model_fingerprint", "-",
     "hash of every number of the model's config that snapflow uses"},
    {"per_user_tokens_per_s", "tokens/s",
     "tokens per second one sequence sees"},
    {"profile.operators", "-",
     "the step's profile, one object per model operator with any work: "
     "operator, critical_path_s (its spans on the step's critical path; "
     "they add up to the step), critical_path (the same by resource: pcu, "
     "sram, hbm, ddr, noc, link, launch), busy_s (its nodes' own work, "
     "summed over nodes), flops, bytes (sram, hbm, ddr: loaded and "
     "stored), link_bytes (sent over the peer link), sram_held_bytes (its "
     "stream buffers and SRAM homes in the busiest section for it), "
     "energy_j (its nodes' dynamic energy on one socket) and "
     "energy_by_action_j (the same by compute, sram, hbm, ddr, network, "
     "links)",
     P::Always, false, /*list=*/true},
    {"profile.resources.ddr_s", "s",
     "of the step's critical path, the time waiting on DDR"},
    {"profile.resources.hbm_s", "s",
     "of the step's critical path, the time waiting on HBM"},
    {"profile.resources.launch_s", "s",
     "of the step's critical path, the time waiting on kernel launches "
     "(program loads)"},
    {"profile.resources.link_s", "s",
     "of the step's critical path, the time waiting on the peer link"},
    {"profile.resources.noc_s", "s",
     "of the step's critical path, the time waiting on the on-chip network"},
    {"profile.resources.pcu_s", "s",
     "of the step's critical path, the time waiting on PCUs computing"},
    {"profile.resources.sram_s", "s",
     "of the step's critical path, the time waiting on SRAM"},
    {"profile.sections", "-",
     "per section (kernel) of the program: section, calls (kernel calls "
     "per step; a pipelined loop is one), time_s, critical_path (seconds "
     "by operator)",
     P::Always, false, /*list=*/true},
    {"program", "-", "the df.program simulated (decode or prefill)"},
    {"prompt_tokens_per_s", "tokens/s", "prompt tokens processed per second",
     P::Prefill},
    {"roofline.binding", "-",
     "what binds the step: the largest resource bound (compute, hbm, ddr, "
     "sram, link) or collective_latency when the collectives' latency "
     "chain is larger still"},
    {"roofline.collective_latency_s", "s",
     "every collective's modelled latency (launch + hops + transfer) in "
     "series (not a resource: not in the bound)"},
    {"roofline.compute_s", "s", "FLOPs over peak"},
    {"roofline.ddr_s", "s", "DDR bytes over DDR bandwidth"},
    {"roofline.hbm_s", "s", "HBM bytes over HBM bandwidth"},
    {"roofline.link_s", "s",
     "bytes on the busiest peer-link direction over link bandwidth"},
    {"roofline.sram_s", "s", "SRAM bytes over SRAM bandwidth"},
    {"roofline.step_latency_lower_bound_s", "s",
     "the largest of the bounds: no step can be faster"},
    {"roofline_efficiency", "-", "lower bound over simulated step (at most 1)"},
    {"simulate_options", "-",
     "the simulation's options: steps, fast-forward, all-sockets"},
    {"simulated_cycles", "cycles", "cycles of the whole run"},
    {"snapflow", "-", "snapflow's version and source revision"},
    {"step_latency_s", "s", "one decode (or prefill) step"},
    {"steps", "steps", "steps asked for"},
    {"steps_simulated", "steps", "steps simulated (the rest accounted)"},
    {"throughput_tokens_per_s", "tokens/s",
     "tokens per second over all sequences"},
    {"tiles_moved", "tiles", "tiles pushed through streams"},
    {"tiles_per_wall_second", "tiles/s", "simulator speed", P::Always,
     /*wallClock=*/true},
    {"tokens_per_step", "tokens",
     "accepted tokens per sequence and step (MTP speculation)"},
    {"tp", "sockets", "sockets of the TP group"},
    {"traffic_bytes_per_step.ddr", "bytes",
     "DDR bytes loaded and stored per decode (or prefill) step per socket: "
     "weights placed there, a policy's page backup and recalls"},
    {"traffic_bytes_per_step.hbm", "bytes",
     "HBM bytes loaded and stored per decode (or prefill) step per socket"},
    {"traffic_bytes_per_step.sram", "bytes",
     "bytes of SRAM-resident tensors loaded and stored per step per socket"},
    {"ttft_breakdown.chunks", "chunks",
     "chunks the prefill ran its static graph over the prompt in (1: the "
     "whole prompt at once)",
     P::WithPrefill},
    {"ttft_breakdown.iterations_fast_forwarded", "iterations",
     "identical loop iterations of the prefill accounted, not simulated",
     P::WithPrefill},
    {"ttft_breakdown.iterations_simulated", "iterations",
     "loop iterations of the prefill (all its chunks) simulated",
     P::WithPrefill},
    {"ttft_breakdown.selection_bytes", "bytes",
     "bytes the end-of-prefill KV selection loads and stores per socket",
     P::WithPrefill},
    {"ttft_breakdown.selection_flops", "FLOPs",
     "FLOPs of the end-of-prefill KV selection per socket", P::WithPrefill},
    {"ttft_breakdown.selection_s", "s",
     "time the end-of-prefill KV selection adds to the prefill: its last "
     "chunk against the same chunk simulated with the selection idle (0 "
     "without one)",
     P::WithPrefill},
    {"ttft_s", "s",
     "time to first token: the prefill of one prompt (null without one)"},
    {"ttft_profile.chunks", "-",
     "the prefill's profile per chunk: time_s and critical_path (seconds "
     "by operator); one entry for an unchunked prefill",
     P::WithPrefill, false, /*list=*/true},
    {"ttft_profile.operators", "-",
     "the prefill's profile (the whole prompt), as profile.operators",
     P::WithPrefill, false, /*list=*/true},
    {"ttft_profile.resources.ddr_s", "s",
     "of the prefill's critical path, the time waiting on DDR", P::WithPrefill},
    {"ttft_profile.resources.hbm_s", "s",
     "of the prefill's critical path, the time waiting on HBM", P::WithPrefill},
    {"ttft_profile.resources.launch_s", "s",
     "of the prefill's critical path, the time waiting on kernel launches",
     P::WithPrefill},
    {"ttft_profile.resources.link_s", "s",
     "of the prefill's critical path, the time waiting on the peer link",
     P::WithPrefill},
    {"ttft_profile.resources.noc_s", "s",
     "of the prefill's critical path, the time waiting on the on-chip "
     "network",
     P::WithPrefill},
    {"ttft_profile.resources.pcu_s", "s",
     "of the prefill's critical path, the time waiting on PCUs computing",
     P::WithPrefill},
    {"ttft_profile.resources.sram_s", "s",
     "of the prefill's critical path, the time waiting on SRAM",
     P::WithPrefill},
    {"ttft_profile.sections", "-",
     "the prefill's profile per section, as profile.sections", P::WithPrefill,
     false, /*list=*/true},
    {"utilization.ddr", "-",
     "busy fraction of DDR over the decode (or prefill) steps alone"},
    {"utilization.hbm", "-",
     "busy fraction of HBM over the decode (or prefill) steps alone"},
    {"utilization.link", "-",
     "busy fraction of the peer link over the decode (or prefill) steps "
     "alone"},
    {"utilization.pcu", "-",
     "busy fraction of the PCUs over the decode (or prefill) steps alone"},
    {"wall_time_s", "s", "wall-clock time of the simulation", P::Always,
     /*wallClock=*/true},
    {"weights_dtype", "-",
     "the dtype of the model's weights (llm.weights_dtype: bf16 or fp8, the "
     "config's or --weights-dtype; empty for a hand-written program)"},
    {"what_if", "-", "true: simulated on another chip than compiled for",
     P::WhatIf},
};
} // namespace

llvm::ArrayRef<ReportKey> snapflow::sim::reportSchema() { return kKeys; }

void snapflow::sim::describeReportKeys(llvm::raw_ostream &os) {
  for (const ReportKey &k : reportSchema()) {
    const char *when = k.presence == ReportPresence::Prefill  ? "prefill"
                       : k.presence == ReportPresence::WhatIf ? "what-if"
                       : k.presence == ReportPresence::WithPrefill
                           ? "with-prefill"
                           : "always";
    os << llvm::formatv("{0,-38} {1,-10} {2,-8} {3}{4}\n", k.key, k.unit, when,
                        k.description, k.wallClock ? " (wall clock)" : "");
  }
}
