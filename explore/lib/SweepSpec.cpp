//===- SweepSpec.cpp - Parsing --set / --shard and enumerating points ------===//
//
// Hardware text is produced by editing the base's canonical YAML (toYaml lists
// every key exactly once), not by prefixing "base: NAME": that way a base
// loaded from a file works the same as a preset, and the parser still applies
// every type rule to the swept values.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/SweepSpec.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>
#include <set>

using namespace snow;
using namespace snow::explore;

static llvm::Error userError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Expected<SetArg> snow::explore::parseSetArg(llvm::StringRef Text) {
  auto [Key, List] = Text.split('=');
  Key = Key.trim();
  if (Key.empty() || !Text.contains('='))
    return userError(fmt::format("--set '{}': expected KEY=V1,V2,...", Text.str()));
  SetArg A;
  A.Key = Key.str();
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/true);
  std::set<std::string> Seen;
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    if (P.empty())
      return userError(fmt::format("--set '{}': empty value in the list", Text.str()));
    if (!Seen.insert(P.str()).second)
      return userError(fmt::format("--set '{}': value '{}' is listed twice", Text.str(), P.str()));
    A.Values.push_back(P.str());
  }
  return A;
}

llvm::Error snow::explore::checkSetArgs(const std::vector<SetArg> &Sets) {
  std::set<std::string> Keys;
  for (const SetArg &S : Sets) {
    if (!Keys.insert(S.Key).second)
      return userError(
          fmt::format("--set: key '{}' is set twice (give one list of values)", S.Key));
    if (S.Key == "name" || S.Key == "base")
      return userError(
          fmt::format("--set: '{}' is not a hardware parameter and cannot be swept", S.Key));
    // The parser knows every key and its type; a one-line document per value
    // asks it about exactly that key and value.
    for (const std::string &V : S.Values) {
      auto C = isa::parseHwConfig(S.Key + ": " + V + "\n", "--set " + S.Key);
      if (!C)
        return C.takeError();
    }
  }
  return llvm::Error::success();
}

std::string Shard::str() const { return fmt::format("{}/{}", Index, Count); }

llvm::Expected<Shard> snow::explore::parseShard(llvm::StringRef Text) {
  auto [I, N] = Text.split('/');
  Shard S;
  if (!Text.contains('/') || I.trim().getAsInteger(10, S.Index) ||
      N.trim().getAsInteger(10, S.Count))
    return userError(fmt::format("--shard '{}': expected I/N, e.g. 3/8", Text.str()));
  if (S.Count == 0 || S.Index == 0 || S.Index > S.Count)
    return userError(
        fmt::format("--shard '{}': need 1 <= I <= N (shards are numbered from 1)", Text.str()));
  return S;
}

std::string SweepPoint::label() const {
  if (Values.empty())
    return "base";
  std::string S;
  for (const auto &[K, V] : Values)
    S += (S.empty() ? "" : ";") + K + "=" + V;
  return S;
}

std::vector<SweepPoint> snow::explore::cartesianProduct(const std::vector<SetArg> &Sets) {
  size_t Total = 1;
  for (const SetArg &S : Sets)
    Total *= S.Values.size();
  std::vector<SweepPoint> Points(Total);
  for (size_t I = 0; I < Total; ++I) {
    Points[I].Index = unsigned(I);
    // Odometer: digit d has radix |values of set d|, the last set fastest.
    size_t Rest = I;
    std::vector<size_t> Digit(Sets.size());
    for (size_t D = Sets.size(); D-- > 0;) {
      Digit[D] = Rest % Sets[D].Values.size();
      Rest /= Sets[D].Values.size();
    }
    for (size_t D = 0; D < Sets.size(); ++D)
      Points[I].Values.push_back({Sets[D].Key, Sets[D].Values[Digit[D]]});
  }
  return Points;
}

std::string snow::explore::pointYaml(const isa::HwConfig &Base, const SweepPoint &P) {
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  std::string Canon = Base.toYaml();
  llvm::StringRef(Canon).split(Lines, '\n', -1, false);
  std::string Out;
  for (llvm::StringRef L : Lines) {
    llvm::StringRef Key = L.split(':').first.trim();
    std::string Line = L.str();
    for (const auto &[K, V] : P.Values)
      if (Key == K)
        Line = K + ": " + V;
    Out += Line + "\n";
  }
  return Out;
}

llvm::Expected<isa::HwConfig> snow::explore::pointConfig(const isa::HwConfig &Base,
                                                         const SweepPoint &P) {
  auto C = isa::parseHwConfig(pointYaml(Base, P), "hardware");
  if (!C)
    return C.takeError();
  if (auto Err = isa::validate(*C, "hardware"))
    return Err;
  return C;
}
