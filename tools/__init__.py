"""The offline tooling over the program: `hyperpod-dpd render | size | diff | plan | chart`.

`pulumi preview` and `pulumi up` never import it (tests/test_import_graph.py): `render/` runs the
program under Pulumi's mocks and writes what it would deploy, `reports/` turns its sizing,
predictions and costs into text, JSON and Markdown, and `diff/` compares two renders.
"""
