//===- OnnxBuilder.h - Small ONNX models as protobuf text -----*- C++ -*-===//
//
// The importer tests write their models in protobuf text format (what
// `protoc --decode=onnx.ModelProto` prints), built from these pieces, so each
// test shows its whole model in a few lines.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_ONNX_ONNXBUILDER_H
#define SNOW_TESTS_ONNX_ONNXBUILDER_H

#include "snow/support/Rng.h"

#include <cstdint>
#include <string>
#include <vector>

namespace snow::onnxtest {

inline std::string join(const std::vector<std::string> &Parts) {
  std::string S;
  for (const std::string &P : Parts)
    S += P + "\n";
  return S;
}

inline std::string dimsText(const std::vector<int64_t> &Dims) {
  std::string S;
  for (int64_t D : Dims)
    S += "dim { dim_value: " + std::to_string(D) + " } ";
  return S;
}

/// A float32 graph input (or output) of the given dims.
inline std::string valueInfo(const char *Field, const std::string &Name,
                             const std::vector<int64_t> &Dims) {
  return std::string(Field) + " { name: \"" + Name +
         "\" type { tensor_type { elem_type: 1 shape { " + dimsText(Dims) + "} } } }";
}
inline std::string input(const std::string &Name, const std::vector<int64_t> &Dims) {
  return valueInfo("input", Name, Dims);
}
inline std::string output(const std::string &Name, const std::vector<int64_t> &Dims) {
  return valueInfo("output", Name, Dims);
}

/// An initializer holding float32 values (int64 with Int64 set).
inline std::string init(const std::string &Name, const std::vector<int64_t> &Dims,
                        const std::vector<double> &Values, bool Int64 = false) {
  std::string S = "initializer { name: \"" + Name + "\" data_type: " + (Int64 ? "7" : "1");
  for (int64_t D : Dims)
    S += " dims: " + std::to_string(D);
  for (double V : Values)
    S += (Int64 ? " int64_data: " : " float_data: ") +
         (Int64 ? std::to_string(int64_t(V)) : std::to_string(V));
  return S + " }";
}

inline std::string intsAttr(const std::string &Name, const std::vector<int64_t> &V) {
  std::string S = "attribute { name: \"" + Name + "\" type: INTS";
  for (int64_t X : V)
    S += " ints: " + std::to_string(X);
  return S + " }";
}
inline std::string intAttr(const std::string &Name, int64_t V) {
  return "attribute { name: \"" + Name + "\" type: INT i: " + std::to_string(V) + " }";
}
inline std::string floatAttr(const std::string &Name, double V) {
  return "attribute { name: \"" + Name + "\" type: FLOAT f: " + std::to_string(V) + " }";
}

inline std::string node(const std::string &Op, const std::string &Name,
                        const std::vector<std::string> &Ins, const std::vector<std::string> &Outs,
                        const std::vector<std::string> &Attrs = {}) {
  std::string S = "node { op_type: \"" + Op + "\" name: \"" + Name + "\"";
  for (const std::string &I : Ins)
    S += " input: \"" + I + "\"";
  for (const std::string &O : Outs)
    S += " output: \"" + O + "\"";
  for (const std::string &A : Attrs)
    S += " " + A;
  return S + " }";
}

/// A whole model: opset Opset, graph "g" made of Parts (nodes, inputs,
/// outputs, initializers in any order; protobuf sorts them by field).
inline std::string model(const std::vector<std::string> &Parts, int Opset = 13) {
  return "ir_version: 8\nopset_import { domain: \"\" version: " + std::to_string(Opset) +
         " }\ngraph {\nname: \"g\"\n" + join(Parts) + "}\n";
}

/// Seeded weights in [-Scale, Scale), so that a wrong tap shows in the output.
inline std::vector<double> weights(size_t N, uint64_t Seed, double Scale = 1) {
  Rng R(Seed);
  std::vector<double> W(N);
  for (double &V : W)
    V = (R.uniform() * 2 - 1) * Scale;
  return W;
}

/// A's parts, then B's.
inline std::vector<std::string> operator+(std::vector<std::string> A,
                                          const std::vector<std::string> &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

} // namespace snow::onnxtest

#endif
