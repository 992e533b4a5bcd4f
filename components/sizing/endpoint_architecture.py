"""Which architecture an endpoint serves: its `architecture` setting, or its modelName's."""

from __future__ import annotations

from components.core.findings import Finding, error
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
    setting = spec.architecture
    if setting is None:
        catalog_id = catalog_id_for_model_name(spec.model_name)
        if catalog_id is None:
            raise UnknownArchitectureError(
                error(
                    "architecture-required",
                    "architecture",
                    f"is required, because modelName {spec.model_name!r} names no catalog "
                    f"model; set a catalog id ({', '.join(MODEL_CATALOG)}), explicit fields, "
                    "or {configFile: <path to config.json>, parameters: <count>}",
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
