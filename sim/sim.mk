# sim/ simulator sources (appended to libpacml_sim_la_SOURCES) and its commands (pacml_SOURCES).
