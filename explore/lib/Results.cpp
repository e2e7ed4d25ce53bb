//===- Results.cpp - Sweep rows as CSV and JSON; merging part files -------===//
//
// Numbers are printed in the shortest form that reads back to the same value
// ({fmt}'s default), so a row read from a part file and written again is the
// same text: merging shards reproduces a single run byte for byte.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Results.h"
#include "snow/support/FileIO.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

using namespace snow;
using namespace snow::explore;

namespace {

llvm::Error error(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

const char *const StatusNames[] = {"ok", "invalid_hw", "compile_failed", "sim_failed"};

/// The hardware keys in the hardware table's order, taken from the canonical
/// text so that a key added to HwConfig shows up here without an edit.
const std::vector<std::string> &hwKeys() {
  static const std::vector<std::string> Keys = [] {
    std::vector<std::string> K;
    llvm::SmallVector<llvm::StringRef, 32> Lines;
    std::string Canon = isa::HwConfig().toYaml();
    llvm::StringRef(Canon).split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines) {
      llvm::StringRef Key = L.split(':').first.trim();
      if (Key != "name")
        K.push_back(Key.str());
    }
    return K;
  }();
  return Keys;
}

std::map<std::string, std::string> parseCanonical(const std::string &Yaml) {
  std::map<std::string, std::string> M;
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  llvm::StringRef(Yaml).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    auto [K, V] = L.split(':');
    if (K.trim() != "name")
      M[K.trim().str()] = V.trim().str();
  }
  return M;
}

std::string hashOfHardware(const std::map<std::string, std::string> &Hw) {
  std::string Text;
  for (const std::string &K : hwKeys()) {
    auto It = Hw.find(K);
    Text += K + ": " + (It == Hw.end() ? "" : It->second) + "\n";
  }
  return contentHash(Text);
}

std::string num(double V) { return fmt::format("{}", V); }

/// The numeric columns derived from a row, by name.
std::string derivedValue(const ResultRow &R, const std::string &Col) {
  if (Col == "utilization")
    return num(R.utilization());
  if (Col == "gops")
    return num(R.gops());
  if (Col == "fps")
    return num(R.fps());
  if (Col == "dram_mb")
    return num(R.dramMbPerFrame());
  if (Col == "ops_per_byte")
    return num(R.opsPerByte());
  if (Col == "dram_gbps_used")
    return num(R.dramGbpsUsed());
  if (Col == "watts")
    return num(R.watts());
  if (Col == "gops_per_w")
    return num(R.gopsPerW());
  return "";
}

const std::vector<std::string> FixedCols = {
    "model",          "point",      "config",      "status", "message",   "macs",    "array_macs",
    "peak_gops",      "cycles",     "utilization", "gops",   "fps",       "dram_mb", "ops_per_byte",
    "dram_gbps_used", "onchip_kib", "energy_j",    "watts",  "gops_per_w"};

/// Which columns hold numbers (for JSON); everything else is a string.
bool isStringColumn(const std::string &C) {
  return C == "model" || C == "config" || C == "status" || C == "message" || C == "hw_hash" ||
         C == "model_hash";
}

std::string columnValue(const ResultRow &R, const std::string &C) {
  if (C == "model")
    return R.Model;
  if (C == "point")
    return std::to_string(R.Point);
  if (C == "config")
    return R.Config;
  if (C == "status")
    return statusName(R.Status);
  if (C == "message")
    return R.Message;
  if (C == "macs")
    return std::to_string(R.Macs);
  if (C == "array_macs")
    return std::to_string(R.ArrayMacs);
  if (C == "peak_gops")
    return num(R.PeakGops);
  if (C == "cycles")
    return std::to_string(R.Cycles);
  if (C == "onchip_kib")
    return num(R.OnchipKib);
  if (C == "energy_j")
    return num(R.EnergyJ);
  if (C == "hw_hash")
    return R.HwHash;
  if (C == "model_hash")
    return R.ModelHash;
  if (C == "dram_bytes")
    return std::to_string(R.DramBytes);
  if (auto It = R.Hw.find(C); It != R.Hw.end())
    return It->second;
  return derivedValue(R, C);
}

std::string quoteCsv(const std::string &S) {
  if (S.find_first_of(",\"\n\r") == std::string::npos)
    return S;
  std::string Q = "\"";
  for (char C : S)
    Q += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Q + "\"";
}

/// Splits CSV text into records of fields (RFC 4180). Complete is false for
/// a last record without its newline, which an interrupted append leaves.
struct CsvRecord {
  std::vector<std::string> Fields;
  unsigned Line = 0;
  bool Complete = false;
};

std::vector<CsvRecord> splitCsv(const std::string &Text) {
  std::vector<CsvRecord> Out;
  CsvRecord Cur;
  std::string Field;
  bool InQuotes = false, Any = false;
  unsigned Line = 1;
  Cur.Line = 1;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    Any = true;
    if (InQuotes) {
      if (C == '"' && I + 1 < Text.size() && Text[I + 1] == '"') {
        Field += '"';
        ++I;
      } else if (C == '"') {
        InQuotes = false;
      } else {
        Line += C == '\n';
        Field += C;
      }
    } else if (C == '"') {
      InQuotes = true;
    } else if (C == ',') {
      Cur.Fields.push_back(std::move(Field));
      Field.clear();
    } else if (C == '\n') {
      Cur.Fields.push_back(std::move(Field));
      Field.clear();
      Cur.Complete = true;
      Out.push_back(std::move(Cur));
      Cur = CsvRecord();
      Cur.Line = ++Line;
      Any = false;
    } else if (C != '\r') {
      Field += C;
    }
  }
  if (Any) {
    Cur.Fields.push_back(std::move(Field));
    Out.push_back(std::move(Cur));
  }
  return Out;
}

template <typename T> bool parseNumber(const std::string &S, T &Out) {
  if constexpr (std::is_floating_point_v<T>) {
    double D;
    if (llvm::StringRef(S).getAsDouble(D))
      return false;
    Out = D;
    return true;
  } else {
    return !llvm::StringRef(S).getAsInteger(10, Out);
  }
}

} // namespace

const char *snow::explore::statusName(PointStatus S) { return StatusNames[unsigned(S)]; }

double ResultRow::utilization() const {
  return Status == PointStatus::Ok && Cycles && ArrayMacs
             ? double(Macs) / (double(Cycles) * ArrayMacs)
             : 0;
}

static double clockMhz(const ResultRow &R) {
  auto It = R.Hw.find("clock_mhz");
  double V = 0;
  if (It != R.Hw.end() && !llvm::StringRef(It->second).getAsDouble(V))
    return V;
  return 0;
}

double ResultRow::fps() const {
  return Status == PointStatus::Ok && Cycles ? clockMhz(*this) * 1e6 / double(Cycles) : 0;
}
double ResultRow::gops() const { return 2.0 * double(Macs) * fps() / 1e9; }
double ResultRow::dramMbPerFrame() const {
  return Status == PointStatus::Ok ? double(DramBytes) / 1e6 : 0;
}
double ResultRow::dramGbpsUsed() const { return double(DramBytes) * fps() / 1e9; }
double ResultRow::watts() const { return EnergyJ * fps(); }
double ResultRow::gopsPerW() const {
  return Status == PointStatus::Ok && EnergyJ > 0 ? 2.0 * double(Macs) / 1e9 / EnergyJ : 0;
}
double ResultRow::opsPerByte() const {
  return Status == PointStatus::Ok && DramBytes ? 2.0 * double(Macs) / double(DramBytes) : 0;
}

std::string snow::explore::contentHash(const std::string &Bytes) {
  return fmt::format("{:016x}", llvm::xxHash64(Bytes));
}

void snow::explore::setHardware(ResultRow &R, const isa::HwConfig &C) {
  R.Hw = parseCanonical(C.toYaml());
  R.HwHash = hashOfHardware(R.Hw);
  R.ArrayMacs = C.macs();
  R.PeakGops = C.peakGops();
  R.OnchipKib = double(C.onchipBytes()) / 1024.0;
}

void snow::explore::setInvalidHardware(ResultRow &R, const std::string &CanonicalYaml) {
  R.Hw = parseCanonical(CanonicalYaml);
  R.HwHash = hashOfHardware(R.Hw);
}

std::vector<std::string> snow::explore::csvColumns() {
  std::vector<std::string> Cols = FixedCols;
  for (const std::string &K : hwKeys())
    Cols.push_back(K);
  Cols.push_back("dram_bytes");
  Cols.push_back("hw_hash");
  Cols.push_back("model_hash");
  return Cols;
}

std::string snow::explore::csvHeader() { return llvm::join(csvColumns(), ",") + "\n"; }

std::string snow::explore::csvLine(const ResultRow &R) {
  std::string S;
  for (const std::string &C : csvColumns())
    S += (S.empty() ? "" : ",") + quoteCsv(columnValue(R, C));
  return S + "\n";
}

llvm::Expected<std::vector<ResultRow>> snow::explore::parseCsv(const std::string &Text,
                                                               const std::string &File) {
  std::vector<CsvRecord> Recs = splitCsv(Text);
  std::vector<ResultRow> Rows;
  if (Recs.empty())
    return Rows;
  const std::vector<std::string> &Head = Recs[0].Fields;
  std::map<std::string, size_t> Col;
  for (size_t I = 0; I < Head.size(); ++I)
    Col[Head[I]] = I;
  for (const char *Need : {"model", "status", "hw_hash", "model_hash", "cycles", "macs"})
    if (!Col.count(Need))
      return error(fmt::format("{}:1: not a sweep results file: no column '{}'", File, Need));
  std::set<std::string> HwKeySet(hwKeys().begin(), hwKeys().end());
  for (size_t I = 1; I < Recs.size(); ++I) {
    const CsvRecord &Rec = Recs[I];
    if (Rec.Fields.size() == 1 && Rec.Fields[0].empty())
      continue; // A blank line.
    if (!Rec.Complete)
      break; // An append cut short (only the last line can be): the point runs again.
    if (Rec.Fields.size() != Head.size())
      return error(fmt::format("{}:{}: expected {} fields, got {}", File, Rec.Line, Head.size(),
                               Rec.Fields.size()));
    auto Get = [&](const char *Name) -> std::string {
      auto It = Col.find(Name);
      return It == Col.end() ? "" : Rec.Fields[It->second];
    };
    ResultRow R;
    R.Model = Get("model");
    R.Config = Get("config");
    R.Message = Get("message");
    R.HwHash = Get("hw_hash");
    R.ModelHash = Get("model_hash");
    std::string St = Get("status");
    auto S = std::find(std::begin(StatusNames), std::end(StatusNames), St);
    if (S == std::end(StatusNames))
      return error(fmt::format("{}:{}: unknown status '{}'", File, Rec.Line, St));
    R.Status = PointStatus(S - std::begin(StatusNames));
    bool Ok = parseNumber(Get("point"), R.Point) && parseNumber(Get("macs"), R.Macs) &&
              parseNumber(Get("cycles"), R.Cycles) && parseNumber(Get("array_macs"), R.ArrayMacs) &&
              parseNumber(Get("peak_gops"), R.PeakGops) &&
              parseNumber(Get("onchip_kib"), R.OnchipKib) &&
              parseNumber(Get("dram_bytes"), R.DramBytes);
    // Files written before the energy model have no energy column.
    if (Ok && !Get("energy_j").empty())
      Ok = !llvm::StringRef(Get("energy_j")).getAsDouble(R.EnergyJ);
    if (!Ok)
      return error(fmt::format("{}:{}: a numeric column does not hold a number", File, Rec.Line));
    for (const auto &[Name, Index] : Col)
      if (HwKeySet.count(Name))
        R.Hw[Name] = Rec.Fields[Index];
    Rows.push_back(std::move(R));
  }
  return Rows;
}

std::string snow::explore::toJson(const std::vector<ResultRow> &Rows) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS, 1);
  std::vector<std::string> Cols = csvColumns();
  J.object([&] {
    J.attributeArray("columns", [&] {
      for (const std::string &C : Cols)
        J.value(C);
    });
    J.attributeArray("rows", [&] {
      for (const ResultRow &R : Rows)
        J.object([&] {
          for (const std::string &C : Cols) {
            std::string V = columnValue(R, C);
            double D;
            if (isStringColumn(C) || llvm::StringRef(V).getAsDouble(D)) {
              J.attribute(C, V);
              continue;
            }
            // Already the shortest round-trip text of the number.
            J.attributeBegin(C);
            J.rawValue(V);
            J.attributeEnd();
          }
        });
    });
  });
  OS.flush();
  return Out + "\n";
}

std::vector<ResultRow> snow::explore::sortedUnique(std::vector<ResultRow> Rows) {
  std::stable_sort(Rows.begin(), Rows.end(), [](const ResultRow &A, const ResultRow &B) {
    return std::tie(A.Model, A.Point, A.HwHash, A.ModelHash) <
           std::tie(B.Model, B.Point, B.HwHash, B.ModelHash);
  });
  std::set<std::string> Seen;
  std::vector<ResultRow> Out;
  for (ResultRow &R : Rows)
    if (Seen.insert(R.key()).second)
      Out.push_back(std::move(R));
  return Out;
}

std::string snow::explore::partsDir(const std::string &OutDir) { return OutDir + "/parts"; }

std::string snow::explore::partFile(const std::string &OutDir, unsigned I, unsigned N) {
  return fmt::format("{}/shard-{}-of-{}.csv", partsDir(OutDir), I, N);
}

llvm::Expected<std::vector<ResultRow>> snow::explore::readParts(const std::string &OutDir) {
  std::vector<ResultRow> All;
  std::error_code EC;
  std::vector<std::string> Files;
  for (llvm::sys::fs::directory_iterator It(partsDir(OutDir), EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".csv"))
      Files.push_back(It->path());
  if (EC && EC != std::errc::no_such_file_or_directory)
    return error(fmt::format("cannot list '{}': {}", partsDir(OutDir), EC.message()));
  std::sort(Files.begin(), Files.end()); // Directory order is not stable.
  for (const std::string &F : Files) {
    auto Buf = snow::readInputFile(F, /*IsText=*/true);
    if (!Buf)
      return error(fmt::format("cannot read '{}': {}", F, Buf.getError().message()));
    auto Rows = parseCsv((*Buf)->getBuffer().str(), F);
    if (!Rows)
      return Rows.takeError();
    All.insert(All.end(), std::make_move_iterator(Rows->begin()),
               std::make_move_iterator(Rows->end()));
  }
  return All;
}

llvm::Expected<size_t> snow::explore::mergeParts(const std::string &OutDir) {
  std::string LockPath = OutDir + "/.merge.lock";
  int Fd = ::open(LockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (Fd < 0)
    return error(fmt::format("cannot open '{}': {}", LockPath, std::strerror(errno)));
  while (::flock(Fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  auto Rows = readParts(OutDir);
  llvm::Expected<size_t> Result = size_t(0);
  if (!Rows) {
    Result = Rows.takeError();
  } else {
    std::vector<ResultRow> Sorted = sortedUnique(std::move(*Rows));
    std::string Csv = csvHeader();
    for (const ResultRow &R : Sorted)
      Csv += csvLine(R);
    if (auto Err = writeFilesAtomic(
            {{OutDir + "/results.csv", Csv}, {OutDir + "/results.json", toJson(Sorted)}}))
      Result = std::move(Err);
    else
      Result = Sorted.size();
  }
  ::close(Fd); // Releases the lock.
  return Result;
}
