# core/gpu: the GPU world's decision code (namespace pacml::gpu, doc/ARCHITECTURE.md §2):
# GPU policies, GPU placement, and the learned GPU policy's features, network and
# policy (no LibTorch).
libpacml_core_la_SOURCES += \
	core/gpu/placement.h core/gpu/placement.cpp \
	core/gpu/policy.h core/gpu/policy.cpp \
	core/gpu/features.h core/gpu/features.cpp \
	core/gpu/network.h core/gpu/network.cpp \
	core/gpu/learned_policy.h core/gpu/learned_policy.cpp
