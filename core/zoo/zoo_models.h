// Internal to core/zoo: the model definitions behind model_zoo.h.
//
// Each definition adds a model's layers to a LayerBuilder in execution order
// and returns the final layer (the training loss). Sizes arrive resolved and
// checked (defaults applied, all positive) by model_zoo.cpp.
#pragma once

#include <string>

#include "core/zoo/attention.h"
#include "core/zoo/layer_builder.h"

namespace pacml {
namespace zoo {

struct ModelSize {
  long batch = 0;
  long seq_len = 0;     // sequence models: tokens or audio frames
  long image_size = 0;  // CNNs: height = width
  // Transformers: the block count, hidden size and attention heads; 0 = the
  // model's own (--layers/--hidden/--heads resize a family, e.g. a 2B GPT-2).
  long layers = 0, hidden = 0, heads = 0;
  // Llama-style decoders: key/value heads, the SwiGLU width, the vocabulary
  // and whether lm_head uses the token embedding (0 / false elsewhere).
  long kv_heads = 0, ffn_hidden = 0, vocab = 0;
  bool tied_embeddings = false;
  Attention attention = Attention::kSdpa;
};

// One attention block's core, after the q, k, v projections and before the
// output projection (transformer_models.cpp). q {N, T, heads * d}; k and v
// {N, S, kv_heads * d}.
struct AttentionSpec {
  long heads = 0;
  bool causal = false;
  double dropout = 0;  // on the probabilities; eager only (0: no layer)
  Attention attention = Attention::kSdpa;
};

// kSdpa: one fused layer `prefix + "sdpa"`. kEager: [repeat_k, repeat_v when
// kv_heads < heads,] scores, softmax, [dropout,] context.
Tensor attention_core(LayerBuilder& b, const std::string& prefix, const Tensor& q, const Tensor& k,
                      const Tensor& v, const AttentionSpec& spec);

// cnn_models.cpp (torchvision definitions, 1000 ImageNet classes)
Tensor alexnet(LayerBuilder& b, const ModelSize& size);
Tensor vgg16(LayerBuilder& b, const ModelSize& size);
Tensor resnet18(LayerBuilder& b, const ModelSize& size);
Tensor resnet50(LayerBuilder& b, const ModelSize& size);
Tensor resnext50_32x4d(LayerBuilder& b, const ModelSize& size);
Tensor squeezenet1_0(LayerBuilder& b, const ModelSize& size);
Tensor inception_v3(LayerBuilder& b, const ModelSize& size);
Tensor inception_v3_aux(LayerBuilder& b, const ModelSize& size);

// transformer_models.cpp (Hugging Face definitions)
Tensor bert_base(LayerBuilder& b, const ModelSize& size);
Tensor bert_large(LayerBuilder& b, const ModelSize& size);
Tensor gpt2(LayerBuilder& b, const ModelSize& size);
Tensor gpt2_medium(LayerBuilder& b, const ModelSize& size);
Tensor gpt2_large(LayerBuilder& b, const ModelSize& size);
Tensor gpt2_xl(LayerBuilder& b, const ModelSize& size);

// llama_models.cpp: Hugging Face LlamaForCausalLM (MistralForCausalLM is the
// same graph). Every preset is this one definition: its shape (layers,
// hidden, heads, kv_heads, ffn_hidden, vocab, tied_embeddings) arrives
// resolved from the preset's registry entry and the user's options.
Tensor llama(LayerBuilder& b, const ModelSize& size);

// vision_transformer_models.cpp (torchvision ViTs; DiT of Peebles & Xie 2023)
Tensor vit_b_16(LayerBuilder& b, const ModelSize& size);
Tensor vit_l_16(LayerBuilder& b, const ModelSize& size);
Tensor vit_h_14(LayerBuilder& b, const ModelSize& size);
Tensor dit_xl_2(LayerBuilder& b, const ModelSize& size);

// rnn_models.cpp
Tensor gnmt(LayerBuilder& b, const ModelSize& size);
Tensor deepspeech2(LayerBuilder& b, const ModelSize& size);

}  // namespace zoo
}  // namespace pacml
