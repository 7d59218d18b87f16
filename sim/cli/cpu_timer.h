// CPU time for the benchmark commands (bench, bench-physical, bench-policy):
// process CPU time, so another program on the machine does not count.
#pragma once

#include <time.h>

#include <algorithm>
#include <vector>

namespace pacml::cli {

inline double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The median CPU time of `repeats` runs of `work`, in milliseconds (the
// upper median for an even count).
template <class F>
double median_ms(int repeats, F&& work) {
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    const double start = cpu_seconds();
    work();
    samples.push_back((cpu_seconds() - start) * 1e3);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// The shortest CPU time of `repeats` runs of `work`, in milliseconds: for
// work that is the same every run, what the machine's noise (other
// programs' cache traffic, a virtual machine's neighbours) only adds to.
template <class F>
double fastest_ms(int repeats, F&& work) {
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    const double start = cpu_seconds();
    work();
    const double ms = (cpu_seconds() - start) * 1e3;
    if (i == 0 || ms < best) best = ms;
  }
  return best;
}

}  // namespace pacml::cli
