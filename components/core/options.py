"""Resource options a component passes on to its children."""

import pulumi


def inherited_depends_on(opts: pulumi.ResourceOptions | None) -> list:
    """The caller's `depends_on`, as a list: a component's dependencies do not reach its
    children by themselves, and a child must not start before them."""
    depends_on = opts.depends_on if opts else None
    if depends_on is None:
        return []
    return list(depends_on) if isinstance(depends_on, (list, tuple)) else [depends_on]


# For an EKS add-on whose pods pull their images on fresh nodes: EKS's default of 20 minutes,
# doubled.
NODE_ADDON_TIMEOUTS = pulumi.CustomTimeouts(create="40m", update="40m", delete="20m")
