//===- Lists.cpp - Serving a list of requests -----------------------------===//
//
// serveModels and serve: the streaming loop (serveStream) over requests
// given as a list, in arrival order, their results kept in list order. For
// tests and callers that hold their requests; a trace is streamed instead.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include <algorithm>

using namespace snapflow::sim::serving;

llvm::Expected<ServeResult> snapflow::sim::serving::serveModels(
    llvm::ArrayRef<Request> requests, llvm::ArrayRef<DeployedModel> models,
    const CacheOptions &cache,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  // The loop streams; a list is served in arrival order (ties in list
  // order) and its results kept in list order, each request known by its
  // position while it runs.
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(requests[a].arrivalS, a) <
           std::make_pair(requests[b].arrivalS, b);
  });
  std::vector<Request> ordered;
  ordered.reserve(requests.size());
  for (size_t i : order) {
    ordered.push_back(requests[i]);
    ordered.back().id = static_cast<int64_t>(i);
  }
  ListSource source(ordered);
  std::vector<RequestResult> results(requests.size());
  auto keep = [&](const RequestResult &q) {
    RequestResult &out = results[static_cast<size_t>(q.id)];
    out = q;
    out.id = requests[static_cast<size_t>(q.id)].id;
    if (onFinish)
      onFinish(out);
  };
  auto r = serveStream(source, static_cast<int64_t>(requests.size()), models,
                       cache, keep);
  if (!r)
    return r.takeError();
  r->requests = std::move(results);
  return r;
}

llvm::Expected<ServeResult> snapflow::sim::serving::serve(
    llvm::ArrayRef<Request> requests, const CostTable &costs,
    const ServeConfig &cfg,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  DeployedModel model;
  model.costs = costs;
  model.config = cfg;
  model.hbmBytes = 0;
  CacheOptions cache; // one model, resident throughout
  return serveModels(requests, model, cache, onFinish);
}
