"""diagnose: a live DPD endpoint, read from the cluster read-only, against the known failures."""
