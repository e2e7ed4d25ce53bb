//===- LowerWindows.cpp - A window producer's writeback ------------------===//
//
// A window pair's producer (FuseWindows.cpp, docs/compiler.md steps 9c and
// 9d) writes its output tile back into the area laid out as its reader's
// input region: each traced row at its place in the window, the window's
// padding zeroed; in a Mixed round each CU's own padding, in a Clipped one
// each window's rows at its place, by vwbs the other CUs skip. And a
// conv's writeback again into the next conv's input region, into each
// CU's window the same way (FeedNext.cpp). The rest of a step's compute
// and writeback is Lower.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "Rounds.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

void Lowerer::windowWriteBack(const Step &S, unsigned RowBegin, unsigned Rows) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const Round &Rd = S.round();
  // Every tile of the round has a window of one shape (FuseWindows.cpp:
  // windowRounds), so its reader's window lies in the same place for all
  // CUs: rows and columns [Lo, Hi) of this layer's output, of which the
  // round traced those inside the map (Valid columns; ExtC, a whole number
  // of entries of pix() pixels). Each traced row goes to its place in the
  // window, laid out as the reader's input region (Window.AreaCols pixels
  // a row, G / pix() elements a pixel).
  // A Mixed round's windows differ in padding (Round::Mixed): every CU
  // traced its whole window, each row goes to its place, and each CU's
  // padding is zeroed after the last band by vwbs the other CUs skip. A
  // Clipped one's CUs traced their pixels inside the map: each window's
  // rows go to its place by vwbs the CUs of other places skip, its padding
  // zeroed as a Mixed round's (rows and columns a CU traced past its own
  // pixels land there, FuseWindows.cpp: clipMixedRound).
  const unsigned T = unsigned(Rd.Cus[0].Tile);
  const LayerPlan::WindowShape Shape = P.windowShape(T);
  const unsigned Top = Rd.Mixed ? 0 : Shape.Top, Left = Rd.Mixed ? 0 : Shape.Left;
  const unsigned Width = Shape.Width, Height = Shape.Height;
  const unsigned Pix = P.pix(), PixElems = G / Pix, Entries = Rd.ExtC / Pix;
  const unsigned Valid = Rd.Mixed ? Width : P.validCols(T);
  const unsigned RowElems = P.Window.AreaCols * PixElems;
  const uint32_t Window0 = midBase(S);
  // The window's padding (outside the map) gets zeros, written back from
  // any entries with a shift that leaves none of their bits (round half
  // up: (acc + 2^62) >> 63 = 0 for any 48-bit acc). An entry moves pix()
  // pixels, so zeros and a row's last entry may run into the pixels after
  // them: each row's padding on the left is written before the row (after
  // the row before, which may have run into it), its padding on the right
  // after it; the rows above the map before the first band, those below
  // after the last (the area keeps an entry of slack after the window).
  auto Zeros = [&](uint32_t Addr, unsigned N, unsigned Stride, uint32_t Skip = 0) {
    for (unsigned E0 = 0; E0 < N; E0 += Hw.AccEntries) {
      Inst Z = accMove(Opcode::VWB, std::min(N - E0, Hw.AccEntries), Stride);
      Z.shift = 63;
      Z.skip = Skip;
      E.li(4, 0);
      E.li(9, Addr + E0 * Stride);
      E.emit(Z);
    }
  };
  // NRows rows of N entries (accumulator entries 0 on), RowElems apart, in
  // one vwb (its len and cstride): one writeback, which runs beside the
  // next traces where the machine overlaps them (writeback_overlap), not
  // one a row.
  auto Grid = [&](Inst I, uint32_t Addr, unsigned NRows, unsigned N) {
    I.rows = NRows;
    I.len = N;
    I.bstride = RowElems;
    I.cstride = G;
    E.li(4, 0);
    E.li(9, Addr);
    E.emit(I);
  };
  // Whether rows of N entries from column Col fit one vwb: within the
  // accumulators, no row's last entry running into the next row.
  auto GridFits = [&](unsigned NRows, unsigned Col, unsigned N) {
    return NRows > 1 && NRows * N <= Hw.AccEntries && Col + N * Pix <= P.Window.AreaCols;
  };
  auto ZeroGrid = [&](uint32_t Addr, unsigned NRows, unsigned N) {
    Inst Z = accMove(Opcode::VWB, 1, G);
    Z.shift = 63;
    Grid(Z, Addr, NRows, N);
  };
  const unsigned WidthEntries = ceilDiv(Width, Pix);
  if (RowBegin == 0) {
    if (GridFits(Top, 0, WidthEntries))
      ZeroGrid(Window0, Top, WidthEntries);
    else
      for (unsigned Y = 0; Y < Top; ++Y)
        Zeros(Window0 + Y * RowElems, WidthEntries, G);
  }
  Inst Wb = accMove(Opcode::VWB, Entries, G);
  Wb.shift = L.InFrac + L.WFrac - L.writebackFrac();
  Wb.relu = L.Relu;
  Wb.lut = !L.QLut.empty();
  if (P.writesPhases()) {
    // Each phase's entries (traced a phase at a time, Lowerer::convLoop),
    // every row of them in one vwb: a phase's even number of pixels a row,
    // so no entry runs into the next phase or row. (Its rounds are all
    // Mixed, tripleRounds and windowRounds: each CU's padding is zeroed
    // below.)
    assert(Rd.Mixed && !Rd.Clipped && "a producer in phases traces its whole windows");
    for (unsigned Side = 0, Entry0 = 0; Side < P.phases(); ++Side) {
      const unsigned N = LayerPlan::phaseEntries(P.phases(), Side, Rd.ExtC);
      if (!N)
        continue; // (a vwb of len 0 writes one entry a row)
      Inst I = Wb;
      I.rows = Rows;
      I.len = N;
      I.bstride = RowElems;
      I.cstride = G;
      E.li(4, Entry0);
      Entry0 += Rows * N;
      E.li(9, Window0 + RowBegin * RowElems + Side * P.phasePixels() * PixElems);
      E.emit(I);
    }
  } else if (Rd.Clipped) {
    const auto Places = distinctMasks(Rd, [&](const Work &W) {
      const LayerPlan::WindowShape S = P.windowShape(unsigned(W.Tile));
      return std::make_pair(S.Top, S.Left);
    });
    for (const auto &[Place, Mask] : Places) {
      Wb.skip = AllMask & ~Mask;
      const uint32_t Row0 = Window0 + (Place.first + RowBegin) * RowElems + Place.second * PixElems;
      if (GridFits(Rows, Place.second, Entries)) {
        Grid(Wb, Row0, Rows, Entries);
        continue;
      }
      for (unsigned R = 0; R < Rows; ++R) {
        E.li(4, R * Entries);
        E.li(9, Row0 + R * RowElems);
        E.emit(Wb);
      }
    }
  } else if (const unsigned Right = Width - Left - Valid;
             GridFits(Rows, 0, ceilDiv(Left, Pix) + Entries) &&
             GridFits(Rows, Left + Valid, ceilDiv(Right, Pix)) && Left % Pix == 0 &&
             Valid % Pix == 0) {
    // No zeros or row running into another's pixels: the rows' left
    // padding, the rows, then their right padding, each in one vwb, write
    // what the row-by-row order writes.
    const uint32_t Row0 = Window0 + (Top + RowBegin) * RowElems;
    if (Left)
      ZeroGrid(Row0, Rows, Left / Pix);
    Grid(Wb, Row0 + Left * PixElems, Rows, Entries);
    if (Right)
      ZeroGrid(Row0 + (Left + Valid) * PixElems, Rows, ceilDiv(Right, Pix));
  } else {
    for (unsigned R = 0; R < Rows; ++R) {
      const uint32_t Row = Window0 + (Top + RowBegin + R) * RowElems;
      if (Left)
        Zeros(Row, ceilDiv(Left, Pix), G);
      E.li(4, R * Entries);
      E.li(9, Row + Left * PixElems);
      E.emit(Wb);
      if (Left + Valid < Width)
        Zeros(Row + (Left + Valid) * PixElems, ceilDiv(Width - Left - Valid, Pix), G);
    }
  }
  if (RowBegin + Rows < Rd.ExtR)
    return;
  if (Rd.Mixed) {
    // Each distinct window's padding: rows above and below the map, a
    // column strip (an entry a row) for each run of columns left and right
    // of it. An entry moves pix() pixels: a run of fewer runs into the pixel
    // after it (the row's next column, or the next row's first), which an
    // accumulator entry keeps meanwhile (vpre, then vwb back, exact: shift
    // 0, no relu or table), up to the entries the plan may use a time.
    const unsigned Keep = P.accLimit(Hw.AccEntries);
    auto ZeroRun = [&](uint32_t Addr, unsigned NPix, unsigned Count, unsigned Stride,
                       uint32_t Skip) {
      const unsigned Entries = ceilDiv(NPix, Pix), Spill = Entries * Pix - NPix;
      auto Strip = [&](uint32_t At, unsigned N) { // N rows of the run
        if (N == 1)
          return Zeros(At, Entries, G, Skip);
        for (unsigned En = 0; En < Entries; ++En)
          Zeros(At + En * G, N, Stride, Skip);
      };
      if (!Spill)
        return Strip(Addr, Count);
      for (unsigned R0 = 0; R0 < Count; R0 += Keep) {
        const unsigned N = std::min(Count - R0, Keep);
        const uint32_t At = Addr + R0 * Stride, After = At + NPix * PixElems;
        auto Move = [&](Opcode Op) {
          Inst I = accMove(Op, N, Stride);
          I.init = Op == Opcode::VPRE;
          E.li(4, 0);
          E.li(9, After);
          E.emit(I);
        };
        Move(Opcode::VPRE);
        Strip(At, N);
        Move(Opcode::VWB);
      }
    };
    const auto Pads =
        distinctMasks(Rd, [&](const Work &W) { return P.windowShape(unsigned(W.Tile)); });
    // In phases, columns [A, B) are the phase's own run in each phase (in
    // halves its even ones from A / 2 on in the first, its odd ones in the
    // second), and a padding row the area's whole row.
    const unsigned N = P.phases();
    auto PhaseRuns = [&](unsigned A, unsigned Bx, uint32_t Skip) {
      for (unsigned Side = 0; Side < N; ++Side) {
        const unsigned F = A + (Side + N - A % N) % N;
        if (F < Bx)
          ZeroRun(Window0 + (Side * P.phasePixels() + F / N) * PixElems, (Bx - 1 - F) / N + 1,
                  Height, RowElems, Skip);
      }
    };
    const unsigned RowPixels = P.writesPhases() ? P.Window.AreaCols : Width;
    for (const auto &[Pad, Mask] : Pads) {
      const uint32_t Skip = AllMask & ~Mask;
      for (unsigned Y = 0; Y < Pad.Top; ++Y)
        ZeroRun(Window0 + Y * RowElems, RowPixels, 1, 0, Skip);
      for (unsigned Y = Height - Pad.Bottom; Y < Height; ++Y)
        ZeroRun(Window0 + Y * RowElems, RowPixels, 1, 0, Skip);
      if (P.writesPhases()) {
        PhaseRuns(0, Pad.Left, Skip);
        PhaseRuns(Width - Pad.Right, Width, Skip);
        continue;
      }
      if (Pad.Left)
        ZeroRun(Window0, Pad.Left, Height, RowElems, Skip);
      if (Pad.Right)
        ZeroRun(Window0 + (Width - Pad.Right) * PixElems, Pad.Right, Height, RowElems, Skip);
    }
    return;
  }
  for (unsigned Y = Top + Rd.ExtR; Y < Height; ++Y)
    Zeros(Window0 + Y * RowElems, WidthEntries, G);
}

void Lowerer::feedWriteBack(const Step &S, const Inst &Wb, unsigned RowBegin, unsigned Rows,
                            uint32_t At) {
  const LayerPlan &P = *S.P;
  const Round &Rd = S.round();
  // Again, where the next conv reads it (FeedNext.cpp): as in the output
  // region (At: the band's first entry there), or each CU's tile at its
  // place in a window, a row of entries a window row.
  E.li(4, P.AccBase);
  const unsigned Og = Rd.firstOg();
  if (S.FeedAt.empty()) {
    E.li(9, B.InBase[S.FeedBuf] + Og * S.FeedSpan + At);
    E.emit(Wb);
    return;
  }
  Inst Copy = Wb;
  Copy.rows = Rows;
  Copy.len = Rd.ExtC;
  Copy.bstride = S.FeedPitch;
  Copy.cstride = S.FeedStride;
  const uint32_t OgAt =
      S.FeedTo->PerBank ? S.FeedTo->chunkOffset(Og, Hw.mapsBankElems()) : Og * S.FeedSpan;
  for (auto [Place, Mask] : S.FeedAt) {
    E.li(9, B.InBase[S.FeedBuf] + Place + RowBegin * S.FeedPitch + OgAt);
    Copy.skip = AllMask & ~Mask;
    E.emit(Copy);
  }
}
