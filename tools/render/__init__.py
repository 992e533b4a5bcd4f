"""Running the program offline: Pulumi's mocks, the stack file as the CLI hands it over, and
the render written to disk."""
