//===- Tensor.cpp - Fixed-point conversion and tensor files ---------------===//

#include "snow/support/Tensor.h"
#include "snow/support/Npy.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

using namespace snow;

int16_t snow::floatToFixed(float X, int Frac) {
  double V = std::ldexp(double(X), Frac);
  if (std::isnan(V))
    return 0;
  V = V < 0 ? -std::floor(-V + 0.5) : std::floor(V + 0.5);
  return int16_t(std::clamp(V, -32768.0, 32767.0));
}

float snow::fixedToFloat(int16_t X, int Frac) { return float(std::ldexp(double(X), -Frac)); }

static llvm::Error tensorError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Expected<std::vector<int16_t>> snow::readInputTensor(const std::string &Path, uint32_t C,
                                                           uint32_t H, uint32_t W, int Frac) {
  auto A = readNpy(Path);
  if (!A)
    return A.takeError();
  std::vector<uint64_t> Want = {C, H, W}, Shape = A->Shape;
  if (Shape.size() == 4 && Shape[0] == 1)
    Shape.erase(Shape.begin());
  if (Shape != Want) {
    std::string Got;
    for (uint64_t D : A->Shape)
      Got += (Got.empty() ? "" : ", ") + std::to_string(D);
    return tensorError(fmt::format("{}: shape ({}) does not match the model input ({}, {}, {})",
                                   Path, Got, C, H, W));
  }
  if (A->Type == NpyArray::DType::I16)
    return std::move(A->I16);
  std::vector<int16_t> Q(A->F32.size());
  std::transform(A->F32.begin(), A->F32.end(), Q.begin(),
                 [Frac](float X) { return floatToFixed(X, Frac); });
  return Q;
}

llvm::Expected<std::string> snow::encodeOutputTensor(const std::string &Path,
                                                     const std::vector<int16_t> &Chw, uint32_t C,
                                                     uint32_t H, uint32_t W, int FloatFrac) {
  NpyArray A;
  A.Shape = {C, H, W};
  if (FloatFrac >= 0) {
    A.Type = NpyArray::DType::F32;
    A.F32.resize(Chw.size());
    std::transform(Chw.begin(), Chw.end(), A.F32.begin(),
                   [FloatFrac](int16_t X) { return fixedToFloat(X, FloatFrac); });
  } else {
    A.Type = NpyArray::DType::I16;
    A.I16 = Chw;
  }
  return encodeNpy(A, Path);
}
