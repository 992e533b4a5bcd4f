"""The offline tooling over the program (`hyperpod-dpd`, cli.py); `pulumi preview` and `pulumi
up` never import it (tests/test_import_graph.py)."""
