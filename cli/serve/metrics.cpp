#include "metrics.h"

#include <cstdio>

namespace swe::serve {

void Metrics::CountResponse(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++responses_[{route, status}];
}

void Metrics::ObserveLatency(const std::string& route, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  Histogram& h = latency_[route];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++h.counts[i];
      break;
    }
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::CountRejected() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++rejected_;
}

std::string Metrics::Render(const Gauges& gauges) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  char line[256];
  out += "# HELP swe_requests_total Responses sent, by route and HTTP status.\n# TYPE swe_requests_total counter\n";
  for (const auto& [key, n] : responses_) {
    std::snprintf(line, sizeof line, "swe_requests_total{route=\"%s\",code=\"%d\"} %llu\n", key.first.c_str(),
                  key.second, static_cast<unsigned long long>(n));
    out += line;
  }
  out += "# HELP swe_request_errors_total Responses with a 4xx or 5xx status, by route.\n"
         "# TYPE swe_request_errors_total counter\n";
  std::map<std::string, uint64_t> errors;
  for (const auto& [key, n] : responses_) errors[key.first] += key.second >= 400 ? n : 0;
  for (const auto& [route, n] : errors) {
    std::snprintf(line, sizeof line, "swe_request_errors_total{route=\"%s\"} %llu\n", route.c_str(),
                  static_cast<unsigned long long>(n));
    out += line;
  }
  out += "# HELP swe_request_duration_seconds Time from routing to the answer, queue wait included.\n"
         "# TYPE swe_request_duration_seconds histogram\n";
  for (const auto& [route, h] : latency_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.counts[i];
      std::snprintf(line, sizeof line, "swe_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                    route.c_str(), kBuckets[i], static_cast<unsigned long long>(cumulative));
      out += line;
    }
    std::snprintf(line, sizeof line,
                  "swe_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n"
                  "swe_request_duration_seconds_sum{route=\"%s\"} %.6f\n"
                  "swe_request_duration_seconds_count{route=\"%s\"} %llu\n",
                  route.c_str(), static_cast<unsigned long long>(h.count), route.c_str(), h.sum, route.c_str(),
                  static_cast<unsigned long long>(h.count));
    out += line;
  }
  out += "# HELP swe_texts_embedded_total Texts encoded for requests.\n# TYPE swe_texts_embedded_total counter\n"
         "swe_texts_embedded_total " + std::to_string(gauges.texts_embedded) + "\n";
  out += "# HELP swe_queue_rejected_total Requests refused with 429 because the work queue was full.\n"
         "# TYPE swe_queue_rejected_total counter\nswe_queue_rejected_total " + std::to_string(rejected_) + "\n";
  out += "# HELP swe_queue_depth Requests waiting for a worker.\n# TYPE swe_queue_depth gauge\nswe_queue_depth " +
         std::to_string(gauges.queue_waiting) + "\n";
  out += "# HELP swe_requests_in_flight Requests being computed.\n# TYPE swe_requests_in_flight gauge\n"
         "swe_requests_in_flight " + std::to_string(gauges.queue_active) + "\n";
  out += "# HELP swe_index_documents Entries in the loaded index.\n# TYPE swe_index_documents gauge\n"
         "swe_index_documents " + std::to_string(gauges.index_documents) + "\n";
  return out;
}

}  // namespace swe::serve
