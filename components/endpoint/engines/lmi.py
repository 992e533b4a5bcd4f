"""DJL Serving's Large Model Inference (LMI) containers.

LMI reads its options from OPTION_<NAME> variables (LMI user guide, "Container and Model
Configurations"), serves on 8080, and loads /opt/ml/model when no OPTION_MODEL_ID or HF_MODEL_ID
names another, as the HyperPod CLI's LMI sample (`v1_s3_deepseek15b.yaml`) runs it.
"""

from components.endpoint.engines.vocabulary import EngineVocabulary

LMI = EngineVocabulary(
    title="DJL LMI",
    port=8080,
    image="763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.32.0-lmi14.0.0-cu124",
    tensor_parallel_size="OPTION_TENSOR_PARALLEL_DEGREE",
    max_model_len="OPTION_MAX_MODEL_LEN",
    gpu_memory_utilization="OPTION_GPU_MEMORY_UTILIZATION",
)
