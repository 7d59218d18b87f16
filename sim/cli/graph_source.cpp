#include "sim/cli/graph_source.h"

#include "core/cluster/cluster_spec.h"
#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/zoo/model_zoo.h"

namespace pacml::cli {

namespace {

std::optional<bool> parse_yes_no(const std::string& value, const std::string& where) {
  if (value == "yes") return true;
  if (value == "no") return false;
  throw InputError(where, "expected yes or no, got '" + value + "'");
}

}  // namespace

ZooOptions zoo_options(const GraphOptions& options) {
  ZooOptions zoo = options.zoo;
  if (options.attention) zoo.attention = *options.attention;
  if (options.device) zoo.device = load_device(*options.device, "--device");
  return zoo;
}

void add_graph_options(Args& args, GraphOptions& options) {
  constexpr long kMaxBatch = 1 << 20, kMaxShape = 1 << 16;
  ZooOptions& zoo = options.zoo;
  args.bind("graph", "FILE", "job graph: a PipeDream graph.txt or a native YAML graph",
            options.graph);
  args.bind("model", "NAME",
            "built-in model zoo graph instead of a file ('pacml graph zoo' lists them)",
            options.model);
  args.excludes("model", "graph");
  args.bind("batch", "B", "zoo: samples per training step (default: the model's)", zoo.batch, 1,
            kMaxBatch);
  args.bind("seq-len", "L", "zoo: sequence length for sequence models", zoo.seq_len, 1, kMaxBatch);
  args.bind("image-size", "P", "zoo: image height = width for CNNs", zoo.image_size, 1, kMaxShape);
  args.bind("layers", "N", "zoo transformers: number of blocks (resizes bert/gpt2)", zoo.layers, 1,
            kMaxShape);
  args.bind("hidden", "H", "zoo transformers: hidden size", zoo.hidden, 1, kMaxShape);
  args.bind("heads", "A", "zoo transformers: attention heads (must divide --hidden)", zoo.heads, 1,
            kMaxShape);
  args.bind("kv-heads", "K", "zoo llama family: key/value heads (must divide --heads)",
            zoo.kv_heads, 1, kMaxShape);
  args.bind("ffn-hidden", "F", "zoo llama family: SwiGLU intermediate size", zoo.ffn_hidden, 1,
            kMaxBatch);
  args.bind("vocab", "V", "zoo llama family: vocabulary size", zoo.vocab, 1, 1 << 24);
  args.bind_parsed("tied-embeddings", "yes|no", "zoo llama family: lm_head shares the embedding",
                   zoo.tied_embeddings, parse_yes_no);
  args.bind_parsed(
      "attention", "A",
      "zoo transformers: sdpa (fused, PyTorch 2's default) or eager (matmul, softmax, matmul)",
      options.attention,
      [](const std::string& text, const std::string&) {
        return std::optional<Attention>(parse_attention(text));
      },
      attention_name(zoo.attention));
  args.bind_parsed(
      "precision", "P", "zoo: fp32, fp16, bf16 or tf32", zoo.precision,
      [](const std::string& text, const std::string&) { return parse_precision(text); },
      precision_name(zoo.precision));
  args.bind("device", "NAME|FILE",
            "zoo: a built-in GPU ('pacml device list': a100, h100-sxm, h200, b200, ...) or a "
            "device file (default: a100; with --cluster, the cluster's GPU, which --device "
            "replaces)",
            options.device);
}

void reject_zoo_options(const GraphOptions& options, bool batch_applies) {
  const ZooOptions& zoo = options.zoo;
  const std::pair<const char*, bool> zoo_only[] = {
      {"batch", zoo.batch && !batch_applies},
      {"seq-len", zoo.seq_len.has_value()},
      {"image-size", zoo.image_size.has_value()},
      {"device", options.device.has_value()},
      {"layers", zoo.layers.has_value()},
      {"hidden", zoo.hidden.has_value()},
      {"heads", zoo.heads.has_value()},
      {"kv-heads", zoo.kv_heads.has_value()},
      {"ffn-hidden", zoo.ffn_hidden.has_value()},
      {"vocab", zoo.vocab.has_value()},
      {"tied-embeddings", zoo.tied_embeddings.has_value()},
      {"attention", options.attention.has_value()}};
  for (const auto& [name, given] : zoo_only)
    if (given) throw InputError(std::string("--") + name, "applies to --model only");
}

LoadedGraph load_layer_graph(const GraphOptions& options, const std::string& positional) {
  const bool from_file = options.graph || !positional.empty();
  if (from_file && options.model)
    throw InputError("--model", "give either a graph file or --model, not both");
  if (options.model) {
    ZooGraph zoo = build_zoo_model(*options.model, zoo_options(options));
    return {std::move(zoo.graph), zoo.params, zoo.configuration};
  }
  reject_zoo_options(options, /*batch_applies=*/false);
  if (!from_file) throw InputError("pacml", "give a graph: --graph FILE or --model NAME");
  return {load_graph_file(options.graph.value_or(positional)), std::nullopt, ""};
}

JobGraphPtr load_job_graph(const GraphOptions& options, const std::string& positional) {
  return make_job_graph(load_layer_graph(options, positional).graph);
}

}  // namespace pacml::cli
