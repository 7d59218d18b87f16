# core/features: observation encoding of the learned policy (no LibTorch).
libpacml_core_la_SOURCES += \
	core/features/features.h core/features/features.cpp
