//===- FloatConv.h - The convolution of the float evaluator ------*- C++ -*-===//
//
// Private to compiler/ir: runFloat's (FloatEval.h) convolution, in a file of
// its own because it is where calibration spends its time and is written
// for speed (FloatConv.cpp says how, and why the speed changes no bit).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_FLOATCONV_H
#define SNOW_IR_FLOATCONV_H

#include "snow/ir/Graph.h"

namespace snow::ir::detail {

/// Out (L.Out.elems() values, CHW) = L applied to In (L.In.elems()), plus
/// Residual (L.Out.elems(), or null), accumulated in double, each output in
/// the order bias, residual, then the taps by input channel, kernel row and
/// kernel column, taps in the padding skipped; then the relu if L.Relu, and
/// rounding to float. L passed checkFloatGraph.
void convFloat(const Layer &L, const float *In, const float *Residual, float *Out);

} // namespace snow::ir::detail

#endif
