"""Who may reach the EKS API endpoint, a rule the program and the policy pack share. EKS opens a
public endpoint to 0.0.0.0/0 unless publicAccessCidrs says otherwise, so the stack must write
0.0.0.0/0 itself to open it to the world (EKS User Guide, "Cluster API server endpoint")."""

from collections.abc import Sequence


def open_to_world_by_default(*, public: bool, public_cidrs: Sequence[str] | None) -> bool:
    """A public endpoint whose CIDRs are left to EKS, which means 0.0.0.0/0."""
    return public and not public_cidrs


def endpoint_access_problems(
    *, public: bool, public_cidrs: Sequence[str] | None, private: bool
) -> list[str]:
    """Why this endpoint access is refused, phrased after `endpointAccess.`'s keys."""
    if not public and not private:
        return ["public and private are both false, and EKS needs one endpoint at least"]
    if not public:
        if public_cidrs:
            return ["publicCidrs is set, but public is false: drop publicCidrs or set public"]
        return []
    if open_to_world_by_default(public=public, public_cidrs=public_cidrs):
        return [
            "the public endpoint takes EKS's default of 0.0.0.0/0 when publicCidrs is unset; "
            "list the CIDRs allowed to reach it (your deploy runners' and VPN's), set public: "
            "false for a private endpoint, or write publicCidrs: [0.0.0.0/0] to open it to the "
            "world explicitly"
        ]
    return []
