#include "core/inference/weights_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/util/error.h"
#include "core/util/hash.h"

namespace pacml::inference {
namespace {

static_assert(sizeof(float) == 4, "float must be IEEE-754 binary32");

template <typename T>
void put(std::string& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  std::reverse(bytes, bytes + sizeof(T));
#endif
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& bytes, size_t end, std::string where)
      : bytes_(bytes), end_(end), where_(std::move(where)) {}

  void need(size_t n, const char* what) const {
    if (n > end_ - pos_)
      throw InputError(where_, std::string("truncated weights file (ends inside ") + what +
                                   " at byte " + std::to_string(pos_) + ")");
  }
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    unsigned char b[sizeof(T)];
    std::memcpy(b, bytes_.data() + pos_, sizeof(T));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    std::reverse(b, b + sizeof(T));
#endif
    pos_ += sizeof(T);
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  std::string text(size_t n, const char* what) {
    need(n, what);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t pos() const {
    return pos_;
  }

 private:
  const std::string& bytes_;
  size_t end_;
  size_t pos_ = 0;
  std::string where_;
};

}  // namespace

std::int64_t NamedTensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

const NamedTensor* WeightsFile::find(const std::string& name) const {
  for (const NamedTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string serialize_weights(const WeightsFile& file) {
  std::string out(kWeightsMagic, sizeof(kWeightsMagic));
  put<std::uint32_t>(out, kWeightsFormatVersion);
  const std::string meta = file.metadata.dump();
  put<std::uint64_t>(out, meta.size());
  out += meta;
  put<std::uint32_t>(out, static_cast<std::uint32_t>(file.tensors.size()));
  for (const NamedTensor& t : file.tensors) {
    if (t.name.empty() || t.name.size() > 0xFFFF)
      throw InputError("weights", "tensor name '" + t.name + "' is empty or too long");
    if (t.shape.size() > 255) throw InputError("weights", "tensor '" + t.name + "' has > 255 dims");
    for (std::int64_t d : t.shape)
      if (d < 0) throw InputError("weights", "tensor '" + t.name + "' has a negative dimension");
    if (t.numel() != static_cast<std::int64_t>(t.data.size()))
      throw InputError("weights", "tensor '" + t.name + "': data does not match its shape");
    put<std::uint16_t>(out, static_cast<std::uint16_t>(t.name.size()));
    out += t.name;
    put<std::uint8_t>(out, static_cast<std::uint8_t>(t.shape.size()));
    for (std::int64_t d : t.shape) put<std::int64_t>(out, d);
    for (float v : t.data) put<float>(out, v);
  }
  put<std::uint64_t>(out, fnv1a64(out.data(), out.size()));
  return out;
}

WeightsFile parse_weights(const std::string& bytes, const std::string& where) {
  if (bytes.size() < sizeof(kWeightsMagic) ||
      std::memcmp(bytes.data(), kWeightsMagic, sizeof(kWeightsMagic)) != 0)
    throw InputError(where, "not a pacml weights file (bad magic; expected 'PACMLWTS')");
  if (bytes.size() < sizeof(kWeightsMagic) + 4 + 8)
    throw InputError(where, "truncated weights file (" + std::to_string(bytes.size()) + " bytes)");
  Reader header(bytes, bytes.size(), where);
  header.text(sizeof(kWeightsMagic), "magic");
  const auto version = header.get<std::uint32_t>("format version");
  if (version != kWeightsFormatVersion)
    throw InputError(where, "weights format version " + std::to_string(version) +
                                " is not supported (this pacml reads version " +
                                std::to_string(kWeightsFormatVersion) + ")");
  if (bytes.size() < sizeof(kWeightsMagic) + 4 + 8 + 4 + 8)
    throw InputError(where, "truncated weights file (" + std::to_string(bytes.size()) + " bytes)");
  // The checksum covers everything before the last 8 bytes.
  const size_t body = bytes.size() - 8;
  Reader r(bytes, body, where);
  r.text(sizeof(kWeightsMagic) + 4, "header");
  const auto meta_len = r.get<std::uint64_t>("metadata length");
  r.need(meta_len, "metadata");
  const std::string meta = r.text(meta_len, "metadata");
  WeightsFile file;
  try {
    file.metadata = nlohmann::json::parse(meta);
  } catch (const std::exception& e) {
    throw InputError(where,
                     std::string("corrupt weights file: metadata is not JSON (") + e.what() + ")");
  }
  if (!file.metadata.is_object())
    throw InputError(where, "corrupt weights file: metadata is not a JSON object");
  const auto count = r.get<std::uint32_t>("tensor count");
  for (std::uint32_t i = 0; i < count; ++i) {
    NamedTensor t;
    const auto name_len = r.get<std::uint16_t>("tensor name length");
    t.name = r.text(name_len, "tensor name");
    const auto ndim = r.get<std::uint8_t>("tensor rank");
    std::int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      const auto dim = r.get<std::int64_t>("tensor shape");
      if (dim < 0 || dim > (std::int64_t{1} << 31))
        throw InputError(where, "corrupt weights file: tensor '" + t.name + "' has dimension " +
                                    std::to_string(dim));
      t.shape.push_back(dim);
      numel *= dim;
      if (numel > (std::int64_t{1} << 31))
        throw InputError(where, "corrupt weights file: tensor '" + t.name + "' is too large");
    }
    r.need(static_cast<size_t>(numel) * 4, "tensor data");
    t.data.resize(static_cast<size_t>(numel));
    for (std::int64_t k = 0; k < numel; ++k) t.data[k] = r.get<float>("tensor data");
    if (file.find(t.name))
      throw InputError(where, "corrupt weights file: tensor '" + t.name + "' appears twice");
    file.tensors.push_back(std::move(t));
  }
  if (r.pos() != body)
    throw InputError(where, "corrupt weights file: " + std::to_string(body - r.pos()) +
                                " unexpected bytes after the last tensor");
  Reader tail(bytes, bytes.size(), where);
  tail.text(body, "body");
  const auto stored = tail.get<std::uint64_t>("checksum");
  if (stored != fnv1a64(bytes.data(), body))
    throw InputError(where, "corrupt weights file: checksum mismatch (the file was damaged)");
  for (const NamedTensor& t : file.tensors)
    for (float v : t.data)
      if (!std::isfinite(v))
        throw InputError(where, "weights file: tensor '" + t.name + "' holds NaN or infinity");
  return file;
}

void write_weights_file(const std::string& path, const WeightsFile& file) {
  const std::string bytes = serialize_weights(file);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "cannot write the weights file");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw InputError(path, "cannot write the weights file");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InputError(path, "cannot rename " + tmp + " to the weights file");
}

WeightsFile read_weights_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the weights file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_weights(ss.str(), path);
}

const nlohmann::json& require_metadata(const nlohmann::json& metadata, const char* key,
                                       const std::string& where) {
  const auto it = metadata.find(key);
  if (it == metadata.end())
    throw InputError(where, std::string("weights metadata lacks '") + key + "'");
  return *it;
}

}  // namespace pacml::inference
