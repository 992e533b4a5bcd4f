"""What a model is, apart from any endpoint serving it: the facts that size its KV cache and
weights, and those its FLOPs need. It sits below `endpoint` and `sizing`, which both read it."""
