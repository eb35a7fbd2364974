#include "work_queue.h"

namespace swe::serve {

WorkQueue::Turn::~Turn() {
  if (!queue_) return;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex_);
    --queue_->active_;
  }
  queue_->turn_free_.notify_one();
}

WorkQueue::Turn WorkQueue::Enter() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (active_ >= workers_) {
    if (waiting_ >= max_waiting_) return Turn(nullptr);
    ++waiting_;
    turn_free_.wait(lock, [this] { return active_ < workers_; });
    --waiting_;
  }
  ++active_;
  return Turn(this);
}

size_t WorkQueue::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

size_t WorkQueue::active() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_;
}

}  // namespace swe::serve
