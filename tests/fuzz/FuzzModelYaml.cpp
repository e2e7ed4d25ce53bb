//===- FuzzModelYaml.cpp - Fuzz target: the model YAML front end ----------===//
//
// Bytes as a model YAML file: parse, and compile what is small enough.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto G =
      snow::ir::parseModel(std::string(reinterpret_cast<const char *>(Data), Size), "fuzz.yaml");
  if (snow::fuzz::ok(G))
    snow::fuzz::compileSmall(*G);
  return 0;
}
