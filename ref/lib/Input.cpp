//===- Input.cpp - Default and .npy inputs for reference runs -------------===//
//
// Shape rules follow the .npy convention of the project (CHW, PyTorch order);
// a leading batch dimension of 1 is accepted because that is what
// `torch.save`-then-`numpy()` pipelines usually produce.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Input.h"

#include "snow/support/Npy.h"
#include "snow/support/Rng.h"
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

using namespace snow;
using namespace snow::ref;

namespace {

std::string npyShapeStr(const std::vector<uint64_t> &Shape) {
  return Shape.size() == 1 ? fmt::format("({},)", Shape[0])
                           : fmt::format("({})", fmt::join(Shape, ", "));
}

llvm::Error inputError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace

ModelInput snow::ref::defaultModelInput(const ir::Graph &G) {
  ModelInput In;
  In.Float = defaultInputValues(G.Input.elems(), G.Name);
  In.Fixed.reserve(In.Float.size());
  for (float X : In.Float)
    In.Fixed.push_back(ir::toFixed(X, G.InputFrac));
  In.Origin = "default input";
  return In;
}

llvm::Expected<ModelInput> snow::ref::readModelInput(const ir::Graph &G, const std::string &Path) {
  llvm::Expected<NpyArray> A = readNpy(Path);
  if (!A)
    return A.takeError();

  const std::vector<uint64_t> Chw = {G.Input.C, G.Input.H, G.Input.W};
  std::vector<uint64_t> Batched = Chw;
  Batched.insert(Batched.begin(), 1);
  if (A->Shape != Chw && A->Shape != Batched)
    return inputError(fmt::format("input '{}' has shape {}, but model '{}' expects {} or {}", Path,
                                  npyShapeStr(A->Shape), G.Name, npyShapeStr(Chw),
                                  npyShapeStr(Batched)));

  ModelInput In;
  In.Origin = Path;
  if (A->Type == NpyArray::DType::I16) {
    In.Fixed = std::move(A->I16);
    In.Float.reserve(In.Fixed.size());
    for (int16_t Q : In.Fixed)
      In.Float.push_back(float(std::ldexp(double(Q), -G.InputFrac)));
    return In;
  }

  // Saturation would hide a NaN as 0 or a clamp; the float path would then
  // report a NaN error with no hint of where it came from. snowsim shares
  // the policy.
  if (llvm::Error E = checkFinite(*A, Path))
    return E;
  In.Float = std::move(A->F32);
  In.Fixed.reserve(In.Float.size());
  for (size_t I = 0; I < In.Float.size(); ++I)
    In.Fixed.push_back(ir::toFixed(In.Float[I], G.InputFrac));
  return In;
}
