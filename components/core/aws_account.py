"""Where a stack deploys: the account, its partition and the region, as AWS reports them."""

from dataclasses import dataclass


@dataclass(frozen=True)
class AwsAccount:
    id: str
    partition: str
    region: str

    def arn(self, service: str, resource: str, *, regional: bool = True) -> str:
        region = self.region if regional else ""
        return f"arn:{self.partition}:{service}:{region}:{self.id}:{resource}"
