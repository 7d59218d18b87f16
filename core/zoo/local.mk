# core/zoo/ sources (model zoo); appended to libpacml_core.la
libpacml_core_la_SOURCES += \
	core/zoo/precision.h core/zoo/precision.cpp \
	core/zoo/attention.h core/zoo/attention.cpp \
	core/zoo/device_model.h core/zoo/device_model.cpp \
	core/zoo/op_cost.h core/zoo/op_cost.cpp \
	core/zoo/layer_builder.h core/zoo/layer_builder.cpp \
	core/zoo/layer_builder_transformer.cpp \
	core/zoo/zoo_models.h \
	core/zoo/cnn_models.cpp \
	core/zoo/transformer_models.cpp \
	core/zoo/llama_models.cpp \
	core/zoo/vision_transformer_models.cpp \
	core/zoo/rnn_models.cpp \
	core/zoo/calibration.h core/zoo/calibration.cpp \
	core/zoo/model_zoo.h core/zoo/model_zoo.cpp

# Device models (the A100 is also built in) and the zoo's documentation.
EXTRA_DIST += \
	core/zoo/README.md \
	contrib/devices/a100.yaml \
	contrib/devices/v100.yaml
