# core/hw: the local machine through hwloc, and the Slurm lines describing it
# (`pacml node describe`). Appended to libpacml_core.la.
libpacml_core_la_SOURCES += \
	core/hw/machine.h core/hw/machine.cpp \
	core/hw/pci_classes.h core/hw/pci_classes.cpp \
	core/hw/hwloc_probe.h core/hw/hwloc_probe.cpp \
	core/hw/slurm_node.h core/hw/slurm_node.cpp \
	core/hw/machine_json.h core/hw/machine_json.cpp \
	core/hw/thread_pinning.h core/hw/thread_pinning.cpp
