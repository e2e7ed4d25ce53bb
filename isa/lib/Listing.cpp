//===- Listing.cpp - A whole prog.bin as assembly that reassembles --------===//
//
// What snowdis prints. Every section of prog.bin becomes a directive that the
// assembler reads back (AsmDirectives.cpp), so `snowdis p.bin > p.s && snowasm
// p.s -o q.bin` gives q.bin == p.bin, header, weights and CRC included. The
// parts people read (hardware, tensors, layers, code) are one item per line;
// the DRAM image, hundreds of megabytes for VGG-16, is base64 at 96 bytes a
// line, the densest text that is still line-oriented and diffable.
//
//===----------------------------------------------------------------------===//

#include "AsmText.h"

#include "snow/isa/Asm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>

namespace snow::isa {

namespace {

using llvm::raw_ostream;

/// Bytes per .base64 line: a multiple of 3, so no line but the last is padded.
constexpr size_t Base64LineBytes = 96;

void printTensor(raw_ostream &OS, const char *Dir, const TensorInfo &T, const HwConfig &Hw) {
  // What the assembler assumes when the directive is absent: print nothing then.
  if (T == TensorInfo{"", 0, 0, 0, 0, Hw.ActFracBits})
    return;
  OS << Dir << " " << text::quote(T.Name) << " addr=" << text::hex(T.Addr) << " c=" << T.C
     << " h=" << T.H << " w=" << T.W << " frac=" << T.FracBits << "  # " << T.bytes()
     << " bytes, HWC int16\n";
}

void printData(raw_ostream &OS, const Program &P) {
  OS << ".data addr=" << text::hex(P.DataAddr) << " size=" << P.Data.size() << "\n";
  // Lines are built in a large buffer: one write per megabyte, not per line.
  std::string Buf;
  constexpr size_t Flush = 1 << 20;
  Buf.reserve(Flush + 256);
  llvm::ArrayRef<uint8_t> Bytes = P.Data;
  for (size_t I = 0; I < Bytes.size(); I += Base64LineBytes) {
    Buf += ".base64 ";
    text::appendBase64(Buf, Bytes.slice(I, std::min(Base64LineBytes, Bytes.size() - I)));
    Buf += '\n';
    if (Buf.size() >= Flush) {
      OS << Buf;
      Buf.clear();
    }
  }
  OS << Buf;
}

} // namespace

llvm::Error printListing(raw_ostream &OS, const Program &P, const ListingOptions &Opts) {
  llvm::Expected<std::vector<Inst>> Code = decodeProgram(P.Code);
  if (!Code)
    return Code.takeError();

  const HwConfig &Hw = P.Hw;
  OS << "# " << Opts.Source << "\n";
  if (!Opts.WithData && !P.Data.empty())
    OS << "# NOTE: printed with --no-data: the DRAM image is left out, so this listing does\n"
          "# NOT assemble back to the same prog.bin.\n";
  OS << "# hardware: " << Hw.Name << ", " << Hw.macs() << " MACs (" << Hw.Clusters << " clusters x "
     << Hw.CusPerCluster << " CUs x " << Hw.VmacsPerCu << " vMACs x " << Hw.LanesPerVmac
     << " lanes, " << llvm::format("%g", Hw.ClockMhz) << " MHz)\n";
  OS << ".hw\n";
  std::string Yaml = Hw.toYaml();
  llvm::SmallVector<llvm::StringRef, 32> Keys;
  llvm::StringRef(Yaml).trim().split(Keys, '\n');
  for (llvm::StringRef K : Keys)
    OS << "  " << K << "\n";
  OS << ".endhw\n";

  if (!P.ModelName.empty())
    OS << ".model " << text::quote(P.ModelName) << "\n";
  printTensor(OS, ".input", P.Input, Hw);
  printTensor(OS, ".output", P.Output, Hw);
  if (P.Batch != 1)
    OS << ".batch " << P.Batch << "\n";
  if (!P.Layers.empty())
    OS << "# .layer NAME TYPE MACS OUTC OUTH OUTW\n";
  for (size_t I = 0; I < P.Layers.size(); ++I) {
    const LayerInfo &L = P.Layers[I];
    OS << ".layer " << text::quote(L.Name) << " " << text::quote(L.Type) << " " << L.Macs << " "
       << L.OutC << " " << L.OutH << " " << L.OutW << "  # mark imm=" << I << "\n";
  }

  // An empty image at address 0 is what the assembler makes without .data.
  if (!P.Data.empty() || P.DataAddr != 0) {
    OS << "# data: " << P.Data.size() << " bytes at " << text::hex(P.DataAddr);
    if (Opts.WithData) {
      OS << "\n";
      printData(OS, P);
    } else {
      OS << ", left out (--no-data): this listing does not round-trip\n";
    }
  }

  OS << "# code: " << P.Code.size() << " instructions\n";
  OS << disassembleProgram(*Code, Opts.WithPc);
  return llvm::Error::success();
}

} // namespace snow::isa
