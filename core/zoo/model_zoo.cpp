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
  return entries;
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

constexpr int kMaxLayers = 1024;
constexpr int kMaxHidden = 1 << 16;

// --layers/--hidden/--heads: transformers only; hidden must split evenly over heads.
void resolve_shape(const ZooModelInfo& info, const ZooOptions& options, zoo::ModelSize& size) {
  if (info.layers == 0) {
    for (auto [value, option] :
         {std::pair{&options.layers, "--layers"}, std::pair{&options.hidden, "--hidden"},
          std::pair{&options.heads, "--heads"}})
      if (*value)
        throw InputError(option, info.name +
                                     " is not a transformer; only bert and gpt2 "
                                     "models take --layers/--hidden/--heads");
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
  return size;
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
  result.precision = options.precision;
  result.device = options.device.name;
  return result;
}

}  // namespace pacml
