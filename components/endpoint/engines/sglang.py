"""SGLang, as its SageMaker image runs it: `sglang.launch_server --model-path /opt/ml/model
--port 8080`, each SM_SGLANG_<NAME> variable turned into the flag `--<name>` (`true` into a bare
flag), such as SM_SGLANG_TP_SIZE (aws/deep-learning-containers, the SGLang entrypoint)."""

from components.endpoint.engines.vocabulary import EngineVocabulary

SGLANG = EngineVocabulary(
    title="SGLang",
    port=8080,
    image="763104351884.dkr.ecr.us-west-2.amazonaws.com/sglang:server-amzn2023-sagemaker-cuda",
    tensor_parallel_size="SM_SGLANG_TP_SIZE",
    max_model_len="SM_SGLANG_CONTEXT_LENGTH",
    gpu_memory_utilization="SM_SGLANG_MEM_FRACTION_STATIC",
    # sglang/srt/server_args.py: tp_size defaults to 1.
    tensor_parallel_when_unset=1,
)
