"""S3 buckets: model weights, lifecycle scripts, operator TLS certificates and access logs.

- `spec`: the `buckets` settings, the names derived from the stack, and the rules names follow.
- `hardening`, `policy`: encryption, public access block and the TLS-only bucket policy, as data.
- `hardened_bucket`: the `HardenedBucket` component.
- `buckets`: the `Buckets` component, the stack's four buckets.
"""
