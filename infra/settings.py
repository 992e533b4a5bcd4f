"""The stack configuration: read the way `pulumi.Config` reads it, validated before any resource.

Each top-level field of `StackSettings` is one config key, `hyperpod-dpd:<field>`, set in
`Pulumi.<stack>.yaml`. Problems come back as one line each, naming the key at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
from pulumi.runtime import config as runtime_config
from pydantic import Field, ValidationError

from components.bucket_spec import BucketNames, BucketsSpec, bucket_names
from components.cluster_spec import ClusterSpec
from components.endpoint_checks import check_endpoints
from components.endpoint_manifest import build_manifest
from components.endpoint_spec import DpdEndpointSpec
from components.findings import Finding, field_path
from components.network_spec import NetworkSpec
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
from infra.stack_checks import check_stack
from infra.stack_config import ROOT


class StackSettings(Spec):
    endpoints: list[DpdEndpointSpec] = Field(min_length=1)
    network: NetworkSpec | None = None
    cluster: ClusterSpec = ClusterSpec()
    buckets: BucketsSpec = BucketsSpec()


@dataclass(frozen=True)
class Account:
    """Where the stack deploys, as AWS reports it."""

    id: str
    partition: str
    region: str


@dataclass(frozen=True)
class Settings:
    """Everything the program needs from the stack configuration, validated."""

    stack: StackSettings
    account: Account
    # Name of the EKS and HyperPod clusters (or of the existing EKS cluster).
    cluster_name: str
    bucket_names: BucketNames
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
    known |= {key for _, key in _token_keys(stack)}
    return [unknown_key(config_key(key), sorted(known)) for key in sorted(_project_keys() - known)]


def _findings(stack: StackSettings, cluster_name: str, names: BucketNames) -> list[Finding]:
    """Every rule's findings, with fields as paths under the project (`endpoints[0].name`)."""
    found = [
        Finding(f.level, f.code, f"{field_path('endpoints', i)}.{f.field}", f.message)
        for i, f in check_endpoints(stack.endpoints)
    ]
    return found + check_stack(
        cluster_name=cluster_name,
        network=stack.network,
        cluster=stack.cluster,
        buckets=stack.buckets,
        bucket_names=names,
        endpoints=stack.endpoints,
    )


def _schema_problems(stack: StackSettings, model_bucket: str, region: str) -> list[str]:
    problems = []
    for i, endpoint in enumerate(stack.endpoints):
        manifest = build_manifest(endpoint, model_bucket=model_bucket, region=region)
        problems += [
            f"{config_key('endpoints', i)}: the operator's CRD schema rejects "
            f"spec at {path.removeprefix('spec.')}: {message}"
            for path, message in schema_errors(manifest)
        ]
    return problems


def _chart_warning(cluster: ClusterSpec) -> list[str]:
    if cluster.existing or (ROOT / cluster.dependencies_chart / "Chart.yaml").is_file():
        return []
    return [
        f"{config_key('cluster', 'dependenciesChart')}: {cluster.dependencies_chart} holds no "
        "chart yet; run `make chart` before `pulumi up`, or installing it fails once EKS is up"
    ]


def _account(region: str) -> Account:
    return Account(
        id=aws.get_caller_identity().account_id,
        partition=aws.get_partition().partition,
        region=region,
    )


def load_settings() -> Settings:
    """Read and check the stack configuration; raise ConfigError listing every problem."""
    config = pulumi.Config(PROJECT)
    raw, problems = _read_raw(config)
    try:
        stack = StackSettings.model_validate(raw)
    except ValidationError as invalid:
        raise ConfigError(problems + validation_problems(invalid, StackSettings)) from None
    region = pulumi.Config("aws").get("region")
    if region is None:
        problems.append("aws:region: is required, e.g. `pulumi config set aws:region us-west-2`")
    if problems:
        raise ConfigError(problems)

    account = _account(region)
    cluster = stack.cluster
    cluster_name = (
        cluster.existing.eks_cluster_name
        if cluster.existing
        else cluster.name or f"{PROJECT}-{pulumi.get_stack()}"
    )
    names = bucket_names(
        stack.buckets, cluster.name or f"{PROJECT}-{pulumi.get_stack()}", account.id
    )
    findings = _findings(stack, cluster_name, names)
    problems = _unknown_keys(stack)
    problems += [finding_line(config_key(f.field), f) for f in findings if f.level == "error"]
    for i, key in _token_keys(stack):
        if config.get(key) is None:
            problems.append(
                f"{config_key('endpoints', i, 'modelSource', 'huggingFace', 'tokenConfigKey')}: "
                f"{config_key(key)} is not set; run `pulumi config set --secret {key} <token>`"
            )
    if not problems:
        problems = _schema_problems(stack, names.model, region)
    if problems:
        raise ConfigError(problems)

    return Settings(
        stack=stack,
        account=account,
        cluster_name=cluster_name,
        bucket_names=names,
        secrets={key: config.require_secret(key) for _, key in _token_keys(stack)},
        warnings=[finding_line(config_key(f.field), f) for f in findings if f.level != "error"]
        + _chart_warning(stack.cluster),
    )
