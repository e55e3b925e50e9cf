"""Golden cases of the decoders whose layer is Qwen3's with other flags (tests/data/hf/qwen2*,
llama*, mistral*), computed by make_rotary_golden_qwen3.py's float64 transcription
(decoder_parts: which biases, q/k norms, head_dim and window each modeling file reads):

- qwen2 (modeling_qwen2.py, Qwen2Model; gte-Qwen2-1.5B-instruct's keys): q/k/v biases, no o
  bias, head_dim = hidden_size / heads; qwen2_bf16: Qwen2ForCausalLM as transformers 5 writes it.
- llama (modeling_llama.py, LlamaModel; Llama-3.2-1B's keys, no head_dim key): rope_scaling
  llama3 with an original length of 64 so that the 4 frequencies (head_dim 8) fall in all
  three bands;
  llama_bf16: LlamaForCausalLM with attention_bias and mlp_bias, head_dim 16 != 32 / 4,
  rope_parameters of type linear (transformers 5).
- mistral (modeling_mistral.py, MistralModel; Mistral-7B-v0.1's keys): sliding_window 6;
  mistral_bf16: MistralForCausalLM, sliding_window 5, head_dim 16. Both have lines longer than
  their window (40).
"""
import numpy as np

from make_rotary_golden_qwen3 import make_decoder, qwen3_forward, self_check
from rotary_parts import torch_dtype

LENGTHS = (7, 3, 12, 1, 9, 40)


def base_config(model_type, arch, dtype, **keys):
    """The keys every one of them writes, tiny sizes; keys: the architecture's own."""
    cfg = {"architectures": [arch], "attention_dropout": 0.0, "bos_token_id": 58,
           "eos_token_id": 59, "hidden_act": "silu", "hidden_size": 32,
           "initializer_range": 0.02, "intermediate_size": 48, "model_type": model_type,
           "num_attention_heads": 4, "num_hidden_layers": 3, "num_key_value_heads": 2,
           "rms_norm_eps": 1e-06, "tie_word_embeddings": True,
           "torch_dtype": torch_dtype(dtype), "transformers_version": "4.46.3",
           "use_cache": True, "vocab_size": 60}
    cfg.update(keys)
    return dict(sorted(cfg.items()))


def as_v5(cfg, dtype, rope):
    """transformers 5's form: dtype, rope_parameters (rope_theta and the scaling's keys)."""
    cfg = dict(cfg)
    theta = cfg.pop("rope_theta")
    cfg.pop("rope_scaling", None)
    del cfg["torch_dtype"]
    cfg.update({"dtype": torch_dtype(dtype), "transformers_version": "5.0.0",
                "rope_parameters": {"rope_theta": theta, **rope}})
    return dict(sorted(cfg.items()))


def qwen2_configs():
    f32 = base_config("qwen2", "Qwen2Model", "F32", max_position_embeddings=131072,
                      max_window_layers=3, rope_theta=1000000.0, sliding_window=131072,
                      use_sliding_window=False)
    bf16 = base_config("qwen2", "Qwen2ForCausalLM", "BF16", max_position_embeddings=32768,
                       max_window_layers=3, rope_theta=1000000.0, sliding_window=None,
                       use_sliding_window=False, layer_types=["full_attention"] * 3)
    return f32, as_v5(bf16, "BF16", {"rope_type": "default"})


def llama_configs():
    f32 = base_config("llama", "LlamaModel", "F32", attention_bias=False, mlp_bias=False,
                      max_position_embeddings=131072, pretraining_tp=1, rms_norm_eps=1e-05,
                      rope_theta=10000.0,
                      rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                    "original_max_position_embeddings": 64,
                                    "rope_type": "llama3"})
    bf16 = base_config("llama", "LlamaForCausalLM", "BF16", attention_bias=True, mlp_bias=True,
                       head_dim=16, max_position_embeddings=4096, pretraining_tp=1,
                       rms_norm_eps=1e-05, rope_theta=10000.0, rope_scaling=None)
    return f32, as_v5(bf16, "BF16", {"rope_type": "linear", "factor": 4.0})


def mistral_configs():
    f32 = base_config("mistral", "MistralModel", "F32", max_position_embeddings=32768,
                      rms_norm_eps=1e-05, rope_theta=10000.0, sliding_window=6)
    bf16 = base_config("mistral", "MistralForCausalLM", "BF16", head_dim=16,
                       max_position_embeddings=32768, rms_norm_eps=1e-05, rope_theta=1000000.0,
                       sliding_window=5)
    return f32, bf16


def window_check(cfg, exact, lines):
    """A window wider than the line is causal attention; a narrower one changes the long line's
    late rows and not its first window rows."""
    ids = max(lines, key=len)
    w = cfg["sliding_window"]
    windowed, causal = qwen3_forward(exact, cfg, ids), qwen3_forward(exact, cfg, ids, window=None)
    assert np.allclose(qwen3_forward(exact, cfg, ids, window=len(ids)), causal, atol=0)
    assert np.allclose(windowed[:w], causal[:w], atol=1e-13)
    assert not np.allclose(windowed[w:], causal[w:], atol=1e-3)


def main():
    cases = [("qwen2", qwen2_configs(), 61), ("llama", llama_configs(), 71),
             ("mistral", mistral_configs(), 81)]
    for name, (f32, bf16), seed in cases:
        for case, cfg, dtype, s in ((name, f32, "F32", seed), (name + "_bf16", bf16, "BF16", seed + 1)):
            causal_lm = cfg["architectures"][0].endswith("ForCausalLM")
            exact, lines = make_decoder(case, cfg, dtype, s, causal_lm, LENGTHS)
            self_check(cfg, exact, lines)
            if name == "mistral":
                window_check(cfg, exact, lines)


if __name__ == "__main__":
    main()
