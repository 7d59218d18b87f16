# core/zoo/ sources (model zoo); appended to libpacml_core.la
