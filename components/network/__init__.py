"""The network: a VPC with subnets pinned to availability zones by ID, and the EFA security group.

- `spec`: the `network` settings (new VPC or an existing one).
- `plan`, `checks`: pure subnet sizing and tagging, and the network's rules.
- `vpc`: the `Network` and `AdoptedNetwork` components.
- `efa_rules`: the EFA security group's rules, as data.
- `efa_security_group`: the `EfaSecurityGroup` component.
- `zones`: the name the deploying account gives an AZ ID.
"""
