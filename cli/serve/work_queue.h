// The bounded work queue in front of the model: at most `workers` requests compute at once, at most
// `max_waiting` more wait for a turn, and any beyond that are refused at once (the server answers 429)
// instead of piling up.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace swe::serve {

class WorkQueue {
 public:
  WorkQueue(size_t workers, size_t max_waiting) : workers_(workers), max_waiting_(max_waiting) {}

  // A turn to compute, held until destroyed; false when the queue is full.
  class Turn {
   public:
    explicit Turn(WorkQueue* queue) : queue_(queue) {}
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn();
    explicit operator bool() const { return queue_ != nullptr; }

   private:
    WorkQueue* queue_;
  };

  // Waits for a turn when all workers are busy and the queue has room; else returns an empty Turn.
  Turn Enter();

  size_t waiting() const;
  size_t active() const;

 private:
  const size_t workers_;
  const size_t max_waiting_;
  mutable std::mutex mutex_;
  std::condition_variable turn_free_;
  size_t active_ = 0;
  size_t waiting_ = 0;
};

}  // namespace swe::serve
