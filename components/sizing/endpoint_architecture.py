"""Which architecture an endpoint serves: its `architecture` setting, or its modelName's; and
the endpoint as vLLM serves that architecture."""

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.findings import Finding, error, warning
from components.endpoint.spec import EndpointSpec
from components.model.architecture import ModelArchitecture
from components.model.catalog import MODEL_CATALOG, catalog_id_for_model_name
from components.model.hf_config import HuggingFaceConfigFile, read_hf_config


class UnknownArchitectureError(Exception):
    """No architecture can be had for the endpoint; the finding says which setting to fix."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def endpoint_architecture(spec: EndpointSpec) -> ModelArchitecture:
    if spec.instance_type not in GPU_INSTANCE_TYPES:  # an adopted endpoint's, CPU-only
        why = "has no GPUs the stack has figures of: it deploys as it runs, unsized, unpredicted"
        raise UnknownArchitectureError(warning("instance-type-unsized", "instanceType", why))
    setting = spec.architecture
    if setting is None:
        catalog_id = catalog_id_for_model_name(spec.model_name)
        if catalog_id is None:
            forms = (
                f"a catalog id ({', '.join(MODEL_CATALOG)}), explicit fields, or "
                "{configFile: <path to config.json>, parameters: <count>}"
            )
            if spec.aggregated or spec.adopted:
                # A colocated endpoint has no PD buffer to size, and an adopted one's is its
                # pods' own (adopted.py): it deploys unchecked.
                raise UnknownArchitectureError(
                    warning(
                        "architecture-unknown",
                        "architecture",
                        f"is not set, and modelName {spec.model_name!r} names no catalog model, "
                        "so the stack can neither check that the weights and the KV cache fit "
                        f"nor predict latency and cost; set {forms}",
                    )
                )
            raise UnknownArchitectureError(
                error(
                    "architecture-required",
                    "architecture",
                    f"is required, because modelName {spec.model_name!r} names no catalog "
                    f"model and DPD's PD buffer is sized from it; set {forms}",
                )
            )
        return MODEL_CATALOG[catalog_id]
    if isinstance(setting, str):
        return MODEL_CATALOG[setting]
    if isinstance(setting, HuggingFaceConfigFile):
        try:
            return read_hf_config(setting)
        except ValueError as unreadable:
            raise UnknownArchitectureError(
                error(
                    "architecture-config-unreadable",
                    "architecture.configFile",
                    f"{setting.config_file}: {unreadable}",
                )
            ) from None
    return setting


def served_spec(spec: EndpointSpec, model: ModelArchitecture) -> EndpointSpec:
    """The endpoint as vLLM serves it, for sizing and the predictions: without maxModelLen,
    vLLM takes the model's own context length (vllm/config/model.py, from config.json)."""
    if spec.max_model_len is not None:
        return spec
    if model.context_length is None:
        raise UnknownArchitectureError(
            error(
                "max-model-len-required",
                "maxModelLen",
                f"is required, because the architecture of {model.name} gives no "
                "contextLength to size the longest request by; set maxModelLen, or "
                "architecture.contextLength",
            )
        )
    return spec.model_copy(update={"max_model_len": model.context_length})
