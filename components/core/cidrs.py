"""CIDRs that mean "anyone on the internet"."""

from collections.abc import Iterable
from ipaddress import IPv4Network

WORLD_CIDRS = ("0.0.0.0/0", "::/0")


def world_cidrs(cidrs: Iterable[str | None]) -> list[str]:
    return [cidr for cidr in cidrs if cidr in WORLD_CIDRS]


# Special-purpose IPv4 ranges (IANA registry, RFC 6890) that are never a host's network nor a
# client's source on the internet: "this network", loopback, link-local (where AWS serves
# instance metadata and DNS), multicast, and the reserved class E block.
NEVER_ROUTED = {
    IPv4Network("0.0.0.0/8"): "'this network' (0.0.0.0/8)",
    IPv4Network("127.0.0.0/8"): "loopback (127.0.0.0/8)",
    IPv4Network("169.254.0.0/16"): "link-local (169.254.0.0/16)",
    IPv4Network("224.0.0.0/4"): "multicast (224.0.0.0/4)",
    IPv4Network("240.0.0.0/4"): "reserved (240.0.0.0/4)",
}
# The documentation ranges (RFC 5737, TEST-NET-1 to 3): examples, never routed.
DOCUMENTATION = {
    IPv4Network("192.0.2.0/24"): "TEST-NET-1 (192.0.2.0/24)",
    IPv4Network("198.51.100.0/24"): "TEST-NET-2 (198.51.100.0/24)",
    IPv4Network("203.0.113.0/24"): "TEST-NET-3 (203.0.113.0/24)",
}

# Private ranges (RFC 1918) and carrier-grade NAT's shared range (RFC 6598): no packet from
# them reaches a public endpoint, which sees a client's public (NAT) address instead.
PRIVATE = {
    IPv4Network("10.0.0.0/8"): "the private range 10.0.0.0/8 (RFC 1918)",
    IPv4Network("172.16.0.0/12"): "the private range 172.16.0.0/12 (RFC 1918)",
    IPv4Network("192.168.0.0/16"): "the private range 192.168.0.0/16 (RFC 1918)",
    IPv4Network("100.64.0.0/10"): "carrier-grade NAT's shared range 100.64.0.0/10 (RFC 6598)",
}


def special_range(network: IPv4Network, ranges: dict[IPv4Network, str]) -> str | None:
    """Which of `ranges` `network` lies in or overlaps, if any; 0.0.0.0/0 overlaps none."""
    if network.prefixlen == 0:
        return None
    return next((name for block, name in ranges.items() if network.overlaps(block)), None)
