// snow_rtl_pkg.sv - types shared by the RTL's modules: the queue entry (an
// instruction with the register operands the control core read when it
// dispatched it), field accessors over the generated ISA package, and the
// descriptors the scheduler hands to the datapaths.

package snow_rtl_pkg;
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;

  /* verilator lint_off UNUSEDPARAM */
  /* verilator lint_off UNUSEDSIGNAL */

  localparam logic [63:0] NEVER = '1;
  localparam logic [31:0] NO_LAYER = '1;

  // Unit numbers of the scheduler (the ISA numbers them 1..3).
  localparam int unsigned U_LD = 0;
  localparam int unsigned U_EX = 1;
  localparam int unsigned U_ST = 2;

  typedef struct packed {
    logic [INST_BITS-1:0] inst;
    logic [31:0]  pc;
    logic [31:0]  a1, a2, a3;  // values of rs1, rs2, rs3 at dispatch
    logic [31:0]  layer;       // layer open in the control core at dispatch
  } entry_t;

  function automatic logic [F_OP_W-1:0] f_op(input logic [INST_BITS-1:0] i);
    return i[F_OP_LO +: F_OP_W];
  endfunction
  function automatic logic [F_RD_W-1:0] f_rd(input logic [INST_BITS-1:0] i);
    return i[F_RD_LO +: F_RD_W];
  endfunction
  function automatic logic [F_RS1_W-1:0] f_rs1(input logic [INST_BITS-1:0] i);
    return i[F_RS1_LO +: F_RS1_W];
  endfunction
  function automatic logic [F_RS2_W-1:0] f_rs2(input logic [INST_BITS-1:0] i);
    return i[F_RS2_LO +: F_RS2_W];
  endfunction
  function automatic logic [F_RS3_W-1:0] f_rs3(input logic [INST_BITS-1:0] i);
    return i[F_RS3_LO +: F_RS3_W];
  endfunction
  function automatic logic [F_IDX_W-1:0] f_idx(input logic [INST_BITS-1:0] i);
    return i[F_IDX_LO +: F_IDX_W];
  endfunction
  function automatic logic [F_WPIX_W-1:0] f_wpix(input logic [INST_BITS-1:0] i);
    return i[F_WPIX_LO +: F_WPIX_W];
  endfunction
  function automatic logic [F_IMM_W-1:0] f_imm(input logic [INST_BITS-1:0] i);
    return i[F_IMM_LO +: F_IMM_W];
  endfunction
  function automatic logic signed [63:0] f_dstride(input logic [INST_BITS-1:0] i);
    return 64'(signed'(i[F_DSTRIDE_LO +: F_DSTRIDE_W]));
  endfunction
  function automatic logic [F_SHIFT_W-1:0] f_shift(input logic [INST_BITS-1:0] i);
    return i[F_SHIFT_LO +: F_SHIFT_W];
  endfunction
  function automatic logic f_relu(input logic [INST_BITS-1:0] i);
    return i[F_RELU_LO];
  endfunction
  function automatic logic f_init(input logic [INST_BITS-1:0] i);
    return i[F_INIT_LO];
  endfunction
  function automatic logic f_lut(input logic [INST_BITS-1:0] i);
    return i[F_LUT_LO];
  endfunction
  function automatic logic [63:0] f_cstride(input logic [INST_BITS-1:0] i);
    return 64'(i[F_CSTRIDE_LO +: F_CSTRIDE_W]);
  endfunction
  function automatic logic [F_PIX_W-1:0] f_pix(input logic [INST_BITS-1:0] i);
    return i[F_PIX_LO +: F_PIX_W];
  endfunction
  function automatic logic [F_WORDS_W-1:0] f_words(input logic [INST_BITS-1:0] i);
    return i[F_WORDS_LO +: F_WORDS_W];
  endfunction
  function automatic logic [F_VALUE_W-1:0] f_value(input logic [INST_BITS-1:0] i);
    return i[F_VALUE_LO +: F_VALUE_W];
  endfunction
  function automatic logic [63:0] f_rows(input logic [INST_BITS-1:0] i);
    return 64'(i[F_ROWS_LO +: F_ROWS_W]);
  endfunction
  function automatic logic [63:0] f_len(input logic [INST_BITS-1:0] i);
    return 64'(i[F_LEN_LO +: F_LEN_W]);
  endfunction
  function automatic logic [63:0] f_bstride(input logic [INST_BITS-1:0] i);
    return 64'(i[F_BSTRIDE_LO +: F_BSTRIDE_W]);
  endfunction
  function automatic logic [F_MASK_W-1:0] f_mask(input logic [INST_BITS-1:0] i);
    return i[F_MASK_LO +: F_MASK_W];
  endfunction
  function automatic logic [F_MULT_W-1:0] f_mult(input logic [INST_BITS-1:0] i);
    return i[F_MULT_LO +: F_MULT_W];
  endfunction
  function automatic logic [F_SKIP_W-1:0] f_skip(input logic [INST_BITS-1:0] i);
    return i[F_SKIP_LO +: F_SKIP_W];
  endfunction
  function automatic logic [F_SUM_W-1:0] f_sum(input logic [INST_BITS-1:0] i);
    return i[F_SUM_LO +: F_SUM_W];
  endfunction

  // MAC trace timing (docs/architecture.md §3.2), shared by the scheduler
  // (durations) and the compute datapath (its walk). Steps of a row: vdw one
  // per tap, vmac/vmacp the row rounded up to whole ROW_GRANULE elements.
  function automatic logic [63:0] row_steps(input logic [7:0] op, input logic [63:0] len);
    if (op == OP_VDW) return len;
    return (len + 64'(ROW_GRANULE) - 1) / 64'(ROW_GRANULE) * 64'(ROW_GRANULE);
  endfunction
  // Elements from the first to one past the last of rows x len at stride.
  function automatic logic [63:0] trace_span(input logic [63:0] rows, input logic [63:0] stride,
                                             input logic [63:0] len);
    return (rows == 0 || len == 0) ? 64'd0 : (rows - 1) * stride + len;
  endfunction
  // A vmacp whose pixel groups each read a bank of their own (cstride a
  // nonzero multiple of the bank, group 0's reads inside one bank) has each
  // bank's read ports to itself (PORTS_PER_BANK): one pass a step.
  function automatic logic own_banks(input logic [7:0] op, input logic [INST_BITS-1:0] i,
                                     input logic [63:0] a2);
    logic [63:0] span;
    span = trace_span(f_rows(i), f_bstride(i), f_len(i));
    return PORTS_PER_BANK != 0 && op == OP_VMACP && f_cstride(i) != 0 &&
           f_cstride(i) % 64'(MAPS_BANK_ELEMS) == 0 && span != 0 &&
           a2 / 64'(MAPS_BANK_ELEMS) == (a2 + span - 1) / 64'(MAPS_BANK_ELEMS);
  endfunction
  // Cycles of one step: vmacp's 2^pix read addresses over READ_PORTS ports,
  // or one if each group reads a bank of its own.
  function automatic logic [63:0] step_passes(input logic [7:0] op,
                                              input logic [INST_BITS-1:0] i,
                                              input logic [63:0] a2);
    if (op != OP_VMACP || own_banks(op, i, a2)) return 64'd1;
    return ((64'd1 << f_pix(i)) + 64'(READ_PORTS) - 1) / 64'(READ_PORTS);
  endfunction
  // A MAC trace: the operations that pay a start-up (TRACE_STARTUP) and
  // that a following trace may be looked ahead from (TRACE_LOOKAHEAD).
  function automatic logic is_mac_trace(input logic [7:0] op);
    return op == OP_VMAC || op == OP_VMACP || op == OP_VDW;
  endfunction
  function automatic logic [63:0] mac_trace_cycles(input logic [7:0] op,
                                                   input logic [INST_BITS-1:0] i,
                                                   input logic [63:0] a2);
    return 64'(TRACE_STARTUP) + f_rows(i) * row_steps(op, f_len(i)) * step_passes(op, i, a2);
  endfunction
  // Maps elements a MAC trace reads, from its a2 on (vdw: rows x len taps
  // of VMACS * LANES lanes cstride apart; vmacp: 2^pix groups cstride apart).
  function automatic logic [63:0] trace_ext(input logic [7:0] op, input logic [INST_BITS-1:0] i);
    logic [63:0] ext;
    if (op == OP_VDW)
      return (f_rows(i) == 0 || f_len(i) == 0) ? 64'd0 :
             (f_rows(i) - 1) * f_bstride(i) + (f_len(i) - 1) * f_cstride(i) + 64'(VMACS * LANES);
    ext = trace_span(f_rows(i), f_bstride(i), f_len(i));
    if (op == OP_VMACP && ext != 0) ext = ext + ((64'd1 << f_pix(i)) - 1) * f_cstride(i);
    return ext;
  endfunction
  // Accumulator entries of a row of a vwb / vpre / vmul: a vwb's len (0 as
  // 1), one for the others (timing::accMoveCols).
  function automatic logic [63:0] acc_cols(input logic [7:0] op, input logic [INST_BITS-1:0] i);
    return op == OP_VWB && f_len(i) > 1 ? 64'(f_len(i)) : 64'd1;
  endfunction
  // Maps elements a vwb / vpre / vmul moves (timing::accMoveSpan).
  function automatic logic [63:0] acc_span(input logic [7:0] op, input logic [INST_BITS-1:0] i);
    return f_rows(i) == 0 ? 64'd0 :
           (f_rows(i) - 1) * f_bstride(i) + (acc_cols(op, i) - 1) * f_cstride(i) +
           64'(VMACS * LANES);
  endfunction

  // A DMA transfer as the mover executes it once the channel grants it.
  typedef struct packed {
    logic         store;    // st.map (else a load)
    logic         weights;  // ld.wgt (else maps)
    logic [63:0]  dram;     // byte address of row 0
    logic signed [63:0] dstride;
    logic [31:0]  buf_addr; // elements (maps) or words (weights)
    logic [31:0]  bstride;
    logic [F_LEN_W-1:0] len;      // elements or words per row
    logic [F_ROWS_W-1:0] rows;
    logic [F_MASK_W-1:0] mask;     // CUs written by a load
    logic [F_IDX_W-1:0] idx;      // vMAC (ld.wgt) or CU (st.map)
    logic [F_WPIX_W-1:0] wpix;    // ld.wgt: vMAC idx of 2^wpix pixel groups
  } xfer_t;

  // Sign-extends the low ACC_BITS bits of v (the accumulators' wrap).
  function automatic logic signed [63:0] acc_wrap(input logic [63:0] v);
    logic [63:0] m;
    m = 64'(1) << (ACC_BITS - 1);
    if (ACC_BITS >= 64) return v;
    return signed'(((v & ((64'(1) << ACC_BITS) - 1)) ^ m) - m);
  endfunction

  function automatic logic [15:0] sat16(input logic signed [63:0] v);
    if (v > 64'sd32767) return 16'h7fff;
    if (v < -64'sd32768) return 16'h8000;
    return v[15:0];
  endfunction

  // Round half up, then arithmetic shift (docs/fixed-point.md).
  function automatic logic signed [63:0] round_shift(input logic signed [63:0] v,
                                                     input logic [F_SHIFT_W-1:0] s);
    if (s == 0) return v;
    return (v + (64'sd1 <<< (s - 1))) >>> s;
  endfunction

  // Activation table (vlut, vwb's lut flag): LUT_ENTRIES int16 values, LANES
  // to a weight word, one word read per cycle.
  localparam int unsigned LUT_WORDS = (LUT_ENTRIES + LANES - 1) / LANES;
  localparam int unsigned LEW = $clog2(LUT_ENTRIES);

  // Interpolation within the table: segment i's ends lo = T[i] and hi =
  // T[i + 1] at f, the low LUT_SEGMENT_BITS bits of u, rounding half up.
  function automatic logic [15:0] lut_interp(input logic [15:0] lo, input logic [15:0] hi,
                                             input logic [LUT_SEGMENT_BITS-1:0] f);
    logic signed [31:0] d, r;
    d = 32'(signed'(hi)) - 32'(signed'(lo));
    r = 32'(signed'(lo)) +
        ((d * signed'(32'(f)) + (32'sd1 <<< (LUT_SEGMENT_BITS - 1))) >>> LUT_SEGMENT_BITS);
    return r[15:0];
  endfunction

  // The normalised mode of lut(x) (a function with f(x / 4) = 2 f(x), rsqrt):
  // x > 0 shifted left by 2m into [8192, 32767] (a priority encoder on its
  // leading bits), interpolated, then shifted by m - s (s from the control
  // entry), rounding half up or saturating; x <= 0 gives t[0]. In hardware:
  // a leading-one detector and two shifters beside the interpolator.
  function automatic logic [15:0] lut_norm(input logic [15:0] t [LUT_ENTRIES],
                                           input logic [15:0] x);
    logic [3:0] m;
    logic [3:0] s;
    logic [31:0] w;
    logic [15:0] u;
    logic [LEW-1:0] i;
    logic signed [63:0] v;
    if (signed'(x) <= 16'sd0) return t[0];
    m = '0;
    for (int k = 1; k < 8; k++)
      if ((32'(x) << (2 * k)) <= 32'd32767) m = 4'(k);
    w = 32'(x) << (2 * m);
    u = {1'b1, w[14:0]};  // w + 32768, as 0 < w < 32768
    i = LEW'(u >> LUT_SEGMENT_BITS);
    v = 64'(signed'(lut_interp(t[i], t[i + LEW'(1)], u[LUT_SEGMENT_BITS-1:0])));
    s = 4'(t[LUT_ENDS][LUT_SCALE_LSB +: LUT_SCALE_BITS]);
    if (m >= s) return sat16(v <<< (m - s));
    return 16'(round_shift(v, F_SHIFT_W'(s) - F_SHIFT_W'(m)));
  endfunction

  // lut(x) of Snow.td's vwb (isa/include/snow/isa/Lut.h) on a table t: the
  // control entry t[LUT_ENDS] holds zoom z and the identity-tail bit; w = x *
  // 2^z below the int16 range gives t[0], above it t[LUT_ENDS - 1] (plus x's
  // excess with the tail), within it segment (w + 32768) >> LUT_SEGMENT_BITS.
  // In hardware: a shifter, two comparators and an adder beside the
  // interpolator, per lane.
  function automatic logic [15:0] lut_lookup(input logic [15:0] t [LUT_ENTRIES],
                                             input logic [15:0] x);
    logic [LUT_ZOOM_BITS-1:0] z;
    logic signed [31:0] w;
    logic [15:0] u;
    logic [LEW-1:0] i;
    if (t[LUT_ENDS][LUT_ZOOM_BITS + 1]) return lut_norm(t, x);
    z = t[LUT_ENDS][LUT_ZOOM_BITS-1:0];
    w = 32'(signed'(x)) <<< z;
    if (w < -32'sd32768) return t[0];
    if (w > 32'sd32767)
      return t[LUT_ENDS][LUT_ZOOM_BITS] ? sat16(64'(signed'(t[LUT_ENDS - 1])) + 64'(signed'(x))
                                                - (64'sd32768 >>> z))
                                        : t[LUT_ENDS - 1];
    u = {~w[15], w[14:0]};
    i = LEW'(u >> LUT_SEGMENT_BITS);
    return lut_interp(t[i], t[i + LEW'(1)], u[LUT_SEGMENT_BITS-1:0]);
  endfunction

endpackage
