//===- OnnxConstFold.cpp - Shape arithmetic folded to constants -----------===//
//
// Exporters compute sizes at run time from the tensors' shapes: PyTorch
// writes x.chunk(2, dim=1) as Shape -> Gather(1) -> Add(1) -> Div(2) ->
// Mul(k) -> the bounds of a Slice. Every shape is known when the model is
// compiled (the batch is read as 1 when it is symbolic), so these nodes are
// evaluated here and define constants; no layer computes them. Only
// constants are folded: Sub and Div of run-time values are refused, and Add
// and Mul of run-time values go to their own importers.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <climits>
#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

void OnnxImporter::importShape() {
  // 'start' and 'end' are from opset 15.
  checkAttributes({"end", "start"});
  // A Pad's output with its pads pending has the padded dims.
  const OnnxValue &X = input(0, /*AcceptPad=*/true);
  const int64_t R = int64_t(X.Dims.size());
  auto Axis = [&](const char *Name, int64_t Default) {
    int64_t A = attrInt(Name, Default);
    return std::clamp(A < 0 ? A + R : A, int64_t(0), R);
  };
  const int64_t Begin = Axis("start", 0), End = Axis("end", R);
  OnnxTensor T;
  T.Type = OnnxTensor::ElemType::Int64;
  for (int64_t A = Begin; A < End; ++A)
    T.Ints.push_back(X.Dims[size_t(A)]);
  T.Dims = {int64_t(T.Ints.size())};
  defineConst(0, std::move(T));
}

void OnnxImporter::importGather() {
  checkAttributes({"axis"});
  if (inputCount() != 2)
    fail("needs inputs data and indices");
  if (!input(0).IsConst)
    fail(fmt::format("input '{}' is computed at run time: only a Gather of constants (shape "
                     "arithmetic) is supported",
                     inputName(0)));
  const OnnxTensor &D = constant(0), &I = constant(1);
  if (I.Type != OnnxTensor::ElemType::Int64)
    fail(fmt::format("indices '{}' must be integers", inputName(1)));
  const int64_t R = int64_t(D.Dims.size());
  int64_t Axis = attrInt("axis", 0);
  if (Axis < 0)
    Axis += R;
  if (Axis < 0 || Axis >= R)
    fail(fmt::format("attribute 'axis' = {} is outside the data's rank {}", attrInt("axis", 0), R));
  const int64_t Dim = D.Dims[size_t(Axis)];
  uint64_t Outer = 1, Inner = 1;
  for (int64_t A = 0; A < Axis; ++A)
    Outer *= uint64_t(D.Dims[size_t(A)]);
  for (int64_t A = Axis + 1; A < R; ++A)
    Inner *= uint64_t(D.Dims[size_t(A)]);
  OnnxTensor T;
  T.Type = D.Type;
  T.Dims.assign(D.Dims.begin(), D.Dims.begin() + Axis);
  T.Dims.insert(T.Dims.end(), I.Dims.begin(), I.Dims.end());
  T.Dims.insert(T.Dims.end(), D.Dims.begin() + Axis + 1, D.Dims.end());
  if (T.elems() > OnnxMaxWeights)
    fail(fmt::format("the result {} has more than {} values", dimsStr(T.Dims), OnnxMaxWeights));
  for (uint64_t O = 0; O < Outer; ++O)
    for (int64_t Ix : I.Ints) {
      int64_t J = Ix < 0 ? Ix + Dim : Ix;
      if (J < 0 || J >= Dim)
        fail(fmt::format("index {} is outside axis {} of size {}", Ix, Axis, Dim));
      for (uint64_t In = 0; In < Inner; ++In) {
        size_t From = size_t((O * uint64_t(Dim) + uint64_t(J)) * Inner + In);
        if (D.Type == OnnxTensor::ElemType::Int64)
          T.Ints.push_back(D.Ints[From]);
        else
          T.Floats.push_back(D.Floats[From]);
      }
    }
  defineConst(0, std::move(T));
}

void OnnxImporter::foldArithmetic(const std::string &Op) {
  checkAttributes({});
  if (inputCount() != 2)
    fail("needs two inputs");
  if (!input(0).IsConst || !input(1).IsConst)
    fail(fmt::format("only constants (shape arithmetic) are supported: input '{}' is computed "
                     "at run time",
                     inputName(input(0).IsConst ? 1 : 0)));
  const OnnxTensor &A = constant(0), &B = constant(1);
  if (A.Type != B.Type)
    fail(fmt::format("inputs '{}' and '{}' differ in element type", inputName(0), inputName(1)));
  // Multidirectional (numpy) broadcasting, aligned at the last axis.
  const size_t R = std::max(A.Dims.size(), B.Dims.size());
  auto Padded = [&](const std::vector<int64_t> &D) {
    std::vector<int64_t> P(R - D.size(), 1);
    P.insert(P.end(), D.begin(), D.end());
    return P;
  };
  const std::vector<int64_t> DA = Padded(A.Dims), DB = Padded(B.Dims);
  OnnxTensor T;
  T.Type = A.Type;
  for (size_t K = 0; K < R; ++K) {
    if (DA[K] != DB[K] && DA[K] != 1 && DB[K] != 1)
      fail(fmt::format("shapes {} and {} do not broadcast", dimsStr(A.Dims), dimsStr(B.Dims)));
    T.Dims.push_back(DA[K] == 1 ? DB[K] : DA[K]);
  }
  if (T.elems() > OnnxMaxWeights)
    fail(fmt::format("the result {} has more than {} values", dimsStr(T.Dims), OnnxMaxWeights));
  const uint64_t N = T.elems();
  for (uint64_t Flat = 0; Flat < N; ++Flat) {
    // The index into each input: the output's index with broadcast axes at 0.
    uint64_t Rest = Flat, IA = 0, IB = 0, SA = 1, SB = 1;
    for (size_t K = R; K-- > 0;) {
      uint64_t Pos = Rest % uint64_t(T.Dims[K]);
      Rest /= uint64_t(T.Dims[K]);
      IA += (DA[K] == 1 ? 0 : Pos) * SA;
      IB += (DB[K] == 1 ? 0 : Pos) * SB;
      SA *= uint64_t(DA[K]);
      SB *= uint64_t(DB[K]);
    }
    if (T.Type == OnnxTensor::ElemType::Int64) {
      int64_t X = A.Ints[IA], Y = B.Ints[IB];
      if (Op == "Div" && Y == 0)
        fail("integer division by zero");
      // Integer Div truncates toward zero (C's division, onnxruntime's).
      int64_t Z = 0;
      bool Overflow = Op == "Add"   ? __builtin_add_overflow(X, Y, &Z)
                      : Op == "Sub" ? __builtin_sub_overflow(X, Y, &Z)
                      : Op == "Mul" ? __builtin_mul_overflow(X, Y, &Z)
                                    : (Y == -1 && X == INT64_MIN) || ((Z = X / Y), false);
      if (Overflow)
        fail(fmt::format("{} of {} and {} overflows 64 bits", Op, X, Y));
      T.Ints.push_back(Z);
    } else {
      float X = A.Floats[IA], Y = B.Floats[IB];
      T.Floats.push_back(Op == "Add" ? X + Y : Op == "Sub" ? X - Y : Op == "Mul" ? X * Y : X / Y);
    }
  }
  defineConst(0, std::move(T));
}
