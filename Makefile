# make setup   create .venv with every runtime and test dependency, and policy/.venv for the
#              policy pack (quick when done already)
# make render  render the dev stack offline into build/dev
# make test    lint and run the tests, the policy pack's too
# make chart   fetch the HyperPod dependencies Helm chart for `pulumi up`
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The policy pack has its own environment: pulumi-policy pins protobuf 5, the program's pulumi 6.
POLICY_VENV := policy/.venv
POLICY_BIN := $(POLICY_VENV)/bin
POLICY_STAMP := $(POLICY_VENV)/.installed

.PHONY: setup render test chart clean

setup: $(STAMP) $(POLICY_STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(POLICY_STAMP): policy/requirements.txt
	test -x $(POLICY_BIN)/python || $(PYTHON) -m venv $(POLICY_VENV)
	$(POLICY_BIN)/python -m pip install --quiet --disable-pip-version-check -r policy/requirements.txt
	touch $@

render: setup
	$(BIN)/python -m infra render --stack dev

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest
	$(POLICY_BIN)/python -m pytest policy/tests

# Before `pulumi up`: the HyperPod dependencies chart at its pinned revision (needs git, helm
# and network access).
chart: setup
	$(BIN)/python -m infra chart

clean:
	rm -rf build $(VENV) $(POLICY_VENV)
