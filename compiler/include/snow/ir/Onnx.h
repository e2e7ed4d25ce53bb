//===- Onnx.h - ONNX models in and out of the graph IR -------------*- C++ -*-===//
//
// The second front end: an ONNX ModelProto (read with Debian's libonnx /
// protobuf) becomes the same as-written Graph the YAML front end produces, so
// canonicalize(), calibration, quantize() and everything downstream are
// shared. The reverse direction writes a Graph as ONNX, which is how the six
// YAML models are checked to compile to byte-identical programs either way.
// docs/onnx.md lists the operators, attributes and tensor layouts accepted.
//
// ONNX tensors carry a batch; the accelerator runs one frame at a time. The
// first axis of an activation of rank >= 2 is the batch (N frames); the
// program is compiled for one frame and a batch runs as N frames.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_ONNX_H
#define SNOW_IR_ONNX_H

#include "snow/ir/Graph.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace snow::ir {

/// A tensor as ONNX stores it (TensorProto): its dims and its values, float32
/// or integer (int32 and int64 are both kept as int64).
struct OnnxTensor {
  enum class ElemType { Float, Int64 };
  std::string Name;
  std::vector<int64_t> Dims;
  ElemType Type = ElemType::Float;
  std::vector<float> Floats; ///< Type == Float.
  std::vector<int64_t> Ints; ///< Type == Int64.
  uint64_t elems() const;
};

/// Reads a serialized TensorProto (the backend tests' input_0.pb) or, by its
/// extension, a float32 .npy file. Errors name the file.
llvm::Expected<OnnxTensor> readOnnxTensor(const std::string &Path);
/// The bytes of a TensorProto holding T (for tests and exported data).
std::string serializeOnnxTensor(const OnnxTensor &T);

struct OnnxImportOptions {
  /// Graph inputs with fixed values (snowc --const NAME=FILE): the backend
  /// node tests pass weights as graph inputs, and the accelerator has one
  /// input, so every other input must become a constant at compile time.
  std::map<std::string, OnnxTensor> Consts;
};

/// Parses "NAME=FILE" (FILE: .npy or .pb) into Opts.Consts.
llvm::Error addOnnxConst(llvm::StringRef Spec, OnnxImportOptions &Opts);

/// An imported model: the graph as written plus what the graph IR has no
/// place for, the ONNX view of its input and output.
struct OnnxModel {
  Graph G;
  std::vector<int64_t> InputDims;  ///< As declared (a symbolic batch reads 1).
  std::vector<int64_t> OutputDims; ///< As inferred by the importer.
  uint64_t Frames = 1;             ///< The batch N of InputDims (1 below rank 2).
};

/// Reads an ONNX model. Errors are one line naming the file, the node (index,
/// name and op type) and the offending attribute or input. Graph::Loc and
/// Layer::Loc hold the file and, in place of a line, the node's index in
/// graph.node (0-based).
llvm::Expected<OnnxModel> importOnnx(const std::string &Path, const OnnxImportOptions &Opts = {});
llvm::Expected<OnnxModel> parseOnnx(const std::string &Bytes, const std::string &File,
                                    const OnnxImportOptions &Opts = {});

/// The same, from the protobuf text format of a ModelProto (what protoc
/// --decode prints): small models written by hand, as the tests do.
llvm::Expected<OnnxModel> parseOnnxText(const std::string &Text, const std::string &File,
                                        const OnnxImportOptions &Opts = {});

/// The names of the graph inputs that have no initializer, in graph order:
/// what a test runner binds its input tensors to (the first one is usually
/// the data, the rest weights to pass as Consts).
llvm::Expected<std::vector<std::string>> onnxRuntimeInputs(const std::string &Bytes,
                                                           const std::string &File);

/// The ModelProto bytes of an as-written graph (as loadModel returns it, not
/// canonicalized): opset 13, weights as initializers, one node per layer plus
/// a Relu node for each fused relu and a Flatten before each fc that reads a
/// feature map. Importing the result gives a graph that canonicalizes to the
/// same layers, weights and names.
llvm::Expected<std::string> exportOnnx(const Graph &G);
llvm::Error writeOnnx(const Graph &G, const std::string &Path);

/// Whether Path names an ONNX model (".onnx"), so the tools pick the front end.
bool isOnnxPath(llvm::StringRef Path);

/// loadModel() for either front end, chosen by isOnnxPath(). Consts given for
/// a YAML model are an error (a YAML model has no graph inputs to bind).
/// Values applies to a YAML model's seeded weights (an ONNX model has its own).
llvm::Expected<Graph> loadAnyModel(const std::string &Path, const OnnxImportOptions &Opts = {},
                                   SeededValues Values = SeededValues::Eager);

} // namespace snow::ir

#endif
