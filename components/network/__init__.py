"""The network: a VPC with subnets pinned to availability zones by ID, and its EFA group."""
