"""Addresses of Amazon Managed Prometheus workspaces, as the add-on and KEDA's trigger take them:
without the endpoint's trailing slash (the CRD's `serverAddress` pattern)."""

# The CRD's pattern for `prometheusTrigger.serverAddress`.
SERVER_ADDRESS = (
    r"^https:\/\/aps-workspaces\.[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.amazonaws\.com"
    r"\/workspaces\/ws-[a-zA-Z0-9-]+$"
)


def server_address(workspace_arn: str) -> str:
    _, _, _, region, _, resource = workspace_arn.split(":", 5)
    return f"https://aps-workspaces.{region}.amazonaws.com/workspaces/{resource.split('/', 1)[1]}"


def workspace_arn(address: str, *, partition: str, account_id: str) -> str:
    """The ARN of the workspace an address names, taken to be in the given account."""
    region = address.removeprefix("https://aps-workspaces.").split(".amazonaws.com", 1)[0]
    return f"arn:{partition}:aps:{region}:{account_id}:workspace/{address.rsplit('/', 1)[1]}"
