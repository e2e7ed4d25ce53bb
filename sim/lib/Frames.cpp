//===- Frames.cpp - Input batches and output files of snowsim / snowrtl ---===//

#include "snow/sim/Frames.h"
#include "snow/support/Npy.h"
#include "snow/support/Rng.h"
#include "snow/support/Tensor.h"

using namespace snow;
using namespace snow::sim;

/// An array (N, ...) with N > 1 whose trailing axes hold one input each is a
/// batch. Anything else is one frame and goes through readInputTensor, with
/// its shape check and messages.
llvm::Expected<std::vector<std::vector<int16_t>>>
snow::sim::readInputFrames(const std::string &Path, const isa::TensorInfo &In) {
  const uint64_t Frame = uint64_t(In.C) * In.H * In.W;
  if (auto A = readNpy(Path); !A) {
    llvm::consumeError(A.takeError());
  } else if (llvm::Error E = checkFinite(*A, Path)) {
    return E; // snowref's policy: NaN and Inf are refused
  } else if (A->Shape.size() >= 2 && A->Shape[0] > 1 && A->elems() == A->Shape[0] * Frame) {
    std::vector<std::vector<int16_t>> Frames(A->Shape[0]);
    for (uint64_t N = 0; N < A->Shape[0]; ++N)
      for (uint64_t I = N * Frame; I < (N + 1) * Frame; ++I)
        Frames[N].push_back(A->Type == NpyArray::DType::I16
                                ? A->I16[I]
                                : floatToFixed(A->F32[I], int(In.FracBits)));
    return Frames;
  }
  auto T = readInputTensor(Path, In.C, In.H, In.W, int(In.FracBits));
  if (!T)
    return T.takeError();
  return std::vector<std::vector<int16_t>>{std::move(*T)};
}

std::vector<int16_t> snow::sim::defaultInputFrame(const isa::Program &P) {
  const isa::TensorInfo &In = P.Input;
  std::vector<int16_t> Frame;
  for (float V : defaultInputValues(uint64_t(In.C) * In.H * In.W, P.ModelName))
    Frame.push_back(floatToFixed(V, int(In.FracBits)));
  return Frame;
}

llvm::Expected<std::string> snow::sim::encodeOutputFrames(const std::string &Path,
                                                          const std::vector<int16_t> &Output,
                                                          size_t Frames, const isa::TensorInfo &Out,
                                                          int FloatFrac) {
  if (Frames == 1)
    return encodeOutputTensor(Path, Output, Out.C, Out.H, Out.W, FloatFrac);
  NpyArray A;
  A.Shape = {Frames, Out.C, Out.H, Out.W};
  A.Type = FloatFrac >= 0 ? NpyArray::DType::F32 : NpyArray::DType::I16;
  for (int16_t V : Output)
    if (FloatFrac >= 0)
      A.F32.push_back(fixedToFloat(V, FloatFrac));
    else
      A.I16.push_back(V);
  return encodeNpy(A, Path);
}
