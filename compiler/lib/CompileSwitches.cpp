//===- CompileSwitches.cpp - The planner's switches, named once ----------===//
//
// Every planner switch of CompileOptions that snowc turns off with a flag of
// its own (--no-NAME): its name, its member and what the program does
// without it. snowc makes its flags from this table, planningKey() reads the
// switches' bits from it, and layerSwitches() names those a single layer
// may turn off (--layer-off, --tune): adding a switch is a member of
// CompileOptions and a line here.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"

using namespace snow;
using namespace snow::compiler;

const std::vector<CompileSwitch> &snow::compiler::compileSwitches() {
  // (In the order of snowc's --help before the table: switches are not
  // looked up by position.)
  static const std::vector<CompileSwitch> Switches = {
      {"double-buffer", &CompileOptions::DoubleBuffer, "Do not overlap loads with compute"},
      {"loop-reorder", &CompileOptions::LoopReorder, "Always keep kernels stationary"},
      {"full-depth", &CompileOptions::FullDepthMaps,
       "Reload a 1-wide kernel's tile chunk by chunk for each weight chunk, not "
       "keep all its channels on chip"},
      {"prefetch-windows", &CompileOptions::PrefetchWindows,
       "Plan every conv as if its first weights were prefetched under the layer "
       "before, however long that layer's last step"},
      {"remainder-tiles", &CompileOptions::RemainderTiles,
       "Plan a conv's output groups beyond whole rounds of CUs on the tiles of "
       "the others, not on smaller tiles of their own"},
      {"gather", &CompileOptions::GatherStrided, "Load whole regions for 1x1 strided convs"},
      {"split-channels", &CompileOptions::SplitChannels,
       "CUs always take different tiles, never different output channels of one "
       "tile"},
      {"balance", &CompileOptions::BalanceRounds, "Do not pack rounds of CU work by tile size"},
      {"grouped-vdw", &CompileOptions::GroupedVdw,
       "Run grouped convolutions as dense ones with zero cross-group weights, "
       "never per group on vdw"},
      {"multi-pixel", &CompileOptions::MultiPixel,
       "Never give the vMACs of a CU different pixels (vmacp), even where lanes "
       "would idle"},
      {"wide-traces", &CompileOptions::WideTraces,
       "Never run multi-pixel traces as widened vmac traces with shifted weights"
       " (vmacp only)"},
      {"copied-windows", &CompileOptions::CopiedWindows,
       "Never trace two pixels a step from a conv's window and a shifted copy of"
       " it in another bank"},
      {"banked-reads", &CompileOptions::BankedReads,
       "Never split a 1x1 conv's maps over two banks to read two pixels a step "
       "(vmacp in one bank only)"},
      {"schedule", &CompileOptions::ScheduleLayers, "Run layers in the model's order"},
      {"balance-loads", &CompileOptions::BalanceLoads,
       "Issue each step's loads all at once, before the previous step's traces"},
      {"early-weights", &CompileOptions::EarlyWeights,
       "Load a conv's first weights after the maps of the pool before it, not "
       "before them"},
      {"spread-weights", &CompileOptions::SpreadWeights,
       "Load a layer's first weights in the last step of the layer before, not "
       "spread over its steps that keep one weight set"},
      {"top-weights", &CompileOptions::TopWeights,
       "Load a layer's first weights into a bank once the layer before has "
       "done with it, not at its top over that layer's steps"},
      {"defer-piece-stores", &CompileOptions::DeferPieceStores,
       "Store a fused 1x1 conv's slices of a step before its producer's next "
       "step, not after that step's compute"},
      {"dma-loops", &CompileOptions::DmaLoops, "Unroll every DMA operation (larger code)"},
      {"precise-deps", &CompileOptions::PreciseLayerDeps,
       "Every layer waits for the previous layer's stores"},
      {"shared-pool-regions", &CompileOptions::SharePoolRegions,
       "Load a pipelined pool's maps into an input region of their own, not into"
       " the banks the conv beside it leaves unused"},
      {"two-pools-beside", &CompileOptions::TwoPoolsBeside,
       "Run at most one pool beside a conv (not also a pool of its output beside"
       " a conv that hosts a pool of older layers)"},
      {"pools-between-chunks", &CompileOptions::PoolsBetweenChunks,
       "Run a pipelined pool's steps only after the steps of the conv beside it "
       "that write an output group, not between its chunks"},
      {"start-on-rows", &CompileOptions::StartOnRows,
       "A layer that reads the conv before it waits for all of that conv's "
       "stores, not only for the rows it reads"},
      {"start-on-channels", &CompileOptions::StartOnChannels,
       "A layer that reads some channels of the conv before it waits for the "
       "rows of all its output groups, not only of those channels"},
      {"start-after-host", &CompileOptions::StartAfterHost,
       "A conv that reads a pool run beside another conv waits for the pool's "
       "last stores, not only for that conv's"},
      {"full-depth-pairs", &CompileOptions::FullDepthPairs,
       "A fused depthwise producer of one group of tiles loads its input chunk "
       "by chunk into the first bank of either input region, not full depth into"
       " one region"},
      {"pipeline-pools", &CompileOptions::PipelinePools,
       "Run each pooling layer after the conv it reads, not beside it as the "
       "conv stores the rows it reads"},
      {"mixed-windows", &CompileOptions::MixedWindows,
       "Give a round of a 1x1 conv computing its depthwise reader's windows only"
       " windows of one padding shape (no zeroing of one CU's padding while the "
       "others skip it)"},
      {"clipped-windows", &CompileOptions::ClippedWindows,
       "In such a round of windows of different padding, have every CU trace its"
       " whole window, padding included, rather than its pixels inside the map"},
      {"pad-pixels", &CompileOptions::PadPixels,
       "Store every tensor with a pixel stride of its channels, even where its "
       "pixels are not whole DRAM bursts and layers move it in channel groups"},
      {"blocked-concats", &CompileOptions::BlockedConcats,
       "Lay every concat out as one tensor, its inputs' channels side by side in"
       " each pixel, even where their runs start or end inside DRAM bursts"},
      {"fuse-conv-pools", &CompileOptions::FuseConvPools,
       "Do not fuse a conv with the pool that alone reads it (the conv stores "
       "its output and the pool loads it)"},
      {"fuse-expansions", &CompileOptions::FuseExpansions,
       "Do not fuse a 1x1 conv with the depthwise conv that alone reads it (the "
       "1x1 conv stores its output and the depthwise conv loads it)"},
      {"fuse-blocks", &CompileOptions::FuseBlocks,
       "Do not fuse an inverted residual block's projection with the expansion /"
       " depthwise window pair before it (the depthwise conv stores its output "
       "and the projection loads it)"},
      {"host-block-pools", &CompileOptions::HostBlockPools,
       "Do not have a depthwise conv average its output in blocks for the "
       "average pool that reads it (the pool loads the map back)"},
      {"pin-pair-weights", &CompileOptions::PinPairWeights,
       "Load a fused depthwise / 1x1 pair's weights for each group of tiles and "
       "output group, even where they all fit the weights buffer at once"},
      {"dw-pixel-pairs", &CompileOptions::DwPixelPairs,
       "Trace one pixel an entry in a depthwise conv of half an output group's "
       "channels or fewer (half its lanes idle)"},
      {"dw-halves", &CompileOptions::DwHalves,
       "Trace one pixel an entry in a stride-2 depthwise conv whose producer computes "
       "its windows (written in column order, not even columns then odd)"},
      {"dw-quarters", &CompileOptions::DwQuarters,
       "Trace one pixel an entry in a stride-1 depthwise conv whose projection reads "
       "four pixels a step from four banks (its producer writing its windows in column "
       "order, not by column mod 4)"},
      {"even-rows", &CompileOptions::EvenRows,
       "Tile rows in blocks of the tile's height and a shorter last one, never "
       "in blocks of even sizes"},
      {"chunk-banks", &CompileOptions::ChunkBanks,
       "Interleave a full-depth depthwise producer's chunks in every pixel of "
       "its region (its traces wait for all of them)"},
      {"spread-map-loads", &CompileOptions::SpreadMapLoads,
       "Load a conv step's new maps one step ahead, not tile by tile over the "
       "steps since its input region was freed"},
      {"early-residuals", &CompileOptions::EarlyResiduals,
       "Load a fused 1x1 conv's residual one step ahead of its writeback, not "
       "half way through its group of tiles' steps"},
      {"early-block-windows", &CompileOptions::EarlyBlockWindows,
       "Load a block triple's first windows one step ahead of its first step, "
       "not over the last steps of the block triple before it"},
      {"feed-next", &CompileOptions::FeedNext,
       "Load a 1x1 conv's maps from DRAM where the conv before it, on the same "
       "tiles, could write them into its input region as well as its output"},
      {"spread-group-loads", &CompileOptions::SpreadGroupLoads,
       "Load a full-depth fused producer's next group of tiles at once, two "
       "steps ahead"},
      {"fuse-dense", &CompileOptions::FuseDense,
       "Do not fuse a dense 1x1 conv with the 1x1 convs right after it (the "
       "producer stores its output and writes it on chip for them)"},
      {"fuse-concats", &CompileOptions::FuseConcats,
       "Store the convs a concat joins and read the concat back, never computing"
       " them on chip for the 1x1 convs that read it"},
      {"four-bank-areas", &CompileOptions::FourBankAreas,
       "Read a concat pair's area at most two pixels a step from two banks, "
       "never four from four banks across both input regions"},
      {"split-triples", &CompileOptions::SplitTriples,
       "Never run a block triple of a one-tile map on every CU at once (its "
       "projection's input channels split over the CUs)"},
      {"large-triple-tiles", &CompileOptions::LargeTripleTiles,
       "Keep a block triple's projection tile in half the accumulators (its "
       "windows then overlap more)"},
      {"whole-map-windows", &CompileOptions::WholeMapWindows,
       "Never give a window pair's producer a whole input region for a whole-map"
       " window that does not fit one bank (its expansion then stores its output"
       " for the depthwise conv)"},
      {"colocated-weights", &CompileOptions::ColocatedWeights,
       "Load a window pair's depthwise reader's weights into the weights bank "
       "its producer does not use, never beside the producer's in one bank"},
      {"weight-riders", &CompileOptions::WeightRiders,
       "Load a depthwise conv's weights into a bank of their own, never with the"
       " load of the conv step before it"},
      {"align-slices", &CompileOptions::AlignSlices,
       "Keep the output channels of a conv read through slices in the order "
       "written, whatever output groups cut its slices"},
      {"flat-pointwise", &CompileOptions::FlatPointwise,
       "Plan every 1x1 conv on its map's rows, never on the map as one row of "
       "pixels"},
      {"beside-pairs", &CompileOptions::BesidePairs,
       "Never run a pool beside a conv fused with the 1x1 convs that read it: "
       "the pool stores its output and they load it after the conv"},
      {"fuse-depthwise", &CompileOptions::FuseDepthwise,
       "Run each depthwise conv or pool and the 1x1 convs that read it as "
       "separate layers through DRAM, never fused on chip"},
  };
  return Switches;
}
