"""Entry point of `pulumi preview` and `pulumi up`."""

from infra.program import main

main()
