"""The stack configuration: read the way `pulumi.Config` reads it, validated before any resource.

Each top-level field of `StackSettings` is one config key, `hyperpod-dpd:<field>`, set in
`Pulumi.<stack>.yaml`. Problems come back as one line each, naming the key at fault. The
sizing of each endpoint (KV cache, PD buffer, decoder HBM) is checked here too, so its errors
stop `pulumi preview` and its warnings reach the log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pulumi
from pulumi.runtime import config as runtime_config
from pydantic import Field, ValidationError

from components.endpoint_architecture import UnknownArchitectureError, endpoint_architecture
from components.endpoint_checks import check_endpoints
from components.endpoint_manifest import build_manifest
from components.endpoint_spec import DpdEndpointSpec
from components.findings import Finding
from components.model_architecture import ModelArchitecture
from components.sizing_checks import SizingReport, review_sizing
from components.spec import Spec
from infra.config_errors import (
    PROJECT,
    ConfigError,
    config_key,
    finding_line,
    unknown_key,
    validation_problems,
)
from infra.crd_schema import schema_errors
from infra.stack_config import StackConfig

# Secret scalar keys, read with get_secret rather than validated as settings.
KUBECONFIG_KEY = "kubeconfig"


class ModelBucketSettings(Spec):
    # The bucket S3 model sources read from unless they name their own.
    name: str | None = Field(None, pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


class BucketsSettings(Spec):
    model: ModelBucketSettings = ModelBucketSettings()


class StackSettings(Spec):
    endpoints: list[DpdEndpointSpec] = Field(min_length=1)
    buckets: BucketsSettings = BucketsSettings()


@dataclass(frozen=True)
class CheckedConfig:
    """The stack configuration, parsed and checked by every rule, before any secret is read."""

    stack: StackSettings
    region: str
    # One per endpoint, in order.
    sizing: list[SizingReport]
    # Sizing errors are the only problems a CheckedConfig can carry: see check_config.
    sizing_errors: list[str]
    warnings: list[str]


@dataclass(frozen=True)
class Settings:
    """Everything the program needs from the stack configuration, validated."""

    stack: StackSettings
    region: str
    kubeconfig: pulumi.Output[str] | None
    # Hugging Face tokens by the config key that holds them.
    secrets: dict[str, pulumi.Output[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _project_keys() -> set[str]:
    """Every `hyperpod-dpd:` key the stack sets, as the CLI hands them to the program."""
    every = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    return {key.split(":", 1)[1] for key in every if key.startswith(f"{PROJECT}:")}


def _token_keys(stack: StackSettings) -> list[tuple[int, str]]:
    return [
        (i, hf.token_config_key)
        for i, e in enumerate(stack.endpoints)
        if (hf := e.model_source.hugging_face) and hf.token_config_key
    ]


def _read_raw(config: pulumi.Config) -> tuple[dict, list[str]]:
    raw, problems = {}, []
    for name, info in StackSettings.model_fields.items():
        key = info.alias or name
        try:
            value = config.get_object(key)
        except (pulumi.ConfigTypeError, json.JSONDecodeError):
            problems.append(f"{config_key(key)}: is not a YAML object or list")
            continue
        if value is not None:
            raw[key] = value
    return raw, problems


def _unknown_keys(stack: StackSettings) -> list[str]:
    known = {info.alias or name for name, info in StackSettings.model_fields.items()}
    known |= {KUBECONFIG_KEY} | {key for _, key in _token_keys(stack)}
    return [unknown_key(config_key(key), sorted(known)) for key in sorted(_project_keys() - known)]


def _lines(found: list[tuple[int, Finding]], level: str) -> list[str]:
    """The findings of `level`, each a line naming its endpoint's config key."""
    return [
        finding_line(config_key("endpoints", i, *finding.field.split(".")), finding)
        for i, finding in found
        if finding.level == level
    ]


def _endpoint_problems(stack: StackSettings, region: str | None) -> tuple[list[str], list[str]]:
    found = check_endpoints(stack.endpoints)
    errors, warnings = _lines(found, "error"), _lines(found, "warning")
    for i, endpoint in enumerate(stack.endpoints):
        s3 = endpoint.model_source.s3
        if s3 is not None and not (s3.bucket or stack.buckets.model.name):
            errors.append(
                f"{config_key('endpoints', i, 'modelSource', 's3', 'bucket')}: is required "
                f"because {config_key('buckets', 'model', 'name')} is not set"
            )
        if s3 is not None and not (s3.region or region):
            errors.append(
                f"{config_key('endpoints', i, 'modelSource', 's3', 'region')}: is required "
                "because aws:region is not set"
            )
    return errors, warnings


def _schema_problems(stack: StackSettings, region: str | None) -> list[str]:
    problems = []
    for i, endpoint in enumerate(stack.endpoints):
        manifest = build_manifest(
            endpoint, model_bucket=stack.buckets.model.name or "", region=region or ""
        )
        problems += [
            f"{config_key('endpoints', i)}: the operator's CRD schema rejects "
            f"spec at {path.removeprefix('spec.')}: {message}"
            for path, message in schema_errors(manifest)
        ]
    return problems


def _architectures(stack: StackSettings) -> tuple[dict[int, ModelArchitecture], list[str]]:
    """The architecture of each endpoint that has one, by index, and the problem lines of
    those that don't."""
    found, problems = {}, []
    for i, endpoint in enumerate(stack.endpoints):
        try:
            found[i] = endpoint_architecture(endpoint)
        except UnknownArchitectureError as unknown:
            problems += _lines([(i, unknown.finding)], "error")
    return found, problems


def check_config() -> CheckedConfig:
    """Read the stack configuration and check every rule.

    Raises ConfigError listing every problem, unless sizing errors are the only ones: those
    come back in `sizing_errors`, beside the sizing reports that explain them, so that
    `python -m infra size` can show both. `load_settings` raises on them.
    """
    config = pulumi.Config(PROJECT)
    raw, problems = _read_raw(config)
    try:
        stack = StackSettings.model_validate(raw)
    except ValidationError as invalid:
        raise ConfigError(problems + validation_problems(invalid, StackSettings)) from None
    if problems:
        raise ConfigError(problems)

    region = pulumi.Config("aws").get("region")
    problems = _unknown_keys(stack)
    errors, warnings = _endpoint_problems(stack, region)
    problems += errors
    for i, key in _token_keys(stack):
        if config.get(key) is None:
            problems.append(
                f"{config_key('endpoints', i, 'modelSource', 'huggingFace', 'tokenConfigKey')}: "
                f"{config_key(key)} is not set; run `pulumi config set --secret {key} <token>`"
            )
    architectures, architecture_problems = _architectures(stack)
    problems += architecture_problems
    sizing = {i: review_sizing(stack.endpoints[i], model) for i, model in architectures.items()}
    found = [(i, finding) for i, report in sizing.items() for finding in report.findings]
    if not problems:
        problems = _schema_problems(stack, region)
    sizing_errors = _lines(found, "error")
    if problems:
        raise ConfigError(problems + sizing_errors)
    return CheckedConfig(
        stack=stack,
        region=region or "",
        # Every endpoint has its report: a missing architecture would have raised.
        sizing=list(sizing.values()),
        sizing_errors=sizing_errors,
        warnings=warnings + _lines(found, "warning"),
    )


def check_stack_config(stack_config: StackConfig) -> CheckedConfig:
    """`check_config` over a stack file's values, outside any Pulumi run (the offline tools)."""
    pulumi.runtime.set_all_config(stack_config.values, stack_config.secret_keys)
    return check_config()


def load_settings() -> Settings:
    """Read and check the stack configuration; raise ConfigError listing every problem."""
    checked = check_config()
    if checked.sizing_errors:
        raise ConfigError(checked.sizing_errors)
    config = pulumi.Config(PROJECT)
    return Settings(
        stack=checked.stack,
        region=checked.region,
        kubeconfig=config.get_secret(KUBECONFIG_KEY),
        secrets={key: config.require_secret(key) for _, key in _token_keys(checked.stack)},
        warnings=checked.warnings,
    )
