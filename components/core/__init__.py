"""What every concern shares: the `Spec` base of typed settings, byte units, check findings,
the options a component passes to its children, and the AWS account a stack deploys into."""
