"""The offline tooling: what `python -m infra render | size | diff | chart` use and `pulumi up`
never does. Pulumi's mocks, the render and its report, the stack graph, the diff between two
renders with the inputs that force replacement, and fetching the dependencies chart.
"""
