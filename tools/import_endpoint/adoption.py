"""The `pulumi import` that adopts live InferenceEndpointConfigs under the names the program
registers them with, so the first `pulumi up` updates them in place.

Pulumi matches a resource in the program to one in the state by its URN: its type, its name,
and the types of its parents. The import must therefore register each object under the
endpoint component the program creates it in, with the program's Kubernetes provider. Both are
read from a render of the stack with the adopted items, which runs the program's own code, so
they cannot drift from it. The component does not exist in the state before the import (the
endpoint is new to the stack), so the import file declares it as a component for Pulumi to
create empty (`"component": true`, Pulumi 3.94 and later), and the object's `parent` names it
in the same file; `logicalName` is the resource's name, and `name` is only what Pulumi's code
generation would call it (pulumi/pulumi, `pkg/cmd/pulumi/import.go`, the import file's format).

The ID of a namespaced Kubernetes object is `<namespace>/<name>` (pulumi-kubernetes' import
docs). The file is written beside the stack's file; every value of the printed command goes
through `shlex.quote`.
"""

import json
import shlex
from pathlib import Path
from typing import Any

from components.core.user_files import read_text, replace_file, writable_problem
from tools.render.render import STACK_TYPE, Registration, RenderResult


def import_file(result: RenderResult, objects: list[Registration]) -> dict[str, Any]:
    """The `pulumi import --file` document for the live `objects` (as the render registers
    them), with the components that hold them."""
    name_table: dict[str, str] = {}
    resources: list[dict[str, Any]] = []
    for i, registered in enumerate(objects):
        component = result.by_urn(registered.parent)
        entry: dict[str, Any] = {
            "type": component.type,
            "name": f"endpoint{i}",
            "logicalName": component.name,
            "component": True,
        }
        # The parent's type: the last of its URN's type chain.
        if component.parent and component.parent.split("::")[2].split("$")[-1] != STACK_TYPE:
            name_table[f"endpointParent{i}"] = component.parent
            entry["parent"] = f"endpointParent{i}"
        resources.append(entry)
        provider = f"provider{i}"
        name_table[provider] = registered.provider
        metadata = registered.inputs["metadata"]
        resources.append(
            {
                "type": registered.type,
                "name": f"endpointConfig{i}",
                "logicalName": registered.name,
                "id": f"{metadata['namespace']}/{metadata['name']}",
                "parent": f"endpoint{i}",
                "provider": provider,
            }
        )
    return {"nameTable": name_table, "resources": resources}


def import_file_path(stack_file: Path, stack: str, names: list[str]) -> Path:
    """Where the import file goes: beside the stack's file, named for the endpoints it adopts,
    so that imports of other endpoints, at once or before the first `pulumi import`, keep
    theirs."""
    more = f"-and-{len(names) - 1}-more" if len(names) > 1 else ""
    return stack_file.parent / f"import-{stack}-{names[0]}{more}.json"


def import_file_problem(path: Path) -> str | None:
    """Why the import file cannot be written at `path`: it is no file, or an existing file that
    is no import file (a JSON object of `nameTable` and `resources`), which is the user's."""
    problem = writable_problem(path)
    if problem or not path.exists():
        return problem
    try:
        document = json.loads(read_text(path, 2**20))
    except ValueError as unfit:  # UnreadableFileError, or no JSON
        return str(unfit)
    if not isinstance(document, dict) or set(document) != {"nameTable", "resources"}:
        return "exists and is no `pulumi import` file; move it, or remove it first"
    return None


def write_import_file(path: Path, document: dict[str, Any]) -> None:
    replace_file(path, json.dumps(document, indent=2) + "\n")


def import_command(stack: str, path: Path) -> str:
    """The `pulumi import` that adopts what the import file at `path` lists into `stack`; the
    items in the stack file are the program's description of the objects, so no code is
    generated."""
    return (
        f"pulumi import --stack {shlex.quote(stack)} --file {shlex.quote(str(path))} "
        "--generate-code=false"
    )
