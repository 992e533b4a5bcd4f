"""`python -m infra import-endpoint`: hand-written InferenceEndpointConfigs as endpoint items."""
