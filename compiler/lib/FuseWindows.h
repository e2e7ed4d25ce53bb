//===- FuseWindows.h - What the window pairs share ----------------*- C++ -*-===//
//
// Internal to snow_compiler: the pieces of the window pairs (FuseWindows.cpp:
// a conv computing its reader's windows on chip), declared apart so that a
// pass weighing other fusions can ask for the best window pair.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FUSEWINDOWS_H
#define SNOW_COMPILER_FUSEWINDOWS_H

#include "Cost.h"
#include "Plan.h"
#include <optional>
#include <vector>

namespace snow::compiler {

/// Whether plan D is a dense conv that can compute its reader's windows
/// into the area: one channel chunk, its own plan, no residual.
bool windowProducer(const LayerPlan &D, const BufferMap &B);

/// Whether plan Q is a max or average pool that can read conv D's output
/// from the area: no padding, and (no ceil mode) every window inside the
/// map, as the conv computes nothing else.
bool poolReader(const LayerPlan &Q, const LayerPlan &D);

/// Whether plan Q is a depthwise conv that can read a 1x1 conv D's output
/// from the area, chunk by chunk: its padding is written with zeros there
/// (Lowerer::windowWriteBack).
bool depthwiseReader(const LayerPlan &Q, const LayerPlan &D);

/// How many layers of G read layer I's output as dense stride-1 1x1 convs
/// (what a fused pair's consumer is, Fuse.cpp).
unsigned pointwiseReaders(const ir::Graph &G, unsigned I);

/// D planned again as the producer of a window pair: plain traces, one
/// channel chunk, the area as its output; Nog output groups.
LayerPlan windowPlan(const LayerPlan &D, unsigned Nog);

/// The reader Qn's tile grid on its producer Dn (LayerPlan::Window).
void setWindow(LayerPlan &Dn, const LayerPlan &Qn);

/// Win's tiles by the shape of their windows (rows and columns of padding
/// on each side, extent): compute instructions address every CU's buffer
/// alike, so a round's writebacks and zeros land in the same places for
/// all its CUs only if its tiles' windows have one shape
/// (Lowerer::windowWriteBack). The border tiles of each kind, the interior
/// ones.
std::vector<std::vector<unsigned>> windowGroups(const LayerPlan &Win);

/// The index in Plans of the first plan of the layer that reads layer I,
/// among the 8 plans from From on (the scheduler may have put independent
/// layers between); Plans.size(): none.
size_t readerAfter(const std::vector<LayerPlan> &Plans, size_t From, unsigned I);

/// What fusing layer Q with the 1x1 convs that read it (Fuse.cpp) saves at
/// most: its output's round trip through DRAM.
uint64_t pairSaving(const LayerPlan &Q, const isa::HwConfig &Hw);

/// A window pair's plans (FuseWindows.cpp) and their estimate.
struct WindowPair {
  LayerPlan Producer, Reader;
  Cost Estimate;
};

/// The cheapest window pair of producer D and its reader Q (a pool or a
/// depthwise conv: poolReader, depthwiseReader), if any tile fits.
std::optional<WindowPair> bestWindowPair(const LayerPlan &D, const LayerPlan &Q,
                                         const isa::HwConfig &Hw, const BufferMap &B,
                                         const CompileOptions &Opts);

} // namespace snow::compiler

#endif
