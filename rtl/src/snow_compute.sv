// snow_compute.sv - the compute datapath: vMAC lanes with their accumulators
// and bias registers, writeback (shift, round, saturate, ReLU), accumulator
// preload, and the max/average unit, in every CU at once (lockstep).
//
// The scheduler decides when an operation starts; from that cycle on this
// datapath walks it one step per cycle (docs/architecture.md §3.2 table):
// a trace reads one map value (vdw: one per lane) and one weight word per
// vMAC per cycle and feeds the products into a MAC_PIPE-deep pipeline whose
// tail adds them into the accumulator entry, so back-to-back traces into the
// same entry chain without a bubble and the last sum lands within MAC_PIPE
// cycles of the trace's end, before any vwb may read it.
//
// Arithmetic: docs/fixed-point.md. Accumulators are ACC_BITS wide, so sums
// wrap there exactly as the simulator's sign-extension does.

/* verilator lint_off WIDTHCONCAT */  // the pipeline stage is one wide packed word
module snow_compute
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
(
  input  logic clk,
  input  logic rst,
  input  logic start,
  input  entry_t start_entry,
  // Maps buffers: one wide read and one LANES-wide write per CU.
  output logic [31:0] mr_addr,
  input  logic [CUS-1:0][VMACS*LANES-1:0][15:0] mr_data,
  output logic mw_en,
  output logic [31:0] mw_addr,
  output logic [CUS-1:0][LANES-1:0][15:0] mw_data,
  // Weights buffers: one word per vMAC.
  output logic [31:0] wr_addr,
  input  logic [CUS*VMACS-1:0][LANES-1:0][15:0] wr_data
);
  localparam int unsigned K = CUS * VMACS;
  localparam int unsigned AEW = $clog2(ACC_ENTRIES);

  // One accumulator entry of every lane of every vMAC is one row: a trace's
  // tail and vpre each write one row per cycle.
  typedef logic [K-1:0][LANES-1:0][ACC_BITS-1:0] acc_row_t;
  acc_row_t acc [ACC_ENTRIES];
  logic acc_we;
  logic [AEW-1:0] acc_waddr;
  acc_row_t acc_wrow;
  logic [K-1:0][LANES-1:0][ACC_BITS-1:0] bias, bias_n;

  // The operation in progress (registered after its first cycle).
  logic active_q;
  entry_t e_q;
  logic [63:0] k_q, n_q, o_q, base_q, off_q;
  logic [CUS-1:0][LANES-1:0][63:0] pool_q, pool_n;

  // This cycle's view: a starting operation is processed in its start cycle.
  logic active;
  entry_t e;
  logic [7:0] op;
  logic [63:0] k, n, o, base, off, dur, inner_lim, inner_stride, outer_stride;
  assign active = start || active_q;
  assign e = start ? start_entry : e_q;
  assign op = f_op(e.inst);
  assign k = start ? '0 : k_q;
  assign n = start ? '0 : n_q;
  assign o = start ? '0 : o_q;
  assign base = start ? 64'(start_entry.a2) : base_q;
  assign off = start ? '0 : off_q;

  // Walk order: inner counter n, outer o; element address base + off.
  // vmac: rows x len taps, stride 1; vdw/pools: stride cstride;
  // vwb/vpre: vMAC outer (stride LANES), entries inner (stride bstride), the
  // simulator's order, which decides overlapping writes.
  always_comb begin
    case (op)
      OP_VWB, OP_VPRE: begin
        dur = f_rows(e.inst) * 64'(VMACS);
        inner_lim = f_rows(e.inst);
        inner_stride = f_bstride(e.inst);
        outer_stride = 64'(LANES);
      end
      OP_VBIAS: begin
        dur = 64'd1; inner_lim = 64'd1; inner_stride = '0; outer_stride = '0;
      end
      default: begin
        dur = f_rows(e.inst) * f_len(e.inst);
        inner_lim = f_len(e.inst);
        inner_stride = op == OP_VMAC ? 64'd1 : f_cstride(e.inst);
        outer_stride = f_bstride(e.inst);
      end
    endcase
  end

  logic last;
  /* verilator lint_off UNUSEDSIGNAL */  // buffer addresses are 32 bits
  logic [63:0] addr;
  /* verilator lint_on UNUSEDSIGNAL */
  assign last = k + 1 == dur;
  assign addr = base + off;
  assign mr_addr = 32'(addr);
  assign wr_addr = 32'(64'(e.a3) + k);

  // ---- Traces: products into the MAC pipeline ----
  typedef struct packed {
    logic valid;
    logic first_init;  // first tap of a trace with init: start from val, not the accumulator
    logic [AEW-1:0] entry;
    logic [K-1:0][LANES-1:0][ACC_BITS-1:0] val;
  } pipe_t;
  pipe_t pipe [MAC_PIPE];

  always_comb begin
    pipe[0] = '0;
    pipe[0].valid = active && (op == OP_VMAC || op == OP_VDW);
    pipe[0].first_init = k == 0 && f_init(e.inst);
    pipe[0].entry = AEW'(e.a1);
    for (int c = 0; c < CUS; c++)
      for (int v = 0; v < VMACS; v++)
        for (int l = 0; l < LANES; l++) begin
          logic signed [31:0] p;
          logic signed [15:0] m, w;
          m = op == OP_VDW ? signed'(mr_data[c][v * LANES + l]) : signed'(mr_data[c][0]);
          w = signed'(wr_data[c * VMACS + v][l]);
          p = 32'(m) * 32'(w);
          pipe[0].val[c * VMACS + v][l] = pipe[0].first_init
              ? ACC_BITS'(64'(signed'(bias[c * VMACS + v][l])) + 64'(p)) : ACC_BITS'(64'(p));
        end
  end

  for (genvar s = 1; s < MAC_PIPE; s++) begin : g_pipe
    always_ff @(posedge clk) pipe[s] <= rst ? '0 : pipe[s - 1];
  end

  // ---- Writeback and pooling results ----
  always_comb begin
    logic [15:0] y;
    logic signed [63:0] r, x;
    y = '0; r = '0; x = '0;
    mw_en = 1'b0;
    mw_addr = 32'(addr);
    mw_data = '0;
    if (active && op == OP_VWB) begin
      mw_en = 1'b1;
      mw_addr = 32'(addr);
      for (int c = 0; c < CUS; c++)
        for (int l = 0; l < LANES; l++) begin
          y = sat16(round_shift(64'(signed'(acc[AEW'(64'(e.a1) + n)][c * VMACS + int'(o)][l])),
                                f_shift(e.inst)));
          mw_data[c][l] = f_relu(e.inst) && y[15] ? 16'd0 : y;
        end
    end else if (active && (op == OP_VMAX || op == OP_VAVG) && last) begin
      mw_en = 1'b1;
      mw_addr = e.a1;
      for (int c = 0; c < CUS; c++)
        for (int l = 0; l < LANES; l++) begin
          x = 64'(signed'(mr_data[c][l]));
          r = k == 0 ? (op == OP_VMAX ? -64'sd32768 : 64'sd0) : signed'(pool_q[c][l]);
          r = op == OP_VMAX ? (x > r ? x : r) : r + x;
          mw_data[c][l] = op == OP_VMAX ? r[15:0]
              : sat16(round_shift(acc_wrap(r) * 64'(f_mult(e.inst)), f_shift(e.inst)));
        end
    end
  end

  // The accumulator write of this cycle: the pipeline tail adds its products
  // (or starts from them), or vpre adds maps words << shift into the entry of
  // one vMAC (the two never coincide: vpre waits for the pipeline to drain).
  always_comb begin
    pipe_t tl;
    logic [AEW-1:0] pe;
    tl = pipe[MAC_PIPE - 1];
    pe = AEW'(64'(e.a1) + n);
    acc_we = 1'b0;
    acc_waddr = tl.entry;
    acc_wrow = acc[tl.entry];
    if (tl.valid) begin
      acc_we = 1'b1;
      for (int kk = 0; kk < K; kk++)
        for (int l = 0; l < LANES; l++)
          acc_wrow[kk][l] = tl.first_init ? tl.val[kk][l] : acc[tl.entry][kk][l] + tl.val[kk][l];
    end else if (active && op == OP_VPRE) begin
      acc_we = 1'b1;
      acc_waddr = pe;
      acc_wrow = acc[pe];
      for (int c = 0; c < CUS; c++)
        for (int l = 0; l < LANES; l++)
          acc_wrow[c * VMACS + int'(o)][l] = ACC_BITS'(
              (f_init(e.inst) ? 64'd0 : 64'(signed'(acc[pe][c * VMACS + int'(o)][l]))) +
              (64'(signed'(mr_data[c][l])) << f_shift(e.inst)));
    end
  end

  // Pool partial results and bias registers.
  always_comb begin
    logic signed [63:0] r, x;
    r = '0; x = '0;
    pool_n = pool_q;
    bias_n = bias;
    if (active && (op == OP_VMAX || op == OP_VAVG))
      for (int c = 0; c < CUS; c++)
        for (int l = 0; l < LANES; l++) begin
          x = 64'(signed'(mr_data[c][l]));
          r = k == 0 ? (op == OP_VMAX ? -64'sd32768 : 64'sd0) : signed'(pool_q[c][l]);
          pool_n[c][l] = op == OP_VMAX ? (x > r ? x : r) : r + x;
        end
    if (active && op == OP_VBIAS)
      for (int kk = 0; kk < K; kk++)
        for (int l = 0; l < LANES; l++)
          bias_n[kk][l] = ACC_BITS'(64'(signed'(wr_data[kk][l])) << f_shift(e.inst));
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      active_q <= 1'b0;
      e_q <= '0;
      k_q <= '0; n_q <= '0; o_q <= '0; base_q <= '0; off_q <= '0;
    end else begin
      // Step the walk.
      if (active && !last) begin
        active_q <= 1'b1;
        e_q <= e;
        k_q <= k + 1;
        if (n + 1 == inner_lim) begin
          n_q <= '0;
          o_q <= o + 1;
          off_q <= '0;
          base_q <= base + outer_stride;
        end else begin
          n_q <= n + 1;
          o_q <= o;
          off_q <= off + inner_stride;
          base_q <= base;
        end
      end else begin
        active_q <= 1'b0;
      end
      pool_q <= pool_n;
      bias <= bias_n;
      if (acc_we) acc[acc_waddr] <= acc_wrow;
    end
  end
endmodule
