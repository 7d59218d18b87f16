#include "core/zoo/model_zoo.h"

#include <optional>
#include <string>

#include "core/util/error.h"
#include "core/zoo/layer_builder.h"
#include "core/zoo/zoo_models.h"

namespace pacml {
namespace {

using Definition = zoo::Tensor (*)(zoo::LayerBuilder&, const zoo::ModelSize&);

struct ZooEntry {
  ZooModelInfo info;
  Definition define;
};

// Limits that keep every size, FLOP and byte count finite and meaningful.
constexpr int kMaxBatch = 1 << 20;
constexpr int kMaxImageSize = 8192;
constexpr int kMaxSeqLen = 1 << 20;
constexpr int kMaxLayers = 1024;
constexpr int kMaxHidden = 1 << 16;
constexpr int kMaxFfnHidden = 1 << 18;
constexpr int kMaxVocab = 1 << 22;
// The llama family's --seq-len cap. RoPE has no position table, so nothing in
// the graph stops a longer sequence; 8192 is Llama 3's pre-training context
// (Meta-Llama-3-8B config.json: max_position_embeddings 8192) and covers the
// 2-8 k sequences fine-tuning runs at. Longer ones need RoPE scaling and
// context-parallel training, which the zoo does not model.
constexpr int kLlamaMaxSeqLen = 8192;

ZooModelInfo cnn(std::string name, std::string description, int image, double params,
                 std::string reference, std::vector<std::string> aliases = {}) {
  ZooModelInfo info;
  info.name = std::move(name);
  info.aliases = std::move(aliases);
  info.description = std::move(description);
  info.family = "cnn";
  info.default_batch = 32;
  info.default_image_size = image;
  info.reference_params = params;
  info.reference = std::move(reference);
  return info;
}

ZooModelInfo sequence(std::string name, std::string family, std::string description, int batch,
                      int seq_len, int max_seq_len, double params, std::string reference,
                      std::vector<std::string> aliases = {}) {
  ZooModelInfo info;
  info.name = std::move(name);
  info.aliases = std::move(aliases);
  info.description = std::move(description);
  info.family = std::move(family);
  info.default_batch = batch;
  info.default_seq_len = seq_len;
  info.max_seq_len = max_seq_len;
  info.reference_params = params;
  info.reference = std::move(reference);
  return info;
}

// A transformer: a sequence model whose shape --layers/--hidden/--heads resize.
ZooModelInfo transformer(std::string name, std::string description, int batch, int seq_len,
                         int max_seq_len, int layers, int hidden, int heads, double params,
                         std::string reference, std::vector<std::string> aliases = {}) {
  ZooModelInfo info =
      sequence(std::move(name), "transformer", std::move(description), batch, seq_len, max_seq_len,
               params, std::move(reference), std::move(aliases));
  info.layers = layers, info.hidden = hidden, info.heads = heads;
  return info;
}

// A vision transformer: an image model whose shape --layers/--hidden/--heads resize.
ZooModelInfo image_transformer(std::string name, std::string description, int image, int layers,
                               int hidden, int heads, double params, std::string reference) {
  ZooModelInfo info =
      cnn(std::move(name), std::move(description), image, params, std::move(reference));
  info.family = "transformer";
  info.layers = layers, info.hidden = hidden, info.heads = heads;
  return info;
}

// Hugging Face config.json of a Llama-style decoder.
struct LlamaConfig {
  int layers, hidden, heads, kv_heads, ffn_hidden, vocab;
  bool tied_embeddings;
};

// The llama family: batch 8 x 2048 tokens by default (a fine-tuning step).
ZooModelInfo llama_preset(std::string name, std::string description, const LlamaConfig& c,
                          double params, std::string reference,
                          std::vector<std::string> aliases = {}) {
  ZooModelInfo info =
      transformer(std::move(name), std::move(description), 8, 2048, kLlamaMaxSeqLen, c.layers,
                  c.hidden, c.heads, params, std::move(reference), std::move(aliases));
  info.kv_heads = c.kv_heads, info.ffn_hidden = c.ffn_hidden, info.vocab = c.vocab;
  info.tied_embeddings = c.tied_embeddings;
  return info;
}

// Today's models: the llama family, torchvision's ViTs and DiT-XL/2. Published
// counts: the Hugging Face model cards (safetensors parameter counts),
// torchvision's weight tables (num_params) and the DiT paper.
std::vector<ZooEntry> current_models() {
  return {
      {llama_preset("llama3.2-1b", "Llama 3.2 1B, GQA 32/8 heads, tied embeddings",
                    {16, 2048, 32, 8, 8192, 128256, true}, 1235814400,
                    "meta-llama/Llama-3.2-1B (Hugging Face): 1.24B = 1,235,814,400"),
       zoo::llama},
      {llama_preset("llama3.2-3b", "Llama 3.2 3B, GQA 24/8 heads, tied embeddings",
                    {28, 3072, 24, 8, 8192, 128256, true}, 3.21e9,
                    "meta-llama/Llama-3.2-3B (Hugging Face): 3.21B"),
       zoo::llama},
      {llama_preset("llama3-8b", "Llama 3 8B, GQA 32/8 heads",
                    {32, 4096, 32, 8, 14336, 128256, false}, 8.03e9,
                    "meta-llama/Meta-Llama-3-8B (Hugging Face): 8.03B"),
       zoo::llama},
      {llama_preset("llama3-70b", "Llama 3 70B, GQA 64/8 heads",
                    {80, 8192, 64, 8, 28672, 128256, false}, 70.6e9,
                    "meta-llama/Meta-Llama-3-70B (Hugging Face): 70.6B"),
       zoo::llama},
      {llama_preset("mistral-7b", "Mistral 7B v0.1, GQA 32/8 heads (full attention)",
                    {32, 4096, 32, 8, 14336, 32000, false}, 7.24e9,
                    "mistralai/Mistral-7B-v0.1 (Hugging Face): 7.24B"),
       zoo::llama},
      {image_transformer("vit_b_16", "ViT-B/16 (torchvision)", 224, 12, 768, 12, 86567656,
                         "torchvision vit_b_16: 86,567,656"),
       zoo::vit_b_16},
      {image_transformer("vit_l_16", "ViT-L/16 (torchvision)", 224, 24, 1024, 16, 304326632,
                         "torchvision vit_l_16: 304,326,632"),
       zoo::vit_l_16},
      {image_transformer("vit_h_14", "ViT-H/14 (torchvision) at 224 px", 224, 32, 1280, 16,
                         632045800,
                         "torchvision vit_h_14: 633,470,440 at 518 px (its SWAG weights), "
                         "632,045,800 at 224 px (the position table is 257 rows, not 1370)"),
       zoo::vit_h_14},
      {image_transformer("dit-xl-2",
                         "DiT-XL/2, class-conditional on 256 px images (32x32x4 latent)", 256, 28,
                         1152, 16, 675e6, "Peebles & Xie 2023 (DiT paper), Table 4: DiT-XL/2 675M"),
       zoo::dit_xl_2},
  };
}

const std::vector<ZooEntry>& registry() {
  static const std::vector<ZooEntry> entries = {
      {cnn("alexnet", "AlexNet (torchvision)", 224, 61.1e6, "torchvision alexnet: 61,100,840"),
       zoo::alexnet},
      {cnn("vgg16", "VGG-16 without batch norm (torchvision)", 224, 138.4e6,
           "torchvision vgg16: 138,357,544"),
       zoo::vgg16},
      {cnn("resnet18", "ResNet-18 (torchvision)", 224, 11.7e6, "torchvision resnet18: 11,689,512"),
       zoo::resnet18},
      {cnn("resnet50", "ResNet-50 (torchvision)", 224, 25.6e6, "torchvision resnet50: 25,557,032"),
       zoo::resnet50},
      {cnn("resnext50_32x4d", "ResNeXt-50 32x4d (torchvision)", 224, 25.0e6,
           "torchvision resnext50_32x4d: 25,028,904", {"resnext50"}),
       zoo::resnext50_32x4d},
      {cnn("squeezenet1_0", "SqueezeNet 1.0 (torchvision)", 224, 1.25e6,
           "torchvision squeezenet1_0: 1,248,424"),
       zoo::squeezenet1_0},
      {cnn("inception_v3", "Inception v3 without the auxiliary head (torchvision)", 299, 23.8e6,
           "torchvision inception_v3, aux_logits=False: 23,834,568", {"inception3"}),
       zoo::inception_v3},
      {cnn("inception_v3_aux", "Inception v3 with the auxiliary training head (torchvision)", 299,
           27.2e6, "torchvision inception_v3, aux_logits=True: 27,161,264"),
       zoo::inception_v3_aux},
      {sequence("gnmt", "rnn", "GNMT, 4+4 LSTM layers of 1024, shared 32k embedding (MLPerf v0.5)",
                64, 50, 0, 0,
                "MLPerf v0.5 rnn_translator (the GNMT PipeDream profiled); no published count"),
       zoo::gnmt},
      {transformer("bert-base", "BERT-base uncased with pre-training heads", 32, 128, 512, 12, 768,
                   12, 110e6, "Devlin et al. 2018 (BERT paper): BERT-base 110M", {"bert"}),
       zoo::bert_base},
      {transformer("bert-large", "BERT-large uncased with pre-training heads", 32, 128, 512, 24,
                   1024, 16, 340e6, "Devlin et al. 2018 (BERT paper): BERT-large 340M"),
       zoo::bert_large},
      {transformer("gpt2", "GPT-2 small (124M), LM head tied to the embedding", 8, 1024, 1024, 12,
                   768, 12, 124e6, "Hugging Face gpt2: 124,439,808"),
       zoo::gpt2},
      {transformer("gpt2-medium", "GPT-2 medium (355M), LM head tied to the embedding", 8, 1024,
                   1024, 24, 1024, 16, 355e6, "Hugging Face gpt2-medium: 354,823,168"),
       zoo::gpt2_medium},
      {transformer("gpt2-large", "GPT-2 large (774M), LM head tied to the embedding", 8, 1024, 1024,
                   36, 1280, 20, 774e6, "Hugging Face gpt2-large: 774,030,080"),
       zoo::gpt2_large},
      {transformer("gpt2-xl", "GPT-2 XL (1.5B), LM head tied to the embedding", 8, 1024, 1024, 48,
                   1600, 25, 1558e6, "Hugging Face gpt2-xl: 1,557,611,200"),
       zoo::gpt2_xl},
      {sequence("deepspeech2", "rnn",
                "DeepSpeech2: 2 conv + 5 bidirectional LSTM(1024) + CTC (deepspeech.pytorch)", 64,
                1000, 0, 0,
                "deepspeech.pytorch (SeanNaren) defaults; no published count; seq = 10 ms frames"),
       zoo::deepspeech2},
  };
  static const std::vector<ZooEntry> all = [] {
    std::vector<ZooEntry> out = entries;
    for (ZooEntry& entry : current_models()) out.push_back(std::move(entry));
    return out;
  }();
  return all;
}

const ZooEntry* find_entry(const std::string& name) {
  for (const ZooEntry& entry : registry()) {
    if (entry.info.name == name) return &entry;
    for (const std::string& alias : entry.info.aliases)
      if (alias == name) return &entry;
  }
  return nullptr;
}

std::string known_models() {
  std::string names, aliases;
  for (const ZooEntry& entry : registry()) {
    names += (names.empty() ? "" : ", ") + entry.info.name;
    for (const std::string& alias : entry.info.aliases)
      aliases += (aliases.empty() ? "" : ", ") + alias + " = " + entry.info.name;
  }
  return names + " (aliases: " + aliases + ")";
}

// Unset means "the model's default"; a set value must lie in [1, max].
long resolve(const std::optional<int>& requested, int fallback, int max, const char* option,
             const char* what, const std::string& model) {
  if (!requested) return fallback;
  if (*requested < 1 || *requested > max)
    throw InputError(option, std::string(what) + " must be between 1 and " + std::to_string(max) +
                                 " for " + model + ", got " + std::to_string(*requested));
  return *requested;
}

// --kv-heads/--ffn-hidden/--vocab/--tied-embeddings: the llama family only;
// the key/value heads must divide the query heads.
void resolve_llama(const ZooModelInfo& info, const ZooOptions& options, zoo::ModelSize& size) {
  if (info.kv_heads == 0) {
    for (auto [set, option] : {std::pair{options.kv_heads.has_value(), "--kv-heads"},
                               std::pair{options.ffn_hidden.has_value(), "--ffn-hidden"},
                               std::pair{options.vocab.has_value(), "--vocab"},
                               std::pair{options.tied_embeddings.has_value(), "--tied-embeddings"}})
      if (set)
        throw InputError(option, info.name +
                                     " is not a Llama-style decoder; only the llama "
                                     "family takes --kv-heads/--ffn-hidden/--vocab/"
                                     "--tied-embeddings");
    return;
  }
  size.kv_heads =
      resolve(options.kv_heads, info.kv_heads, kMaxHidden, "--kv-heads", "kv heads", info.name);
  size.ffn_hidden = resolve(options.ffn_hidden, info.ffn_hidden, kMaxFfnHidden, "--ffn-hidden",
                            "ffn hidden size", info.name);
  size.vocab = resolve(options.vocab, info.vocab, kMaxVocab, "--vocab", "vocabulary", info.name);
  size.tied_embeddings = options.tied_embeddings.value_or(info.tied_embeddings);
  if (size.heads % size.kv_heads != 0)
    throw InputError(options.kv_heads ? "--kv-heads" : "--heads",
                     std::to_string(size.kv_heads) + " key/value heads do not divide the " +
                         std::to_string(size.heads) + " attention heads");
}

// --layers/--hidden/--heads: transformers only; hidden must split evenly over heads.
void resolve_shape(const ZooModelInfo& info, const ZooOptions& options, zoo::ModelSize& size) {
  if (info.layers == 0) {
    for (auto [value, option] :
         {std::pair{&options.layers, "--layers"}, std::pair{&options.hidden, "--hidden"},
          std::pair{&options.heads, "--heads"}})
      if (*value)
        throw InputError(option, info.name +
                                     " is not a transformer; only bert, gpt2, the llama "
                                     "family, the ViTs and DiT take --layers/--hidden/--heads");
    return;
  }
  size.layers = resolve(options.layers, info.layers, kMaxLayers, "--layers", "layers", info.name);
  size.hidden = resolve(options.hidden, info.hidden, kMaxHidden, "--hidden", "hidden", info.name);
  size.heads = resolve(options.heads, info.heads, kMaxHidden, "--heads", "heads", info.name);
  if (size.hidden % size.heads != 0)
    throw InputError(options.heads ? "--heads" : "--hidden",
                     "hidden size " + std::to_string(size.hidden) + " does not split over " +
                         std::to_string(size.heads) + " heads");
}

zoo::ModelSize resolve_size(const ZooModelInfo& info, const ZooOptions& options) {
  zoo::ModelSize size;
  size.batch = resolve(options.batch, info.default_batch, kMaxBatch, "--batch", "batch", info.name);
  if (info.default_image_size == 0 && options.image_size)
    throw InputError("--image-size", info.name + " takes no image size (it is a sequence model)");
  if (info.default_seq_len == 0 && options.seq_len)
    throw InputError("--seq-len", info.name + " takes no sequence length (it is an image model)");
  if (info.default_image_size)
    size.image_size = resolve(options.image_size, info.default_image_size, kMaxImageSize,
                              "--image-size", "image size", info.name);
  if (info.default_seq_len)
    size.seq_len = resolve(options.seq_len, info.default_seq_len,
                           info.max_seq_len ? info.max_seq_len : kMaxSeqLen, "--seq-len",
                           "sequence length", info.name);
  resolve_shape(info, options, size);
  resolve_llama(info, options, size);
  size.attention = options.attention;
  return size;
}

std::string configuration_text(const ZooGraph& g) {
  std::string text = g.graph.model_name + "/b" + std::to_string(g.batch) + "/s" +
                     std::to_string(g.seq_len) + "/i" + std::to_string(g.image_size) + "/" +
                     std::to_string(g.layers) + "x" + std::to_string(g.hidden) + "x" +
                     std::to_string(g.heads);
  if (g.kv_heads)
    text += "/kv" + std::to_string(g.kv_heads) + "/ffn" + std::to_string(g.ffn_hidden) + "/v" +
            std::to_string(g.vocab) + (g.tied_embeddings ? "/tied" : "/untied");
  return text + "/" + attention_name(g.attention) + "/" + precision_name(g.precision) + "/" +
         g.device;
}

}  // namespace

const std::vector<ZooModelInfo>& list_zoo_models() {
  static const std::vector<ZooModelInfo> infos = [] {
    std::vector<ZooModelInfo> out;
    for (const ZooEntry& entry : registry()) out.push_back(entry.info);
    return out;
  }();
  return infos;
}

bool is_zoo_model(const std::string& name) {
  return find_entry(name) != nullptr;
}

const ZooModelInfo& zoo_model_info(const std::string& name) {
  const ZooEntry* entry = find_entry(name);
  if (!entry) throw InputError("--model", "unknown model '" + name + "'; known: " + known_models());
  return entry->info;
}

ZooGraph build_zoo_model(const std::string& name, const ZooOptions& options) {
  const ZooModelInfo& info = zoo_model_info(name);
  const zoo::ModelSize size = resolve_size(info, options);
  try {
    options.device.peak(options.precision);
  } catch (const InputError& e) {
    throw InputError("--precision", e.what());
  }
  zoo::LayerBuilder builder(info.name, options.precision, options.device);
  zoo::Tensor output;
  try {
    output = find_entry(name)->define(builder, size);
  } catch (const InputError& e) {
    // The only input errors a definition raises are sizes too small for the
    // model (a layer with an empty output): name the option to change.
    throw InputError(info.default_image_size ? "--image-size" : "--seq-len", e.what());
  }
  ZooGraph result;
  result.graph = builder.finish(output);
  result.params = builder.parameter_count();
  result.batch = static_cast<int>(size.batch);
  result.seq_len = static_cast<int>(size.seq_len);
  result.image_size = static_cast<int>(size.image_size);
  result.layers = static_cast<int>(size.layers);
  result.hidden = static_cast<int>(size.hidden);
  result.heads = static_cast<int>(size.heads);
  result.kv_heads = static_cast<int>(size.kv_heads);
  result.ffn_hidden = static_cast<int>(size.ffn_hidden);
  result.vocab = static_cast<int>(size.vocab);
  result.tied_embeddings = size.tied_embeddings;
  result.attention = options.attention;
  result.precision = options.precision;
  result.device = options.device.name;
  result.configuration = configuration_text(result);
  return result;
}

}  // namespace pacml
