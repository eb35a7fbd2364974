#include "pipeline/interrupt.h"

#include <csignal>

namespace swe::trainer {
namespace {
volatile std::sig_atomic_t g_stop_point = 0;
volatile std::sig_atomic_t g_stop_requested = 0;
}  // namespace

StopPoint::StopPoint() { g_stop_point = 1; }
StopPoint::~StopPoint() { g_stop_point = 0; }

bool CanStopCleanly() { return g_stop_point != 0 && g_stop_requested == 0; }
void RequestStop() { g_stop_requested = 1; }
bool StopRequested() { return g_stop_requested != 0; }

}  // namespace swe::trainer
