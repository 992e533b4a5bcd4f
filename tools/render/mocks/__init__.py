"""Pulumi mocks that answer the way AWS and Kubernetes would, for the offline render and tests.

Each resource echoes its inputs and adds the outputs its provider computes, with plausible
values derived from the inputs: IDs shaped like AWS's (`vpc-…`, `sg-…`), ARNs in account
123456789012 (or the account the render is asked to play: `render --account`), Kubernetes IDs
`namespace/name`. Validators run over the render then see realistic values, never None.

Lookups of things that already exist answer like a typical account: an existing VPC is
10.20.0.0/16, an existing security group carries a default VPC group's two rules. What the
live preflight asks (quotas, AZ IDs, an existing cluster's versions and status) comes from
`account.ACCOUNT`, which a test may replace to play an account that refuses the stack. Each
module's docstring says what it holds.
"""
