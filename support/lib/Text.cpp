//===- Text.cpp - Untrusted text made safe to print -----------------------===//

#include "snow/support/Text.h"
#include <fmt/format.h>

using namespace snow;

/// The length of the valid UTF-8 sequence starting at S[I], or 0.
static size_t utf8Length(llvm::StringRef S, size_t I) {
  const auto B = [&](size_t K) { return uint8_t(S[I + K]); };
  const uint8_t C = B(0);
  size_t N = C >= 0xf0 && C <= 0xf4 ? 4 : C >= 0xe0 ? 3 : C >= 0xc2 && C < 0xe0 ? 2 : 0;
  if (N == 0 || I + N > S.size())
    return 0;
  for (size_t K = 1; K < N; ++K)
    if ((B(K) & 0xc0) != 0x80)
      return 0;
  // Overlong and surrogate forms are not valid UTF-8 either.
  if ((C == 0xe0 && B(1) < 0xa0) || (C == 0xed && B(1) >= 0xa0) || (C == 0xf0 && B(1) < 0x90) ||
      (C == 0xf4 && B(1) >= 0x90))
    return 0;
  return N;
}

std::string snow::escapeUntrusted(llvm::StringRef S, size_t MaxBytes) {
  std::string Out;
  size_t I = 0;
  while (I < S.size() && Out.size() < MaxBytes) {
    const uint8_t C = uint8_t(S[I]);
    if (C >= 0x20 && C < 0x7f) {
      Out += char(C);
      ++I;
      continue;
    }
    size_t N = C >= 0x80 ? utf8Length(S, I) : 0;
    if (N == 2 && C == 0xc2 && uint8_t(S[I + 1]) < 0xa0) { // C1 control
      Out += fmt::format("\\u{:04x}", uint8_t(S[I + 1]));
    } else if (N) {
      Out.append(S.data() + I, N);
    } else {
      Out += fmt::format("\\x{:02x}", C);
      N = 1;
    }
    I += N;
  }
  if (I < S.size())
    Out += fmt::format("... ({} more bytes)", S.size() - I);
  return Out;
}
