// Inspecting a machine with hwloc: the CPU layout and memory, and the GPUs and
// network adapters among its PCI devices (hwloc's I/O objects, kept with
// HWLOC_TYPE_FILTER_KEEP_IMPORTANT, which the default filter drops).
#pragma once

#include <string>

#include "core/hw/machine.h"

namespace pacml::hw {

// The machine this process runs on; its memory is the kernel's MemTotal, as
// slurmd counts it. Throws InputError("hwloc", ...) if hwloc
// cannot load the topology.
Machine probe_local_machine();

// A machine from an hwloc XML export (`lstopo --of xml node.xml` run on the
// node), so an admin can describe compute nodes from the head node. Throws
// InputError(path, ...) for an unreadable or invalid file.
Machine probe_machine_xml(const std::string& path);

}  // namespace pacml::hw
