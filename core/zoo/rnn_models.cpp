// Recurrent models.
//
// GNMT: the MLPerf v0.5 reference ("rnn_translator", the GNMT that PipeDream
// profiled): hidden 1024, vocabulary 32320, a 4-layer encoder (the first layer
// bidirectional, residual adds from the third) and a 4-layer decoder whose first
// layer feeds Bahdanau attention over the encoder output; the attention context
// is concatenated into every later decoder layer. Encoder and decoder share
// one embedding matrix (MLPerf's share_embedding=True). Source and target
// sequences both have seq_len tokens.
//
// DeepSpeech2: deepspeech.pytorch (SeanNaren), the common PyTorch DS2 — two
// 2-D convolutions over a 161-bin spectrogram (16 kHz, 20 ms window, 10 ms
// stride), five bidirectional LSTM layers of 1024 with sequence-wise batch
// norm before layers 2-5 and the two directions summed, then batch norm and a
// bias-free linear layer to 29 characters, trained with CTC. seq_len counts
// spectrogram frames.
#include <string>
#include <utility>

#include "core/zoo/zoo_models.h"

namespace pacml {
namespace zoo {
namespace {

using Kind = LayerBuilder::InputKind;

constexpr long kGnmtHidden = 1024;
constexpr long kGnmtVocab = 32320;
constexpr double kGnmtDropout = 0.2;

Tensor gnmt_encoder(LayerBuilder& b, const Tensor& src) {
  Tensor x = b.embedding("encoder.embedder", src, kGnmtVocab, kGnmtHidden);
  x = b.dropout("encoder.dropout.0", x, kGnmtDropout);
  x = b.lstm("encoder.rnn_layers.0", x, kGnmtHidden, true);
  x = b.dropout("encoder.dropout.1", x, kGnmtDropout);
  x = b.lstm("encoder.rnn_layers.1", x, kGnmtHidden, false);
  for (int i = 2; i < 4; ++i) {
    const std::string n = std::to_string(i);
    Tensor residual = x;
    x = b.dropout("encoder.dropout." + n, x, kGnmtDropout);
    x = b.lstm("encoder.rnn_layers." + n, x, kGnmtHidden, false);
    x = b.add("encoder.add." + n, {x, residual});
  }
  return x;
}

// The decoder's first LSTM and its Bahdanau attention over the encoder output.
// Returns {lstm output, attention context}, both {N, T, H}.
std::pair<Tensor, Tensor> gnmt_attention_rnn(LayerBuilder& b, const Tensor& embedded,
                                             const Tensor& context) {
  const std::string p = "decoder.att_rnn.";
  Tensor rnn = b.lstm(p + "rnn", embedded, kGnmtHidden, false);
  Tensor query = b.linear(p + "attn.linear_q", rnn, kGnmtHidden, false);
  Tensor keys = b.linear(p + "attn.linear_k", context, kGnmtHidden, false);
  Tensor scores = b.additive_attention_scores(p + "attn.scores", query, keys);
  Tensor probs = b.softmax(p + "attn.softmax", scores);
  const Tensor one_head{probs.layer, {probs.shape[0], 1, probs.shape[1], probs.shape[2]}};
  Tensor attn = b.attention_context(p + "attn.context", one_head, context);
  return {rnn, attn};
}

Tensor gnmt_decoder(LayerBuilder& b, const Tensor& tgt, const Tensor& context) {
  Tensor x = b.embedding("decoder.embedder", tgt, kGnmtVocab, kGnmtHidden, Weights::kShared);
  auto [rnn, attn] = gnmt_attention_rnn(b, x, context);
  x = b.dropout("decoder.dropout.0", rnn, kGnmtDropout);
  x = b.concat("decoder.concat.0", {x, attn}, 2);
  x = b.lstm("decoder.rnn_layers.0", x, kGnmtHidden, false);
  for (int i = 1; i < 3; ++i) {
    const std::string n = std::to_string(i);
    Tensor residual = x;
    x = b.dropout("decoder.dropout." + n, x, kGnmtDropout);
    x = b.concat("decoder.concat." + n, {x, attn}, 2);
    x = b.lstm("decoder.rnn_layers." + n, x, kGnmtHidden, false);
    x = b.add("decoder.add." + n, {x, residual});
  }
  return b.linear("decoder.classifier.classifier", x, kGnmtVocab);
}

constexpr long kSpectrogramBins = 161;  // 16 kHz * 20 ms window / 2 + 1
constexpr long kDs2Hidden = 1024;
constexpr long kDs2RnnLayers = 5;
constexpr long kDs2Characters = 29;  // blank, apostrophe, A-Z, space

// BatchRNN: [sequence-wise batch norm ->] bidirectional LSTM -> sum of directions.
Tensor ds2_rnn(LayerBuilder& b, const std::string& p, Tensor x, bool batch_norm) {
  if (batch_norm) x = b.batch_norm(p + "batch_norm", x);
  x = b.lstm(p + "rnn", x, kDs2Hidden, true);
  return b.sum_directions(p + "sum_directions", x);
}

}  // namespace

Tensor gnmt(LayerBuilder& b, const ModelSize& size) {
  Tensor src =
      b.input("src_tokens", {size.batch, size.seq_len}, Kind::kTokenIds, "Input(source token ids)");
  Tensor tgt =
      b.input("tgt_tokens", {size.batch, size.seq_len}, Kind::kTokenIds, "Input(target token ids)");
  Tensor context = gnmt_encoder(b, src);
  Tensor logits = gnmt_decoder(b, tgt, context);
  return b.loss("loss", {logits}, "LabelSmoothingCrossEntropy");
}

Tensor deepspeech2(LayerBuilder& b, const ModelSize& size) {
  Tensor x = b.input("spectrogram", {size.batch, 1, kSpectrogramBins, size.seq_len}, Kind::kValues,
                     "Input(spectrogram)");
  // Kernels span {frequency, time}; only the first conv halves the frame rate.
  x = b.conv2d("conv.0", x, rect_conv_spec(32, 41, 11, 2, 2, 20, 5));
  x = b.batch_norm("conv.1", x);
  x = b.hardtanh("conv.2", x);
  x = b.conv2d("conv.3", x, rect_conv_spec(32, 21, 11, 2, 1, 10, 5));
  x = b.batch_norm("conv.4", x);
  x = b.hardtanh("conv.5", x);
  // {N, C, F, T} -> a sequence of T frames with C*F features (a view).
  Tensor seq{x.layer, {x.shape[0], x.shape[3], x.shape[1] * x.shape[2]}};
  for (long l = 0; l < kDs2RnnLayers; ++l)
    seq = ds2_rnn(b, "rnns." + std::to_string(l) + ".", seq, l > 0);
  seq = b.batch_norm("fc.0", seq);
  seq = b.linear("fc.1", seq, kDs2Characters, false);
  return b.loss("loss", {seq}, "CTCLoss");
}

}  // namespace zoo
}  // namespace pacml
