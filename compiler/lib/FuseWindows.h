//===- FuseWindows.h - Window pairs' pieces, shared with block triples -*- C++ -*-===//
//
// Internal to snow_compiler: what FuseWindows.cpp builds a window pair
// from, which FuseBlocks.cpp builds a block triple from too (their docs
// are at their definitions).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FUSEWINDOWS_H
#define SNOW_COMPILER_FUSEWINDOWS_H

#include "Plan.h"
#include <optional>

namespace snow::compiler {

/// Whether Q is a depthwise conv that can read dense conv D's output from
/// the area.
bool depthwiseReader(const LayerPlan &Q, const LayerPlan &D);
/// Whether Q is a max or average pool that can read conv D's output from
/// the area in windows laid out as its input region (LayerPlan::framedPool),
/// Gch channels an output group.
bool framedPoolReader(const LayerPlan &Q, const LayerPlan &D, unsigned Gch);
/// P with its own layout choices undone, the start of a fused plan with
/// layer FusedWith's: one pixel a trace, no banks, copies, full depth,
/// gather or parts, map-stationary, beside nothing.
LayerPlan plainFusedPlan(const LayerPlan &P, unsigned FusedWith);
/// D planned again as a window producer of Nog output groups.
LayerPlan windowPlan(const LayerPlan &D, unsigned Nog);
/// 1 where a window producer of C channels may trace two pixels an entry,
/// else 0: at most half an output group's channels, or (Chunked: its
/// reader takes its channels in chunks of that many, each an output group
/// of the producer) any number.
unsigned producerPixLog(unsigned C, bool Chunked, const isa::HwConfig &Hw,
                        const CompileOptions &Opts);
/// The input region's bank a window producer's second pixel group may read
/// a copy of its window from (LayerPlan::CopyBanks), or 0: no copies.
unsigned windowCopyBank(const isa::HwConfig &Hw, const BufferMap &B, const CompileOptions &Opts);
/// Window producer Dn traced as Way says: 0 one pixel an entry, 1 two
/// (vmacp, or wide traces where the vMACs share a maps read port), 2 two
/// with the second pixel group reading a copy of the window in bank
/// CopyBank (windowCopyBank). False where the machine, Opts or a weights
/// bank do not allow it.
bool traceProducerWay(LayerPlan &Dn, unsigned Way, unsigned CopyBank, const isa::HwConfig &Hw,
                      const BufferMap &B, const CompileOptions &Opts);
/// The reader Qn's tile grid on its producer Dn (LayerPlan::Window).
void setWindow(LayerPlan &Dn, const LayerPlan &Qn);
/// The first plan from From on (of the next 8) of the layer reading layer I.
size_t readerAfter(const std::vector<LayerPlan> &Plans, size_t From, unsigned I);
/// Whether a round of producer Dn and reader Q may mix window paddings.
bool mixableWindows(const LayerPlan &Dn, const LayerPlan &Q, const CompileOptions &Opts);
/// What fusing Q with the 1x1 convs that read it saves at most: its
/// output's round trip through DRAM.
uint64_t pairSaving(const LayerPlan &Q, const isa::HwConfig &Hw);
/// Whether D is a dense conv that can compute its reader's windows.
/// Chunked: its kernel may take several chunks of a lane group's
/// channels (a split triple's expansion, FuseSplitTriple.cpp), so need not
/// fit a weights bank whole.
bool windowProducer(const LayerPlan &D, const BufferMap &B, bool Chunked = false);
/// The estimated cycles of the cheapest window pair of producer D and
/// reader Q, if one fits.
std::optional<uint64_t> windowPairCycles(const LayerPlan &D, const LayerPlan &Q,
                                         const isa::HwConfig &Hw, const BufferMap &B,
                                         const CompileOptions &DOpts);
/// Round Rd of window producer Win (ExtR x ExtC the largest of its CUs'
/// windows' pixels inside the map), if Mixed: Clipped where Clip and every
/// CU's window has room for that many at its place, else traced whole.
void clipMixedRound(Round &Rd, const LayerPlan &Win, bool Clip);
/// Win's tiles by the shape (Mixed: the extent) of their windows.
std::vector<std::vector<unsigned>> windowGroups(const LayerPlan &Win, bool Mixed);

} // namespace snow::compiler

#endif
