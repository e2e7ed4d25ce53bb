//===- MergeSiblings.h - Horizontal fusion of sibling convs ------*- C++ -*-===//
//
// Private to compiler/ir: canonicalize()'s last step (Canonicalize.cpp), in a
// file of its own because it is the one step that rebuilds the graph's layer
// order rather than erasing layers.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_MERGESIBLINGS_H
#define SNOW_IR_MERGESIBLINGS_H

#include "snow/ir/Graph.h"

namespace snow::ir::detail {

/// Horizontal fusion: convs that read the same tensor with the same window
/// and post-processing (an inception block's reduce convs) become one conv
/// over all their output channels, and each former conv a slice of its
/// output under the same name, read where the conv was. Run last: the other
/// fusions must have settled each conv's relu and activation first. A graph
/// merged once has no mergeable siblings left. With \p IntoConcats (one
/// format everywhere) a conv whose output goes into a concat merges too.
void mergeSiblings(Graph &G, bool IntoConcats);

} // namespace snow::ir::detail

#endif
