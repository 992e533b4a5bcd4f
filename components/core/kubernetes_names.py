"""What Kubernetes accepts as an object name, an environment variable name, a label key and
value, and a resource quantity: the API server's own rules (k8s.io/apimachinery validation),
which would otherwise refuse pods long after `pulumi up` built the cluster."""

import re
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator

from components.core.shaped import shaped_str

# An object name or namespace: an RFC 1123 label.
NAME_MAX = 63
KubernetesName = shaped_str(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    "must be a Kubernetes name: at most 63 lowercase letters, digits or '-', starting and "
    "ending with a letter or digit",
    max_length=NAME_MAX,
)
ENV_VAR_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
# A label's name part, and a label value when not empty.
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_NAME_MAX = 63
# A DNS subdomain (RFC 1123), the optional prefix of a label key.
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_SUBDOMAIN_MAX = 253
# A resource quantity (k8s.io/apimachinery `resource.Quantity`), as the operator's CRD spells its
# pattern for every resources.requests and limits value.
QUANTITY = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+"
    r"(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
QUANTITY_WORDS = "a Kubernetes quantity such as 500m, 4 or 16Gi"
Quantity = shaped_str(QUANTITY, f"must be {QUANTITY_WORDS}")
# What a quantity's suffix multiplies by (resource.Quantity's binary and decimal SI suffixes).
_QUANTITY_SUFFIXES = {
    **{s: Decimal(1024) ** (i + 1) for i, s in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))},
    **{s: Decimal(1000) ** (i + 1) for i, s in enumerate("kMGTPE")},
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
}


def quantity_value(quantity: str) -> Decimal:
    """The amount a quantity (one QUANTITY matches) stands for: `500m` is 0.5, `16Gi` is
    16 x 2^30, `1e3` is 1000."""
    number, suffix = re.fullmatch(r"([+-]?[0-9.]*)(.*)", quantity).groups()
    if suffix in _QUANTITY_SUFFIXES:
        return Decimal(number) * _QUANTITY_SUFFIXES[suffix]
    return Decimal(quantity)  # an exponent: 1e3


def env_var_name_problem(name: str) -> str | None:
    if ENV_VAR_NAME.match(name):
        return None
    return (
        f"{name!r} is not an environment variable name Kubernetes accepts; it must start with "
        "a letter, '_', '-' or '.', followed by letters, digits, '_', '-' or '.'"
    )


_NAME_RULE = (
    "at most 63 characters that start and end with a letter or digit, with only letters, "
    "digits, '-', '_' or '.' between"
)


def _valid_label_name(name: str) -> bool:
    return len(name) <= LABEL_NAME_MAX and bool(_LABEL_NAME.match(name))


def label_key_problem(key: str) -> str | None:
    prefix, slash, name = key.rpartition("/")
    if not _valid_label_name(name):
        problem = f"its name{' (after the /)' if slash else ''} must be {_NAME_RULE}"
    elif slash and (len(prefix) > DNS_SUBDOMAIN_MAX or not DNS_SUBDOMAIN.match(prefix)):
        problem = (
            f"its prefix (before the /) must be a lowercase DNS subdomain of at most "
            f"{DNS_SUBDOMAIN_MAX} characters, e.g. example.com"
        )
    else:
        return None
    return f"{key!r} is not a label key Kubernetes accepts: {problem}"


def label_value_problem(value: str) -> str | None:
    if not value or _valid_label_name(value):
        return None
    return f"{value!r} is not a label value Kubernetes accepts: it must be empty or {_NAME_RULE}"


# What the API server takes as a variable's `valueFrom`, which the CRD does not check
# (k8s.io/kubernetes validation, `validateEnvVarValueFrom`): one source of these.
VALUE_SOURCES = ("secretKeyRef", "configMapKeyRef", "fieldRef", "resourceFieldRef", "fileKeyRef")
_POD_FIELD = re.compile(
    r"metadata\.(name|namespace|uid|(labels|annotations)\['[^']+'\])"
    r"|spec\.(nodeName|serviceAccountName)|status\.(hostIPs?|podIPs?)"
)
_RESOURCE = re.compile(r"(limits|requests)\.(cpu|memory|ephemeral-storage|hugepages-.+)")


def value_from_problem(source: dict) -> str | None:
    given = [kind for kind in VALUE_SOURCES if source.get(kind) is not None]
    if len(given) != 1:
        return f"sets {' and '.join(given) or 'no source'}; Kubernetes takes exactly one"
    kind, ref = given[0], source[given[0]]
    name, key = ref.get("name", ""), ref.get("key", "k")
    if kind in VALUE_SOURCES[:2] and not (len(name) <= 253 and DNS_SUBDOMAIN.match(name)):
        return f"{kind}.name: {name!r} is not a name Kubernetes accepts (lowercase, '-', '.')"
    if kind in VALUE_SOURCES[:2] and not re.fullmatch(r"[-._a-zA-Z0-9]{1,253}", key):
        return f"{kind}.key: {key!r} is not a key: 1 to 253 letters, digits, '-', '_' or '.'"
    if kind == "fieldRef" and not _POD_FIELD.fullmatch(ref["fieldPath"]):
        return f"fieldRef.fieldPath: {ref['fieldPath']!r} is not a pod field a variable can take"
    if kind == "resourceFieldRef" and not _RESOURCE.fullmatch(ref["resource"]):
        return f"resourceFieldRef.resource: {ref['resource']!r} is not a container's cpu or memory"
    return None


def _checked(problem_of):
    def check(value: str) -> str:
        problem = problem_of(value)
        if problem:
            raise ValueError(problem)
        return value

    return AfterValidator(check)


EnvVarName = Annotated[str, _checked(env_var_name_problem)]
LabelKey = Annotated[str, _checked(label_key_problem)]
LabelValue = Annotated[str, _checked(label_value_problem)]
ValueFromRule = _checked(value_from_problem)
