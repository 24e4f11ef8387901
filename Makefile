# `make demo` and `make test` work on a fresh machine with nothing but Python >= 3.11:
# they create .venv if it is missing, install the package with the extras they need, then run.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# The HiGHS release .venv gets: the one the README's measurements were made with. pyproject.toml allows a
# range; `make test HIGHSPY=1.16.0` tests another release, `HIGHSPY=` takes the newest the range allows
# (`--upgrade highspy`: a plain install keeps the release already in .venv, as it satisfies the range).
HIGHSPY ?= 1.15.1
HIGHSPY_REQ := $(if $(HIGHSPY),highspy==$(HIGHSPY),--upgrade highspy)
# The stamp holds the HiGHS release installed; asking for another one reinstalls.
ifneq ($(shell cat $(STAMP) 2>/dev/null),highspy=$(HIGHSPY))
.PHONY: $(STAMP)
endif

MIN_VENV := .venv-min
MIN_STAMP := $(MIN_VENV)/.installed-stamp

.PHONY: demo test test-min install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]' $(HIGHSPY_REQ)
	echo 'highspy=$(HIGHSPY)' > $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/bilevel tune --data cancer --n-train 20 --n-val 20 --mode both --epsilon 0.2 --seed 0 --export out/

# PYTEST_ARGS go to pytest, e.g. `make test PYTEST_ARGS="--highs-seed 1"` (tests/conftest.py) or "-m 'not slow'".
PYTEST_ARGS ?=
# The tests run in PYTEST_JOBS processes (pytest-xdist): 2 uses both cores of a 2-core machine, where it halves
# the suite's time (README, its opening `make test` paragraph); PYTEST_JOBS=0 runs them in the pytest process
# itself, one at a time.
PYTEST_JOBS ?= 2

test: $(STAMP)
	$(PY) -m pytest -n $(PYTEST_JOBS) $(PYTEST_ARGS)

# The same tests in a second environment holding the lowest version pyproject.toml allows of every
# dependency (tests/minimum-versions.txt), so the declared lower bounds are tested, not guessed.
$(MIN_STAMP): pyproject.toml tests/minimum-versions.txt
	test -x $(MIN_VENV)/bin/python || $(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(MIN_VENV)/bin/python -m pip install --quiet -c tests/minimum-versions.txt -e '.[test]'
	touch $(MIN_STAMP)

test-min: $(MIN_STAMP)
	$(MIN_VENV)/bin/python -m pytest -n $(PYTEST_JOBS) $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(MIN_VENV) out .pytest_cache
