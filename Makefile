# pyiml: `make demo` and `make test` are all a new user needs.
PY := .venv/bin/python
BOOT := scripts/bootstrap

.PHONY: demo test bench parity docs bootstrap clean

bootstrap:
	@bash $(BOOT)

demo: bootstrap
	@$(PY) -m pyiml demo

# Unit, property, parity (live R), docs and browser tests. Speed is measured by `make bench`,
# never asserted in the unit suite.
test: bootstrap
	@PYIML_REQUIRE_R=1 MPLBACKEND=Agg $(PY) -m pytest -q tests --ignore=tests/benchmarks

parity: bootstrap
	@$(PY) -m parity

# pytest-benchmark tests (speed ratios against R iml, sklearn and the floor), then the table
# of every method side by side, written to docs/benchmarks.md, and the bare numpy lower bounds
# of the floor ratios, written to docs/bounds.md. The table and the bounds are written even when
# a benchmark test misses its target; make then fails at the end.
bench: bootstrap
	@status=0; \
	PYIML_REQUIRE_R=1 MPLBACKEND=Agg $(PY) -m pytest -q tests/benchmarks --benchmark-enable --benchmark-min-rounds=5 || status=$$?; \
	$(PY) -m parity.bench || status=$$?; \
	$(PY) -m parity.bounds || status=$$?; \
	exit $$status

docs: bootstrap
	@$(PY) -m pydoc pyiml > /dev/null

clean:
	rm -rf .venv report .pytest_cache
