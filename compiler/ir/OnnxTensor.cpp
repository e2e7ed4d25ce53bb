//===- OnnxTensor.cpp - TensorProto <-> OnnxTensor, and the frame mapping ===//
//
// ONNX stores a tensor's values either in a typed repeated field (float_data,
// int64_data, ...) or as little-endian bytes in raw_data; both are accepted.
// Only what the accelerator can use is converted: float32 (double is
// narrowed, as a constant only), and int64 / int32 / bool as integers for
// shapes and flags. Everything else is refused with the type's name.
//
// The frame mapping (framesOf / frameShape) lives here because the importer,
// the exporter and the tools' batch handling must agree on it.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "snow/support/FileIO.h"
#include "snow/support/Limits.h"

#include "snow/support/Npy.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

uint64_t OnnxTensor::elems() const {
  // Saturated: a wrapped count could pass the size cap it is checked against.
  std::vector<uint64_t> U(Dims.begin(), Dims.end());
  return snow::saturatingProduct(U);
}

std::string snow::ir::detail::dimsStr(const std::vector<int64_t> &Dims) {
  return fmt::format("[{}]", fmt::join(Dims, ", "));
}

uint64_t snow::ir::detail::framesOf(const std::vector<int64_t> &Dims) {
  return Dims.size() >= 2 ? uint64_t(Dims[0]) : 1;
}

Shape snow::ir::detail::frameShape(const std::vector<int64_t> &Dims) {
  auto D = [&](size_t I) { return uint64_t(Dims[I]); };
  switch (Dims.size()) {
  case 0:
    return {1, 1, 1};
  case 1:
    return {uint32_t(D(0)), 1, 1};
  case 2:
    return {uint32_t(D(1)), 1, 1};
  case 3:
    return {uint32_t(D(1)), 1, uint32_t(D(2))};
  default: {
    uint64_t W = 1;
    for (size_t I = 3; I < Dims.size(); ++I)
      W *= D(I);
    return {uint32_t(D(1)), uint32_t(D(2)), uint32_t(W)};
  }
  }
}

namespace {

[[noreturn]] void tensorError(const std::string &What, const std::string &Msg) {
  throw OnnxError{What + ": " + Msg};
}

template <typename T>
std::vector<T> fromRaw(const std::string &Raw, uint64_t N, const std::string &What) {
  if (Raw.size() != N * sizeof(T))
    tensorError(What, fmt::format("raw_data holds {} bytes, but {} values of {} bytes need {}",
                                  Raw.size(), N, sizeof(T), N * sizeof(T)));
  std::vector<T> Out(N);
  for (uint64_t I = 0; I < N; ++I)
    Out[I] = llvm::support::endian::read<T, llvm::support::little, 1>(Raw.data() + I * sizeof(T));
  return Out;
}

template <typename Field> void checkCount(const Field &F, uint64_t N, const std::string &What) {
  if (uint64_t(F.size()) != N)
    tensorError(What, fmt::format("holds {} values, but its dims need {}", F.size(), N));
}

} // namespace

OnnxTensor snow::ir::detail::tensorFromProto(const onnx::TensorProto &P, const std::string &What) {
  OnnxTensor T;
  T.Name = P.name();
  for (int64_t D : P.dims()) {
    if (D < 0)
      tensorError(What, fmt::format("dimension {} is negative", D));
    T.Dims.push_back(D);
  }
  if (P.data_location() == onnx::TensorProto::EXTERNAL)
    tensorError(What, "its values are in an external file, which is not supported (save the "
                      "model with its weights inside)");
  if (P.has_segment())
    tensorError(What, "segmented tensors are not supported");
  const uint64_t N = T.elems();
  if (N == UINT64_MAX)
    tensorError(What,
                fmt::format("its dims {} multiply to more than 2^64 values", dimsStr(T.Dims)));
  if (N > OnnxMaxWeights)
    tensorError(What, fmt::format("{} values are more than the supported {}", N, OnnxMaxWeights));
  const bool Raw = P.has_raw_data();
  switch (P.data_type()) {
  case onnx::TensorProto::FLOAT:
    T.Type = OnnxTensor::ElemType::Float;
    if (Raw) {
      T.Floats = fromRaw<float>(P.raw_data(), N, What);
    } else {
      checkCount(P.float_data(), N, What);
      T.Floats.assign(P.float_data().begin(), P.float_data().end());
    }
    break;
  case onnx::TensorProto::DOUBLE: {
    T.Type = OnnxTensor::ElemType::Float;
    std::vector<double> V;
    if (Raw) {
      V = fromRaw<double>(P.raw_data(), N, What);
    } else {
      checkCount(P.double_data(), N, What);
      V.assign(P.double_data().begin(), P.double_data().end());
    }
    T.Floats.assign(V.begin(), V.end());
    break;
  }
  case onnx::TensorProto::INT64:
    T.Type = OnnxTensor::ElemType::Int64;
    if (Raw) {
      T.Ints = fromRaw<int64_t>(P.raw_data(), N, What);
    } else {
      checkCount(P.int64_data(), N, What);
      T.Ints.assign(P.int64_data().begin(), P.int64_data().end());
    }
    break;
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::BOOL:
    // int32_data holds both (bools as 0 / 1); raw_data packs bools in bytes.
    T.Type = OnnxTensor::ElemType::Int64;
    if (Raw && P.data_type() == onnx::TensorProto::INT32) {
      for (int32_t V : fromRaw<int32_t>(P.raw_data(), N, What))
        T.Ints.push_back(V);
    } else if (Raw) {
      for (uint8_t V : fromRaw<uint8_t>(P.raw_data(), N, What))
        T.Ints.push_back(V);
    } else {
      checkCount(P.int32_data(), N, What);
      T.Ints.assign(P.int32_data().begin(), P.int32_data().end());
    }
    break;
  default:
    tensorError(What, fmt::format("element type '{}' is not supported (float32, or integers for "
                                  "shapes and flags)",
                                  onnx::TensorProto_DataType_IsValid(P.data_type())
                                      ? onnx::TensorProto_DataType_Name(
                                            onnx::TensorProto_DataType(P.data_type()))
                                      : std::to_string(P.data_type())));
  }
  return T;
}

void snow::ir::detail::tensorToProto(const OnnxTensor &T, onnx::TensorProto &P) {
  P.set_name(T.Name);
  for (int64_t D : T.Dims)
    P.add_dims(D);
  // raw_data, little-endian: compact for large weights, and what exporters write.
  std::string Raw;
  if (T.Type == OnnxTensor::ElemType::Float) {
    P.set_data_type(onnx::TensorProto::FLOAT);
    Raw.resize(T.Floats.size() * sizeof(float));
    for (size_t I = 0; I < T.Floats.size(); ++I)
      llvm::support::endian::write<float, llvm::support::little, 1>(&Raw[I * sizeof(float)],
                                                                    T.Floats[I]);
  } else {
    P.set_data_type(onnx::TensorProto::INT64);
    Raw.resize(T.Ints.size() * sizeof(int64_t));
    for (size_t I = 0; I < T.Ints.size(); ++I)
      llvm::support::endian::write<int64_t, llvm::support::little, 1>(&Raw[I * sizeof(int64_t)],
                                                                      T.Ints[I]);
  }
  P.set_raw_data(std::move(Raw));
}

std::string snow::ir::serializeOnnxTensor(const OnnxTensor &T) {
  onnx::TensorProto P;
  tensorToProto(T, P);
  return P.SerializeAsString();
}

llvm::Expected<OnnxTensor> snow::ir::readOnnxTensor(const std::string &Path) {
  if (llvm::StringRef(Path).endswith(".npy")) {
    llvm::Expected<NpyArray> A = readNpy(Path);
    if (!A)
      return A.takeError();
    if (A->Type != NpyArray::DType::F32)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: a constant must be float32", Path.c_str());
    OnnxTensor T;
    for (uint64_t D : A->Shape)
      T.Dims.push_back(int64_t(D));
    T.Floats = std::move(A->F32);
    return T;
  }
  auto Buf = snow::readInputFile(Path, /*IsText=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "%s: cannot read tensor: %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  onnx::TensorProto P;
  if (!P.ParseFromArray((*Buf)->getBufferStart(), int((*Buf)->getBufferSize())))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: not a serialized ONNX TensorProto", Path.c_str());
  try {
    return tensorFromProto(P, Path);
  } catch (const OnnxError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  }
}
