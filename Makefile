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

.PHONY: run test bench pipeline lint clean constants services plugin-wheel
run: $(VENV)/.installed
	$(VENV)/bin/mqlite demo

pipeline: $(VENV)/.installed
	$(PY) examples/pipeline/run.py

test: $(VENV)/.installed services plugin-wheel
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=25

# The pytest plugin as a user gets it: mqlite built as a wheel, installed in a virtual environment of
# its own with pytest alone, and the plugin's tests run there, outside the checkout (docs/testing.md).
plugin-wheel: $(VENV)/.installed
	rm -rf build/wheeltest
	$(PY) -m pip wheel --quiet --no-deps -w build/wheeltest/dist .
	$(PYTHON) -m venv build/wheeltest/venv
	build/wheeltest/venv/bin/pip install --quiet pytest==9.0.3 build/wheeltest/dist/*.whl
	cp tests/testkit/test_pytest_plugin.py build/wheeltest/
	cd build/wheeltest && venv/bin/python -m pytest -q -p no:cacheprovider test_pytest_plugin.py

services:
	tools/services.sh

bench: $(VENV)/.installed
	$(PY) bench/table.py
	$(PY) bench/channel.py
	$(PY) bench/pcf.py
	$(PY) bench/cluster.py
	$(PY) bench/spark.py
	$(PY) bench/rest.py

constants:
	$(PYTHON) tools/gen_constants.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
