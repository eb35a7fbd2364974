// The counters behind GET /metrics (Prometheus text format 0.0.4): responses by route and status,
// latency histograms by route, 429s. Gauges (queue, index size) and the texts embedded (counted by the
// service) are passed in when the page is written.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace swe::serve {

// What the page shows from outside the counters: gauges, and the texts the service encoded.
struct Gauges {
  size_t queue_waiting = 0;
  size_t queue_active = 0;
  size_t index_documents = 0;
  uint64_t texts_embedded = 0;
};

class Metrics {
 public:
  // Upper bounds of the latency buckets, in seconds.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,     5};

  // One response: `route` a known path or "other" (so the label set stays small).
  void CountResponse(const std::string& route, int status);
  // How long a routed request took, queue wait included.
  void ObserveLatency(const std::string& route, double seconds);
  void CountRejected();

  std::string Render(const Gauges& gauges) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};  // not cumulative; Render sums them
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> responses_;
  std::map<std::string, Histogram> latency_;
  uint64_t rejected_ = 0;
};

}  // namespace swe::serve
