"""DJL Serving's Large Model Inference (LMI) containers.

LMI reads its options from OPTION_<NAME> variables (djl-serving, LMI user guide "Container and
Model Configurations": OPTION_TENSOR_PARALLEL_DEGREE, OPTION_MAX_MODEL_LEN, and with the vLLM
rolling batch OPTION_GPU_MEMORY_UTILIZATION), serves on 8080, and loads the model from
/opt/ml/model when no OPTION_MODEL_ID or HF_MODEL_ID names another. The HyperPod CLI's LMI
sample (aws/sagemaker-hyperpod-cli, `config/samples/v1_s3_deepseek15b.yaml`) runs
djl-inference:0.32.0-lmi14.0.0-cu124 on port 8080 with OPTION_* variables.
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
