//===- Replay.cpp - Runs a fuzz target on files, without libFuzzer -------===//
//
// `fuzz-replay-TARGET FILE|DIR...` feeds every file (directories: every file
// in them, sorted) to the target's LLVMFuzzerTestOneInput once. The normal
// tests run it over tests/fuzz/corpus/TARGET and tests/fuzz/regressions/TARGET
// so that an input a fuzzer once found stays fixed.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int Argc, char **Argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> Files;
  for (int I = 1; I < Argc; ++I) {
    fs::path P(Argv[I]);
    if (fs::is_directory(P)) {
      for (const auto &E : fs::recursive_directory_iterator(P))
        if (E.is_regular_file())
          Files.push_back(E.path());
    } else if (fs::exists(P)) {
      Files.push_back(P);
    } else {
      std::fprintf(stderr, "fuzz-replay: no such file or directory '%s'\n", Argv[I]);
      return 1;
    }
  }
  std::sort(Files.begin(), Files.end());
  for (const fs::path &F : Files) {
    std::ifstream In(F, std::ios::binary);
    std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(In)), {});
    LLVMFuzzerTestOneInput(Bytes.data(), Bytes.size());
  }
  std::printf("fuzz-replay: %zu inputs, no crash\n", Files.size());
  return 0;
}
