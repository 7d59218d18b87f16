# core/inference: weights file, Eigen forward pass and the learned policy (no LibTorch).
libpacml_core_la_SOURCES += \
	core/inference/weights_file.h core/inference/weights_file.cpp \
	core/inference/message_passing.h core/inference/message_passing.cpp \
	core/inference/eigen_layers.h \
	core/inference/architecture.h core/inference/architecture.cpp \
	core/inference/network.h core/inference/network.cpp \
	core/inference/learned_model.h core/inference/learned_model.cpp \
	core/inference/learned_policy.h core/inference/learned_policy.cpp
