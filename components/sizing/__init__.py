"""KV-cache sizing: what PD_BUFFER_SIZE must hold, and whether the decoder's HBM holds it all."""
