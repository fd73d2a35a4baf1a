# pyiml: `make demo` and `make test` are all a new user needs.
PY := .venv/bin/python
BOOT := scripts/bootstrap

.PHONY: demo test bench parity docs bootstrap clean

bootstrap:
	@bash $(BOOT)

demo: bootstrap
	@$(PY) -m pyiml demo

test: bootstrap
	@PYIML_REQUIRE_R=1 MPLBACKEND=Agg $(PY) -m pytest -q tests

parity: bootstrap
	@$(PY) -m parity

bench: bootstrap
	@$(PY) -m parity.bench

docs: bootstrap
	@$(PY) -m pydoc pyiml > /dev/null

clean:
	rm -rf .venv report .pytest_cache
