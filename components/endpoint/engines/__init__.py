"""The model servers the operator runs beside vLLM, each with the vocabulary it reads the
typed settings from (TGI, DJL LMI, SGLang), and the rules that hold for engines."""
