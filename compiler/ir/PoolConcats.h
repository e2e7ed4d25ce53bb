//===- PoolConcats.h - Max pools of concats pool each input ------*- C++ -*-===//
//
// Private to compiler/ir: a canonicalize() step (Canonicalize.cpp), in a file
// of its own because it adds layers rather than erasing them.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_POOLCONCATS_H
#define SNOW_IR_POOLCONCATS_H

#include "snow/ir/Graph.h"

namespace snow::ir::detail {

/// A max pool whose input is a concat that nothing else reads (GoogLeNet's
/// pool3 and pool4 after an inception block) becomes a max pool of each of
/// the concat's inputs, concatenated under the pool's name. A max pool is
/// per channel, and max pools and concats share their inputs' formats, so
/// every value and format is what it was; but each part now reads a
/// tensor one conv writes, and can run beside that conv (docs/compiler.md,
/// step 9a). The parts are named after the channels they pool,
/// `pool3[128:320]`. Returns whether anything changed.
bool poolConcatInputs(Graph &G);

} // namespace snow::ir::detail

#endif
