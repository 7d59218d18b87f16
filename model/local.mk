# model/: the LibTorch trainers of the PAC-ML policy (issue 5) and of the GPU
# policy (issue 17). LibTorch stays in libpacml_model.la and the pacml-train
# program; the pacml binary and the Slurm plugin never link it (`pacml train`
# execs pacml-train).

# `pacml train` (execs pacml-train) and `pacml bench-policy` are the CLI's:
# sim/cli/cmd_train.cpp, listed in sim/local.mk.
EXTRA_DIST += contrib/train contrib/models model/README.md

# Shipped weights: pacml:NAME finds PREFIX/share/pacml/models/NAME.pacw.
modelsdir = $(pkgdatadir)/models
models_DATA = contrib/models/reference.pacw contrib/models/reference-A.pacw \
	contrib/models/reference-B.pacw contrib/models/physical.pacw contrib/models/physical-D.pacw \
	contrib/models/paper-zoo.pacw contrib/models/default.pacw

# Where they go, for the Slurm lab test that installs them (the plugin finds
# pacml:NAME there: plugin/local.mk's PACML_INSTALLED_MODELS_DIR).
.PHONY: print-modelsdir
print-modelsdir:
	@echo '$(modelsdir)'

# The trainers' config keys are core's (core/config/train_config_keys.h), so
# the pacml command lists them (`pacml config keys train…`) without model/.

if HAVE_TORCH
noinst_LTLIBRARIES += libpacml_model.la
libpacml_model_la_SOURCES = \
	model/torch_message_passing.h \
	model/torch_network.h model/torch_network.cpp \
	model/trainer.h model/trainer.cpp model/trainer_config.cpp \
	model/trainer_rollout.h model/trainer_rollout.cpp \
	model/gpu/torch_network.h model/gpu/torch_network.cpp \
	model/gpu/trainer.h model/gpu/trainer.cpp model/gpu/trainer_config.cpp \
	model/gpu/trainer_episodes.h model/gpu/trainer_episodes.cpp
libpacml_model_la_CPPFLAGS = $(AM_CPPFLAGS) $(TORCH_CPPFLAGS)
libpacml_model_la_LIBADD = libpacml_sim.la libpacml_core.la

bin_PROGRAMS += pacml-train
pacml_train_SOURCES = model/train_main.cpp
pacml_train_CPPFLAGS = $(AM_CPPFLAGS)
pacml_train_LDADD = libpacml_model.la libpacml_args.la libpacml_sim.la libpacml_core.la \
	$(YAML_CPP_LIBS) $(HWLOC_LIBS) $(TORCH_LIBS)
pacml_train_LDFLAGS = $(TORCH_LDFLAGS)
endif
