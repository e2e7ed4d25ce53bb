//===- FuzzOnnx.cpp - Fuzz target: the ONNX front end ---------------------===//
//
// Bytes as a serialized ModelProto: import, and compile what is small enough.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "snow/ir/Onnx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto M =
      snow::ir::parseOnnx(std::string(reinterpret_cast<const char *>(Data), Size), "fuzz.onnx");
  if (snow::fuzz::ok(M))
    snow::fuzz::compileSmall(M->G);
  return 0;
}
