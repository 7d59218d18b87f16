"""The probe's training jobs, built as pacml's zoo builds them.

pacml's zoo (core/zoo/README.md) describes torchvision's CNNs and ViTs and
Hugging Face's transformers module by module. The probe trains the same
models with random weights (nothing is downloaded):

* CNNs and ViTs come from torchvision (`weights=None`).
* GPT-2, BERT and Llama-style decoders come from Hugging Face `transformers`
  (`from_config`) where it is installed, with the attention kernel chosen
  through `attn_implementation`. Where it is not (Debian 12 has no package for
  it), the same architectures are defined below in plain PyTorch: the same
  modules, shapes and parameter counts, so pacml's prediction for the row is
  the same either way. The `builder` column of the probe's CSV says which was
  used.
"""

import math

import torch
import torch.utils.checkpoint
from torch import nn
from torch.nn import functional as F

# Published configurations (Hugging Face config.json of each model).
GPT2_SIZES = {
    "gpt2": dict(layers=12, hidden=768, heads=12),
    "gpt2-medium": dict(layers=24, hidden=1024, heads=16),
    "gpt2-large": dict(layers=36, hidden=1280, heads=20),
    "gpt2-xl": dict(layers=48, hidden=1600, heads=25),
}
BERT_SIZES = {
    "bert-base": dict(layers=12, hidden=768, heads=12),
    "bert-large": dict(layers=24, hidden=1024, heads=16),
}
LLAMA_SIZES = {
    "llama3.2-1b": dict(layers=16, hidden=2048, heads=32, kv_heads=8, ffn=8192, vocab=128256,
                        tied=True),
    "llama3.2-3b": dict(layers=28, hidden=3072, heads=24, kv_heads=8, ffn=8192, vocab=128256,
                        tied=True),
    "llama3-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256,
                      tied=False),
    "mistral-7b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=32000,
                       tied=False),
}
TORCHVISION_MODELS = ("resnet50", "vgg16", "vit_b_16", "vit_l_16")
GPT2_VOCAB, GPT2_POSITIONS = 50257, 1024
BERT_VOCAB, BERT_POSITIONS = 30522, 512


def has_sdpa():
    return hasattr(F, "scaled_dot_product_attention")


def attention(q, k, v, causal, kind, dropout):
    """q, k, v: (N, heads, T, d). `sdpa` is PyTorch 2's fused kernel (flash or
    memory-efficient: no T x T matrix kept for the backward pass); `eager`
    materialises scores and probabilities as Hugging Face's eager path does."""
    if kind == "sdpa":
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=causal)
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        t = q.shape[-2]
        mask = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    probs = F.dropout(scores.softmax(-1), dropout, training=True)
    return probs @ v


def split_heads(x, heads):
    n, t, h = x.shape
    return x.view(n, t, heads, h // heads).transpose(1, 2)


def merge_heads(x):
    n, heads, t, d = x.shape
    return x.transpose(1, 2).reshape(n, t, heads * d)


def run_blocks(blocks, x, checkpointing):
    for block in blocks:
        if checkpointing:
            x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        else:
            x = block(x)
    return x


# ---- GPT-2 (GPT2LMHeadModel) ----------------------------------------------


class Gpt2Block(nn.Module):
    def __init__(self, hidden, heads, kind):
        super().__init__()
        self.heads, self.kind = heads, kind
        self.ln_1, self.ln_2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.c_attn, self.c_proj = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
        self.c_fc, self.mlp_proj = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)
        self.drop = nn.Dropout(0.1)

    def forward(self, h):
        q, k, v = self.c_attn(self.ln_1(h)).split(h.shape[-1], dim=-1)
        q, k, v = (split_heads(t, self.heads) for t in (q, k, v))
        a = merge_heads(attention(q, k, v, True, self.kind, 0.1))
        h = h + self.drop(self.c_proj(a))
        m = self.mlp_proj(F.gelu(self.c_fc(self.ln_2(h)), approximate="tanh"))
        return h + self.drop(m)


class Gpt2(nn.Module):
    def __init__(self, layers, hidden, heads, kind, checkpointing):
        super().__init__()
        self.checkpointing = checkpointing
        self.wte = nn.Embedding(GPT2_VOCAB, hidden)
        self.wpe = nn.Embedding(GPT2_POSITIONS, hidden)
        self.h = nn.ModuleList(Gpt2Block(hidden, heads, kind) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        h = self.drop(self.wte(ids) + self.wpe(positions))
        h = self.ln_f(run_blocks(self.h, h, self.checkpointing))
        logits = h @ self.wte.weight.t()  # lm_head tied to the token embedding
        return F.cross_entropy(logits[:, :-1].flatten(0, 1).float(), ids[:, 1:].flatten())


# ---- BERT (BertForPreTraining) --------------------------------------------


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, kind):
        super().__init__()
        self.heads, self.kind = heads, kind
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.dense, self.ln_1 = nn.Linear(hidden, hidden), nn.LayerNorm(hidden)
        self.intermediate = nn.Linear(hidden, 4 * hidden)
        self.output, self.ln_2 = nn.Linear(4 * hidden, hidden), nn.LayerNorm(hidden)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        q, k, v = (split_heads(f(x), self.heads) for f in (self.query, self.key, self.value))
        a = merge_heads(attention(q, k, v, False, self.kind, 0.1))
        a = self.ln_1(x + self.drop(self.dense(a)))
        f = self.output(F.gelu(self.intermediate(a)))
        return self.ln_2(a + self.drop(f))


class Bert(nn.Module):
    def __init__(self, layers, hidden, heads, kind, checkpointing):
        super().__init__()
        self.checkpointing = checkpointing
        self.word = nn.Embedding(BERT_VOCAB, hidden)
        self.position = nn.Embedding(BERT_POSITIONS, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.ln = nn.LayerNorm(hidden)
        self.layer = nn.ModuleList(BertLayer(hidden, heads, kind) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        self.transform, self.transform_ln = nn.Linear(hidden, hidden), nn.LayerNorm(hidden)
        self.decoder_bias = nn.Parameter(torch.zeros(BERT_VOCAB))
        self.seq_relationship = nn.Linear(hidden, 2)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        types = torch.zeros_like(ids)
        x = self.word(ids) + self.position(positions) + self.token_type(types)
        x = run_blocks(self.layer, self.drop(self.ln(x)), self.checkpointing)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        m = self.transform_ln(F.gelu(self.transform(x)))
        logits = m @ self.word.weight.t() + self.decoder_bias  # decoder tied to the embedding
        nsp = self.seq_relationship(pooled)
        mlm_loss = F.cross_entropy(logits.flatten(0, 1).float(), ids.flatten())
        return mlm_loss + F.cross_entropy(nsp.float(), types[:, 0])


# ---- Llama (LlamaForCausalLM) ---------------------------------------------


class RmsNorm(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return self.weight * (x.float() * torch.rsqrt(variance + 1e-5)).to(x.dtype)


def rotate(x, theta=500000.0):
    """RoPE on (N, heads, T, d): rotates pairs of features by position."""
    t, d = x.shape[-2], x.shape[-1]
    inv = 1.0 / theta ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    angles = torch.outer(torch.arange(t, device=x.device, dtype=torch.float32), inv)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    half = torch.cat([-x[..., d // 2:], x[..., : d // 2]], -1)
    return (x * cos + half * sin).to(x.dtype)


class LlamaLayer(nn.Module):
    def __init__(self, c, kind):
        super().__init__()
        self.c, self.kind = c, kind
        h, d = c["hidden"], c["hidden"] // c["heads"]
        self.input_layernorm, self.post_attention_layernorm = RmsNorm(h), RmsNorm(h)
        self.q_proj = nn.Linear(h, c["heads"] * d, bias=False)
        self.k_proj = nn.Linear(h, c["kv_heads"] * d, bias=False)
        self.v_proj = nn.Linear(h, c["kv_heads"] * d, bias=False)
        self.o_proj = nn.Linear(c["heads"] * d, h, bias=False)
        self.gate_proj = nn.Linear(h, c["ffn"], bias=False)
        self.up_proj = nn.Linear(h, c["ffn"], bias=False)
        self.down_proj = nn.Linear(c["ffn"], h, bias=False)

    def forward(self, x):
        a = self.input_layernorm(x)
        q = rotate(split_heads(self.q_proj(a), self.c["heads"]))
        k = rotate(split_heads(self.k_proj(a), self.c["kv_heads"]))
        v = split_heads(self.v_proj(a), self.c["kv_heads"])
        groups = self.c["heads"] // self.c["kv_heads"]
        k, v = k.repeat_interleave(groups, 1), v.repeat_interleave(groups, 1)
        x = x + self.o_proj(merge_heads(attention(q, k, v, True, self.kind, 0.0)))
        m = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(m)) * self.up_proj(m))


class Llama(nn.Module):
    def __init__(self, c, kind, checkpointing):
        super().__init__()
        self.checkpointing, self.tied = checkpointing, c["tied"]
        self.embed_tokens = nn.Embedding(c["vocab"], c["hidden"])
        self.layers = nn.ModuleList(LlamaLayer(c, kind) for _ in range(c["layers"]))
        self.norm = RmsNorm(c["hidden"])
        if not self.tied:
            self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)

    def forward(self, ids):
        h = self.norm(run_blocks(self.layers, self.embed_tokens(ids), self.checkpointing))
        logits = h @ self.embed_tokens.weight.t() if self.tied else self.lm_head(h)
        return F.cross_entropy(logits[:, :-1].flatten(0, 1).float(), ids[:, 1:].flatten())


# ---- Hugging Face transformers, where installed ---------------------------


def transformers_model(family, size, kind, checkpointing):
    """The model from transformers' own classes, or None where the package (or
    its attn_implementation argument) is missing."""
    try:
        import transformers
    except ImportError:
        return None
    if family == "gpt2":
        config = transformers.GPT2Config(n_layer=size["layers"], n_embd=size["hidden"],
                                         n_head=size["heads"])
        cls = transformers.GPT2LMHeadModel
    elif family == "bert":
        config = transformers.BertConfig(num_hidden_layers=size["layers"],
                                         hidden_size=size["hidden"],
                                         num_attention_heads=size["heads"],
                                         intermediate_size=4 * size["hidden"])
        cls = transformers.BertForPreTraining
    else:
        config = transformers.LlamaConfig(
            num_hidden_layers=size["layers"], hidden_size=size["hidden"],
            num_attention_heads=size["heads"], num_key_value_heads=size["kv_heads"],
            intermediate_size=size["ffn"], vocab_size=size["vocab"],
            tie_word_embeddings=size["tied"], rope_theta=500000.0)
        cls = transformers.LlamaForCausalLM
    try:
        model = cls._from_config(config, attn_implementation=kind)
    except TypeError:
        return None
    if checkpointing:
        model.gradient_checkpointing_enable()
    return HfLoss(model, family)


class HfLoss(nn.Module):
    """A transformers model whose forward takes token ids and returns the loss."""

    def __init__(self, model, family):
        super().__init__()
        self.model, self.family = model, family

    def forward(self, ids):
        if self.family == "bert":
            labels = torch.zeros(ids.shape[0], dtype=torch.long, device=ids.device)
            return self.model(input_ids=ids, labels=ids, next_sentence_label=labels).loss
        return self.model(input_ids=ids, labels=ids).loss


# ---- The one entry point ---------------------------------------------------


def family_of(model):
    if model in GPT2_SIZES:
        return "gpt2", GPT2_SIZES[model]
    if model in BERT_SIZES:
        return "bert", BERT_SIZES[model]
    if model in LLAMA_SIZES:
        return "llama", LLAMA_SIZES[model]
    if model in TORCHVISION_MODELS:
        return "torchvision", {}
    raise ValueError(f"unknown probe model '{model}'")


def build(model, layers, image_size, kind, checkpointing):
    """(module taking the input and returning the loss, builder name)."""
    family, size = family_of(model)
    if family == "torchvision":
        import torchvision
        kwargs = {"image_size": image_size} if model.startswith("vit") else {}
        net = getattr(torchvision.models, model)(weights=None, **kwargs)
        return ClassifierLoss(net), "torchvision"
    size = dict(size, **({"layers": layers} if layers else {}))
    hf = transformers_model(family, size, kind, checkpointing)
    if hf is not None:
        return hf, "transformers"
    if family == "gpt2":
        return Gpt2(size["layers"], size["hidden"], size["heads"], kind, checkpointing), "plain"
    if family == "bert":
        return Bert(size["layers"], size["hidden"], size["heads"], kind, checkpointing), "plain"
    return Llama(size, kind, checkpointing), "plain"


class ClassifierLoss(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, images):
        out = self.net(images)
        logits = out.logits if hasattr(out, "logits") else out
        labels = torch.zeros(images.shape[0], dtype=torch.long, device=images.device)
        return F.cross_entropy(logits.float(), labels)


def make_input(model, batch, seq_len, image_size, device):
    family, size = family_of(model)
    if family == "torchvision":
        return torch.randn(batch, 3, image_size, image_size, device=device)
    vocab = size.get("vocab", GPT2_VOCAB if family == "gpt2" else BERT_VOCAB)
    generator = torch.Generator(device="cpu").manual_seed(0)
    return torch.randint(0, vocab, (batch, seq_len), generator=generator).to(device)
