"""What every concern shares: the `Spec` base of typed settings, byte units, check findings,
the options a component passes to its children, the AWS account and regions, IAM statements,
and the names, CIDRs and text that Kubernetes, AWS and a terminal accept."""
