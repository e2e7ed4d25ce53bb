//===- Text.h - Untrusted text made safe to print -------------*- C++ -*-===//
//
// Names, keys and values from input files end up in error messages. Printed
// raw, a layer named "\x1b]0;pwned\x07" retitles the user's terminal, a
// newline breaks the one-line error contract and a megabyte-long name buries
// the message (issue 19). Every tool's error line goes through
// escapeUntrusted (snow::toolError), and code that quotes one value may
// shorten it further.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_TEXT_H
#define SNOW_SUPPORT_TEXT_H

#include "llvm/ADT/StringRef.h"
#include <cstddef>
#include <string>

namespace snow {

/// Text with every control character (C0, DEL, C1: what terminal escape
/// sequences are made of) and every byte that is not valid UTF-8 written as
/// \xNN (a C1 character as \u0080..\u009f), then cut to at most MaxBytes
/// bytes plus a note saying how many input bytes were left out.
std::string escapeUntrusted(llvm::StringRef S, size_t MaxBytes = 1000);

} // namespace snow

#endif
