# `make demo` and `make test` work on a fresh machine with nothing but Python >= 3.11:
# they create .venv if it is missing, install the package with the extras they need, then run.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/bilevel tune --data cancer --n-train 20 --n-val 20 --mode both --epsilon 0.2 --seed 0 --export out/

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV) out .pytest_cache
