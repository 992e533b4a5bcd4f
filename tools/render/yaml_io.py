"""YAML in and out for the offline tools, through libyaml when PyYAML was built with it.

libyaml parses and emits the same documents as PyYAML's pure-Python code, several times
faster; a render reads every endpoint of the stack file and writes every manifest, so this is
most of what YAML costs it. Only the safe loader and dumper are used.

PyYAML alone would read a stack file as YAML 1.1, not as the Pulumi CLI does (go-yaml v3 into
Go values, then JSON; pulumi/pulumi `sdk/go/common/resource/config/object.go`), and the render
would then accept what `pulumi preview` refuses, or hand the program other values:
- scalars resolve as go-yaml v3 resolves them, so `yes`, `on` and `no` stay text, and mapping
  keys are the text written (`1:` is the key "1", as Pulumi's `%v` gives it);
- refused with their place: `.nan` and `.inf` (JSON cannot hold them), unquoted dates (Pulumi
  passes them on rewritten, `2026-12-01 00:00:00 +0000 UTC`), tags, a null or a list as a key,
  and a key written twice, nesting past MAX_DEPTH and aliases expanding past MAX_VALUES (go-yaml
  refuses these three too: "already defined", "exceeded max depth", "excessive aliasing").
"""

import math
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from components.core.user_files import MissingFileError, UnreadableFileError, read_text

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Far beyond any stack file (the deepest settings nest about 10 levels, specOverrides a few
# more), far below what recursion in the parser and here can take.
MAX_DEPTH = 64
# Every value counted once per place it appears; a large stack file holds a few thousand.
MAX_VALUES = 100_000

_TAG = "tag:yaml.org,2002:"


class _ConfigLoader(yaml.SafeLoader):
    """PyYAML's own parser, whose error messages are the ones users see. Plain scalars resolve
    as go-yaml v3 resolves them: YAML 1.2's core schema (yaml.org/spec/1.2.2, 10.3.2) with
    underscores and 0b in numbers, and timestamps; no YAML 1.1 booleans (yes, on) or
    sexagesimals."""

    yaml_implicit_resolvers: dict = {}


class _FastConfigLoader(getattr(yaml, "CSafeLoader", _ConfigLoader)):
    """libyaml's parser when PyYAML has it, resolving by the same table."""

    yaml_implicit_resolvers = _ConfigLoader.yaml_implicit_resolvers


# PyYAML's own pattern for YAML timestamps (dates, and dates with a time).
_TIMESTAMP = next(
    pattern
    for tag, pattern in yaml.resolver.Resolver.yaml_implicit_resolvers["0"]
    if tag == f"{_TAG}timestamp"
)
for _tag, _pattern, _first in (
    ("bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    ("timestamp", _TIMESTAMP, "0123456789"),
    (
        "int",
        re.compile(r"^[-+]?(?:0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)$"),
        "-+0123456789",
    ),
    (
        "float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        "-+0123456789.",
    ),
    ("null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]),
    ("merge", re.compile(r"^(?:<<)$"), "<"),
):
    _ConfigLoader.add_implicit_resolver(f"{_TAG}{_tag}", _pattern, list(_first))


def _go_number(text: str) -> int | float:
    """A number as go-yaml v3 reads it: underscores dropped, Go's base prefixes (0b, 0o, 0x,
    and 0777 as octal), and what is no 64-bit integer read as a float."""
    plain = text.replace("_", "")
    sign, digits = (-1, plain[1:]) if plain[:1] == "-" else (1, plain.lstrip("+"))
    base = {"0b": 2, "0o": 8, "0x": 16}.get(digits[:2].lower())
    try:
        if base:
            number = sign * int(digits[2:], base)
        else:
            number = sign * int(digits, 8 if len(digits) > 1 and digits[0] == "0" else 10)
    except ValueError:
        return float(plain)
    return number if -(2**63) <= number < 2**64 else float(plain)


class DocumentError(ValueError):
    """A value of a stack file that a stack configuration cannot hold, with its place."""

    def __init__(self, problem: str, node: Node | yaml.Event, path: tuple[str | int, ...]):
        super().__init__(problem)
        self.problem = problem
        self.line = node.start_mark.line + 1
        self.column = node.start_mark.column + 1
        self.path = path


def _check_depth(text: str, loader: type) -> None:
    """Refuse deep nesting from the event stream, before anything recurses over it."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise DocumentError(
                    f"nests deeper than {MAX_DEPTH} levels; no setting nests that deep", event, ()
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


# A number's text longer than this is cut in messages: the line must stay one readable line.
_SHOWN_CHARACTERS = 80


def _cut(text: str) -> str:
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return f"{text[:_SHOWN_CHARACTERS]}... ({len(text):,} characters)"


class _Converter:
    """A composed document as the JSON values Pulumi would hand the program."""

    def __init__(self) -> None:
        self.values = 0
        self.constructor = _ConfigLoader("")

    def value(self, node: Node, path: tuple[str | int, ...]) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise DocumentError(
                f"expands to more than {MAX_VALUES:,} values through YAML aliases (*name); "
                "write the values out",
                node,
                path,
            )
        if len(path) > MAX_DEPTH:
            raise DocumentError(f"nests deeper than {MAX_DEPTH} levels through aliases", node, path)
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, SequenceNode) and node.tag == f"{_TAG}seq":
            return [self.value(item, (*path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, MappingNode) and node.tag == f"{_TAG}map":
            return self.mapping(node, path)
        raise DocumentError(_tag_problem(node.tag), node, path)

    def scalar(self, node: ScalarNode, path: tuple[str | int, ...]) -> Any:
        kind = node.tag.removeprefix(_TAG)
        text = node.value
        if kind == "str":
            return text
        if kind == "timestamp":
            raise DocumentError(
                f"{text} is a date to YAML, and Pulumi would pass it on rewritten as a "
                f'timestamp; quote it ("{text}") to keep it as written',
                node,
                path,
            )
        if kind == "null":
            return None
        if kind == "bool":
            return text.lower() == "true"
        if kind in ("int", "float"):
            try:
                number = _go_number(text.replace(".inf", "inf").replace(".nan", "nan"))
            except ValueError:
                raise DocumentError(f"{_cut(repr(text))} is not a number", node, path) from None
            if isinstance(number, float) and not math.isfinite(number):
                raise DocumentError(
                    f"{_cut(text)} is not a number JSON can hold (NaN or infinite); write a finite "
                    "number, or quote it if it is text",
                    node,
                    path,
                )
            return number
        raise DocumentError(_tag_problem(node.tag), node, path)

    def mapping(self, node: MappingNode, path: tuple[str | int, ...]) -> dict[str, Any]:
        # A key written here overrides one a merge (`<<: *base`) brings, as go-yaml v3 has it
        # (it looks for duplicates among the keys written, decode.go `mapping`); only a key
        # written twice here is refused.
        written = {id(key) for key, _ in node.value if key.tag != f"{_TAG}merge"}
        self.constructor.flatten_mapping(node)
        found: dict[str, Any] = {}
        lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == f"{_TAG}null":
                what = "empty or null" if isinstance(key_node, ScalarNode) else "not text"
                raise DocumentError(
                    f"a key here is {what}; a key is a name, quoted if it looks like something "
                    "else",
                    key_node,
                    path,
                )
            key = key_node.value
            if key in lines and id(key_node) in written:
                raise DocumentError(
                    f"{key!r} is set twice (first on line {lines[key]}); keep one",
                    key_node,
                    path,
                )
            if id(key_node) in written:
                lines[key] = key_node.start_mark.line + 1
            found[key] = self.value(value_node, (*path, key))
        return found


def _tag_problem(tag: str) -> str:
    shown = f"!!{tag.removeprefix(_TAG)}" if tag.startswith(_TAG) else tag
    return (
        f"{shown} values are not supported; a config value is text, a number, true or false, "
        "a list or a mapping (remove the tag)"
    )


def _documents(text: str, many: bool) -> list[Any]:
    """The documents of a YAML stream (`many`) or its one document, as the plain JSON values the
    Pulumi CLI would read; the depth and alias limits hold for the stream as a whole. Raises
    yaml.YAMLError for what is not YAML, DocumentError for what a configuration cannot hold."""

    def composed(loader: type) -> list[Node | None]:
        _check_depth(text, loader)
        if many:
            return list(yaml.compose_all(text, Loader=loader))
        return [yaml.compose(text, Loader=loader)]

    try:
        nodes = composed(_FastConfigLoader)
    except yaml.YAMLError:
        # libyaml words its errors its own way; PyYAML's parser raises the error users see.
        nodes = composed(_ConfigLoader)
    converter = _Converter()
    return [None if node is None else converter.value(node, ()) for node in nodes]


class YamlFileError(ValueError):
    """Why a YAML file the user names cannot be read: `where` (the path, with line and column
    where known), `keys` (the document's keys down to the value at fault, if any), `problem`."""

    def __init__(
        self,
        path: Path,
        problem: str,
        at: tuple[int, int] | None = None,
        keys: tuple[str | int, ...] = (),
        missing: bool = False,
    ):
        self.where = f"{path}:{at[0]}:{at[1]}" if at else str(path)
        self.problem, self.at, self.keys, self.missing = problem, at, keys, missing
        super().__init__(f"{self.where}: {problem}")


def read_yaml_file(path: Path, limit: int, *, many: bool = False, text: str | None = None) -> Any:
    """The one reader of the YAML files users name (a stack file, a scenario, manifests): the
    file's document (`many`: its documents), or YamlFileError; `text` stands for the file's."""
    try:
        if text is None:
            text = read_text(path, limit)
        documents = _documents(text, many)
        return documents if many else documents[0]
    except UnreadableFileError as unreadable:
        missing = isinstance(unreadable, MissingFileError)
        raise YamlFileError(path, str(unreadable), missing=missing) from None
    except DocumentError as unfit:
        raise YamlFileError(path, unfit.problem, (unfit.line, unfit.column), unfit.path) from None
    except yaml.MarkedYAMLError as broken:
        mark = broken.problem_mark or broken.context_mark
        at = (mark.line + 1, mark.column + 1) if mark else None
        problem = f"is not valid YAML: {broken.problem or broken.context}"
        raise YamlFileError(path, problem, at) from None
    except yaml.YAMLError as broken:
        raise YamlFileError(path, f"is not valid YAML: {str(broken).splitlines()[0]}") from None


def dump(value: Any) -> str:
    """Keys in the order given, block style, as `yaml.safe_dump(value, sort_keys=False)`."""
    return yaml.dump(value, Dumper=_DUMPER, sort_keys=False)
