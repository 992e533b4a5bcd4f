"""Entry point of `pulumi preview` and `pulumi up`."""

from infra.collector import few_collections
from infra.program import main

with few_collections():
    main()
