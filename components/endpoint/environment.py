"""The environment variables DPD needs on every prefill and decode pod.

The operator applies `worker.environmentVariables` to both roles alike; values are strings.
No Pulumi and no pydantic here: the policy pack imports this module too.
"""

# Bytes of decoder GPU buffer per tensor-parallel rank for incoming KV; sized per endpoint.
PD_BUFFER_SIZE = "PD_BUFFER_SIZE"

# Variables whose value DPD cannot do without.
PINNED_ENV = {
    # The prefiller is the source of truth for cache hits; the decoder keeps no L1 copy.
    "LMCACHE_SAVE_DECODE_CACHE": "False",
    # LMCache keys its cache on Python's hash() of the prompt tokens. An unpinned seed makes
    # prefill and decode disagree, and the decoder recomputes everything ("Retrieved 0 out of N").
    "PYTHONHASHSEED": "0",
}
