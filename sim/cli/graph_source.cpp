#include "sim/cli/graph_source.h"

#include "core/cluster/cluster_spec.h"
#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/zoo/model_zoo.h"

namespace pacml::cli {

namespace {

bool yes_no(const Args& args, const char* option) {
  const std::string value = args.get(option);
  if (value == "yes") return true;
  if (value == "no") return false;
  throw InputError(std::string("--") + option, "expected yes or no, got '" + value + "'");
}

}  // namespace

ZooOptions zoo_options(const Args& args) {
  ZooOptions options;
  if (args.has("batch")) options.batch = static_cast<int>(args.get_long("batch", 1, 1 << 20));
  if (args.has("seq-len")) options.seq_len = static_cast<int>(args.get_long("seq-len", 1, 1 << 20));
  if (args.has("image-size"))
    options.image_size = static_cast<int>(args.get_long("image-size", 1, 1 << 16));
  if (args.has("precision")) options.precision = parse_precision(args.get("precision"));
  if (args.has("device")) options.device = load_device(args.get("device"), "--device");
  constexpr long kMaxShape = 1 << 16;
  if (args.has("layers")) options.layers = static_cast<int>(args.get_long("layers", 1, kMaxShape));
  if (args.has("hidden")) options.hidden = static_cast<int>(args.get_long("hidden", 1, kMaxShape));
  if (args.has("heads")) options.heads = static_cast<int>(args.get_long("heads", 1, kMaxShape));
  if (args.has("kv-heads"))
    options.kv_heads = static_cast<int>(args.get_long("kv-heads", 1, kMaxShape));
  if (args.has("ffn-hidden"))
    options.ffn_hidden = static_cast<int>(args.get_long("ffn-hidden", 1, 1 << 20));
  if (args.has("vocab")) options.vocab = static_cast<int>(args.get_long("vocab", 1, 1 << 24));
  if (args.has("tied-embeddings")) options.tied_embeddings = yes_no(args, "tied-embeddings");
  if (args.has("attention")) options.attention = parse_attention(args.get("attention"));
  return options;
}

void add_graph_options(Args& args) {
  args.option("graph", "FILE", "job graph: a PipeDream graph.txt or a native YAML graph");
  args.option("model", "NAME",
              "built-in model zoo graph instead of a file ('pacml graph zoo' lists them)");
  args.option("batch", "B", "zoo: samples per training step (default: the model's)");
  args.option("seq-len", "L", "zoo: sequence length for sequence models");
  args.option("image-size", "P", "zoo: image height = width for CNNs");
  args.option("layers", "N", "zoo transformers: number of blocks (resizes bert/gpt2)");
  args.option("hidden", "H", "zoo transformers: hidden size");
  args.option("heads", "A", "zoo transformers: attention heads (must divide --hidden)");
  args.option("kv-heads", "K", "zoo llama family: key/value heads (must divide --heads)");
  args.option("ffn-hidden", "F", "zoo llama family: SwiGLU intermediate size");
  args.option("vocab", "V", "zoo llama family: vocabulary size");
  args.option("tied-embeddings", "yes|no", "zoo llama family: lm_head shares the embedding");
  args.option("attention", "A",
              "zoo transformers: sdpa (fused, PyTorch 2's default) or eager (matmul, softmax, "
              "matmul)",
              "sdpa");
  args.option("precision", "P", "zoo: fp32, fp16, bf16 or tf32", "fp32");
  args.option("device", "NAME|FILE",
              "zoo: a built-in GPU ('pacml device list': a100, h100-sxm, h200, b200, ...) or a "
              "device file (default: a100; with --cluster, the cluster's GPU, which --device "
              "replaces)");
}

void reject_zoo_options(const Args& args, bool batch_applies) {
  for (const char* zoo_only :
       {"batch", "seq-len", "image-size", "device", "layers", "hidden", "heads", "kv-heads",
        "ffn-hidden", "vocab", "tied-embeddings", "attention"})
    if (args.has(zoo_only) && !(batch_applies && std::string(zoo_only) == "batch"))
      throw InputError(std::string("--") + zoo_only, "applies to --model only");
}

LoadedGraph load_layer_graph(const Args& args, const std::string& positional) {
  const bool from_file = args.has("graph") || !positional.empty();
  if (from_file && args.has("model"))
    throw InputError("--model", "give either a graph file or --model, not both");
  if (args.has("model")) {
    ZooGraph zoo = build_zoo_model(args.get("model"), zoo_options(args));
    return {std::move(zoo.graph), zoo.params, zoo.configuration};
  }
  reject_zoo_options(args, /*batch_applies=*/false);
  if (!from_file) throw InputError("pacml", "give a graph: --graph FILE or --model NAME");
  return {load_graph_file(args.has("graph") ? args.get("graph") : positional), std::nullopt, ""};
}

JobGraphPtr load_job_graph(const Args& args, const std::string& positional) {
  return make_job_graph(load_layer_graph(args, positional).graph);
}

}  // namespace pacml::cli
