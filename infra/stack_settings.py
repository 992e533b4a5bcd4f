"""The shape of the stack configuration: one field per `hyperpod-dpd:<key>` config key. Below the
checks that read it and the loader that fills it, so they import it and not each other."""

from components.cluster.spec import ClusterSpec
from components.core.spec import Spec
from components.endpoint.spec import EndpointSpec
from components.network.spec import NetworkSpec
from components.observability.spec import ObservabilitySpec
from components.operator.spec import OperatorSpec
from components.storage.spec import BucketsSpec


class StackSettings(Spec):
    # May be empty: the stack then builds the cluster alone, for endpoints to come.
    endpoints: list[EndpointSpec]
    network: NetworkSpec | None = None
    cluster: ClusterSpec = ClusterSpec()
    buckets: BucketsSpec = BucketsSpec()
    operator: OperatorSpec = OperatorSpec()
    observability: ObservabilitySpec = ObservabilitySpec()


# The program's own config keys, `hyperpod-dpd:<key>`.
SETTING_KEYS = tuple(info.alias or name for name, info in StackSettings.model_fields.items())
