//===- Loop.cpp - The serving loop ----------------------------------------===//
//
// The fourth phase of a serving run (Phases.h): the loop (Sim/Serving)
// replays the measured costs over a second pass of the requests, holding
// only those in flight. Per-request results stream
// to --request-results as they complete, through writeOutput: into a
// temporary file renamed when the loop has finished and every write
// succeeded, so the file is whole or absent (a device or a pipe is written
// in place).
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Progress.h"
#include "snapflow/Support/Version.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;
using llvm::Error;

namespace {

/// The columns of --request-results: the fixed ones, then those the run's
/// options add (several models, prefix caching, SLOs, a cluster,
/// disaggregation), then what made the row.
struct ResultColumns {
  bool several, prefix, slo, nodes, sent;

  void header(llvm::raw_ostream &os) const {
    os << "id,slot,arrival_s,prompt_tokens,output_tokens,"
          "prefill_start_s,first_token_s,finish_s,ttft_s,tpot_s,energy_j";
    if (several)
      os << ",switch_wait_s";
    if (prefix)
      os << ",prefix_hit_tokens";
    if (slo)
      os << ",meets_slo";
    if (nodes)
      os << ",node";
    if (sent)
      os << ",decode_node,kv_sent_bytes,transfer_s";
    os << csv::kProvenanceHeader << "\n";
  }

  /// Request `q`'s row; seconds in the shortest text that reads back to
  /// the same double.
  void row(llvm::raw_ostream &os, const RequestResult &q, const SloOptions &o,
           const Prepared &m, llvm::StringRef chip) const {
    os << q.id << ',' << q.slot << ',' << csv::number(q.arrivalS) << ','
       << q.promptTokens << ',' << q.outputTokens << ','
       << csv::number(q.prefillStartS) << ',' << csv::number(q.firstTokenS)
       << ',' << csv::number(q.finishS) << ',' << csv::number(q.ttftS()) << ','
       << csv::number(q.tpotS()) << ',' << csv::number(q.energyJ);
    if (several)
      os << ',' << csv::number(q.switchWaitS);
    if (prefix)
      os << ',' << q.prefixHitTokens;
    if (slo)
      os << ',' << (o.meetsTtft(q) && o.meetsTpot(q) ? 1 : 0);
    if (nodes)
      os << ',' << q.node;
    if (sent)
      os << ',' << q.decodeNode << ',' << csv::number(q.kvSentBytes) << ','
         << csv::number(q.transferS);
    os << csv::provenanceCells(m.deployed.name, chip, m.w.kvLabel(),
                               versionString())
       << '\n';
  }
};

} // namespace

llvm::Expected<ServeResult> phases::runLoop(Load &load, const Models &models,
                                            const arch::ArchModel &chip,
                                            const CacheOptions &cache,
                                            const ServeOptions &so,
                                            llvm::StringRef resultLines) {
  const bool several = models.size() > 1;
  // With prefix caching, each request's tokens from the cache; with SLOs,
  // whether it meets them all.
  const bool prefix = models[0]->deployed.prefix.blockTokens > 0;
  const bool slo = so.slo.any();
  // On a cluster, the node that took each request; disaggregated, the
  // decode node too, and its KV's bytes and transfer time.
  const bool nodes = so.cluster(), sent = so.disaggregate.given();
  SloResult sloCounts;
  llvm::raw_ostream *results = nullptr;
  const ResultColumns columns{several, prefix, slo, nodes, sent};
  auto writeResult = [&](const RequestResult &q) {
    columns.row(*results, q, so.slo, *models[q.model], chip.getName());
  };
  // The report's per-request results, a JSON object a line.
  std::optional<llvm::raw_fd_ostream> lines;
  if (!resultLines.empty()) {
    std::error_code ec;
    lines.emplace(resultLines, ec);
    if (ec)
      return makeError(resultLines + ": " + ec.message());
  }
  auto writeLine = [&](const RequestResult &q) {
    llvm::json::OStream j(*lines);
    j.object([&] {
      j.attribute("arrival_s", q.arrivalS);
      j.attribute("energy_j", q.energyJ);
      j.attribute("finish_s", q.finishS);
      j.attribute("first_token_s", q.firstTokenS);
      j.attribute("id", q.id);
      if (sent) {
        j.attribute("decode_node", q.decodeNode);
        j.attribute("kv_sent_bytes", q.kvSentBytes);
      }
      if (several)
        j.attribute("model", models[q.model]->deployed.name);
      j.attribute("output_tokens", q.outputTokens);
      j.attribute("prefill_start_s", q.prefillStartS);
      if (slo)
        j.attribute("meets_slo", so.slo.meetsTtft(q) && so.slo.meetsTpot(q));
      if (nodes)
        j.attribute("node", q.node);
      if (prefix)
        j.attribute("prefix_hit_tokens", q.prefixHitTokens);
      j.attribute("prompt_tokens", q.promptTokens);
      j.attribute("slot", q.slot);
      if (several)
        j.attribute("switch_wait_s", q.switchWaitS);
      j.attribute("tpot_s", q.tpotS());
      if (sent)
        j.attribute("transfer_s", q.transferS);
      j.attribute("ttft_s", q.ttftS());
    });
    *lines << '\n';
  };
  std::vector<DeployedModel> deployed;
  for (const auto &m : models)
    deployed.push_back(m->deployed);
  auto cluster = clusterOptions(so, chip, models, deployed);
  if (!cluster)
    return cluster.takeError();
  std::optional<llvm::Expected<ServeResult>> outcome;
  // How far the loop is, on a terminal (R14: ten million requests ran for
  // minutes without a word).
  Progress progress("serving", "requests finished", load.served);
  int64_t finished = 0;
  auto onFinish = [&](const RequestResult &q) {
    sloCounts.add(so.slo, q);
    if (results)
      writeResult(q);
    if (lines)
      writeLine(q);
    progress.update(++finished);
  };
  auto serveAll = [&] {
    auto input = admitted(load, models, so);
    if (!input) {
      outcome.emplace(input.takeError());
      return;
    }
    outcome.emplace(so.cluster() ? serveCluster(**input, load.served, deployed,
                                                cache, *cluster, onFinish)
                                 : serveStream(**input, load.served, deployed,
                                               cache, onFinish));
    if (lines)
      lines->flush();
    if (lines && lines->has_error() && *outcome) {
      std::error_code ec = lines->error();
      lines->clear_error();
      outcome.emplace(makeError(resultLines + ": " + ec.message()));
    }
  };
  // The SLOs' counts go with the result.
  auto withSlo = [&]() -> llvm::Expected<ServeResult> {
    if (*outcome)
      (**outcome).slo = sloCounts;
    return std::move(*outcome);
  };
  if (so.resultsPath.empty()) {
    serveAll();
    return withSlo();
  }
  Error written = writeOutput(so.resultsPath, [&](llvm::raw_ostream &os) {
    results = &os;
    // Every row ends naming its model, chip, policy and snapflow.
    columns.header(os);
    serveAll();
    // A loop that failed leaves no file; its error is reported below.
    return *outcome ? Error::success() : makeError("the serving loop failed");
  });
  // The file could not be written (or not even begun: then the loop did not
  // run), or the loop failed and its error is the one to report.
  if (written) {
    if (!outcome || *outcome)
      return makeError("--request-results: " +
                       llvm::toString(std::move(written)));
    llvm::consumeError(std::move(written));
  }
  return withSlo();
}
