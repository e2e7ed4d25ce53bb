// snow_compute.sv - the compute datapath: vMAC lanes with their accumulators
// and bias registers, writeback (shift, round, saturate, activation table,
// ReLU), accumulator preload and product (vpre, vmul), and the max/average unit, in every CU at once
// (lockstep).
//
// The scheduler decides when an operation starts; from that cycle on this
// datapath walks it one step per cycle (docs/architecture.md §3.2 table):
// a trace reads one map value (vdw: one per lane) and one weight word per
// vMAC per cycle and adds the products into the accumulator entry. A MAC
// trace first spends TRACE_STARTUP cycles without a MAC (one fewer where the
// scheduler looked it ahead, start_skip: TRACE_LOOKAHEAD); each of its rows
// then takes whole ROW_GRANULE-element steps (vmac/vmacp: the steps past
// len are idle), and each step as many passes as its read addresses need
// (vmacp: 2^pix pixel groups over READ_PORTS ports, or one pass if each
// group reads a bank of its own; the vMACs of pass j take their tap in the
// j-th cycle of the step).
//
// The MAC pipeline: the contract gives a trace's sums MAC_PIPE cycles after
// its last tap to land, and the scheduler holds vwb/vpre/vmul until then (wait_acc).
// Nothing else reads accumulators, and traces into one entry add in issue
// order, so when inside that window a sum lands cannot be observed; this
// datapath adds in the tap's own cycle (a single-cycle multiply-add). An FPGA
// build would retime the multiply-add into MAC_PIPE stages without changing
// a cycle count.
//
// Arithmetic: docs/fixed-point.md. Accumulators are ACC_BITS wide, so sums
// wrap there exactly as the simulator's sign-extension does.
//
// Every lane is its own generate block with narrow registers: Verilator then
// simulates it with 64-bit operations instead of multi-kilobit words.

module snow_compute
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
#(
  localparam int unsigned W = VMACS * LANES
) (
  input  logic clk,
  input  logic rst,
  input  logic start,
  input  entry_t start_entry,
  input  logic start_skip,  // a looked-ahead trace: one start-up cycle fewer
  // Maps buffers: one wide read, one element per vMAC (vmacp's pixel
  // groups) and one LANES-wide write per CU.
  output logic [31:0] mr_addr,
  input  logic [15:0] mr_data [CUS][W],
  output logic [31:0] vr_addr [VMACS],
  input  logic [15:0] vr_data [CUS][VMACS],
  output logic mw_en,
  output logic [CUS-1:0] mw_mask,  // CUs written: vwb's skip leaves some out
  output logic [31:0] mw_addr,
  output logic [31:0] mw_n,  // lane words written (of WB_WORDS)
  output logic [15:0] mw_data [CUS][WB_WORDS*LANES],
  // Weights buffers: one word per vMAC.
  output logic [31:0] wr_addr,
  input  logic [15:0] wr_data [CUS*VMACS][LANES]
);
  localparam int unsigned AEW = $clog2(ACC_ENTRIES);

  // The operation in progress (registered after its first cycle).
  logic active_q, skip_q;
  entry_t e_q;
  logic [63:0] k_q, n_q, o_q, j_q, base_q, off_q;

  // This cycle's view: a starting operation is processed in its start cycle.
  logic active;
  entry_t e;
  logic [7:0] op;
  logic [63:0] k, n, o, j, base, off, dur, startup, passes, inner_lim, inner_stride, outer_stride;
  logic is_trace, skip;
  // A vwb runs on a walker of its own (below), beside the operations after
  // it where the scheduler lets it (WB_OVERLAP); this walk takes the rest.
  assign active = (start && f_op(start_entry.inst) != OP_VWB) || active_q;
  assign e = start ? start_entry : e_q;
  assign skip = start ? start_skip : skip_q;
  assign op = f_op(e.inst);
  assign is_trace = is_mac_trace(op);
  assign k = start ? '0 : k_q;
  assign n = start ? '0 : n_q;
  assign o = start ? '0 : o_q;
  assign j = start ? '0 : j_q;
  assign base = start ? 64'(start_entry.a2) : base_q;
  assign off = start ? '0 : off_q;

  // Walk order: after the start-up, inner counter n, outer o, and for each
  // (o, n) the passes j; element address base + off.
  // vmac: rows x row_steps taps, stride 1; vdw/pools: stride cstride;
  // vpre/vmul: groups of WB_WORDS vMACs outer (stride WB_WORDS * LANES),
  // entries inner (stride bstride), the simulator's order.
  always_comb begin
    startup = '0;
    passes = 64'd1;
    case (op)
      OP_VPRE, OP_VMUL: begin
        dur = f_rows(e.inst) * 64'(WB_CYCLES);
        inner_lim = f_rows(e.inst);
        inner_stride = f_bstride(e.inst);
        outer_stride = 64'(WB_WORDS * LANES);
      end
      OP_VBIAS: begin
        dur = 64'd1; inner_lim = 64'd1; inner_stride = '0; outer_stride = '0;
      end
      OP_VLUT: begin  // word n of the table in cycle n (wr_addr = a3 + n)
        dur = 64'(LUT_WORDS); inner_lim = dur; inner_stride = '0; outer_stride = '0;
      end
      OP_VMAC, OP_VMACP, OP_VDW: begin
        dur = mac_trace_cycles(op, e.inst, 64'(e.a2)) - (skip ? 64'd1 : 64'd0);
        startup = 64'(TRACE_STARTUP) - (skip ? 64'd1 : 64'd0);
        passes = step_passes(op, e.inst, 64'(e.a2));
        inner_lim = row_steps(op, f_len(e.inst));
        inner_stride = op == OP_VDW ? f_cstride(e.inst) : 64'd1;
        outer_stride = f_bstride(e.inst);
      end
      default: begin
        dur = f_rows(e.inst) * f_len(e.inst);
        inner_lim = f_len(e.inst);
        inner_stride = f_cstride(e.inst);
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
  // vMAC v of a vmacp belongs to pixel group v / (VMACS / 2^pix): its map
  // value is cstride * group elements further on. (vmac: every vMAC reads addr.)
  for (genvar v = 0; v < VMACS; v++) begin : g_vaddr
    assign vr_addr[v] = op == OP_VMACP ?
        32'(addr + ((64'(v) << f_pix(e.inst)) / 64'(VMACS)) * f_cstride(e.inst)) : 32'(addr);
  end
  // Tap o * len + n reads weight word a3 + o * len + n (vbias: a3; vlut:
  // a3 + n, its walk never leaves o = 0).
  assign wr_addr = 32'(64'(e.a3) + o * f_len(e.inst) + n);

  // Controls shared by all lanes.
  logic do_mac, do_dw, do_pre, do_mul, do_bias, do_lut, do_pool, is_max, first_init, pre_init;
  logic [F_SHIFT_W-1:0] shift;
  logic [F_MULT_W-1:0] mult;
  logic [AEW-1:0] entry;
  // A MAC step: past the start-up, on a tap of the row (not a granule's idle
  // rest); which vMACs take it is the pass (g_vmac below).
  assign do_mac = active && is_trace && k >= startup && n < f_len(e.inst);
  assign do_dw = op == OP_VDW;
  assign do_pre = active && op == OP_VPRE;
  assign do_mul = active && op == OP_VMUL;
  assign do_bias = active && op == OP_VBIAS;
  assign do_lut = active && op == OP_VLUT;

  assign do_pool = active && (op == OP_VMAX || op == OP_VAVG);
  assign is_max = op == OP_VMAX;
  assign first_init = o == 0 && n == 0 && f_init(e.inst);
  assign pre_init = f_init(e.inst);
  assign shift = f_shift(e.inst);
  assign mult = f_mult(e.inst);
  // Traces accumulate into entry a1; vpre/vmul walk entries a1 + n.
  assign entry = AEW'(64'(e.a1) + (op == OP_VPRE || op == OP_VMUL ? n : 64'd0));

  // The writeback's walker (vwb): groups of WB_WORDS vMACs outer (stride
  // WB_WORDS * LANES), then rows (stride bstride), then a row's entries
  // (len of them, stride cstride), the simulator's order, which decides
  // overlapping writes; one group of one entry a cycle. It reads the
  // accumulators through a port of its own, so a trace may run beside it
  // (the scheduler keeps them off each other's banks and entries).
  logic wb_active_q;
  entry_t wb_e_q;
  logic [63:0] wb_o_q, wb_r_q, wb_i_q, wb_row_q, wb_addr_q, wb_ent_q;
  logic wb_active, wb_last;
  entry_t wb_e;
  logic [63:0] wb_o, wb_r, wb_i, wb_row, wb_addr, wb_ent, wb_cols, wb_groups;
  assign wb_active = (start && f_op(start_entry.inst) == OP_VWB) || wb_active_q;
  assign wb_e = start && f_op(start_entry.inst) == OP_VWB ? start_entry : wb_e_q;
  assign wb_o = wb_active_q ? wb_o_q : '0;
  assign wb_r = wb_active_q ? wb_r_q : '0;
  assign wb_i = wb_active_q ? wb_i_q : '0;
  assign wb_row = wb_active_q ? wb_row_q : 64'(wb_e.a2);
  assign wb_addr = wb_active_q ? wb_addr_q : 64'(wb_e.a2);
  assign wb_ent = wb_active_q ? wb_ent_q : 64'(wb_e.a1);
  assign wb_cols = acc_cols(OP_VWB, wb_e.inst);
  assign wb_groups = (64'(VMACS) + 64'(WB_WORDS) - 1) / 64'(WB_WORDS);
  assign wb_last = wb_i + 1 == wb_cols && wb_r + 1 == f_rows(wb_e.inst) && wb_o + 1 == wb_groups;
  always_ff @(posedge clk) begin
    if (rst) begin
      wb_active_q <= 1'b0; wb_e_q <= '0;
      wb_o_q <= '0; wb_r_q <= '0; wb_i_q <= '0; wb_row_q <= '0; wb_addr_q <= '0; wb_ent_q <= '0;
    end else if (wb_active && !wb_last) begin
      wb_active_q <= 1'b1;
      wb_e_q <= wb_e;
      if (wb_i + 1 != wb_cols) begin
        wb_i_q <= wb_i + 1;
        wb_r_q <= wb_r; wb_o_q <= wb_o; wb_row_q <= wb_row;
        wb_addr_q <= wb_addr + f_cstride(wb_e.inst);
        wb_ent_q <= wb_ent + 1;
      end else if (wb_r + 1 != f_rows(wb_e.inst)) begin
        wb_i_q <= '0;
        wb_r_q <= wb_r + 1; wb_o_q <= wb_o;
        wb_row_q <= wb_row + f_bstride(wb_e.inst);
        wb_addr_q <= wb_row + f_bstride(wb_e.inst);
        wb_ent_q <= wb_ent + 1;
      end else begin
        wb_i_q <= '0; wb_r_q <= '0;
        wb_o_q <= wb_o + 1;
        wb_row_q <= 64'(wb_e.a2) + (wb_o + 1) * 64'(WB_WORDS * LANES);
        wb_addr_q <= 64'(wb_e.a2) + (wb_o + 1) * 64'(WB_WORDS * LANES);
        wb_ent_q <= 64'(wb_e.a1);
      end
    end else begin
      wb_active_q <= 1'b0;
    end
  end
  logic wb_relu, wb_lut;
  logic [F_SHIFT_W-1:0] wb_shift;
  logic [AEW-1:0] wb_entry;
  assign wb_relu = f_relu(wb_e.inst);
  assign wb_lut = f_lut(wb_e.inst);
  assign wb_shift = f_shift(wb_e.inst);
  assign wb_entry = AEW'(wb_ent);

  logic [ACC_BITS-1:0] acc_rd [CUS][VMACS][LANES];  // entry wb_entry of every lane
  // A pool's result, as wide as the writeback it goes through (POOL_WORDS <=
  // WB_WORDS by validation); the lane words past POOL_WORDS stay zero.
  logic [15:0] pool_out [CUS][WB_WORDS*LANES];

  for (genvar c = 0; c < CUS; c++) begin : g_cu
    for (genvar v = 0; v < VMACS; v++) begin : g_vmac
      // vmacp: this vMAC's pixel group reads in pass group / READ_PORTS
      // (all in the one pass when each group reads a bank of its own).
      logic mac_here;
      assign mac_here = do_mac && (op != OP_VMACP || passes == 64'd1 ||
          ((64'(v) << f_pix(e.inst)) / 64'(VMACS)) / 64'(READ_PORTS) == j);
      for (genvar l = 0; l < LANES; l++) begin : g_lane
        logic [ACC_BITS-1:0] acc [ACC_ENTRIES];
        logic [ACC_BITS-1:0] bias;
        logic signed [15:0] m, w;
        logic signed [31:0] p;
        logic [15:0] own;  // this lane's map element of a vwb/vpre/vmul group
        // vmul: the lane's multiplier takes its accumulator, rounded and
        // saturated as a writeback would, in place of the weight.
        assign own = mr_data[c][(v % WB_WORDS) * LANES + l];
        assign m = signed'(do_dw || do_mul ? (do_mul ? own : mr_data[c][v * LANES + l])
                                           : vr_data[c][v]);
        assign w = do_mul ? signed'(sat16(round_shift(64'(signed'(acc[entry])), shift)))
                          : signed'(wr_data[c * VMACS + v][l]);
        assign p = 32'(m) * 32'(w);
        assign acc_rd[c][v][l] = acc[wb_entry];
        always_ff @(posedge clk) begin
          if (mac_here)
            acc[entry] <= (first_init ? bias : acc[entry]) + ACC_BITS'(p);
          else if (do_pre && o == 64'(v) / 64'(WB_WORDS))
            acc[entry] <= (pre_init ? '0 : acc[entry]) + ACC_BITS'(64'(signed'(own)) << shift);
          else if (do_mul && o == 64'(v) / 64'(WB_WORDS))
            acc[entry] <= ACC_BITS'(p);
          if (do_bias) bias <= ACC_BITS'(64'(w) << shift);
        end
      end
    end

  end

  // Max / average: one running value per channel of POOL_WORDS lane words
  // (those past the instruction's words are computed, not written), the
  // result in the last cycle. Evaluated only while a pool runs: as
  // continuous assignments, POOL_WORDS x LANES of them per CU would be
  // recomputed by Verilator on every cycle of every operation.
  logic signed [63:0] pool_run [CUS][POOL_WORDS*LANES];
  function automatic logic signed [63:0] pool_step(input logic signed [63:0] run,
                                                   input logic [15:0] m, input logic first,
                                                   input logic mx);
    logic signed [63:0] x, r;
    x = 64'(signed'(m));
    r = first ? (mx ? -64'sd32768 : 64'sd0) : run;
    return mx ? (x > r ? x : r) : r + x;
  endfunction
  for (genvar c = 0; c < CUS; c++) begin : g_pool_cu
    for (genvar i = 0; i < POOL_WORDS * LANES; i++) begin : g_pool
      always_ff @(posedge clk)
        if (do_pool) pool_run[c][i] <= pool_step(pool_run[c][i], mr_data[c][i], k == 0, is_max);
    end
  end
  always_comb begin
    logic signed [63:0] nxt;
    nxt = '0;
    pool_out = '{default: '{default: '0}};
    if (do_pool && last)
      for (int c = 0; c < CUS; c++)
        for (int i = 0; i < POOL_WORDS * LANES; i++) begin
          nxt = pool_step(pool_run[c][i], mr_data[c][i], k == 0, is_max);
          pool_out[c][i] = is_max ? nxt[15:0]
              : sat16(round_shift(acc_wrap(nxt) * 64'(mult), shift));
        end
  end

  // Activation tables, one per CU (vlut): entry n * LANES + l is lane l of
  // vMAC 0's weight word a3 + n, read in the vlut's cycle n. Zero at reset,
  // as the simulator's (a board's block RAM starts at its configured zeros).
  // The writeback looks up every lane word it writes (WB_WORDS * LANES
  // lookups per CU a cycle) in the same cycle, so a vwb with lut takes the
  // cycles of one without; docs/architecture.md §1 has what that costs in
  // block RAM.
  logic [15:0] lut [CUS][LUT_ENTRIES];
  always_ff @(posedge clk) begin
    if (rst) begin
      lut <= '{default: '{default: '0}};
    end else if (do_lut) begin
      for (int c = 0; c < CUS; c++)
        for (int l = 0; l < LANES; l++)
          if (n * 64'(LANES) + 64'(l) < 64'(LUT_ENTRIES))
            lut[c][LEW'(n * 64'(LANES) + 64'(l))] <= wr_data[c * VMACS][l];
    end
  end

  // The maps write of this cycle: the words of a writeback group (vMACs
  // wb_o * WB_WORDS on; the last group may be partial) or a pool result
  // (the scheduler never runs both at once: a pool waits for the vwb).
  // A vwb with sum (CU_SUM) writes every CU the sum of all CUs' words: the
  // adder tree across the CUs, as wide as an accumulator (wrapping as one).
  logic wb_sum;
  assign wb_sum = CU_SUM != 0 && f_sum(wb_e.inst) != 0;
  always_comb begin
    logic [15:0] y;
    logic [ACC_BITS-1:0] a;
    y = '0;
    a = '0;
    mw_en = wb_active || (do_pool && last);
    mw_mask = wb_active ? ~CUS'(f_skip(wb_e.inst)) : '1;
    mw_addr = wb_active ? 32'(wb_addr) : e.a1;
    mw_n = wb_active ? 32'(VMACS) - 32'(wb_o) * 32'(WB_WORDS) : 32'(f_words(e.inst)) + 32'd1;
    if (mw_n > 32'(WB_WORDS)) mw_n = 32'(WB_WORDS);
    for (int c = 0; c < CUS; c++)
      for (int w = 0; w < WB_WORDS; w++)
        for (int l = 0; l < LANES; l++) begin
          y = '0;
          for (int v = 0; v < VMACS; v++)
            if (wb_o * 64'(WB_WORDS) + 64'(w) == 64'(v)) begin
              a = acc_rd[c][v][l];
              if (wb_sum) begin
                a = '0;
                for (int s = 0; s < CUS; s++) a = a + acc_rd[s][v][l];
              end
              y = sat16(round_shift(64'(signed'(a)), wb_shift));
            end
          if (wb_lut) y = lut_lookup(lut[c], y);
          mw_data[c][w * LANES + l] = wb_active ? (wb_relu && y[15] ? 16'd0 : y)
                                      : pool_out[c][w * LANES + l];
        end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      active_q <= 1'b0;
      skip_q <= 1'b0;
      e_q <= '0;
      k_q <= '0; n_q <= '0; o_q <= '0; j_q <= '0; base_q <= '0; off_q <= '0;
    end else if (active && !last) begin
      active_q <= 1'b1;
      skip_q <= skip;
      e_q <= e;
      k_q <= k + 1;
      if (k < startup || j + 1 != passes) begin
        // Start-up, or more passes of this step: the walk holds.
        n_q <= n;
        o_q <= o;
        j_q <= k < startup ? j : j + 1;
        off_q <= off;
        base_q <= base;
      end else if (n + 1 == inner_lim) begin
        n_q <= '0;
        o_q <= o + 1;
        j_q <= '0;
        off_q <= '0;
        base_q <= base + outer_stride;
      end else begin
        n_q <= n + 1;
        o_q <= o;
        j_q <= '0;
        off_q <= off + inner_stride;
        base_q <= base;
      end
    end else begin
      active_q <= 1'b0;
    end
  end
endmodule
