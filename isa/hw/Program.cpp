//===- Program.cpp - Writing and reading the prog.bin container -----------===//
//
// The byte layout is specified in docs/program-format.md; this file is its
// only implementation. Every integer is written and read byte by byte in
// little-endian order, so the format does not depend on the host's struct
// layout or endianness.
//
// Reading is defensive: a prog.bin may be truncated, damaged or hostile. The
// checks run cheapest and most telling first (size, magic, version, CRC), then
// every length is compared with what is actually left before anything is read
// or allocated, so a corrupted count can neither read past the end nor ask for
// gigabytes of memory.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Program.h"
#include "snow/support/Crc32.h"
#include "snow/support/FileIO.h"
#include "snow/support/HugePages.h"
#include "snow/support/Text.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <array>
#include <cassert>
#include <cstring>
#include <fmt/format.h>
#include <future>
#include <optional>
#include <thread>

using namespace snow::isa;

namespace {

constexpr size_t HeaderBytes = 16;        // Magic, version, section count.
constexpr size_t SectionHeaderBytes = 16; // Tag, reserved, payload size.
constexpr size_t FooterBytes = 4;         // CRC-32.

/// The sections in the order serialize writes them. A reader accepts any
/// order but requires each exactly once.
enum SectionId { Hwcf, Modl, Code, Data, Tens, Layr, NumSections };
constexpr std::array<const char *, NumSections> SectionTags = {"HWCF", "MODL", "CODE",
                                                               "DATA", "TENS", "LAYR"};

// The smallest encodings, used to reject counts that cannot fit before
// allocating for them.
/// The largest tensor dimension a program may declare (the front ends' limit).
constexpr uint32_t MaxTensorDim = 65536;
constexpr uint64_t MinLayerBytes = 4 + 4 + 8 + 3 * 4; // Two empty strings, macs, OutC/H/W.

llvm::Error makeError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

class Writer {
public:
  std::vector<uint8_t> Out;
  uint64_t Base = 0; ///< File offset of Out[0], for the alignment of sections.

  void u32(uint32_t V) {
    for (int I = 0; I < 4; ++I)
      Out.push_back(uint8_t(V >> (8 * I)));
  }
  void u64(uint64_t V) {
    for (int I = 0; I < 8; ++I)
      Out.push_back(uint8_t(V >> (8 * I)));
  }
  void bytes(const void *P, size_t N) {
    const auto *B = static_cast<const uint8_t *>(P);
    Out.insert(Out.end(), B, B + N);
  }
  void str(const std::string &S) {
    assert(S.size() <= UINT32_MAX && "string too long for a u32 length");
    u32(uint32_t(S.size()));
    bytes(S.data(), S.size());
  }
  void tensor(const TensorInfo &T) {
    str(T.Name);
    u64(T.Addr);
    u32(T.C);
    u32(T.H);
    u32(T.W);
    u32(T.FracBits);
  }
  /// Appends a section whose payload is produced by Body, then pads to 8.
  template <typename F> void section(SectionId Id, F Body) {
    bytes(SectionTags[Id], 4);
    u32(0);
    size_t SizeAt = Out.size();
    u64(0);
    size_t Start = Out.size();
    Body();
    uint64_t Size = Out.size() - Start;
    for (int I = 0; I < 8; ++I)
      Out[SizeAt + I] = uint8_t(Size >> (8 * I));
    Out.resize(llvm::alignTo(Base + Out.size(), 8) - Base, 0);
  }
};

/// Bounds-checked little-endian reads over one region of the file. The first
/// failure is sticky: later reads return zeros, and finish() reports it. Ctx
/// ("prog.bin: section 'LAYR'") and absolute offsets make the message useful.
class Reader {
public:
  Reader(llvm::ArrayRef<uint8_t> B, uint64_t BaseOffset, std::string Ctx)
      : B(B), BaseOffset(BaseOffset), Ctx(std::move(Ctx)) {}

  uint64_t left() const { return B.size() - Pos; }
  bool failed() const { return !Err.empty(); }

  uint32_t u32(const char *Field) {
    uint32_t V = 0;
    if (take(4, Field))
      for (int I = 3; I >= 0; --I)
        V = (V << 8) | B[Pos - 4 + I];
    return V;
  }
  uint64_t u64(const char *Field) {
    uint64_t V = 0;
    if (take(8, Field))
      for (int I = 7; I >= 0; --I)
        V = (V << 8) | B[Pos - 8 + I];
    return V;
  }
  llvm::ArrayRef<uint8_t> bytes(uint64_t N, const char *Field) {
    if (!take(N, Field))
      return {};
    return B.slice(Pos - N, N);
  }
  std::string str(const char *Field) {
    uint32_t N = u32(Field);
    llvm::ArrayRef<uint8_t> S = bytes(N, Field);
    return std::string(S.begin(), S.end());
  }
  TensorInfo tensor(const char *Field) {
    TensorInfo T;
    T.Name = str(Field);
    T.Addr = u64(Field);
    T.C = u32(Field);
    T.H = u32(Field);
    T.W = u32(Field);
    T.FracBits = u32(Field);
    return T;
  }
  void fail(const std::string &Msg) {
    if (!failed())
      Err = fmt::format("{}: {}", Ctx, Msg);
  }
  /// The region must have been read exactly to its end.
  llvm::Error finish() {
    if (!failed() && left())
      fail(fmt::format("{} unexpected bytes at offset {}", left(), BaseOffset + Pos));
    return failed() ? makeError(Err) : llvm::Error::success();
  }

private:
  bool take(uint64_t N, const char *Field) {
    if (failed())
      return false;
    if (N > left()) {
      fail(fmt::format("{} needs {} bytes at offset {}, only {} left", Field, N, BaseOffset + Pos,
                       left()));
      return false;
    }
    Pos += N;
    return true;
  }

  llvm::ArrayRef<uint8_t> B;
  uint64_t BaseOffset;
  uint64_t Pos = 0;
  std::string Ctx;
  std::string Err;
};

uint32_t readU32(const uint8_t *P) {
  return uint32_t(P[0]) | uint32_t(P[1]) << 8 | uint32_t(P[2]) << 16 | uint32_t(P[3]) << 24;
}

/// A tag as text for messages; damaged tags are shown as escaped bytes.
std::string tagText(llvm::ArrayRef<uint8_t> Tag) {
  std::string S;
  for (uint8_t Ch : Tag)
    S += llvm::isPrint(Ch) && Ch != '\'' && Ch != '\\' ? std::string(1, char(Ch))
                                                       : fmt::format("\\x{:02x}", Ch);
  return S;
}

/// Checks what the byte layout cannot: the config is valid and everything that
/// lives in DRAM fits in it. Shared by the reader and the writer so that no
/// prog.bin is written that the reader would refuse.
llvm::Error checkProgram(const Program &P, const std::string &Name) {
  if (llvm::Error E = validate(P.Hw, Name + "[HWCF]"))
    return E;
  if (P.Code.empty())
    return makeError(fmt::format("{}: section 'CODE' holds no instruction; a program needs at "
                                 "least one (halt)",
                                 Name));
  // Each field named with its allowed range (docs/program-format.md).
  for (const auto &TW : {std::pair{&P.Input, "input"}, std::pair{&P.Output, "output"}}) {
    // Not a structured binding: clang 14 (the fuzzing build) cannot capture one.
    const TensorInfo *T = TW.first;
    const char *Which = TW.second;
    auto Bad = [&](const char *Field, uint64_t V, const char *Range) {
      return makeError(fmt::format("{}: section 'TENS': {} tensor '{}': {} is {}, must be {}", Name,
                                   Which, snow::escapeUntrusted(T->Name, 80), Field, V, Range));
    };
    for (auto [Field, V] : {std::pair{"C", T->C}, std::pair{"H", T->H}, std::pair{"W", T->W}})
      if (V < 1 || V > MaxTensorDim)
        return Bad(Field, V, "1..65536");
    if (T->FracBits > 15)
      return Bad("FracBits", T->FracBits, "0..15 (int16 Q(15-FracBits).FracBits)");
    if (T->Addr % 2)
      return Bad("address", T->Addr, "a multiple of 2 (int16 elements)");
  }
  for (size_t I = 0; I < P.Layers.size(); ++I) {
    const LayerInfo &L = P.Layers[I];
    for (auto [Field, V] :
         {std::pair{"OutC", L.OutC}, std::pair{"OutH", L.OutH}, std::pair{"OutW", L.OutW}})
      if (V < 1)
        return makeError(fmt::format("{}: section 'LAYR': layer {} ('{}'): {} is 0, must be at "
                                     "least 1",
                                     Name, I, snow::escapeUntrusted(L.Name, 80), Field));
  }
  uint64_t Dram = P.Hw.dramBytes();
  auto Fits = [&](uint64_t Addr, uint64_t Bytes) {
    uint64_t End = llvm::SaturatingAdd(Addr, Bytes);
    return End <= Dram;
  };
  if (!Fits(P.DataAddr, P.dataBytes()))
    return makeError(fmt::format(
        "{}: section 'DATA': {} bytes at address '{:#x}' do not fit in the {} MiB of DRAM", Name,
        P.dataBytes(), P.DataAddr, P.Hw.DramMib));
  for (const TensorInfo *T : {&P.Input, &P.Output}) {
    uint64_t Bytes = llvm::SaturatingMultiply(
        llvm::SaturatingMultiply(llvm::SaturatingMultiply(uint64_t(T->C), uint64_t(T->H)),
                                 uint64_t(T->W)),
        uint64_t(2) * std::max<uint32_t>(P.Batch, 1));
    if (!Fits(T->Addr, Bytes))
      return makeError(fmt::format("{}: section 'TENS': tensor '{}' ({}x{}x{}) at address '{:#x}' "
                                   "does not fit in the {} MiB of DRAM",
                                   Name, T->Name, T->C, T->H, T->W, T->Addr, P.Hw.DramMib));
  }
  return llvm::Error::success();
}

llvm::Error readSections(llvm::ArrayRef<uint8_t> Bytes, const std::string &Name, ProgramData What,
                         Program &P) {
  uint32_t Count = readU32(Bytes.data() + 12);
  llvm::ArrayRef<uint8_t> Body = Bytes.slice(HeaderBytes, Bytes.size() - HeaderBytes - FooterBytes);
  Reader R(Body, HeaderBytes, Name);
  // Each section takes at least its header, so a larger count is corrupt.
  if (Count > Body.size() / SectionHeaderBytes)
    return makeError(
        fmt::format("{}: section count '{}' cannot fit in {} bytes", Name, Count, Body.size()));
  std::array<llvm::ArrayRef<uint8_t>, NumSections> Payload;
  std::array<uint64_t, NumSections> Offset{};
  std::array<bool, NumSections> Seen{};
  for (uint32_t I = 0; I < Count && !R.failed(); ++I) {
    llvm::ArrayRef<uint8_t> Tag = R.bytes(4, "section tag");
    uint32_t Reserved = R.u32("section reserved field");
    uint64_t Size = R.u64("section size");
    uint64_t At = HeaderBytes + (Body.size() - R.left());
    llvm::ArrayRef<uint8_t> Data = R.bytes(Size, "section payload");
    uint64_t Pad = llvm::alignTo(Size, 8) - Size;
    llvm::ArrayRef<uint8_t> Padding = R.bytes(Pad, "section padding");
    if (R.failed())
      break;
    auto It = std::find_if(SectionTags.begin(), SectionTags.end(),
                           [&](const char *T) { return std::memcmp(T, Tag.data(), 4) == 0; });
    if (It == SectionTags.end())
      return makeError(fmt::format("{}: unknown section '{}'", Name, tagText(Tag)));
    size_t Id = It - SectionTags.begin();
    if (Seen[Id])
      return makeError(fmt::format("{}: duplicate section '{}'", Name, *It));
    if (Reserved)
      return makeError(
          fmt::format("{}: section '{}': reserved field is '{}', expected 0", Name, *It, Reserved));
    if (llvm::any_of(Padding, [](uint8_t B) { return B != 0; }))
      return makeError(fmt::format("{}: section '{}': padding is not zero", Name, *It));
    Seen[Id] = true;
    Payload[Id] = Data;
    Offset[Id] = At;
  }
  if (llvm::Error E = R.finish())
    return E;
  for (size_t Id = 0; Id < NumSections; ++Id)
    if (!Seen[Id])
      return makeError(fmt::format("{}: missing section '{}'", Name, SectionTags[Id]));

  auto Sec = [&](SectionId Id) {
    return Reader(Payload[Id], Offset[Id], fmt::format("{}: section '{}'", Name, SectionTags[Id]));
  };

  llvm::ArrayRef<uint8_t> HwText = Payload[Hwcf];
  auto Hw = parseHwConfig(std::string(HwText.begin(), HwText.end()), Name + "[HWCF]");
  if (!Hw)
    return Hw.takeError();
  P.Hw = *Hw;

  P.ModelName = std::string(Payload[Modl].begin(), Payload[Modl].end());

  if (Payload[Code].size() % InstBytes)
    return makeError(fmt::format("{}: section 'CODE': size '{}' is not a multiple of {}", Name,
                                 Payload[Code].size(), InstBytes));
  // Appended, not resized then overwritten: ResNet-50's code is 10 MB.
  const size_t NumInsts = Payload[Code].size() / InstBytes;
  snow::reserveHuge(P.Code, NumInsts);
  for (size_t I = 0; I < NumInsts; ++I)
    P.Code.push_back(loadWord(Payload[Code].data() + I * InstBytes));

  Reader D = Sec(Data);
  P.DataAddr = D.u64("DataAddr");
  llvm::ArrayRef<uint8_t> Image = D.bytes(D.left(), "data");
  if (What == ProgramData::SizeOnly) {
    P.SkippedDataBytes = Image.size();
  } else {
    P.Data.reserve(Image.size());
    snow::adviseHugePages(P.Data.data(), Image.size());
    P.Data.assign(Image.begin(), Image.end());
  }
  if (llvm::Error E = D.finish())
    return E;

  Reader T = Sec(Tens);
  P.Input = T.tensor("input tensor");
  P.Output = T.tensor("output tensor");
  // The batch is optional (absent: one frame), so single-frame programs
  // keep the bytes they had before batches existed.
  if (!T.failed() && T.left() >= 4) {
    P.Batch = T.u32("batch");
    if (!T.failed() && P.Batch == 0)
      T.fail("batch '0': a program computes at least one frame");
  }
  if (llvm::Error E = T.finish())
    return E;

  Reader L = Sec(Layr);
  uint32_t NumLayers = L.u32("layer count");
  if (!L.failed() && NumLayers > L.left() / MinLayerBytes)
    L.fail(fmt::format("layer count '{}' cannot fit in {} bytes", NumLayers, L.left()));
  if (!L.failed())
    P.Layers.reserve(NumLayers);
  for (uint32_t I = 0; I < NumLayers && !L.failed(); ++I) {
    LayerInfo Layer;
    Layer.Name = L.str("layer name");
    Layer.Type = L.str("layer type");
    Layer.Macs = L.u64("layer macs");
    Layer.OutC = L.u32("layer OutC");
    Layer.OutH = L.u32("layer OutH");
    Layer.OutW = L.u32("layer OutW");
    P.Layers.push_back(std::move(Layer));
  }
  return L.finish();
}

} // namespace

namespace {

/// A serialized program around its data image (weights: hundreds of MB for
/// VGG-16), so that the image is neither copied nor held twice: the bytes
/// before it and the bytes after it up to the CRC, which covers Head, the
/// image and TailBody in that order and follows them.
struct Serialized {
  std::vector<uint8_t> Head, TailBody;
};

Serialized serializeParts(const Program &P) {
  Serialized S;
  Writer W;
  W.bytes(ProgMagic, sizeof(ProgMagic));
  W.u32(ProgVersion);
  W.u32(NumSections);
  W.section(Hwcf, [&] {
    std::string Text = P.Hw.toYaml();
    W.bytes(Text.data(), Text.size());
  });
  W.section(Modl, [&] { W.bytes(P.ModelName.data(), P.ModelName.size()); });
  W.section(Code, [&] {
    const size_t At = W.Out.size();
    W.Out.resize(At + P.Code.size() * InstBytes);
    for (size_t I = 0; I < P.Code.size(); ++I)
      storeWord(P.Code[I], W.Out.data() + At + I * InstBytes);
  });
  // The data section by hand: its payload is the image, written apart.
  W.bytes(SectionTags[Data], 4);
  W.u32(0);
  W.u64(8 + P.dataBytes());
  W.u64(P.DataAddr);
  S.Head = std::move(W.Out);
  W.Out.clear();
  W.Base = S.Head.size() + P.dataBytes();
  W.Out.resize(llvm::alignTo(W.Base, 8) - W.Base, 0); // The data section's padding.
  W.section(Tens, [&] {
    W.tensor(P.Input);
    W.tensor(P.Output);
    if (P.Batch != 1)
      W.u32(P.Batch);
  });
  W.section(Layr, [&] {
    assert(P.Layers.size() <= UINT32_MAX && "layer count must fit a u32");
    W.u32(uint32_t(P.Layers.size()));
    for (const LayerInfo &L : P.Layers) {
      W.str(L.Name);
      W.str(L.Type);
      W.u64(L.Macs);
      W.u32(L.OutC);
      W.u32(L.OutH);
      W.u32(L.OutW);
    }
  });
  S.TailBody = std::move(W.Out);
  return S;
}

/// The file's CRC: Head, then the image, then TailBody.
uint32_t fileCrc(const Serialized &S, llvm::ArrayRef<uint8_t> Image) {
  uint32_t Crc = llvm::crc32(S.Head);
  // zlib's crc32 restarts on a null buffer, which an empty image may have.
  if (!Image.empty())
    Crc = snow::crc32(Crc, Image);
  return llvm::crc32(Crc, S.TailBody);
}

void storeU32(uint32_t V, uint8_t *Out) {
  for (int I = 0; I < 4; ++I)
    Out[I] = uint8_t(V >> (8 * I));
}

} // namespace

std::vector<uint8_t> snow::isa::serialize(const Program &P) {
  Serialized S = serializeParts(P);
  std::vector<uint8_t> Out;
  Out.reserve(S.Head.size() + P.Data.size() + S.TailBody.size() + FooterBytes);
  Out.insert(Out.end(), S.Head.begin(), S.Head.end());
  Out.insert(Out.end(), P.Data.begin(), P.Data.end());
  Out.insert(Out.end(), S.TailBody.begin(), S.TailBody.end());
  Out.resize(Out.size() + FooterBytes);
  storeU32(fileCrc(S, P.Data), Out.data() + Out.size() - FooterBytes);
  return Out;
}

namespace {
/// deserialize, with the CRC of the bytes before the footer worked out by
/// Checksum (which may read them from elsewhere than Bytes: the same file).
llvm::Expected<Program> parseChecked(llvm::ArrayRef<uint8_t> Bytes, const std::string &Name,
                                     ProgramData What,
                                     llvm::function_ref<llvm::ErrorOr<uint32_t>()> Checksum) {
  if (Bytes.size() < HeaderBytes)
    return makeError(fmt::format("{}: not a prog.bin: file is {} bytes", Name, Bytes.size()));
  if (std::memcmp(Bytes.data(), ProgMagic, sizeof(ProgMagic)) != 0)
    return makeError(
        fmt::format("{}: not a prog.bin (its first 8 bytes are not the magic 'SNOWPROG')", Name));
  uint32_t Version = readU32(Bytes.data() + 8);
  if (Version != ProgVersion)
    return makeError(fmt::format("{}: format version {}, this tool reads version {}", Name, Version,
                                 ProgVersion));
  // A file cut inside the footer cannot carry a checksum: that is truncation.
  auto Damaged = [&] {
    return makeError(fmt::format("{}: checksum mismatch: the file is damaged or truncated", Name));
  };
  if (Bytes.size() < HeaderBytes + FooterBytes)
    return Damaged();
  // The checksum covers tens of MB of weights in a large program: it runs on
  // a second thread while the sections are parsed. A mismatch is reported
  // before any parse error, as if it had been checked first.
  const uint32_t Expected = readU32(Bytes.data() + Bytes.size() - FooterBytes);
  llvm::ErrorOr<uint32_t> Crc = 0u;
  auto Check = [&] { Crc = Checksum(); };
  std::optional<std::thread> Checker;
  if (Bytes.size() >= (size_t(4) << 20))
    Checker.emplace(Check);
  else
    Check();
  Program P;
  llvm::Error E = readSections(Bytes, Name, What, P);
  if (!E)
    E = checkProgram(P, Name);
  if (Checker)
    Checker->join();
  if (!Crc) {
    llvm::consumeError(std::move(E));
    return makeError(fmt::format("cannot read '{}': {}", Name, Crc.getError().message()));
  }
  if (*Crc != Expected) {
    llvm::consumeError(std::move(E));
    return Damaged();
  }
  if (E)
    return E;
  return P;
}
} // namespace

llvm::Expected<Program> snow::isa::deserialize(llvm::ArrayRef<uint8_t> Bytes,
                                               const std::string &Name, ProgramData What) {
  return parseChecked(Bytes, Name, What, [&]() -> llvm::ErrorOr<uint32_t> {
    return snow::crc32(Bytes.drop_back(FooterBytes));
  });
}

llvm::Error snow::isa::writeProgram(const Program &P, const std::string &Path) {
  if (P.SkippedDataBytes)
    return makeError(fmt::format("{}: internal error: a program read without its constant data "
                                 "cannot be written",
                                 Path));
  return writeProgram(P, Path, [&](uint64_t Begin, uint64_t End, uint8_t *Out) {
    std::memcpy(Out, P.Data.data() + Begin, End - Begin);
  });
}

llvm::Error snow::isa::writeProgram(const Program &P, const std::string &Path,
                                    const ImageFill &Fill) {
  if (llvm::Error E = checkProgram(P, Path))
    return E;
  const Serialized S = serializeParts(P);
  const uint64_t ImageBytes = P.dataBytes();
  // Temporary file + rename, removing the temporary on any failure. The
  // image goes a window at a time: filled, added to the CRC, written. A
  // window of a few MB stays in the caches between the three; the whole
  // image mapped or buffered cost VGG-16 a page fault (and a page zeroed)
  // every 4 KiB of its 276 MB. While one window is written (the kernel's
  // copy into fresh page-cache pages, slower than the packing on this VM),
  // the next is filled and summed in the other half of the buffer.
  constexpr uint64_t Window = uint64_t(4) << 20;
  return writeFileAtomic(Path, [&](PieceWriter Write) -> llvm::Error {
    if (llvm::Error E = Write(S.Head))
      return E;
    uint32_t Crc = llvm::crc32(S.Head);
    // Two windows in one buffer, on huge pages where the OS has them (its
    // first touch is then 4 page faults, not 2,048).
    std::vector<uint8_t> Windows;
    snow::reserveHuge(Windows, 2 * std::min(Window, ImageBytes));
    Windows.resize(Windows.capacity());
    std::future<llvm::Error> Pending; // The previous window's sum and write.
    auto Finish = [&]() -> llvm::Error {
      return Pending.valid() ? Pending.get() : llvm::Error::success();
    };
    for (uint64_t Begin = 0, K = 0; Begin < ImageBytes; Begin += Window, ++K) {
      const uint64_t End = std::min(ImageBytes, Begin + Window);
      uint8_t *Buf = Windows.data() + (K % 2) * Window;
      const llvm::ArrayRef<uint8_t> Piece(Buf, End - Begin);
      Fill(Begin, End, Buf);
      // Summed here, not by the writer: the write is the slower side.
      Crc = snow::crc32(Crc, Piece);
      if (llvm::Error E = Finish())
        return E;
      Pending = std::async(std::launch::async, [&Write, Piece] { return Write(Piece); });
    }
    if (llvm::Error E = Finish())
      return E;
    Crc = llvm::crc32(Crc, S.TailBody);
    uint8_t Footer[FooterBytes];
    storeU32(Crc, Footer);
    if (llvm::Error E = Write(S.TailBody))
      return E;
    return Write(Footer);
  });
}

llvm::Expected<Program> snow::isa::readProgram(const std::string &Path, ProgramData What) {
  if (llvm::sys::fs::is_directory(Path))
    return makeError(fmt::format("cannot read '{}': it is a directory", Path));
  auto File = snow::InputFile::open(Path);
  if (!File)
    return makeError(fmt::format("cannot read '{}': {}", Path, File.getError().message()));
  // Parsed in place: a copy of a large program costs as much as the parse.
  // The checksum reads the file again in chunks rather than through the
  // mapping, which the parse touches only where it reads (a timing-only
  // simulation skips the weights): half the time (snow/support/FileIO.h).
  llvm::StringRef S = File->bytes();
  llvm::ArrayRef<uint8_t> Bytes(S.bytes_begin(), S.bytes_end());
  return parseChecked(Bytes, Path, What, [&]() -> llvm::ErrorOr<uint32_t> {
    uint32_t Crc = 0;
    if (std::error_code EC =
            File->readChunks(Bytes.size() - FooterBytes,
                             [&](llvm::ArrayRef<uint8_t> C) { Crc = snow::crc32(Crc, C); }))
      return EC;
    return Crc;
  });
}
