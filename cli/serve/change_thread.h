// One thread that runs the index's changes, one at a time, for the request threads that ask for them.
// Why a thread of its own: every version of the index is then allocated by one thread, in one malloc
// arena, and what a change frees (the shards and chunks it copied) is reused by the next; changes made
// in turn by whichever connection thread served them spread that churn over one arena per thread, which
// kept ~10 MB more resident over 1,000 one-document adds of a 10 MB index (docs/BENCHMARKS.md).
#pragma once

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace swe::serve {

class ChangeThread {
 public:
  // The thread starts with every signal blocked: it exists before the server blocks SIGTERM and SIGINT
  // for the thread that waits for them (http_server.cpp), and a stop signal it took would kill the process.
  ChangeThread() {
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    thread_ = std::thread([this] { Loop(); });
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }
  ~ChangeThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  ChangeThread(const ChangeThread&) = delete;
  ChangeThread& operator=(const ChangeThread&) = delete;

  // Runs `f` on the thread after the changes asked for before it, and returns what it returns (or
  // throws what it throws) in the calling thread.
  template <typename F>
  std::invoke_result_t<F> Run(F f) {
    std::packaged_task<std::invoke_result_t<F>()> task(std::move(f));
    auto result = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.emplace_back([&task] { task(); });
    }
    ready_.notify_one();
    return result.get();
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // started in the constructor, once the rest is ready
};

}  // namespace swe::serve
