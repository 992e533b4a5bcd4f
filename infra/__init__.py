"""This program: reading stack config, the validated settings, the checks across settings and
the composition of components that `pulumi up` runs. The offline tools live in `tools/`."""
