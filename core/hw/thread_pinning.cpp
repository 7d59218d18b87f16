#include "core/hw/thread_pinning.h"

#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/util/error.h"

namespace pacml::hw {

struct ThreadPinner::Impl {
  hwloc_topology_t topology = nullptr;
  int cores = 0;
};

ThreadPinner::ThreadPinner() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topology) != 0)
    throw InputError("hwloc", std::string("hwloc_topology_init failed: ") + std::strerror(errno));
  if (hwloc_topology_load(impl_->topology) != 0) {
    hwloc_topology_destroy(impl_->topology);
    throw InputError("hwloc",
                     std::string("hwloc could not load the topology: ") + std::strerror(errno));
  }
  impl_->cores = hwloc_get_nbobjs_by_type(impl_->topology, HWLOC_OBJ_CORE);
  if (impl_->cores <= 0) impl_->cores = hwloc_get_nbobjs_by_type(impl_->topology, HWLOC_OBJ_PU);
}

ThreadPinner::~ThreadPinner() {
  hwloc_topology_destroy(impl_->topology);
}

int ThreadPinner::cores() const {
  return impl_->cores;
}

namespace {

hwloc_obj_t core_object(hwloc_topology_t t, int index) {
  hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, static_cast<unsigned>(index));
  return core ? core : hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(index));
}

}  // namespace

bool ThreadPinner::pin_current_thread(int worker) const {
  if (impl_->cores <= 0 || worker < 0) return false;
  const hwloc_obj_t core = core_object(impl_->topology, worker % impl_->cores);
  if (!core || !core->cpuset) return false;
  return hwloc_set_cpubind(impl_->topology, core->cpuset, HWLOC_CPUBIND_THREAD) == 0;
}

int ThreadPinner::current_core() const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int found = -1;
  if (hwloc_get_cpubind(impl_->topology, set, HWLOC_CPUBIND_THREAD) == 0) {
    for (int i = 0; i < impl_->cores; ++i) {
      const hwloc_obj_t core = core_object(impl_->topology, i);
      if (core && core->cpuset && hwloc_bitmap_isequal(core->cpuset, set)) found = i;
    }
  }
  hwloc_bitmap_free(set);
  return found;
}

}  // namespace pacml::hw
