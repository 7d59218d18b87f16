// pacml's model zoo: forward layer graphs of well-known models, costed with an
// analytic model on a GPU device model, for jobs that have no profile.
//
//   ZooOptions options;            // model defaults, fp32, A100
//   options.batch = 64;
//   ZooGraph g = build_zoo_model("resnet50", options);
//   g.graph   -> a validated LayerGraph (times in ms, sizes in bytes)
//   g.params  -> 25,557,032
//
// Graphs have the models' real topology (residual adds, concatenated
// branches, attention blocks, encoder/decoder), layers in execution order
// (a topological order), unique torchvision / Hugging Face module names, and
// end in the training loss, which is the output layer. The training step
// (backward mirror) is derived from it elsewhere (doc/MODEL.md §1.2).
// Cost model: op_cost.h; device files: device_model.h; models and sources:
// core/zoo/README.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/zoo/attention.h"
#include "core/zoo/calibration.h"
#include "core/zoo/device_model.h"
#include "core/zoo/precision.h"

namespace pacml {

// Unset sizes take the model's default. A size that is set must be positive:
// an explicit 0 (e.g. "--batch 0") is an error, not "default".
struct ZooOptions {
  std::optional<int> batch;       // samples per training step
  std::optional<int> seq_len;     // tokens or audio frames; sequence models only
  std::optional<int> image_size;  // image height = width; CNNs only
  // Transformers only: resize the family (hidden must divide by heads).
  std::optional<int> layers;  // blocks
  std::optional<int> hidden;  // hidden size
  std::optional<int> heads;   // attention heads
  // Llama-style decoders only (the llama family): heads must divide by kv_heads.
  std::optional<int> kv_heads;          // key/value heads (grouped-query attention)
  std::optional<int> ffn_hidden;        // SwiGLU intermediate size
  std::optional<int> vocab;             // vocabulary size
  std::optional<bool> tied_embeddings;  // lm_head uses the token embedding
  // How attention runs (attention.h); models without attention ignore it.
  // The default is PyTorch 2's and Hugging Face's: the fused SDPA kernel.
  Attention attention = Attention::kSdpa;
  Precision precision = Precision::kFp32;
  DeviceModel device = DeviceModel::a100();
};

// What `pacml graph zoo` lists about a model.
struct ZooModelInfo {
  std::string name;                  // canonical name ("bert-base")
  std::vector<std::string> aliases;  // other accepted names ("bert")
  std::string description;
  std::string family;  // "cnn", "transformer" (BERT, GPT-2, Llama, ViT, DiT) or "rnn"
  int default_batch = 0;
  int default_seq_len = 0;                // 0: the model takes no sequence length
  int default_image_size = 0;             // 0: the model takes no image size
  int max_seq_len = 0;                    // 0: no limit (else the position table's size)
  int layers = 0, hidden = 0, heads = 0;  // transformers: the default shape
  // The llama family's defaults (kv_heads 0: not a Llama-style decoder).
  int kv_heads = 0, ffn_hidden = 0, vocab = 0;
  bool tied_embeddings = false;
  double reference_params = 0;  // published parameter count (see reference)
  std::string reference;        // where the architecture and the count come from
};

struct ZooGraph {
  LayerGraph graph;   // model_name = the canonical model name
  double params = 0;  // parameter count (tied weights counted once)
  // The options actually used (defaults resolved).
  int batch = 0;
  int seq_len = 0;                              // 0 for CNNs
  int image_size = 0;                           // 0 for sequence models
  int layers = 0, hidden = 0, heads = 0;        // transformers: the shape built
  int kv_heads = 0, ffn_hidden = 0, vocab = 0;  // the llama family (else 0)
  bool tied_embeddings = false;
  Attention attention = Attention::kSdpa;
  Precision precision = Precision::kFp32;
  std::string device;
  // Every resolved choice that shapes the graph, as one text: equal texts,
  // equal graphs (a cache key: "llama3-8b/b8/s2048/i0/32x4096x32/kv8/...").
  std::string configuration;
};

// All models, in a fixed order.
const std::vector<ZooModelInfo>& list_zoo_models();

// True for a canonical name or an alias ("bert", "inception3", "resnext50").
bool is_zoo_model(const std::string& name);

// The model's entry; throws InputError("--model", "unknown model 'x'; known: ...").
const ZooModelInfo& zoo_model_info(const std::string& name);

// Builds the forward graph. Throws InputError naming the option at fault
// ("--model", "--batch", "--seq-len", "--image-size", "--precision") for an
// unknown model, a size that is zero, negative or too large, a size given to
// a model that has none (--seq-len for a CNN), an image too small or a
// sequence too long for the model, a transformer shape given to another
// family or a hidden size the heads do not divide ("--layers", "--hidden",
// "--heads"), a Llama option given to another model or key/value heads that
// do not divide the heads ("--kv-heads", "--ffn-hidden", "--vocab",
// "--tied-embeddings"), an image the patches do not tile, or a precision the
// device model lacks.
// Deterministic: the same inputs give the same graph.
ZooGraph build_zoo_model(const std::string& name, const ZooOptions& options = ZooOptions());

}  // namespace pacml
