"""Which input changes replace a resource rather than update it, beyond what the program records.

The program records `replaceOnChanges` where it or the SDK declares them (aws-native's
create-only properties). Other providers decide at preview time, so this module says what they
decide for the types this stack creates:
- every AWS type with a CloudFormation twin: the inputs behind its `createOnlyProperties`, as
  cfn-lint's schemas give them (`create_only.json`, derived by scripts/derive_create_only.py),
  less where Terraform's AWS provider, which pulumi-aws is built on, updates in place;
- the types with no CloudFormation twin, by hand, each with its source;
- every Kubernetes object: its name and namespace.
"""

import json
from collections.abc import Iterable
from pathlib import Path

from tools.diff.property_paths import covers, overlaps

CREATE_ONLY_PATH = Path(__file__).with_name("create_only.json")
_CREATE_ONLY: dict[str, tuple[str, ...]] = {
    token: tuple(entry["replaces"])
    for token, entry in json.loads(CREATE_ONLY_PATH.read_text())["types"].items()
}

# Where Terraform's AWS provider, which pulumi-aws is built on, updates in place what
# CloudFormation would replace, and the types with no CloudFormation twin: each with its source.
_HAND = json.loads(Path(__file__).with_name("hand_replaces.json").read_text())
TERRAFORM_IN_PLACE = {t: tuple(e["inputs"]) for t, e in _HAND["terraformInPlace"].items()}
HAND_REPLACES = {t: tuple(e["inputs"]) for t, e in _HAND["handReplaces"].items()}

# "Changing the identity of the resource always causes a replacement" (pulumi-kubernetes,
# provider/pkg/provider/provider.go, Diff): a Kubernetes object's name and namespace.
KUBERNETES_REPLACES = ("metadata.name", "metadata.namespace")


def replace_triggers(type_: str) -> tuple[str, ...]:
    """The inputs of `type_` whose change replaces it, whatever the program records."""
    if type_.startswith("kubernetes:") and type_ not in HAND_REPLACES:
        return KUBERNETES_REPLACES
    in_place = TERRAFORM_IN_PLACE.get(type_, ())
    derived = tuple(t for t in _CREATE_ONLY.get(type_, ()) if t not in in_place)
    return derived + HAND_REPLACES.get(type_, ())


def replacing(type_: str, recorded: Iterable[str], changed_path: str) -> str | None:
    """The replace-triggering input that `changed_path` falls under, if any."""
    for trigger in [*recorded, *replace_triggers(type_)]:
        if covers(trigger, changed_path):
            return trigger
    return None


def replacing_when_unknown(type_: str, recorded: Iterable[str], key: str) -> str | None:
    """The replace-triggering input that an unknown top-level input `key` may change, if any:
    the trigger itself, one inside it, or one it lies inside."""
    for trigger in [*recorded, *replace_triggers(type_)]:
        if overlaps(trigger, key):
            return trigger
    return None
