"""The stack configuration: read the way `pulumi.Config` reads it, validated before any resource.

Each top-level field of `StackSettings` is one config key, `hyperpod-dpd:<field>`, set in
`Pulumi.<stack>.yaml`. Problems come back as one line each, naming the key at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pulumi
from pulumi.runtime import config as runtime_config
from pydantic import Field, ValidationError

from components.endpoint_checks import check_endpoints
from components.endpoint_manifest import build_manifest
from components.endpoint_spec import DpdEndpointSpec
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


def _endpoint_problems(stack: StackSettings, region: str | None) -> tuple[list[str], list[str]]:
    errors, warnings = [], []
    for i, finding in check_endpoints(stack.endpoints):
        line = finding_line(config_key("endpoints", i, *finding.field.split(".")), finding)
        (errors if finding.level == "error" else warnings).append(line)

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


def load_settings() -> Settings:
    """Read and check the stack configuration; raise ConfigError listing every problem."""
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
    if not problems:
        problems = _schema_problems(stack, region)
    if problems:
        raise ConfigError(problems)

    return Settings(
        stack=stack,
        region=region or "",
        kubeconfig=config.get_secret(KUBECONFIG_KEY),
        secrets={key: config.require_secret(key) for _, key in _token_keys(stack)},
        warnings=warnings,
    )
