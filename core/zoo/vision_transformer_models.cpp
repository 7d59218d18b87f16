// Transformers over image patches.
//
// ViT as torchvision defines it (torchvision.models.vision_transformer; module
// names kept): conv_proj patch embedding, a learned class token and position
// table, pre-LN encoder blocks (nn.MultiheadAttention with a fused in_proj,
// MLP Linear-GELU-Linear), the final LayerNorm and heads.head over 1000
// classes. torchvision's dropouts default to p = 0.0, and F.dropout with p = 0
// returns its input, so they are no layers.
//
// DiT (Peebles & Xie 2023, "Scalable Diffusion Models with Transformers",
// facebookresearch/DiT models.py): a latent of the Stable Diffusion VAE
// (images / 8, 4 channels) cut into patches, a fixed sin-cos position table,
// a timestep embedder (sinusoidal features, Linear-SiLU-Linear) and a class
// embedding (1000 classes + the classifier-free-guidance null class) summed
// into the condition c; blocks with adaLN-Zero (SiLU + Linear(c) -> shift,
// scale, gate for attention and MLP; LayerNorms without affine parameters);
// a final adaLN layer and a Linear to patch^2 x 8 channels (noise and
// variance, learn_sigma). The loss is the diffusion objective.
#include <string>

#include "core/util/error.h"
#include "core/zoo/zoo_models.h"

namespace pacml {
namespace zoo {
namespace {

constexpr long kClasses = 1000;        // ImageNet-1k
constexpr long kMlpRatio = 4;          // ViT-B/L/H mlp_dim and DiT mlp_ratio: 4 x hidden
constexpr long kLatentDownsample = 8;  // the SD VAE: 256 px -> 32 x 32 latent
constexpr long kLatentChannels = 4;
constexpr long kDitOutChannels = 8;      // learn_sigma: noise and variance per channel
constexpr long kTimestepFeatures = 256;  // TimestepEmbedder.frequency_embedding_size

// The number of patches per side; an image the patches do not tile is a user
// error (build_zoo_model names --image-size).
long patches_per_side(long pixels, long patch, const std::string& what) {
  if (pixels % patch != 0)
    throw InputError(
        "", what + " " + std::to_string(pixels) + " is not a multiple of " + std::to_string(patch));
  return pixels / patch;
}

// Conv2d(C, hidden, kernel = stride = patch), then flatten(2).transpose(1, 2)
// (views): {N, C, H, W} -> {N, patches, hidden}.
Tensor patch_embedding(LayerBuilder& b, const std::string& name, const Tensor& x, long patch,
                       long hidden) {
  Tensor grid = b.conv2d(name, x, conv_spec(hidden, patch, patch, 0));
  return Tensor{grid.layer, {grid.shape[0], grid.shape[2] * grid.shape[3], hidden}};
}

AttentionSpec bidirectional(const ModelSize& size) {
  AttentionSpec spec;
  spec.heads = size.heads;
  spec.attention = size.attention;  // attention dropout 0.0 in both models
  return spec;
}

// torchvision EncoderBlock: x + attention(ln_1(x)), then + mlp(ln_2(.)).
Tensor vit_block(LayerBuilder& b, const std::string& p, const Tensor& x, const ModelSize& size) {
  Tensor h = b.layer_norm(p + "ln_1", x);
  Tensor qkv = b.linear(p + "self_attention.in_proj", h, 3 * size.hidden);
  Tensor q{qkv.layer, h.shape};  // splitting the fused projection is a view
  Tensor context = attention_core(b, p + "self_attention.", q, q, q, bidirectional(size));
  h = b.linear(p + "self_attention.out_proj", context, size.hidden);
  Tensor x1 = b.add(p + "add_1", {h, x});
  Tensor m = b.layer_norm(p + "ln_2", x1);
  m = b.linear(p + "mlp.0", m, kMlpRatio * size.hidden);
  m = b.gelu(p + "mlp.1", m);
  m = b.linear(p + "mlp.3", m, size.hidden);
  return b.add(p + "add_2", {m, x1});
}

Tensor vision_transformer(LayerBuilder& b, const ModelSize& size, long patch) {
  patches_per_side(size.image_size, patch, "image size");
  Tensor images = b.input("input", {size.batch, 3, size.image_size, size.image_size},
                          LayerBuilder::InputKind::kValues, "Input(images)");
  Tensor x = patch_embedding(b, "conv_proj", images, patch, size.hidden);
  x = b.prepend_tokens("class_token", x, 1);
  x = b.add_positions("encoder.pos_embedding", x, true);
  for (long l = 0; l < size.layers; ++l)
    x = vit_block(b, "encoder.layers.encoder_layer_" + std::to_string(l) + ".", x, size);
  x = b.layer_norm("encoder.ln", x);
  Tensor cls{x.layer, {size.batch, size.hidden}};  // x[:, 0]: a view
  Tensor logits = b.linear("heads.head", cls, kClasses);
  return b.loss("loss", {logits}, "CrossEntropyLoss");
}

// SiLU + Linear(c) -> `chunks` modulation vectors of `hidden` each.
Tensor ada_ln_modulation(LayerBuilder& b, const std::string& p, const Tensor& c, long chunks) {
  Tensor s = b.silu(p + "adaLN_modulation.0", c);
  return b.linear(p + "adaLN_modulation.1", s, chunks * c.shape.back());
}

// modulate(norm(x), shift, scale) = norm(x) * (1 + scale) + shift.
Tensor modulated_norm(LayerBuilder& b, const std::string& name, const Tensor& x,
                      const Tensor& modulation) {
  Tensor h = b.layer_norm(name, x, false);
  return b.conditioned(name + ".modulate", {h}, modulation, 3, "Modulate(shift, scale)");
}

// DiTBlock: x + gate_msa * attn(modulate(norm1(x))), then the same for the MLP.
Tensor dit_block(LayerBuilder& b, const std::string& p, const Tensor& x, const Tensor& c,
                 const ModelSize& size) {
  Tensor mod = ada_ln_modulation(b, p, c, 6);
  Tensor h = modulated_norm(b, p + "norm1", x, mod);
  Tensor qkv = b.linear(p + "attn.qkv", h, 3 * size.hidden);
  Tensor q{qkv.layer, h.shape};
  Tensor context = attention_core(b, p + "attn.", q, q, q, bidirectional(size));
  h = b.linear(p + "attn.proj", context, size.hidden);
  Tensor x1 = b.conditioned(p + "gate_msa", {h, x}, mod, 2, "GatedResidual(gate_msa)");
  Tensor m = modulated_norm(b, p + "norm2", x1, mod);
  m = b.linear(p + "mlp.fc1", m, kMlpRatio * size.hidden);
  m = b.gelu(p + "mlp.act", m);  // GELU(approximate="tanh")
  m = b.linear(p + "mlp.fc2", m, size.hidden);
  return b.conditioned(p + "gate_mlp", {m, x1}, mod, 2, "GatedResidual(gate_mlp)");
}

// c = TimestepEmbedder(t) + LabelEmbedder(y): {N, 1, hidden}.
Tensor dit_condition(LayerBuilder& b, const ModelSize& size) {
  using Kind = LayerBuilder::InputKind;
  Tensor t = b.input("t", {size.batch, 1}, Kind::kTokenIds, "Input(diffusion timesteps)");
  Tensor y = b.input("y", {size.batch, 1}, Kind::kTokenIds, "Input(class labels)");
  Tensor te = b.sinusoidal_embedding("t_embedder.timestep_embedding", t, kTimestepFeatures);
  te = b.linear("t_embedder.mlp.0", te, size.hidden);
  te = b.silu("t_embedder.mlp.1", te);
  te = b.linear("t_embedder.mlp.2", te, size.hidden);
  // One extra row: the null class that classifier-free guidance trains.
  Tensor ye = b.embedding("y_embedder.embedding_table", y, kClasses + 1, size.hidden);
  return b.add("c", {te, ye});
}

Tensor diffusion_transformer(LayerBuilder& b, const ModelSize& size, long patch) {
  const long latent =
      patches_per_side(size.image_size, kLatentDownsample, "image size (the VAE downsamples by 8)");
  patches_per_side(latent, patch, "latent size (image size / 8)");
  Tensor x = b.input("x", {size.batch, kLatentChannels, latent, latent},
                     LayerBuilder::InputKind::kValues, "Input(noised VAE latents)");
  x = patch_embedding(b, "x_embedder.proj", x, patch, size.hidden);
  x = b.add_positions("pos_embed", x, false);
  const Tensor c = dit_condition(b, size);
  for (long l = 0; l < size.layers; ++l)
    x = dit_block(b, "blocks." + std::to_string(l) + ".", x, c, size);
  Tensor mod = ada_ln_modulation(b, "final_layer.", c, 2);
  x = modulated_norm(b, "final_layer.norm_final", x, mod);
  // unpatchify is a permuting copy of the small output (patch^2 x 8 values
  // per token); it is left out as a view.
  Tensor out = b.linear("final_layer.linear", x, patch * patch * kDitOutChannels);
  return b.loss("loss", {out}, "MSELoss(noise) + VLB(variance)");
}

}  // namespace

Tensor vit_b_16(LayerBuilder& b, const ModelSize& size) {
  return vision_transformer(b, size, 16);
}

Tensor vit_l_16(LayerBuilder& b, const ModelSize& size) {
  return vision_transformer(b, size, 16);
}

Tensor vit_h_14(LayerBuilder& b, const ModelSize& size) {
  return vision_transformer(b, size, 14);
}

Tensor dit_xl_2(LayerBuilder& b, const ModelSize& size) {
  return diffusion_transformer(b, size, 2);
}

}  // namespace zoo
}  // namespace pacml
