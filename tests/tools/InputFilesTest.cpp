//===- InputFilesTest.cpp - Inputs that could never end are refused -------===//
//
// Every tool reads its inputs through snow::readInputFile: a device such as
// /dev/zero (endless), a FIFO or a file beyond the size limit is refused in
// one line before a byte is read, where it used to be read until memory ran
// out (issue 19).
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"

using namespace snow::test;

namespace {
class InputFiles : public ToolTest {};
} // namespace

TEST_F(InputFiles, DevicesAreRefusedByEveryTool) {
  const std::string Why = "not a regular file";
  expectCleanError("snowsim", {"/dev/zero"}, {"/dev/zero", Why});
  expectCleanError("snowdis", {"/dev/zero"}, {"/dev/zero", Why});
  expectCleanError("snowc", {"/dev/zero", "-o", "p.bin"}, {"/dev/zero", Why});
  expectCleanError("snowref", {"/dev/zero"}, {"/dev/zero", Why});
  write("z.yaml",
        "name: z\ninput: {name: data, shape: [3, 8, 8]}\nlayers:\n"
        "  - {name: c, type: conv, out_channels: 4, kernel: 1, weights_file: /dev/zero}\n");
  expectCleanError("snowc", {"z.yaml", "-o", "p.bin"}, {"z.yaml:4", "weights_file", Why});
  compileTiny("p.bin");
  expectCleanError("snowsim", {"p.bin", "--input", "/dev/zero"}, {"/dev/zero", Why});
}
