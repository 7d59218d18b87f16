// Internal to core/zoo: the model definitions behind model_zoo.h.
//
// Each definition adds a model's layers to a LayerBuilder in execution order
// and returns the final layer (the training loss). Sizes arrive resolved and
// checked (defaults applied, all positive) by model_zoo.cpp.
#pragma once

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
};

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

// rnn_models.cpp
Tensor gnmt(LayerBuilder& b, const ModelSize& size);
Tensor deepspeech2(LayerBuilder& b, const ModelSize& size);

}  // namespace zoo
}  // namespace pacml
