// Pinning worker threads to cores with hwloc, for the trainer's rollout
// threads (`pacml train --pin-threads`): worker i runs on core i mod cores,
// spreading over sockets in hwloc's logical core order.
#pragma once

#include <memory>

namespace pacml::hw {

class ThreadPinner {
 public:
  // Loads this machine's topology (CPUs only, no I/O). Throws InputError("hwloc", ...)
  // if hwloc cannot load it.
  ThreadPinner();
  ~ThreadPinner();
  ThreadPinner(const ThreadPinner&) = delete;
  ThreadPinner& operator=(const ThreadPinner&) = delete;

  int cores() const;
  // Binds the calling thread to core `worker % cores()`. Returns false (the
  // thread stays unbound) if the operating system refuses; never throws.
  // Safe to call from several threads at once.
  bool pin_current_thread(int worker) const;
  // The logical index of the core the calling thread is bound to, or -1 when
  // it is not bound to exactly one core's threads.
  int current_core() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacml::hw
