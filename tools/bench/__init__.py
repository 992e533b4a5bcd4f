"""The live endpoint against the prediction: the vllm bench serve Job, and its results."""
