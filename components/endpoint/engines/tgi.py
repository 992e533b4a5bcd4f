"""Hugging Face Text Generation Inference, as its SageMaker image runs it.

The image's `sagemaker-entrypoint.sh` requires HF_MODEL_ID, turns SM_NUM_GPUS into NUM_SHARD and
serves on 8080; the launcher reads every other option from its variable (MAX_TOTAL_TOKENS,
CUDA_MEMORY_FRACTION), as the HyperPod CLI's TGI sample sets them.
"""

from components.endpoint.engines.vocabulary import EngineVocabulary

TGI = EngineVocabulary(
    title="TGI",
    port=8080,
    image=(
        "763104351884.dkr.ecr.us-east-2.amazonaws.com/huggingface-pytorch-tgi-inference:"
        "2.4.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04-v2.0"
    ),
    tensor_parallel_size="SM_NUM_GPUS",
    max_model_len="MAX_TOTAL_TOKENS",
    gpu_memory_utilization="CUDA_MEMORY_FRACTION",
    model_path="HF_MODEL_ID",
    # text-generation-launcher --sharded: "By default text-generation-inference will use all
    # available GPUs".
    tensor_parallel_when_unset="all-gpus",
)
