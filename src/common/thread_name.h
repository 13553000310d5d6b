#pragma once

#include <pthread.h>

#include <string>

namespace hpa {

// Names the calling thread as `top -H`, `ps -L`, gdb, perf and /proc/PID/task/TID/comm show it:
// an operator looking at a stuck process, or a test freezing some of its threads, tells the
// reconcile workers from the rest. Linux keeps the first 15 characters.
inline void nameThisThread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace hpa
