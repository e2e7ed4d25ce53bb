//===- FaultText.cpp - The RTL's fault codes in the simulator's words -----===//
//
// One case per code of Faults.def, each formatting the message of the
// simulator's check it mirrors. Operands the RTL does not send (an
// instruction's immediate, a unit's name) come from the faulting instruction.
//
//===----------------------------------------------------------------------===//

#include "FaultText.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::rtl;

namespace {

/// The RTL numbers its units 0 load, 1 compute, 2 store; the ISA from 1.
const char *rtlUnitName(uint64_t U) { return isa::unitName(isa::Unit(U + 1)); }

/// Buffer operands of BUF_EMPTY / BUF_RANGE, as the simulator names them.
const char *bufferName(uint64_t B) {
  switch (B) {
  case 0:
    return "maps buffer";
  case 1:
    return "weights buffer";
  case 2:
    return "maps buffer (pool source)";
  default:
    return "maps buffer (pool result)";
  }
}

std::string untilText(uint64_t Until) {
  return Until == UINT64_MAX ? "" : fmt::format(" until cycle {}", Until);
}

} // namespace

std::string snow::rtl::faultReason(const isa::Program &P, const std::vector<isa::Inst> &Code,
                                   const RunOutcome &R) {
  const isa::HwConfig &Hw = P.Hw;
  const uint64_t A0 = R.FaultArg[0], A1 = R.FaultArg[1], A2 = R.FaultArg[2];
  const isa::Inst I = R.Pc < Code.size() ? Code[R.Pc] : isa::Inst();
  switch (FaultCode(R.FaultCode)) {
  case FaultCode::NONE:
    return "not a unit operation";
  case FaultCode::PC_END:
    return fmt::format("pc ran past the end of the program ({} instructions) without halt", A0);
  case FaultCode::LAYER:
    return fmt::format("layer {} is not in the program's layer table ({} layers)", I.imm, A1);
  case FaultCode::MASK:
    return fmt::format("CU mask {:#x} is empty or names CUs beyond the {} present", A0, Hw.cus());
  case FaultCode::VMAC_IDX:
    return fmt::format("vMAC index {} out of range ({} per CU)", A0, Hw.VmacsPerCu);
  case FaultCode::CU_IDX:
    return fmt::format("CU index {} out of range ({} CUs)", A0, Hw.cus());
  case FaultCode::DRAM_ALIGN:
    return fmt::format("DRAM address {:#x} or stride {} is not 2-byte aligned", A0, int64_t(A1));
  case FaultCode::DRAM_RANGE:
    return fmt::format("DRAM access [{:#x}, {:#x}) is outside DRAM ({} MiB)", int64_t(A0),
                       int64_t(A1), Hw.dramBytes() >> 20);
  case FaultCode::BUF_EMPTY:
    return fmt::format("{} access is empty (rows and len must be > 0)", bufferName(A0));
  case FaultCode::BUF_RANGE:
    return fmt::format("{} access [{}, {}) is out of range (size {})", bufferName(A0), A1, A2,
                       A0 == 1 ? Hw.weightsWords() : Hw.mapsElems());
  case FaultCode::PIX:
    return fmt::format("pix={} asks for {} pixel groups, which do not divide the {} vMACs of a CU",
                       A0, uint64_t(1) << A0, Hw.VmacsPerCu);
  case FaultCode::WPIX:
    return Hw.wpixFault(unsigned(A0), unsigned(A1));
  case FaultCode::SUM:
    return Hw.sumFault();
  case FaultCode::POOL_WORDS:
    return fmt::format("words={} asks for {} lane words, more than the {} a pool computes at once",
                       A0, A0 + 1, Hw.poolWords());
  case FaultCode::ACC_INDEX:
    return fmt::format("accumulator {} out of range ({})", A0, Hw.AccEntries);
  case FaultCode::ACC_RANGE:
    return fmt::format("accumulators [{}, {}) out of range ({})", A0, A1, Hw.AccEntries);
  case FaultCode::HAZARD_WRITING:
    return fmt::format("{} bank {} of the {} buffer while the {} unit is still writing it{} "
                       "(missing synchronization)",
                       (A0 >> 17) & 1 ? "writes" : "reads", A0 & 0xffff,
                       (A0 >> 16) & 1 ? "weights" : "maps", rtlUnitName((A0 >> 24) & 0xff),
                       untilText(A1));
  case FaultCode::HAZARD_READING:
    return fmt::format("writes bank {} of the {} buffer while the {} unit is still reading it{} "
                       "(missing synchronization)",
                       A0 & 0xffff, (A0 >> 16) & 1 ? "weights" : "maps",
                       rtlUnitName((A0 >> 24) & 0xff), untilText(A1));
  case FaultCode::DRAM_ORDER:
    // Bit 32: the faulting transfer is a store, so the one in flight reads.
    return fmt::format("DRAM [{:#x}, {:#x}) is still being {} by pc {} (missing "
                       "synchronization between load and store units)",
                       A0, A1, (A2 >> 32) & 1 ? "read" : "written", A2 & 0xffffffff);
  case FaultCode::DEADLOCK: {
    std::string Why;
    const uint64_t Heads[3] = {A0, A1, A2};
    for (unsigned U = 0; U < 3; ++U) {
      if ((Heads[U] >> 32) & 1)
        continue; // queue empty
      uint32_t Pc = uint32_t(Heads[U]);
      isa::Inst H = Pc < Code.size() ? Code[Pc] : isa::Inst();
      Why += fmt::format("{}the {} unit waits at pc {} ({}) on semaphore {} (count 0)",
                         Why.empty() ? "" : "; ", rtlUnitName(U), Pc, isa::disassemble(H), H.idx);
    }
    if ((A0 >> 33) & 1) // the control core had not halted
      Why += fmt::format("{}the control core is stalled at pc {} on a full queue",
                         Why.empty() ? "" : "; ", R.CtrlPc);
    return "deadlock: " + Why;
  }
  case FaultCode::SIGNALS:
    return fmt::format("the {} unit already has {} signals waiting for its operations to "
                       "complete",
                       isa::unitName(isa::opInfo(I.Op).U), A0);
  case FaultCode::FILL_OVER_LOAD:
    // arg0/arg1: the fill's / the load's maps extent, lo | hi << 32; arg2: the load's pc.
    return fmt::format("fills maps [{}, {}) while the ld.map at pc {} is still writing "
                       "[{}, {}) (the load unit does not order them)",
                       A0 & 0xffffffff, A0 >> 32, A2, A1 & 0xffffffff, A1 >> 32);
  }
  return fmt::format("the RTL reported fault code {}, which rtl/gen/Faults.def does not define",
                     unsigned(R.FaultCode));
}
