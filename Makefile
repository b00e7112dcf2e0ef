# mqlite: `make run` runs the main job, `make test` the whole test suite.
# Each creates its own virtual environment (.venv) and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,spark,pg,web,amqp]' --config-settings editable_mode=compat
	touch $@

.PHONY: run test bench pipeline lint clean constants services
run: $(VENV)/.installed
	$(VENV)/bin/mqlite demo

pipeline: $(VENV)/.installed
	$(PY) examples/pipeline/run.py

test: $(VENV)/.installed services
	$(PY) -m pytest -q

services:
	tools/services.sh

bench: $(VENV)/.installed
	$(PY) bench/putget.py
	$(PY) bench/channel.py
	$(PY) bench/pcf.py
	$(PY) bench/cluster.py
	$(PY) bench/spark.py
	$(PY) bench/rest.py
	$(PY) bench/protocols.py

constants:
	$(PYTHON) tools/gen_constants.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
