"""S3 buckets: model weights, lifecycle scripts, operator TLS certificates and access logs, each
hardened (encryption, no public access, TLS only)."""
