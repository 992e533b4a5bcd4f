"""The mocks Pulumi's runtime calls: each registration and invoke handed to its answer."""

import pulumi

from tools.render.mocks.account import ACCOUNT_ID, MockedAccount, hex_id
from tools.render.mocks.aws_resources import AWS_RESOURCES
from tools.render.mocks.grafana import GRAFANA_RESOURCES
from tools.render.mocks.lookups import LOOKUPS
from tools.render.mocks.preflight import PREFLIGHT_ANSWERS

INVOKES = {**LOOKUPS, **PREFLIGHT_ANSWERS}


def _kubernetes_id(name: str, inputs: dict) -> str:
    metadata = inputs.get("metadata") or {}
    object_name = metadata.get("name", name)
    namespace = metadata.get("namespace")
    return f"{namespace}/{object_name}" if namespace else object_name


class CloudMocks(MockedAccount, pulumi.runtime.Mocks):
    def __init__(self, region: str, account_id: str = ACCOUNT_ID) -> None:
        super().__init__(region, account_id)
        # The inputs of each explicit provider, by its ID: Grafana's resources live at the
        # address of the provider that creates them.
        self.providers: dict[str, dict] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        inputs, name, typ = dict(args.inputs), args.name, args.typ
        if typ.startswith("pulumi:providers:"):
            self.providers[f"{name}-provider"] = inputs
            return f"{name}-provider", inputs
        if typ.startswith("kubernetes:"):
            return _kubernetes_id(name, inputs), inputs
        compute = AWS_RESOURCES.get(typ)
        if typ in GRAFANA_RESOURCES:
            resource_id, outputs = GRAFANA_RESOURCES[typ](self._grafana_url(args), inputs)
        elif compute:
            resource_id, outputs = compute(self, name, inputs)
        else:
            resource_id, outputs = "", {}
        return resource_id or f"{name}-{hex_id(typ, name, length=8)}", {**inputs, **outputs}

    def _grafana_url(self, args: pulumi.runtime.MockResourceArgs) -> str:
        """The address of the Grafana a resource is created in: its provider's `url`."""
        provider_id = (args.provider or "").rsplit("::", 1)[-1]
        return str(self.providers.get(provider_id, {}).get("url", "")).rstrip("/")

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        answer = INVOKES.get(args.token)
        if answer is None:
            raise NotImplementedError(f"no mocked answer for {args.token}")
        return answer(self, args.args)
