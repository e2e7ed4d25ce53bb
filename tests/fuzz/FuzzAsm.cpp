//===- FuzzAsm.cpp - Fuzz target: the assembler ---------------------------===//
//
// Bytes as assembly text: assemble a whole program (directives included),
// then disassemble what assembled, which must assemble again.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "snow/isa/Asm.h"
#include "snow/isa/HwConfig.h"
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  static const snow::isa::HwConfig Hw = [] {
    auto H = snow::isa::loadHwConfig("mini64");
    return H ? *H : snow::isa::HwConfig();
  }();
  auto P = snow::isa::assembleProgram(Text, "fuzz.s", Hw);
  if (!snow::fuzz::ok(P))
    return 0;
  auto Code = snow::isa::decodeProgram(P->Code);
  if (!snow::fuzz::ok(Code))
    abort(); // The assembler wrote a word the decoder refuses.
  auto Again = snow::isa::assemble(snow::isa::disassembleProgram(*Code, false), "again.s");
  if (!snow::fuzz::ok(Again))
    abort(); // A disassembly the assembler does not read back.
  return 0;
}
