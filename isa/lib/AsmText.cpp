//===- AsmText.cpp - Lexical pieces shared by snowasm and snowdis ---------===//
//
// Integers, quoted names, comments and base64, written once for the reader
// and the printer. Base64 is hand-rolled with a lookup table: a VGG-16 listing
// carries ~370 MB of it, and decoding is most of what assembling that costs.
//
//===----------------------------------------------------------------------===//

#include "AsmText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <cstring>
#include <limits>

namespace snow::isa::text {

using llvm::StringRef;
using llvm::Twine;

namespace {

llvm::Error error(const Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

constexpr char B64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint8_t Bad = 0xff;

constexpr std::array<uint8_t, 256> b64Table() {
  std::array<uint8_t, 256> T{};
  for (auto &V : T)
    V = Bad;
  for (uint8_t I = 0; I < 64; ++I)
    T[uint8_t(B64Chars[I])] = I;
  return T;
}
constexpr std::array<uint8_t, 256> B64Values = b64Table();

bool needsQuotes(StringRef S) {
  if (S.empty())
    return true;
  return llvm::any_of(S, [](char C) {
    auto U = uint8_t(C);
    return U <= ' ' || U == 0x7f || C == '"' || C == '#' || C == ',' || C == '=' || C == '\\';
  });
}

} // namespace

std::optional<int64_t> parseInt(StringRef S) {
  bool Neg = S.consume_front("-");
  if (!Neg)
    S.consume_front("+");
  unsigned Radix = 10;
  if (S.consume_front("0x") || S.consume_front("0X"))
    Radix = 16;
  uint64_t Mag;
  if (S.empty() || S.getAsInteger(Radix, Mag))
    return std::nullopt;
  uint64_t Limit = uint64_t(std::numeric_limits<int64_t>::max()) + (Neg ? 1 : 0);
  if (Mag > Limit)
    return std::nullopt;
  return Neg ? int64_t(0 - Mag) : int64_t(Mag);
}

StringRef stripComment(StringRef Line) {
  // Fast path (one memchr): most lines, all base64 lines among them, have no
  // '#', and without one there is no comment whatever the quotes.
  size_t Hash = Line.find('#');
  if (Hash == llvm::StringRef::npos)
    return Line;
  if (!Line.take_front(Hash).contains('"'))
    return Line.take_front(Hash);
  bool InQuote = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (InQuote && C == '\\')
      ++I;
    else if (C == '"')
      InQuote = !InQuote;
    else if (!InQuote && C == '#')
      return Line.take_front(I);
  }
  return Line;
}

llvm::Expected<llvm::SmallVector<Token, 8>> tokenize(StringRef S) {
  llvm::SmallVector<Token, 8> Out;
  auto IsSep = [](char C) { return C == ' ' || C == '\t' || C == ',' || C == '\r'; };
  size_t I = 0;
  while (true) {
    while (I < S.size() && IsSep(S[I]))
      ++I;
    if (I == S.size())
      return Out;
    size_t Start = I;
    Token T;
    if (S[I] != '"') {
      while (I < S.size() && !IsSep(S[I]))
        ++I;
      T.Raw = S.slice(Start, I);
      T.Text = T.Raw.str();
      Out.push_back(std::move(T));
      continue;
    }
    T.Quoted = true;
    for (++I;; ++I) {
      if (I >= S.size())
        return error("unterminated string " + S.drop_front(Start));
      char C = S[I];
      if (C == '"')
        break;
      if (C != '\\') {
        T.Text += C;
        continue;
      }
      char E = I + 1 < S.size() ? S[I + 1] : '\0';
      if (E == '"' || E == '\\') {
        T.Text += E;
        ++I;
        continue;
      }
      unsigned V;
      if (E == 'x' && I + 3 < S.size() && !S.substr(I + 2, 2).getAsInteger(16, V) &&
          llvm::isHexDigit(S[I + 2]) && llvm::isHexDigit(S[I + 3])) {
        T.Text += char(V);
        I += 3;
        continue;
      }
      return error("invalid escape '" + S.substr(I, 4) + "' in a string (use \\\" \\\\ or \\xHH)");
    }
    ++I; // The closing quote.
    T.Raw = S.slice(Start, I);
    if (I < S.size() && !IsSep(S[I]))
      return error("expected a space or ',' after the string " + T.Raw + ", found '" +
                   S.drop_front(I).take_until(IsSep) + "'");
    Out.push_back(std::move(T));
  }
}

std::string quote(StringRef S) {
  if (!needsQuotes(S))
    return S.str();
  std::string Out = "\"";
  for (char C : S) {
    auto U = uint8_t(C);
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += C;
    } else if (U < ' ' || U == 0x7f) {
      Out += "\\x";
      Out += llvm::hexdigit(U >> 4, /*LowerCase=*/true);
      Out += llvm::hexdigit(U & 15, true);
    } else {
      Out += C;
    }
  }
  return Out + "\"";
}

std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V, /*LowerCase=*/true); }

void appendBase64(std::string &Out, llvm::ArrayRef<uint8_t> Bytes) {
  size_t N = Bytes.size(), Full = N / 3 * 3;
  size_t Pos = Out.size();
  Out.resize(Pos + (N + 2) / 3 * 4);
  char *P = Out.data() + Pos;
  const uint8_t *B = Bytes.data();
  for (size_t I = 0; I < Full; I += 3, P += 4) {
    uint32_t V = uint32_t(B[I]) << 16 | uint32_t(B[I + 1]) << 8 | B[I + 2];
    P[0] = B64Chars[V >> 18];
    P[1] = B64Chars[(V >> 12) & 63];
    P[2] = B64Chars[(V >> 6) & 63];
    P[3] = B64Chars[V & 63];
  }
  if (size_t Rest = N - Full) {
    uint32_t V = uint32_t(B[Full]) << 16 | (Rest == 2 ? uint32_t(B[Full + 1]) << 8 : 0);
    P[0] = B64Chars[V >> 18];
    P[1] = B64Chars[(V >> 12) & 63];
    P[2] = Rest == 2 ? B64Chars[(V >> 6) & 63] : '=';
    P[3] = '=';
  }
}

llvm::Error decodeBase64(StringRef S, std::vector<uint8_t> &Out) {
  if (S.size() % 4 != 0)
    return error("base64 text of " + Twine(S.size()) +
                 " characters is not a multiple of 4 (each line must be complete)");
  size_t Pad = S.endswith("==") ? 2 : S.endswith("=") ? 1 : 0;
  size_t Pos = Out.size();
  Out.resize(Pos + S.size() / 4 * 3 - Pad);
  uint8_t *D = Out.data() + Pos;
  const auto *C = reinterpret_cast<const uint8_t *>(S.data());
  size_t Quads = S.size() / 4 - (Pad ? 1 : 0);
  for (size_t Q = 0; Q < Quads; ++Q, C += 4, D += 3) {
    uint8_t A = B64Values[C[0]], B = B64Values[C[1]], E = B64Values[C[2]], F = B64Values[C[3]];
    if ((A | B | E | F) & 0x80) { // Bad is the only value with bit 7 set.
      size_t Col = Q * 4;
      while (B64Values[uint8_t(S[Col])] != Bad)
        ++Col;
      Out.resize(Pos);
      return error("invalid base64 character '" + S.substr(Col, 1) + "' at column " +
                   Twine(Col + 1));
    }
    uint32_t V = uint32_t(A) << 18 | uint32_t(B) << 12 | uint32_t(E) << 6 | F;
    D[0] = uint8_t(V >> 16);
    D[1] = uint8_t(V >> 8);
    D[2] = uint8_t(V);
  }
  if (Pad) {
    size_t Col = S.size() - 4;
    uint8_t A = B64Values[C[0]], B = B64Values[C[1]], E = Pad == 1 ? B64Values[C[2]] : 0;
    for (size_t K = 0; K < 4 - Pad; ++K)
      if (B64Values[C[K]] == Bad) {
        Out.resize(Pos);
        return error("invalid base64 character '" + S.substr(Col + K, 1) + "' at column " +
                     Twine(Col + K + 1));
      }
    uint32_t V = uint32_t(A) << 18 | uint32_t(B) << 12 | uint32_t(E) << 6;
    D[0] = uint8_t(V >> 16);
    if (Pad == 1)
      D[1] = uint8_t(V >> 8);
  }
  return llvm::Error::success();
}

} // namespace snow::isa::text
