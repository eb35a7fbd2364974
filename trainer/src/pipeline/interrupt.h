// SIGINT/SIGTERM and the stages that stop cleanly. While such a stage runs (a StopPoint is alive),
// the signal handler only asks it to stop; the stage finishes its batch, saves a checkpoint and
// returns. Otherwise (or at a second signal) the handler exits at once. Async-signal-safe flags only.
#pragma once

namespace swe::trainer {

// Alive while a stage that checks StopRequested() runs.
class StopPoint {
 public:
  StopPoint();
  ~StopPoint();
  StopPoint(const StopPoint&) = delete;
  StopPoint& operator=(const StopPoint&) = delete;
};

bool CanStopCleanly();   // a StopPoint is alive and no stop was asked yet (signal handler)
void RequestStop();      // signal handler
bool StopRequested();

}  // namespace swe::trainer
