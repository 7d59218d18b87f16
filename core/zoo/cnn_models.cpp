// Image classifiers, layer for layer as torchvision defines them (module names
// kept, so "layer1.0.conv1" is what print(torchvision.models.resnet18()) shows).
// Every model ends in a cross-entropy loss over 1000 ImageNet classes.
#include <algorithm>
#include <string>
#include <vector>

#include "core/zoo/zoo_models.h"

namespace pacml {
namespace zoo {
namespace {

constexpr long kClasses = 1000;

Tensor image_input(LayerBuilder& b, const ModelSize& size) {
  return b.input("input", {size.batch, 3, size.image_size, size.image_size},
                 LayerBuilder::InputKind::kValues, "Input(images)");
}

Tensor classification_loss(LayerBuilder& b, const std::vector<Tensor>& logits) {
  return b.loss("loss", logits, "CrossEntropyLoss");
}

Pool2dSpec pool_spec(long kernel, long stride, long pad = 0, bool ceil_mode = false) {
  return Pool2dSpec{kernel, stride, pad, ceil_mode};
}

// ---- AlexNet, VGG: plain stacks --------------------------------------------

// torchvision's AlexNet/VGG classifier: [dropout,] linear, relu, dropout, ...
// `steps` lists the modules in order: 'L' linear(width), 'R' relu, 'D' dropout.
Tensor dense_classifier(LayerBuilder& b, Tensor x, const std::string& steps, long width) {
  int index = 0;
  int linears = 0;
  const int total_linears = static_cast<int>(std::count(steps.begin(), steps.end(), 'L'));
  for (char step : steps) {
    const std::string name = "classifier." + std::to_string(index++);
    if (step == 'D') x = b.dropout(name, x, 0.5);
    if (step == 'R') x = b.relu(name, x);
    if (step == 'L') x = b.linear(name, x, ++linears == total_linears ? kClasses : width);
  }
  return x;
}

}  // namespace

Tensor alexnet(LayerBuilder& b, const ModelSize& size) {
  Tensor x = image_input(b, size);
  x = b.conv2d("features.0", x, conv_spec(64, 11, 4, 2));
  x = b.relu("features.1", x);
  x = b.max_pool("features.2", x, pool_spec(3, 2));
  x = b.conv2d("features.3", x, conv_spec(192, 5, 1, 2));
  x = b.relu("features.4", x);
  x = b.max_pool("features.5", x, pool_spec(3, 2));
  x = b.conv2d("features.6", x, conv_spec(384, 3, 1, 1));
  x = b.relu("features.7", x);
  x = b.conv2d("features.8", x, conv_spec(256, 3, 1, 1));
  x = b.relu("features.9", x);
  x = b.conv2d("features.10", x, conv_spec(256, 3, 1, 1));
  x = b.relu("features.11", x);
  x = b.max_pool("features.12", x, pool_spec(3, 2));
  x = b.adaptive_avg_pool("avgpool", x, 6, 6);
  x = dense_classifier(b, LayerBuilder::flatten(x), "DLRDLRL", 4096);
  return classification_loss(b, {x});
}

Tensor vgg16(LayerBuilder& b, const ModelSize& size) {
  // torchvision cfg "D": channels per 3x3 conv, 0 = 2x2 max pool.
  static const long kConfig[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                                 0,  512, 512, 512, 0,   512, 512, 512, 0};
  Tensor x = image_input(b, size);
  int index = 0;
  for (long channels : kConfig) {
    const std::string name = "features." + std::to_string(index++);
    if (channels == 0) {
      x = b.max_pool(name, x, pool_spec(2, 2));
      continue;
    }
    x = b.conv2d(name, x, conv_spec(channels, 3, 1, 1));
    x = b.relu("features." + std::to_string(index++), x);
  }
  x = b.adaptive_avg_pool("avgpool", x, 7, 7);
  x = dense_classifier(b, LayerBuilder::flatten(x), "LRDLRDL", 4096);
  return classification_loss(b, {x});
}

// ---- ResNet family ---------------------------------------------------------
namespace {

struct ResNetConfig {
  bool bottleneck;
  long blocks[4];
  long groups = 1;
  long width_per_group = 64;
};

// conv -> bn (-> relu): the unit every ResNet block is made of.
Tensor conv_bn(LayerBuilder& b, const std::string& prefix, int index, Tensor x, Conv2dSpec spec,
               bool relu) {
  const std::string i = std::to_string(index);
  x = b.conv2d(prefix + "conv" + i, x, spec);
  x = b.batch_norm(prefix + "bn" + i, x);
  return relu ? b.relu(prefix + "relu" + i, x) : x;
}

// The block's output: main branch + identity (or the 1x1 downsample), then relu.
Tensor residual(LayerBuilder& b, const std::string& prefix, const Tensor& main, const Tensor& in,
                long stride, int relu_index) {
  Tensor identity = in;
  if (stride != 1 || in.shape[1] != main.shape[1]) {
    identity = b.conv2d(prefix + "downsample.0", in, conv_spec(main.shape[1], 1, stride, 0, false));
    identity = b.batch_norm(prefix + "downsample.1", identity);
  }
  Tensor sum = b.add(prefix + "add", {main, identity});
  return b.relu(prefix + "relu" + std::to_string(relu_index), sum);
}

Tensor basic_block(LayerBuilder& b, const std::string& prefix, const Tensor& in, long planes,
                   long stride) {
  Tensor x = conv_bn(b, prefix, 1, in, conv_spec(planes, 3, stride, 1, false), true);
  x = conv_bn(b, prefix, 2, x, conv_spec(planes, 3, 1, 1, false), false);
  return residual(b, prefix, x, in, stride, 2);
}

Tensor bottleneck_block(LayerBuilder& b, const std::string& prefix, const Tensor& in, long planes,
                        long stride, const ResNetConfig& config) {
  const long width = planes * config.width_per_group / 64 * config.groups;
  Conv2dSpec grouped = conv_spec(width, 3, stride, 1, false);
  grouped.groups = config.groups;
  Tensor x = conv_bn(b, prefix, 1, in, conv_spec(width, 1, 1, 0, false), true);
  x = conv_bn(b, prefix, 2, x, grouped, true);
  x = conv_bn(b, prefix, 3, x, conv_spec(planes * 4, 1, 1, 0, false), false);
  return residual(b, prefix, x, in, stride, 3);
}

Tensor resnet(LayerBuilder& b, const ModelSize& size, const ResNetConfig& config) {
  Tensor x = image_input(b, size);
  x = b.conv2d("conv1", x, conv_spec(64, 7, 2, 3, false));
  x = b.batch_norm("bn1", x);
  x = b.relu("relu", x);
  x = b.max_pool("maxpool", x, pool_spec(3, 2, 1));
  for (int stage = 0; stage < 4; ++stage) {
    const long planes = 64L << stage;
    for (long block = 0; block < config.blocks[stage]; ++block) {
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const long stride = (stage > 0 && block == 0) ? 2 : 1;
      x = config.bottleneck ? bottleneck_block(b, prefix, x, planes, stride, config)
                            : basic_block(b, prefix, x, planes, stride);
    }
  }
  x = b.adaptive_avg_pool("avgpool", x, 1, 1);
  x = b.linear("fc", LayerBuilder::flatten(x), kClasses);
  return classification_loss(b, {x});
}

}  // namespace

Tensor resnet18(LayerBuilder& b, const ModelSize& size) {
  return resnet(b, size, ResNetConfig{false, {2, 2, 2, 2}});
}

Tensor resnet50(LayerBuilder& b, const ModelSize& size) {
  return resnet(b, size, ResNetConfig{true, {3, 4, 6, 3}});
}

Tensor resnext50_32x4d(LayerBuilder& b, const ModelSize& size) {
  return resnet(b, size, ResNetConfig{true, {3, 4, 6, 3}, 32, 4});
}

// ---- SqueezeNet 1.0 --------------------------------------------------------
namespace {

// squeeze 1x1 -> relu, then parallel expand 1x1 and 3x3 (each -> relu), concatenated.
Tensor fire(LayerBuilder& b, const std::string& prefix, const Tensor& in, long squeeze,
            long expand1x1, long expand3x3) {
  Tensor s = b.conv2d(prefix + "squeeze", in, conv_spec(squeeze, 1));
  s = b.relu(prefix + "squeeze_activation", s);
  Tensor e1 = b.conv2d(prefix + "expand1x1", s, conv_spec(expand1x1, 1));
  e1 = b.relu(prefix + "expand1x1_activation", e1);
  Tensor e3 = b.conv2d(prefix + "expand3x3", s, conv_spec(expand3x3, 3, 1, 1));
  e3 = b.relu(prefix + "expand3x3_activation", e3);
  return b.concat(prefix + "concat", {e1, e3}, 1);
}

}  // namespace

Tensor squeezenet1_0(LayerBuilder& b, const ModelSize& size) {
  struct Fire {
    int index;
    long squeeze, expand;
  };
  static const Fire kFires[] = {{3, 16, 64},  {4, 16, 64},  {5, 32, 128},  {7, 32, 128},
                                {8, 48, 192}, {9, 48, 192}, {10, 64, 256}, {12, 64, 256}};
  Tensor x = image_input(b, size);
  x = b.conv2d("features.0", x, conv_spec(96, 7, 2));
  x = b.relu("features.1", x);
  x = b.max_pool("features.2", x, pool_spec(3, 2, 0, true));
  for (const Fire& f : kFires) {
    // Max pools sit at features.6 and features.11, between the fire modules.
    if (f.index == 7 || f.index == 12)
      x = b.max_pool("features." + std::to_string(f.index - 1), x, pool_spec(3, 2, 0, true));
    x = fire(b, "features." + std::to_string(f.index) + ".", x, f.squeeze, f.expand, f.expand);
  }
  x = b.dropout("classifier.0", x, 0.5);
  x = b.conv2d("classifier.1", x, conv_spec(kClasses, 1));
  x = b.relu("classifier.2", x);
  x = b.adaptive_avg_pool("classifier.3", x, 1, 1);
  return classification_loss(b, {LayerBuilder::flatten(x)});
}

// ---- Inception v3 ----------------------------------------------------------
namespace {

// Inception's 1x7 / 7x1 / 1x3 / 3x1 convolutions: stride 1, "same" padding.
Conv2dSpec rect_spec(long out, long kh, long kw, long ph, long pw) {
  return rect_conv_spec(out, kh, kw, 1, 1, ph, pw, false);
}

// torchvision's BasicConv2d: conv (no bias) -> batch norm -> relu.
Tensor basic_conv(LayerBuilder& b, const std::string& name, const Tensor& x, Conv2dSpec spec) {
  spec.bias = false;
  Tensor y = b.conv2d(name + ".conv", x, spec);
  y = b.batch_norm(name + ".bn", y);
  return b.relu(name + ".relu", y);
}

Tensor basic_conv(LayerBuilder& b, const std::string& name, const Tensor& x, long out, long kernel,
                  long stride = 1, long pad = 0) {
  return basic_conv(b, name, x, conv_spec(out, kernel, stride, pad, false));
}

// 3x3 average pool (stride 1, pad 1) then a 1x1 BasicConv2d.
Tensor pool_branch(LayerBuilder& b, const std::string& p, const Tensor& x, long out) {
  Tensor y = b.avg_pool(p + "branch_pool_avg", x, pool_spec(3, 1, 1));
  return basic_conv(b, p + "branch_pool", y, out, 1);
}

Tensor inception_a(LayerBuilder& b, const std::string& p, const Tensor& x, long pool_features) {
  Tensor b1 = basic_conv(b, p + "branch1x1", x, 64, 1);
  Tensor b5 = basic_conv(b, p + "branch5x5_1", x, 48, 1);
  b5 = basic_conv(b, p + "branch5x5_2", b5, 64, 5, 1, 2);
  Tensor b3 = basic_conv(b, p + "branch3x3dbl_1", x, 64, 1);
  b3 = basic_conv(b, p + "branch3x3dbl_2", b3, 96, 3, 1, 1);
  b3 = basic_conv(b, p + "branch3x3dbl_3", b3, 96, 3, 1, 1);
  Tensor bp = pool_branch(b, p, x, pool_features);
  return b.concat(p + "concat", {b1, b5, b3, bp}, 1);
}

Tensor inception_b(LayerBuilder& b, const std::string& p, const Tensor& x) {
  Tensor b3 = basic_conv(b, p + "branch3x3", x, 384, 3, 2);
  Tensor bd = basic_conv(b, p + "branch3x3dbl_1", x, 64, 1);
  bd = basic_conv(b, p + "branch3x3dbl_2", bd, 96, 3, 1, 1);
  bd = basic_conv(b, p + "branch3x3dbl_3", bd, 96, 3, 2);
  Tensor bp = b.max_pool(p + "branch_pool", x, pool_spec(3, 2));
  return b.concat(p + "concat", {b3, bd, bp}, 1);
}

Tensor inception_c(LayerBuilder& b, const std::string& p, const Tensor& x, long c7) {
  Tensor b1 = basic_conv(b, p + "branch1x1", x, 192, 1);
  Tensor b7 = basic_conv(b, p + "branch7x7_1", x, c7, 1);
  b7 = basic_conv(b, p + "branch7x7_2", b7, rect_spec(c7, 1, 7, 0, 3));
  b7 = basic_conv(b, p + "branch7x7_3", b7, rect_spec(192, 7, 1, 3, 0));
  Tensor bd = basic_conv(b, p + "branch7x7dbl_1", x, c7, 1);
  bd = basic_conv(b, p + "branch7x7dbl_2", bd, rect_spec(c7, 7, 1, 3, 0));
  bd = basic_conv(b, p + "branch7x7dbl_3", bd, rect_spec(c7, 1, 7, 0, 3));
  bd = basic_conv(b, p + "branch7x7dbl_4", bd, rect_spec(c7, 7, 1, 3, 0));
  bd = basic_conv(b, p + "branch7x7dbl_5", bd, rect_spec(192, 1, 7, 0, 3));
  Tensor bp = pool_branch(b, p, x, 192);
  return b.concat(p + "concat", {b1, b7, bd, bp}, 1);
}

Tensor inception_d(LayerBuilder& b, const std::string& p, const Tensor& x) {
  Tensor b3 = basic_conv(b, p + "branch3x3_1", x, 192, 1);
  b3 = basic_conv(b, p + "branch3x3_2", b3, 320, 3, 2);
  Tensor b7 = basic_conv(b, p + "branch7x7x3_1", x, 192, 1);
  b7 = basic_conv(b, p + "branch7x7x3_2", b7, rect_spec(192, 1, 7, 0, 3));
  b7 = basic_conv(b, p + "branch7x7x3_3", b7, rect_spec(192, 7, 1, 3, 0));
  b7 = basic_conv(b, p + "branch7x7x3_4", b7, 192, 3, 2);
  Tensor bp = b.max_pool(p + "branch_pool", x, pool_spec(3, 2));
  return b.concat(p + "concat", {b3, b7, bp}, 1);
}

// A 1x3 and a 3x1 conv side by side on the same input, concatenated.
Tensor split_1x3_3x1(LayerBuilder& b, const std::string& name, const Tensor& x) {
  Tensor a = basic_conv(b, name + "a", x, rect_spec(384, 1, 3, 0, 1));
  Tensor c = basic_conv(b, name + "b", x, rect_spec(384, 3, 1, 1, 0));
  return b.concat(name + "_concat", {a, c}, 1);
}

Tensor inception_e(LayerBuilder& b, const std::string& p, const Tensor& x) {
  Tensor b1 = basic_conv(b, p + "branch1x1", x, 320, 1);
  Tensor b3 = basic_conv(b, p + "branch3x3_1", x, 384, 1);
  b3 = split_1x3_3x1(b, p + "branch3x3_2", b3);
  Tensor bd = basic_conv(b, p + "branch3x3dbl_1", x, 448, 1);
  bd = basic_conv(b, p + "branch3x3dbl_2", bd, 384, 3, 1, 1);
  bd = split_1x3_3x1(b, p + "branch3x3dbl_3", bd);
  Tensor bp = pool_branch(b, p, x, 192);
  return b.concat(p + "concat", {b1, b3, bd, bp}, 1);
}

// The auxiliary classifier on Mixed_6e's output (training only).
Tensor inception_aux(LayerBuilder& b, const Tensor& x) {
  Tensor y = b.avg_pool("AuxLogits.avgpool", x, pool_spec(5, 3));
  y = basic_conv(b, "AuxLogits.conv0", y, 128, 1);
  y = basic_conv(b, "AuxLogits.conv1", y, 768, 5);
  y = b.adaptive_avg_pool("AuxLogits.adaptive_avgpool", y, 1, 1);
  return b.linear("AuxLogits.fc", LayerBuilder::flatten(y), kClasses);
}

Tensor inception(LayerBuilder& b, const ModelSize& size, bool aux_logits) {
  Tensor x = image_input(b, size);
  x = basic_conv(b, "Conv2d_1a_3x3", x, 32, 3, 2);
  x = basic_conv(b, "Conv2d_2a_3x3", x, 32, 3);
  x = basic_conv(b, "Conv2d_2b_3x3", x, 64, 3, 1, 1);
  x = b.max_pool("maxpool1", x, pool_spec(3, 2));
  x = basic_conv(b, "Conv2d_3b_1x1", x, 80, 1);
  x = basic_conv(b, "Conv2d_4a_3x3", x, 192, 3);
  x = b.max_pool("maxpool2", x, pool_spec(3, 2));
  x = inception_a(b, "Mixed_5b.", x, 32);
  x = inception_a(b, "Mixed_5c.", x, 64);
  x = inception_a(b, "Mixed_5d.", x, 64);
  x = inception_b(b, "Mixed_6a.", x);
  x = inception_c(b, "Mixed_6b.", x, 128);
  x = inception_c(b, "Mixed_6c.", x, 160);
  x = inception_c(b, "Mixed_6d.", x, 160);
  x = inception_c(b, "Mixed_6e.", x, 192);
  std::vector<Tensor> logits;
  if (aux_logits) logits.push_back(inception_aux(b, x));
  x = inception_d(b, "Mixed_7a.", x);
  x = inception_e(b, "Mixed_7b.", x);
  x = inception_e(b, "Mixed_7c.", x);
  x = b.adaptive_avg_pool("avgpool", x, 1, 1);
  x = b.dropout("dropout", x, 0.5);
  logits.insert(logits.begin(), b.linear("fc", LayerBuilder::flatten(x), kClasses));
  // With the auxiliary head, training minimises loss(main) + 0.4 * loss(aux).
  return classification_loss(b, logits);
}

}  // namespace

Tensor inception_v3(LayerBuilder& b, const ModelSize& size) {
  return inception(b, size, false);
}

Tensor inception_v3_aux(LayerBuilder& b, const ModelSize& size) {
  return inception(b, size, true);
}

}  // namespace zoo
}  // namespace pacml
