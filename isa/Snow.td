//===- Snow.td - The vMAC instruction set, described once ----------------===//
//
// Every instruction of the Snowflake-style accelerator is described here and
// nowhere else. snow-tblgen (isa/tblgen) turns this file into the C++ opcode
// and field tables used by the encoder, decoder, assembler and disassembler,
// into the SystemVerilog package used by rtl/, and into the table in
// docs/isa.md.
//
// Instructions are 128 bits, stored as two little-endian 64-bit words (bits
// 0-63 first). Every field has a fixed bit range shared by all instructions
// that use it, so decode is one extraction per field; the backend rejects an
// instruction whose fields overlap.
//
//===----------------------------------------------------------------------===//

// A field: a named bit range and how it is read.
//   Kind "reg"  - a scalar register number (r0..r31), printed as rN
//   Kind "uimm" - unsigned immediate
//   Kind "simm" - two's-complement immediate
class Field<string name, int lo, int width, string kind, string doc> {
  string Name = name;
  int Lo = lo;
  int Width = width;
  string Kind = kind;
  string Doc = doc;
}

def F_op      : Field<"op",      0,   8, "uimm", "opcode">;
def F_rd      : Field<"rd",      8,   5, "reg",  "destination register">;
def F_rs1     : Field<"rs1",     13,  5, "reg",  "first source register">;
def F_rs2     : Field<"rs2",     18,  5, "reg",  "second source register">;
def F_rs3     : Field<"rs3",     23,  5, "reg",  "third source register">;
def F_wpix    : Field<"wpix",    23,  3, "uimm", "ld.wgt: log2 of the pixel groups (as vmacp's pix) whose vMAC idx the load writes">;
def F_idx     : Field<"idx",     28,  4, "uimm", "vMAC index (ld.wgt), CU index (st.map) or semaphore">;
def F_imm     : Field<"imm",     32, 32, "simm", "32-bit immediate / branch offset in instructions">;
def F_dstride : Field<"dstride", 32, 32, "simm", "DRAM row stride in bytes">;
def F_shift   : Field<"shift",   32,  6, "uimm", "right shift (writeback, average) or left shift (bias)">;
def F_relu    : Field<"relu",    38,  1, "uimm", "1: clamp negative results to zero">;
def F_init    : Field<"init",    39,  1, "uimm", "1: trace starts from the bias register, not the accumulator">;
def F_lut     : Field<"lut",     39,  1, "uimm", "1: pass each written value through the CU's activation table (vwb)">;
def F_cstride : Field<"cstride", 40, 20, "uimm", "column stride of a pooling window, in elements">;
def F_value   : Field<"value",   40, 16, "simm", "fill value (int16)">;
def F_pix     : Field<"pix",     60,  4, "uimm", "log2 of the pixels a vmacp computes at once">;
def F_words   : Field<"words",   60,  4, "uimm", "lane words a vmax / vavg computes, less one (pool_words at most)">;
def F_sum     : Field<"sum",     60,  1, "uimm", "vwb: 1: write the sum of every CU's accumulators (cu_sum_writeback)">;
def F_rows    : Field<"rows",    64, 12, "uimm", "rows of a 2-D access (or accumulator entries)">;
def F_len     : Field<"len",     76, 16, "uimm", "elements (maps) or words (weights) per row">;
def F_bstride : Field<"bstride", 92, 20, "uimm", "buffer row stride (elements or words)">;
def F_mask    : Field<"mask",   112, 16, "uimm", "CU mask: the CUs whose buffers a load writes">;
def F_mult    : Field<"mult",   112, 16, "uimm", "average: multiplier applied to the window sum">;
def F_skip    : Field<"skip",   112, 16, "uimm", "vwb: CUs that do not write (bit c = CU c; 0: every CU writes)">;

//===----------------------------------------------------------------------===//
// Machine constants of the ISA contract
//===----------------------------------------------------------------------===//

// A number every consumer of the ISA must agree on. snow-tblgen writes each
// into IsaConstants.inc (C++ constexpr), snow_isa_pkg.sv (UPPER_SNAKE
// localparam), the docs table, and snowhw prints them as JSON for scripts:
// nowhere else may the value be typed (tests/isa/ConstantsOnceTest.cpp).
// Constants that follow from a field are computed from it here.
class Const<string name, int value, string doc> {
  string Name = name;
  int Value = value;
  string Doc = doc;
}

def C_InstBits : Const<"InstBits", 128,
  "bits per instruction: two little-endian 64-bit words">;
def C_NumRegs : Const<"NumRegs", 32,
  "scalar registers r0.. of the control core, 32 bits each; r0 reads 0">;
def C_NumSemaphores : Const<"NumSemaphores", 16,
  "counting semaphores, named by the idx field; all 0 at reset">;
def C_MaxPendingSignals : Const<"MaxPendingSignals", 16,
  "signals a unit may hold started but not yet fired (the RTL's per-unit signal FIFO); one more is a fault">;
def C_MaxCus : Const<"MaxCus", F_mask.Width,
  "CUs a machine may have: a CU mask has one bit per CU">;
def C_MaxVmacs : Const<"MaxVmacs", !shl(1, F_idx.Width),
  "vMACs a CU may have: ld.wgt names its vMAC in idx">;
def C_MaxRows : Const<"MaxRows", !sub(!shl(1, F_rows.Width), 1),
  "largest rows field: rows of one access, accumulator entries of one vwb / vpre">;
def C_MaxLen : Const<"MaxLen", !sub(!shl(1, F_len.Width), 1),
  "largest len field: elements or words per row of one access">;
def C_LutSegmentBits : Const<"LutSegmentBits", 8,
  "an activation table splits the int16 range into segments of 2^LutSegmentBits values, interpolated linearly">;
def C_LutEnds : Const<"LutEnds", !add(!shl(1, !sub(16, C_LutSegmentBits.Value)), 1),
  "segment ends of an activation table: T[0 .. LutEnds - 1] hold the function at the ends of its 2^(16 - LutSegmentBits) segments">;
def C_LutEntries : Const<"LutEntries", !add(C_LutEnds.Value, 1),
  "int16 entries of an activation table: its LutEnds segment ends, then its control entry T[LutEnds] (zoom and tail)">;
def C_LutZoomBits : Const<"LutZoomBits", 3,
  "low bits of an activation table's control entry that hold its zoom z: the segments cover x * 2^z, i.e. the int16 range / 2^z of x; the next bit selects the upper tail (0: T[LutEnds - 1], 1: T[LutEnds - 1] + x - 2^(15 - z)), the one after it the normalised mode">;
def C_LutScaleLsb : Const<"LutScaleLsb", 8,
  "lowest bit of the normalised mode's scale shift s in an activation table's control entry">;
def C_LutScaleBits : Const<"LutScaleBits", 4,
  "bits of the normalised mode's scale shift s: lut(x) = interp(x * 4^m) * 2^m / 2^s">;

// The unit whose queue executes an instruction.
//   ctrl    - the control core itself, one instruction per cycle
//   load    - DMA loads from DRAM into maps/weights buffers, buffer fills
//   compute - traces, pooling, bias, writeback, layer marks (all CUs in lockstep)
//   store   - DMA stores from a maps buffer to DRAM
class Inst<string mnemonic, int opcode, string unit, list<Field> operands,
           string doc> {
  string Mnemonic = mnemonic;
  int Opcode = opcode;
  string Unit = unit;
  list<Field> Operands = operands;
  string Doc = doc;
}

//===----------------------------------------------------------------------===//
// Control core
//===----------------------------------------------------------------------===//

def HALT : Inst<"halt", 0x01, "ctrl", [],
  "stop fetching; the program ends when every unit has drained">;
def NOP  : Inst<"nop",  0x02, "ctrl", [], "do nothing for one cycle">;
def LI   : Inst<"li",   0x03, "ctrl", [F_rd, F_imm], "rd = imm">;

multiclass AluRR<string mnemonic, int opcode, string doc> {
  def "" : Inst<mnemonic, opcode, "ctrl", [F_rd, F_rs1, F_rs2], doc>;
}
multiclass AluRI<string mnemonic, int opcode, string doc> {
  def "" : Inst<mnemonic, opcode, "ctrl", [F_rd, F_rs1, F_imm], doc>;
}
// Scalar arithmetic is 32-bit and wraps; shift amounts are taken mod 32.
defm ADD  : AluRR<"add",  0x10, "rd = rs1 + rs2">;
defm SUB  : AluRR<"sub",  0x11, "rd = rs1 - rs2">;
defm MUL  : AluRR<"mul",  0x12, "rd = low 32 bits of rs1 * rs2">;
defm AND  : AluRR<"and",  0x13, "rd = rs1 & rs2">;
defm OR   : AluRR<"or",   0x14, "rd = rs1 | rs2">;
defm XOR  : AluRR<"xor",  0x15, "rd = rs1 ^ rs2">;
defm SLL  : AluRR<"sll",  0x16, "rd = rs1 << rs2">;
defm SRL  : AluRR<"srl",  0x17, "rd = rs1 >> rs2 (logical)">;
defm SRA  : AluRR<"sra",  0x18, "rd = rs1 >> rs2 (arithmetic)">;
defm SLT  : AluRR<"slt",  0x19, "rd = (rs1 < rs2, signed) ? 1 : 0">;
defm ADDI : AluRI<"addi", 0x20, "rd = rs1 + imm">;
defm MULI : AluRI<"muli", 0x21, "rd = low 32 bits of rs1 * imm">;
defm ANDI : AluRI<"andi", 0x22, "rd = rs1 & imm">;
defm SLLI : AluRI<"slli", 0x23, "rd = rs1 << imm">;
defm SRLI : AluRI<"srli", 0x24, "rd = rs1 >> imm (logical)">;
defm SRAI : AluRI<"srai", 0x25, "rd = rs1 >> imm (arithmetic)">;

multiclass Branch<string mnemonic, int opcode, string cond> {
  def "" : Inst<mnemonic, opcode, "ctrl", [F_rs1, F_rs2, F_imm],
                "if rs1 " # cond # " rs2 then pc = pc + imm">;
}
defm BEQ  : Branch<"beq",  0x28, "==">;
defm BNE  : Branch<"bne",  0x29, "!=">;
defm BLT  : Branch<"blt",  0x2a, "< (signed)">;
defm BGE  : Branch<"bge",  0x2b, ">= (signed)">;

//===----------------------------------------------------------------------===//
// Load and store units (DMA between DRAM and the on-chip buffers)
//===----------------------------------------------------------------------===//

def LD_MAP : Inst<"ld.map", 0x40, "load",
  [F_rs1, F_rs2, F_rows, F_len, F_dstride, F_bstride, F_mask],
  "for r < rows: maps[cu][rs2 + r*bstride .. +len) = DRAM[rs1 + r*dstride ..] (int16), for every CU in mask">;
def LD_WGT : Inst<"ld.wgt", 0x41, "load",
  [F_rs1, F_rs2, F_idx, F_wpix, F_rows, F_len, F_dstride, F_bstride, F_mask],
  "for r < rows: weights[cu][v][rs2 + r*bstride .. +len words) = DRAM[rs1 + r*dstride ..], for every CU in mask and every vMAC v with v % (vmacs_per_cu >> wpix) = idx (wpix 0: v = idx; wpix > 0 needs wpix_loads)">;
def FILL   : Inst<"fill", 0x42, "load",
  [F_rs2, F_rows, F_len, F_bstride, F_value, F_mask],
  "for r < rows: maps[cu][rs2 + r*bstride .. +len) = value, for every CU in mask (no DRAM traffic)">;
def ST_MAP : Inst<"st.map", 0x48, "store",
  [F_rs1, F_rs2, F_idx, F_rows, F_len, F_dstride, F_bstride],
  "for r < rows: DRAM[rs1 + r*dstride ..] = maps[idx][rs2 + r*bstride .. +len)">;

//===----------------------------------------------------------------------===//
// Compute unit: every CU and every vMAC in lockstep
//===----------------------------------------------------------------------===//

def VDW   : Inst<"vdw", 0x56, "compute",
  [F_rs1, F_rs2, F_rs3, F_rows, F_len, F_bstride, F_cstride, F_init],
  "depthwise trace: acc[cu][v][rs1][lane] = (init ? bias : acc) + sum over r < rows, i < len of maps[cu][rs2 + r*bstride + i*cstride + v*lanes + lane] * weights[cu][v][rs3 + r*len + i][lane] (each lane reads its own channel)">;
def VBIAS : Inst<"vbias", 0x50, "compute", [F_rs3, F_shift],
  "bias[cu][v][lane] = sext(weights[cu][v][rs3][lane]) << shift">;
def VMAC  : Inst<"vmac", 0x51, "compute",
  [F_rs1, F_rs2, F_rs3, F_rows, F_len, F_bstride, F_init],
  "acc[cu][v][rs1][lane] = (init ? bias : acc) + sum over r < rows, i < len of maps[cu][rs2 + r*bstride + i] * weights[cu][v][rs3 + r*len + i][lane]">;
def VMACP : Inst<"vmacp", 0x57, "compute",
  [F_rs1, F_rs2, F_rs3, F_rows, F_len, F_bstride, F_cstride, F_pix, F_init],
  "multi-pixel trace: as vmac, but the vMACs form P = 2^pix groups of vmacs/P and group g reads its map values at rs2 + g*cstride: acc[cu][v][rs1][lane] = (init ? bias : acc) + sum over r < rows, i < len of maps[cu][rs2 + (v / (vmacs/P))*cstride + r*bstride + i] * weights[cu][v][rs3 + r*len + i][lane] (P must divide vmacs)">;
def VWB   : Inst<"vwb", 0x52, "compute",
  [F_rs1, F_rs2, F_rows, F_len, F_bstride, F_cstride, F_shift, F_relu, F_lut, F_skip, F_sum],
  "for every CU not in skip, for r < rows, i < n (n = len, or 1 where len is 0), e = r*n + i: maps[cu][rs2 + r*bstride + i*cstride + v*lanes + lane] = relu?(lut?(sat16(round(a >> shift)))) with a = acc[cu][v][rs1 + e][lane], or with sum (cu_sum_writeback) a = the sum over every CU c of acc[c][v][rs1 + e][lane], wrapped to acc_bits as an accumulator is (the CUs' partial sums over their shares of a conv's input channels) (rows of n entries: a tile's rows into an area of another pitch in one vwb), where lut(x) interpolates the CU's activation table (see vlut): z = T[257] & 7, w = x * 2^z; below the table (w < -32768) lut(x) = T[0]; above it (w > 32767) T[256], or with the identity tail (T[257] & 8) sat16(T[256] + x - 2^(15 - z)); within it u = w + 32768, i = u >> 8, f = u & 255, lut(x) = T[i] + floor(((T[i+1] - T[i]) * f + 128) / 256); in the normalised mode (T[257] & 16: a function with f(x / 4) = 2 f(x), rsqrt) x <= 0 gives T[0], and otherwise, with m the largest integer for which x * 4^m <= 32767 and s = (T[257] >> 8) & 15, v is that interpolation at w = x * 4^m and lut(x) = sat16(v << (m - s)) for m >= s, else floor((v + 2^(s - m - 1)) / 2^(s - m)). With shift 63 every value written is 0 (round half up: (acc + 2^62) >> 63 = 0 for any 48-bit acc), which the compiler uses to write zeros (compiler.md, step 9d); skip leaves some CUs' buffers as they are, so one vwb writes zeros over padding that only those CUs' windows have (compiler.md, step 9d)">;
def VLUT  : Inst<"vlut", 0x59, "compute", [F_rs3],
  "activation table: T[cu][e] = weights[cu][0][rs3 + e / lanes][e % lanes] for e < LutEntries (vMAC 0's weights; one word per cycle)">;
def VPRE  : Inst<"vpre", 0x55, "compute",
  [F_rs1, F_rs2, F_rows, F_bstride, F_shift, F_init],
  "for e < rows: acc[cu][v][rs1 + e][lane] = (init ? 0 : acc) + (sext(maps[cu][rs2 + e*bstride + v*lanes + lane]) << shift): preloads a residual (or an operand of an add)">;
def VMUL  : Inst<"vmul", 0x5a, "compute",
  [F_rs1, F_rs2, F_rows, F_bstride, F_shift],
  "for e < rows: acc[cu][v][rs1 + e][lane] = sat16(round(acc[cu][v][rs1 + e][lane] >> shift)) * sext(maps[cu][rs2 + e*bstride + v*lanes + lane]): the element-wise product of the accumulators (a vpre'd operand, or a trace's sums) and a map, on the lane's own multiplier">;
def VMAX  : Inst<"vmax", 0x53, "compute",
  [F_rs1, F_rs2, F_rows, F_len, F_bstride, F_cstride, F_words],
  "for i < (words + 1) * lanes: maps[cu][rs1 + i] = max over r < rows, c < len of maps[cu][rs2 + r*bstride + c*cstride + i] (words + 1 lane words at once, at most pool_words)">;
def VAVG  : Inst<"vavg", 0x54, "compute",
  [F_rs1, F_rs2, F_rows, F_len, F_bstride, F_cstride, F_mult, F_shift, F_words],
  "for i < (words + 1) * lanes: maps[cu][rs1 + i] = sat16(round((sum over window) * mult >> shift)), window and words as vmax">;
def MARK  : Inst<"mark", 0x58, "compute", [F_imm],
  "start of layer imm: the compute unit reaching it opens the layer's cycle span">;

//===----------------------------------------------------------------------===//
// Synchronization: counting semaphores, executed in a unit's queue order
//===----------------------------------------------------------------------===//

multiclass Sync<string unit, string suffix, int base> {
  def _WAIT : Inst<"wait." # suffix, base, unit, [F_idx],
    "the " # unit # " unit blocks until semaphore idx > 0, then decrements it">;
  def _SIGNAL : Inst<"signal." # suffix, !add(base, 1), unit, [F_idx],
    "increments semaphore idx once every earlier " # unit # " instruction has completed">;
}
defm SYNC_LD : Sync<"load", "ld", 0x60>;
defm SYNC_EX : Sync<"compute", "ex", 0x62>;
defm SYNC_ST : Sync<"store", "st", 0x64>;
