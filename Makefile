# Two commands: `make run` and `make test`. Both bootstrap .venv on a fresh machine.
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)
PORT    ?= 8501

.PHONY: run test venv chromium clean bench flink flink-optional

$(VPY):
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip setuptools wheel

$(STAMP): $(VPY) pyproject.toml
	$(VPY) -m pip install -q -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

# Apache Flink for `cep verify --against flink` and its tests, in a venv of its own: its py4j,
# pyarrow and cloudpickle pins conflict with pyspark 4. Needs Java 11 or 17 at run time.
FLINK_VENV    := .venv-flink
FLINK_PY      := $(FLINK_VENV)/bin/python
FLINK_VERSION := 2.3.0
FLINK_STAMP   := $(FLINK_VENV)/.installed-apache-flink-$(FLINK_VERSION)

$(FLINK_STAMP):
	rm -rf $(FLINK_VENV)
	$(PY) -m venv $(FLINK_VENV)
	$(FLINK_PY) -m pip install -q --upgrade pip
	$(FLINK_PY) -m pip install -q apache-flink==$(FLINK_VERSION)
	touch $(FLINK_STAMP)

flink: $(FLINK_STAMP)

# `make test` tries Flink but goes on without it (no network): the Flink tests then skip.
flink-optional:
	@$(MAKE) --no-print-directory flink \
	  || { rm -rf $(FLINK_VENV); echo "WARNING: could not install apache-flink==$(FLINK_VERSION); the Flink tests will be skipped"; }

# Browser tests drive Debian's chromium; install it when it is missing (root on CI machines).
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian's chromium for browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	    || echo "WARNING: could not install chromium; browser tests will be skipped"; \
	fi

# Loopback only (cep serve prints a warning for HOST=0.0.0.0); DATA_DIR=DIR offers the files under DIR.
HOST    ?= 127.0.0.1
DATA_DIR ?=
run: $(STAMP)
	$(VPY) -m engine.commands.cli serve --host $(HOST) --port $(PORT) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

# The tests in two runs, both run even when the first fails (make fails when either does):
# 1. everything but the browser tests in TEST_WORKERS pytest-xdist workers (0: in this process);
#    the Spark tests run one after another in one worker, the Flink tests in the other
#    (tests/conftest.py groups them), and the pure-Python tests fill both;
# 2. the browser tests alone, one after another (chromium and the app have the machine).
TEST_WORKERS ?= 2
PYTEST := $(VPY) -m pytest -q -p no:cacheprovider
test: $(STAMP) chromium flink-optional
	status=0; \
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup --ignore=tests/app/browser || status=$$?; \
	$(PYTEST) tests/app/browser || status=$$?; \
	exit $$status

bench: $(STAMP)
	$(VPY) benchmarks/nfab_sase.py --out docs/benchmarks.md
	$(VPY) benchmarks/lazy_vs_eager.py

clean:
	rm -rf $(VENV) $(FLINK_VENV) build *.egg-info tests/artifacts
