"""The stack configuration, read as `pulumi.Config` reads it and checked before any resource:
one line per problem, naming the key. Sizing is checked here too, so its errors stop a preview."""

import difflib
import json
import shlex
from dataclasses import dataclass, field
from datetime import date

import pulumi
import pulumi_aws as aws
from pulumi.runtime import config as runtime_config
from pydantic import ValidationError

from components.cluster.checks import check_cluster
from components.cluster.instance_groups import nodes_by_az
from components.core.aws_account import AwsAccount
from components.core.findings import Finding, field_path
from components.core.placeholders import check_curly_quotes, check_placeholders
from components.endpoint.checks import check_endpoints
from components.endpoint.guardrails import endpoint_violations
from components.endpoint.manifest import build_manifest
from components.endpoint.observability_checks import check_endpoint_observability
from components.endpoint.schema import schema_errors
from components.endpoint.spec import EndpointSpec
from components.endpoint.workload import check_context
from components.model.architecture import ModelArchitecture
from components.network.checks import check_network
from components.observability.checks import check_observability
from components.observability.workspace import server_address
from components.operator.checks import check_operator, resolved_operator_version
from components.sizing.checks import SizingReport, review_sizing
from components.sizing.endpoint_architecture import (
    UnknownArchitectureError,
    endpoint_architecture,
    served_spec,
)
from components.storage.spec import BucketNames, bucket_names, check_bucket_names
from infra import clock
from infra.cluster_fit import check_cluster_fit
from infra.config_errors import (
    PROJECT,
    ConfigError,
    config_key,
    finding_line,
    unknown_key,
    validation_problems,
)
from infra.endpoint_predictions import EndpointPrediction, review_predictions, stack_calibrations
from infra.paths import ROOT
from infra.preflight import preflight
from infra.region_checks import account_problems, region_problems
from infra.rollout_room import EndpointRoom, rollout_room
from infra.stack_settings import SETTING_KEYS, StackSettings


@dataclass(frozen=True)
class CheckedConfig:
    """The stack configuration, parsed and checked by every rule, before AWS is asked anything."""

    stack: StackSettings
    region: str
    # Name of the EKS and HyperPod clusters (or of the existing EKS cluster).
    cluster_name: str
    sizing: list[SizingReport]
    # Sizing errors are the only problems a CheckedConfig can carry: see check_config.
    sizing_errors: list[str]
    # One per endpoint, in order: the performance model's, None without a workload to predict.
    predictions: list[EndpointPrediction | None]
    warnings: list[str]
    # The day (UTC) the checks ran: EKS's calendar decides which Kubernetes versions pass.
    today: date
    # One per endpoint, in order: the room the cluster has for a roll or swap of it.
    rollouts: list[EndpointRoom] = field(default_factory=list)


@dataclass(frozen=True)
class Settings:
    stack: StackSettings
    account: AwsAccount
    cluster_name: str
    bucket_names: BucketNames
    # Hugging Face tokens by the config key that holds them.
    secrets: dict[str, pulumi.Output[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # One per endpoint, in order: what the offline render reports beside the resources.
    sizing: list[SizingReport] = field(default_factory=list)
    predictions: list[EndpointPrediction | None] = field(default_factory=list)
    rollouts: list[EndpointRoom] = field(default_factory=list)


def _is_secret(key: str) -> bool:
    """Whether the stack file holds `key` encrypted (`require_secret` cannot tell): the CLI hands
    the encrypted keys over in PULUMI_CONFIG_SECRET_KEYS, the offline render to `set_all_config`."""
    full = f"{PROJECT}:{key}"
    return (
        runtime_config.is_config_secret(full) or full in runtime_config.get_config_secret_keys_env()
    )


def _token_problems(config: pulumi.Config, stack: StackSettings) -> list[str]:
    """A Hugging Face token must be set, and encrypted in the stack file."""
    problems = []
    for i, key in _token_keys(stack):
        field = config_key("endpoints", i, "modelSource", "huggingFace", "tokenConfigKey")
        # Without a value, `pulumi config set` asks for it, which keeps the token out of the
        # shell's history (Pulumi CLI reference, `pulumi config set`).
        command = f"`pulumi config set --secret {shlex.quote(key)}` (it asks for the token)"
        if ":" in key:
            # `aws:region` would have the advice below overwrite the region with the token.
            problems.append(
                f"{field}: {key!r} names a namespace, but the token is always read from this "
                f"project's ({PROJECT}:<name>); give a name alone, e.g. hfToken, set with "
                "`pulumi config set --secret hfToken` (it asks for the token)"
            )
        elif key in SETTING_KEYS:
            problems.append(
                f"{field}: {key!r} is one of this program's own settings "
                f"({', '.join(SETTING_KEYS)}); name a key of its own for the token, e.g. hfToken"
            )
        elif config.get(key) is None:
            problems.append(f"{field}: {config_key(key)} is not set; run {command}")
        elif not _is_secret(key):
            problems.append(
                f"{field}: {config_key(key)} is plain text in the stack file, where anyone who "
                f"reads the repository reads the token; encrypt it with {command}"
            )
    return problems


def _token_keys(stack: StackSettings) -> list[tuple[int, str]]:
    return [
        (i, hf.token_config_key)
        for i, e in enumerate(stack.endpoints)
        if (hf := e.model_source.hugging_face) and hf.token_config_key
    ]


def _read_raw(config: pulumi.Config) -> tuple[dict, list[str]]:
    raw, problems = {}, []
    for key in SETTING_KEYS:
        if _is_secret(key):
            problems.append(
                f"{config_key(key)}: is encrypted (`secure:`), whole or in part; settings are "
                "plain text, and the one secret this program reads is a Hugging Face token "
                "under a key of its own, named by modelSource.huggingFace.tokenConfigKey"
            )
            continue
        if config.get(key) == "":
            # `network:` with nothing after it: what the CLI passes for a YAML null.
            continue
        try:
            value = config.get_object(key)
        except (pulumi.ConfigTypeError, json.JSONDecodeError):
            shape = "list" if key == "endpoints" else "mapping"
            problems.append(f"{config_key(key)}: is text; this setting is a YAML {shape}")
            continue
        if value is not None:
            raw[key] = value
    return raw, problems


def _unknown_keys(raw: dict) -> list[str]:
    """`hyperpod-dpd:` keys the stack sets (as the CLI hands them to the program) that no setting
    reads, then settings under a namespace one slip from the project's (`hyperpod_dpd:endpoints`):
    Pulumi hands them to no program, so the stack would deploy without them."""
    every = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    project = {key.split(":", 1)[1] for key in every if key.startswith(f"{PROJECT}:")}
    known = set(SETTING_KEYS)
    # The token config keys the endpoints name, read before the settings validate, so that the
    # keys they name are known even when another setting is wrong.
    endpoints = raw.get("endpoints")
    for endpoint in endpoints if isinstance(endpoints, list) else []:
        source = endpoint.get("modelSource") if isinstance(endpoint, dict) else None
        hugging_face = source.get("huggingFace") if isinstance(source, dict) else None
        key = hugging_face.get("tokenConfigKey") if isinstance(hugging_face, dict) else None
        if isinstance(key, str):
            known.add(key)
    return [unknown_key(config_key(key), sorted(known)) for key in sorted(project - known)] + [
        f"{key}: is in namespace {namespace}, which this program never reads; did you mean "
        f"{config_key(name)}?"
        for key in sorted(every)
        for namespace, _, name in [key.partition(":")]
        if namespace != PROJECT
        and name in SETTING_KEYS
        # Pulumi matches namespaces exactly, case included: Hyperpod-DPD is another one.
        and difflib.get_close_matches(namespace.lower(), [PROJECT], cutoff=0.8)
    ]


def _of_endpoint(i: int, finding: Finding) -> Finding:
    field = f"{field_path('endpoints', i)}.{finding.field}"
    return Finding(finding.level, finding.code, field, finding.message)


def _findings(
    stack: StackSettings, cluster_name: str, names: BucketNames, region: str, today: date
) -> list[Finding]:
    found = [_of_endpoint(i, f) for i, f in check_endpoints(stack.endpoints)]
    found += check_endpoint_observability(stack.observability, stack.endpoints)
    found += check_observability(stack.observability, region)
    found += [
        Finding(f.level, f.code, f"operator.{f.field}", f.message)
        for f in check_operator(stack.operator)
    ]
    found += check_bucket_names(stack.buckets, names)
    found += check_cluster(cluster_name, stack.cluster, stack.network, stack.operator, today)
    if stack.cluster.existing is not None:
        return found
    found += check_network(stack.network, nodes_by_az(stack.cluster.instance_groups))
    return found + check_cluster_fit(stack.cluster, stack.network, stack.endpoints, region)


# A workspace ID of AMP's form, for checking manifests before the stack's workspace exists.
_ANY_WORKSPACE_ID = "ws-00000000-0000-0000-0000-000000000000"


def _manifest_problems(stack: StackSettings, model_bucket: str, region: str) -> list[str]:
    problems = []
    # The workspace autoscaling queries by default: the adopted one's, or one of the form the
    # stack's new workspace will have.
    spec = stack.observability
    address = None
    if spec.enabled and spec.prometheus_workspace_arn is not None:
        address = server_address(spec.prometheus_workspace_arn)
    elif spec.enabled:
        address = f"https://aps-workspaces.{region}.amazonaws.com/workspaces/{_ANY_WORKSPACE_ID}"
    # Checked by check_operator before manifests are built.
    operator = resolved_operator_version(stack.operator)
    installed = stack.operator.installed
    if installed is None:
        source = f"{config_key('operator', 'addonVersion')} {stack.operator.addon_version}"
    elif installed.addon_version is not None:
        source = f"{config_key('operator', 'installed', 'addonVersion')} {installed.addon_version}"
    else:
        source = config_key("operator", "installed", "operatorVersion")
    for i, endpoint in enumerate(stack.endpoints):
        manifest = build_manifest(
            endpoint, model_bucket=model_bucket, region=region, prometheus_address=address
        )
        problems += [
            f"{config_key('endpoints', i)}: the CRD of operator {operator} (from "
            f"{source}) rejects {path}: {message}"
            for path, message in schema_errors(manifest, operator)
        ]
        problems += [
            f"{config_key('endpoints', i)}: the manifest breaks DPD at spec.{violation}"
            for violation in endpoint_violations(manifest["spec"])
        ]
    return problems


def _architectures(
    stack: StackSettings,
) -> tuple[dict[int, tuple[EndpointSpec, ModelArchitecture]], list[Finding]]:
    """Each endpoint that has an architecture, by index, as vLLM serves it with its
    architecture, and the findings of those that don't: errors, or warnings for a colocated
    endpoint, which deploys unsized."""
    found, problems = {}, []
    for i, endpoint in enumerate(stack.endpoints):
        try:
            model = endpoint_architecture(endpoint)
            found[i] = (served_spec(endpoint, model), model)
        except UnknownArchitectureError as unknown:
            problems.append(_of_endpoint(i, unknown.finding))
            continue
        if endpoint.max_model_len is None:
            length = f"{model.name}'s context (which vLLM serves, maxModelLen being unset)"
            problems += [_of_endpoint(i, f) for f in check_context(found[i][0], length)]
    return found, problems


def _lines(findings: list[Finding], *levels: str) -> list[str]:
    return [finding_line(config_key(f.field), f) for f in findings if f.level in levels]


def _stack_prefix(stack: StackSettings) -> str:
    """Names this stack's clusters and buckets, so that stacks of one account never collide."""
    return stack.cluster.name or f"{PROJECT}-{pulumi.get_stack()}"


# Account IDs always have twelve digits, so any twelve check the names derived from one.
_ANY_ACCOUNT_ID = "000000000000"


def check_config() -> CheckedConfig:
    """Read the stack configuration and check every rule; raise ConfigError listing every
    problem, unless sizing errors are the only ones: those come back in `sizing_errors`, beside
    the reports that explain them (`hyperpod-dpd size` shows both)."""
    config = pulumi.Config(PROJECT)
    raw, problems = _read_raw(config)
    try:
        stack = StackSettings.model_validate(raw)
    except ValidationError as invalid:
        # A misspelt key (`endpoint:`) comes first: it explains the required one it hides.
        # A key refused while reading is not "required" as well.
        refused = {f"{problem.split(': ', 1)[0]}: is required" for problem in problems}
        raise ConfigError(
            _unknown_keys(raw)
            + problems
            + [p for p in validation_problems(invalid, StackSettings) if p not in refused]
        ) from None
    region = pulumi.Config("aws").get("region")
    if region is None:
        problems.append("aws:region: is required, e.g. `pulumi config set aws:region us-west-2`")
    if problems:
        raise ConfigError(problems)

    existing = stack.cluster.existing
    cluster_name = existing.eks_cluster_name if existing else _stack_prefix(stack)
    names = bucket_names(stack.buckets, _stack_prefix(stack), _ANY_ACCOUNT_ID)
    architectures, unknown = _architectures(stack)
    today = clock.utc_today()
    findings = _findings(stack, cluster_name, names, region, today) + unknown
    findings += check_placeholders(raw) + check_curly_quotes(raw)
    served = [architectures.get(i, (spec, None)) for i, spec in enumerate(stack.endpoints)]
    sizing = [review_sizing(spec, model) for spec, model in served]
    sized = [_of_endpoint(i, f) for i, report in enumerate(sizing) for f in report.findings]
    calibrated, calibration_warnings = stack_calibrations(
        pulumi.get_stack(),
        [spec for spec, _ in served],
        {i: model for i, (_, model) in architectures.items()},
    )
    reviewed = {
        i: review_predictions(stack, i, model, region, calibrated.get(i))
        for i, (_, model) in architectures.items()
    }
    predicted = [_of_endpoint(i, f) for i, (_, found) in reviewed.items() for f in found]

    problems = (
        _unknown_keys(raw)
        + region_problems(region, stack)
        + _lines(findings, "error")
        + _token_problems(config, stack)
    )
    if not problems:
        problems = _manifest_problems(stack, names.model, region)
    sizing_errors = _lines(sized, "error")
    if problems:
        raise ConfigError(problems + sizing_errors)
    warnings = _lines(findings + sized + predicted, "warning") + calibration_warnings
    chart = stack.cluster.dependencies_chart
    if not stack.cluster.existing and not (ROOT / chart / "Chart.yaml").is_file():
        warnings.append(
            f"{config_key('cluster', 'dependenciesChart')}: {chart} holds no chart yet; run "
            "`make chart` before `pulumi up`, or installing it fails once EKS is up"
        )
    return CheckedConfig(
        stack=stack,
        region=region,
        cluster_name=cluster_name,
        sizing=sizing,
        sizing_errors=sizing_errors,
        predictions=[
            reviewed[i][0] if i in reviewed else None for i in range(len(stack.endpoints))
        ],
        warnings=warnings,
        today=today,
        rollouts=rollout_room(stack.cluster, stack.endpoints),
    )


def load_settings() -> Settings:
    checked = check_config()
    if checked.sizing_errors:
        raise ConfigError(checked.sizing_errors)
    account = AwsAccount(
        id=aws.get_caller_identity().account_id,
        partition=aws.get_partition().partition,
        region=checked.region,
    )
    refused = account_problems(account.id, checked.stack)
    if refused:
        raise ConfigError(refused)
    asked = preflight(checked.stack, checked.region, checked.today)
    if asked.problems:
        raise ConfigError(asked.problems)
    config = pulumi.Config(PROJECT)
    return Settings(
        stack=checked.stack,
        account=account,
        cluster_name=checked.cluster_name,
        bucket_names=bucket_names(checked.stack.buckets, _stack_prefix(checked.stack), account.id),
        secrets={key: config.require_secret(key) for _, key in _token_keys(checked.stack)},
        warnings=checked.warnings + asked.warnings,
        sizing=checked.sizing,
        predictions=checked.predictions,
        rollouts=checked.rollouts,
    )
