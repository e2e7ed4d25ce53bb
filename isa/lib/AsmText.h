//===- AsmText.h - Lexical pieces shared by snowasm and snowdis ----*- C++ -*-===//
//
// The assembler reads and the listing printer writes the same small lexical
// vocabulary: integers, possibly quoted names, '#' comments and base64 lines.
// Both sides live here so that what one prints the other reads by
// construction; the round-trip tests (tests/isa/AsmDirectivesTest.cpp) check
// that they agree on awkward strings and on every byte value.
//
// Internal to snow_isa: not installed, not part of the public API.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_LIB_ASMTEXT_H
#define SNOW_ISA_LIB_ASMTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snow::isa::text {

/// Decimal or 0x-hex with an optional sign. No octal: "010" is ten, because
/// a leading zero meaning base 8 only ever surprises.
std::optional<int64_t> parseInt(llvm::StringRef S);

/// The line up to its first '#' outside a quoted string.
llvm::StringRef stripComment(llvm::StringRef Line);

/// One directive argument. Quoted tokens have their escapes resolved; Raw is
/// the text as written, for messages.
struct Token {
  std::string Text;
  llvm::StringRef Raw;
  bool Quoted = false;
  /// "key=value" written bare (never true for a quoted token).
  bool isKeyValue() const { return !Quoted && Raw.contains('='); }
};

/// Splits directive arguments on white space and commas. A token starting with
/// '"' runs to the closing '"' and may hold \" \\ and \xHH escapes. Errors
/// (plain messages, no location) name the offending text.
llvm::Expected<llvm::SmallVector<Token, 8>> tokenize(llvm::StringRef S);

/// S as a directive argument that tokenize() reads back as S: bare when it is
/// non-empty and has no space, control character, '"', '#', ',', '=' or '\',
/// else quoted with escapes.
std::string quote(llvm::StringRef S);

/// "0x" and lower-case hex digits, as addresses are printed and read.
std::string hex(uint64_t V);

/// Base64 (RFC 4648, '=' padding) of Bytes appended to Out.
void appendBase64(std::string &Out, llvm::ArrayRef<uint8_t> Bytes);

/// Decodes one base64 line and appends it to Out. The line is complete in
/// itself: its length is a multiple of 4 and '=' only pads its end. Errors
/// name the first bad character and its column (1-based within S).
llvm::Error decodeBase64(llvm::StringRef S, std::vector<uint8_t> &Out);

} // namespace snow::isa::text

#endif
