"""`hyperpod-dpd import-endpoint`: hand-written InferenceEndpointConfigs as endpoint items."""
