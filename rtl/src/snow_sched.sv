// snow_sched.sv - when every unit operation starts: the timing contract.
//
// The load, compute and store units, the DRAM channel, the semaphores and the
// hazard windows of docs/architecture.md §3, as hardware. Every cycle it
// decides, in the contract's order (signals that fired become visible; load,
// compute, store try to start their head operation; the channel grants the
// oldest request), what starts, and hands started operations to the
// datapaths (snow_compute, snow_dma), which only move data. Range and
// ordering violations are faults reported with the pc and the cycle.
//
// It is written as one combinational "next state" block over the registered
// state because the contract is sequential within a cycle: a hazard window the
// load unit opens is seen by the compute unit's check in the same cycle, and a
// semaphore decremented by the load unit is seen by the store unit.

module snow_sched
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
(
  input  logic clk,
  input  logic rst,
  input  logic [63:0] cycle,
  // Queues (state at the start of the cycle) and the control core.
  input  logic [2:0] q_nonempty,
  input  logic [2:0] q_last,              // exactly one entry at the start of the cycle
  input  entry_t q_head [3],
  input  logic [2:0] push,
  output logic [2:0] pop,
  input  logic ctrl_acted,
  input  logic ctrl_halted,               // halted before this cycle
  input  logic ctrl_halting,              // executes halt in this cycle
  input  logic [63:0] halt_cycle,
  input  logic [31:0] ctrl_pc,
  input  logic ctrl_fault,
  input  logic [7:0] ctrl_fault_code,
  input  logic [63:0] ctrl_fault_arg0, ctrl_fault_arg1,
  // The fetch engine (snow_fetch.sv): its request for the channel.
  input  logic fetch_req_v,
  input  logic [63:0] fetch_req_post,
  input  logic fetch_acted,
  input  logic fetch_waiting,
  output logic fetch_grant,
  // Started operations, to the datapaths.
  output logic ex_start,
  output entry_t ex_entry,
  output logic ex_skip,  // a looked-ahead trace: one start-up cycle fewer
  output logic fill_start,
  output entry_t fill_entry,
  output logic grant,
  output xfer_t grant_xfer,
  // Status.
  output logic stopped,                   // faulted or finished: nothing starts any more
  output logic finished,
  output logic [63:0] total_cycles,
  output logic faulted,
  output logic [7:0] fault_code,
  output logic [31:0] fault_pc,
  output logic [63:0] fault_cycle, fault_arg0, fault_arg1, fault_arg2,
  // Counters and per-layer events (docs/stats-json.md names).
  output logic [63:0] ctr_mac_cycles, ctr_dram_busy, ctr_unit_ops,
  output logic [63:0] ctr_dram_rd_bytes, ctr_dram_wr_bytes, ctr_dram_code_bytes,
  output logic [2:0][63:0] ctr_busy, ctr_wait_sem, ctr_wait_dram, ctr_wait_acc,
  output logic ev_mark,
  output logic [31:0] ev_mark_layer,
  output logic ev_c,
  output logic [63:0] ev_c_busy, ev_c_wait_sem, ev_c_wait_acc,
  output logic ev_mac,
  output logic [31:0] ev_mac_layer,
  output logic [63:0] ev_mac_cycles,
  output logic ev_ld,
  output logic [31:0] ev_ld_layer,
  output logic [63:0] ev_ld_bytes,
  output logic ev_st,
  output logic [31:0] ev_st_layer,
  output logic [63:0] ev_st_bytes
);
  localparam int unsigned NB = MAPS_BANKS + WEIGHTS_BANKS;  // hazard windows, maps banks first
  localparam int unsigned NF = INFLIGHT;
  localparam int unsigned NS = MAX_PENDING_SIGNALS;
  localparam int unsigned SW = $clog2(NS + 1);
  localparam int unsigned SI = $clog2(NS);

  // ---- Registered state (and its next value, *_n) ----
  logic [63:0] ready_at [3], ready_at_n [3];
  logic [63:0] last_comp [3], last_comp_n [3];
  logic        blk [3], blk_n [3];
  logic [63:0] blk_since [3], blk_since_n [3];
  logic        wgrant [3], wgrant_n [3];
  logic [31:0] sems [NUM_SEMAPHORES], sems_n [NUM_SEMAPHORES];
  logic [63:0] sig_fire [3][NS], sig_fire_n [3][NS];
  logic [F_IDX_W-1:0] sig_sem [3][NS], sig_sem_n [3][NS];
  logic [SW-1:0] sig_cnt [3], sig_cnt_n [3];
  logic [63:0] acc_ready, acc_ready_n;
  // The last vwb where it runs beside later operations (WB_OVERLAP): the
  // cycle it is done (wb_end), the maps banks it writes [wb_blo, wb_bhi],
  // the accumulator entries it reads [wb_acc, wb_acc + wb_n).
  logic [63:0] wb_end, wb_end_n, wb_blo, wb_blo_n, wb_bhi, wb_bhi_n;
  logic [63:0] wb_acc, wb_acc_n, wb_n, wb_n_n;
  // Lookahead (TRACE_LOOKAHEAD, §3.2): the end of the compute unit's last
  // operation if it was a MAC trace, and whether the cycle before was that
  // trace's last with another operation visible in the queue behind it.
  logic [63:0] ex_tr_end, ex_tr_end_n;
  logic        la, la_n;
  logic [63:0] chan_free, chan_free_n;
  // Requests waiting for the channel: index 0 the load unit, 1 the store unit.
  logic        req_v [2], req_v_n [2];
  logic [63:0] req_post [2], req_post_n [2];
  logic [63:0] req_d [2], req_d_n [2];
  logic [31:0] req_b0 [2], req_b0_n [2], req_b1 [2], req_b1_n [2];
  xfer_t       req_x [2], req_x_n [2];
  // Hazard windows: upto when each unit reads / writes each bank.
  logic [63:0] ru [NB][3], ru_n [NB][3];
  logic [63:0] wu [NB][3], wu_n [NB][3];
  // DMA transfers in flight, per direction (0 loads, 1 stores).
  logic        fl_v [2][NF], fl_v_n [2][NF];
  logic [63:0] fl_lo [2][NF], fl_lo_n [2][NF];
  logic [63:0] fl_hi [2][NF], fl_hi_n [2][NF];
  logic [63:0] fl_step [2][NF], fl_step_n [2][NF];  // rows' distance (|dstride|)
  logic [63:0] fl_rows [2][NF], fl_rows_n [2][NF];
  logic [63:0] fl_rlen [2][NF], fl_rlen_n [2][NF];  // bytes a row
  logic [63:0] fl_until [2][NF], fl_until_n [2][NF];
  logic [31:0] fl_pc [2][NF], fl_pc_n [2][NF];
  logic [63:0] fl_blo [2][NF], fl_blo_n [2][NF];  // ld.map: maps elements written
  logic [63:0] fl_bhi [2][NF], fl_bhi_n [2][NF];
  logic [F_MASK_W-1:0] fl_mask [2][NF], fl_mask_n [2][NF];
  // Status and counters.
  logic        fin_n, flt_n;
  logic [63:0] total_n;
  logic [7:0]  fcode_n;
  logic [31:0] fpc_n;
  logic [63:0] farg0_n, farg1_n, farg2_n;
  logic [63:0] c_mac_n, c_busy_dram_n, c_ops_n, c_rd_n, c_wr_n, c_code_n;
  logic fwin;
  logic [2:0][63:0] c_busy_n, c_wsem_n, c_wdram_n, c_wacc_n;

  assign stopped = faulted || finished;

  // ---- Helpers ----
  function automatic logic [63:0] umax(input logic [63:0] a, input logic [63:0] b);
    return a > b ? a : b;
  endfunction

  // Whether a trace reading [lo, lo + ext) of the maps reads a bank the last
  // vwb writes (one compute-side port a bank).
  function automatic logic reads_wb_banks(input logic [63:0] lo, input logic [63:0] ext);
    return ext != 0 && lo / 64'(MAPS_BANK_ELEMS) <= wb_bhi &&
           (lo + ext - 1) / 64'(MAPS_BANK_ELEMS) >= wb_blo;
  endfunction
  // The first cycle the compute operation e may start as far as the last
  // vwb is concerned (Machine::writebackClear): the writeback's port, table
  // and accumulators for vwb, vpre, vmul, the pools and vlut; a trace the
  // vwb's end where it reads the vwb's banks, else the cycle after the
  // vwb's last read of its entry.
  /* verilator lint_off UNUSEDSIGNAL */  // e's pc, layer and a3
  function automatic logic [63:0] wb_clear(input entry_t e);
    logic [7:0] op;
    op = f_op(e.inst);
    if (WB_OVERLAP == 0) return '0;
    case (op)
      OP_VWB, OP_VPRE, OP_VMUL, OP_VMAX, OP_VAVG, OP_VLUT: return wb_end;
      OP_VMAC, OP_VMACP, OP_VDW: begin
        if (reads_wb_banks(64'(e.a2), trace_ext(op, e.inst))) return wb_end;
        // Its last group of vMACs reads its entries in its last wb_n cycles.
        if (64'(e.a1) >= wb_acc && 64'(e.a1) < wb_acc + wb_n)
          return wb_end - wb_n + (64'(e.a1) - wb_acc) + 64'd1;
        return '0;
      end
      default: return '0;
    endcase
  endfunction
  // The compute operations that may wait for the accumulators or the
  // writeback (ex_clear), and until when the compute unit's head op waits.
  function automatic logic waits_acc(input logic [7:0] op);
    return op == OP_VWB || op == OP_VPRE || op == OP_VMUL || op == OP_VMAX || op == OP_VAVG ||
           op == OP_VLUT || is_mac_trace(op);
  endfunction
  function automatic logic [63:0] ex_clear(input entry_t e);
    logic [7:0] op;
    op = f_op(e.inst);
    return umax(wb_clear(e), (op == OP_VWB || op == OP_VPRE || op == OP_VMUL) ? acc_ready : '0);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */


  // Whether two DMA operations touch a common DRAM byte (§3.6): rows of
  // rlen bytes from lo on, step bytes apart. Exact where the steps are equal
  // or either has one row (row i of a meets row j of b iff
  // -rlen_b < d + k*step < rlen_a, k = j - i, and the first k past -rlen_b
  // decides); a longer step that is a multiple of the other counts as rows at
  // the shorter one; the envelopes [lo, hi) otherwise (timing::dramOverlap).
  function automatic logic dram_overlap(
      input logic [63:0] alo, input logic [63:0] ahi, input logic [63:0] astep,
      input logic [63:0] arows, input logic [63:0] alen, input logic [63:0] blo,
      input logic [63:0] bhi, input logic [63:0] bstep, input logic [63:0] brows,
      input logic [63:0] blen);
    logic signed [63:0] sa, sb, s, ra, rb, x, m;
    if (alo >= bhi || blo >= ahi) return 1'b0;
    sa = arows > 1 ? $signed(astep) : 64'sd0;
    sb = brows > 1 ? $signed(bstep) : 64'sd0;
    s = sa == 0 ? sb : sb == 0 ? sa : (sa < sb ? sa : sb);
    if (s == 0 || (sa != 0 && sa % s != 0) || (sb != 0 && sb % s != 0)) return 1'b1;
    ra = sa > s ? ($signed(arows) - 1) * (sa / s) + 1 : $signed(arows);
    rb = sb > s ? ($signed(brows) - 1) * (sb / s) + 1 : $signed(brows);
    x = $signed(blo) - $signed(alo) - (ra - 1) * s;
    m = x > -$signed(blen) ? 64'sd0 : (-$signed(blen) + 1 - x + s - 1) / s;
    return m <= ra + rb - 2 && x + m * s < $signed(alen);
  endfunction

  // Burst-rounded bytes of a DMA (§3.3.1): each row's span rounded out to
  // whole aligned bursts. A row at offset o within a burst covers
  // q + ceil((o + m) / B) bursts (n = q*B + m); the offsets of successive rows
  // repeat with period B / lowbit(stride mod B), so one period is summed and
  // weighted by how many rows fall on each offset.
  function automatic logic [63:0] burst_bytes(input logic [63:0] addr,
                                              input logic signed [63:0] stride,
                                              input logic [63:0] rows,
                                              input logic [63:0] n);
    logic [63:0] b, q, m, s, per, units, cnt, off, x;
    b = 64'(DRAM_BURST);
    q = n >> DRAM_BURST_LOG2;
    m = n & (b - 1);
    s = 64'(stride) & (b - 1);
    per = s == 0 ? 64'd1 : b / (s & (~s + 1));
    units = rows * q;
    for (int unsigned j = 0; j < (DRAM_BURST > 1 ? DRAM_BURST / 2 : 1); j++) begin
      if (64'(j) < per) begin
        cnt = rows / per + ((64'(j) < rows % per) ? 64'd1 : 64'd0);
        off = (addr + 64'(j) * 64'(stride)) & (b - 1);
        x = off + m;
        units = units + cnt * ((x == 0) ? 64'd0 : (x <= b ? 64'd1 : 64'd2));
      end
    end
    return units * b;
  endfunction

  function automatic logic [63:0] dram_cycles(input logic [63:0] bytes);
    return (bytes * 256 + 64'(BW_Q8) - 1) / 64'(BW_Q8);
  endfunction

  // Channel cycles of a DMA (§3.3.1): rows that follow each other in DRAM
  // are one span (DMA_MERGE_ROWS); at least snow_dma's time, a cycle per
  // beat, a beat never spanning two rows.
  function automatic logic [63:0] dma_cycles(input logic [63:0] addr,
                                             input logic signed [63:0] stride,
                                             input logic [63:0] rows,
                                             input logic [63:0] n);
    logic [63:0] d, beats;
    beats = rows * ((n + 64'(BEAT_BYTES) - 1) / 64'(BEAT_BYTES));
    if (DMA_MERGE_ROWS != 0 && rows > 1 && stride == $signed(n))
      d = dram_cycles(burst_bytes(addr, 64'sd0, 64'd1, n * rows));
    else
      d = dram_cycles(burst_bytes(addr, stride, rows, n));
    return umax(d, beats);
  endfunction

  // ---- The cycle ----
  logic [63:0] t;
  assign t = cycle;

  always_comb begin
    // Locals of the sequential walk through the cycle.
    logic flt;
    logic [7:0] fcode;
    logic [31:0] fpc;
    logic [63:0] fa0, fa1, fa2;
    logic acted, started, wake, drained;
    entry_t e;
    logic [INST_BITS-1:0] in;
    logic [7:0] op;
    logic [63:0] rows, len, bstr, cstr, dur, taps, comp, ext, pw, plen, lo, hi, size, bsz, b0, b1;
    logic [63:0] row_bytes, bytes, dlo, dhi, first, last;
    logic signed [63:0] dstr;
    logic weights, write, is_store, is_wgt;
    logic dir;
    logic [SW-1:0] k;
    logic [63:0] upto, from;
    logic found, la_eff, held;

    // Defaults: hold.
    ready_at_n = ready_at; last_comp_n = last_comp; blk_n = blk; blk_since_n = blk_since;
    wgrant_n = wgrant; sems_n = sems; sig_fire_n = sig_fire; sig_sem_n = sig_sem;
    sig_cnt_n = sig_cnt; acc_ready_n = acc_ready; chan_free_n = chan_free;
    wb_end_n = wb_end; wb_blo_n = wb_blo; wb_bhi_n = wb_bhi;
    wb_acc_n = wb_acc; wb_n_n = wb_n;
    ex_tr_end_n = ex_tr_end; la_n = 1'b0; ex_skip = 1'b0;
    req_v_n = req_v; req_post_n = req_post; req_d_n = req_d; req_b0_n = req_b0;
    req_b1_n = req_b1; req_x_n = req_x; ru_n = ru; wu_n = wu;
    fl_v_n = fl_v; fl_lo_n = fl_lo; fl_hi_n = fl_hi; fl_until_n = fl_until; fl_pc_n = fl_pc;
    fl_step_n = fl_step; fl_rows_n = fl_rows; fl_rlen_n = fl_rlen;
    fl_blo_n = fl_blo; fl_bhi_n = fl_bhi; fl_mask_n = fl_mask;
    fin_n = finished; total_n = total_cycles; flt_n = faulted; fcode_n = fault_code;
    fpc_n = fault_pc; farg0_n = fault_arg0; farg1_n = fault_arg1; farg2_n = fault_arg2;
    c_mac_n = ctr_mac_cycles; c_busy_dram_n = ctr_dram_busy; c_ops_n = ctr_unit_ops;
    c_rd_n = ctr_dram_rd_bytes; c_wr_n = ctr_dram_wr_bytes; c_busy_n = ctr_busy;
    c_code_n = ctr_dram_code_bytes; fetch_grant = 1'b0; fwin = 1'b0;
    c_wsem_n = ctr_wait_sem; c_wdram_n = ctr_wait_dram; c_wacc_n = ctr_wait_acc;
    pop = '0;
    ex_start = 1'b0; ex_entry = q_head[U_EX];
    fill_start = 1'b0; fill_entry = q_head[U_LD];
    grant = 1'b0; grant_xfer = req_x[0];
    ev_mark = 1'b0; ev_mark_layer = '0; ev_c = 1'b0; ev_c_busy = '0; ev_c_wait_sem = '0;
    ev_c_wait_acc = '0; ev_mac = 1'b0; ev_mac_layer = '0; ev_mac_cycles = '0;
    ev_ld = 1'b0; ev_ld_layer = '0; ev_ld_bytes = '0; ev_st = 1'b0; ev_st_layer = '0;
    ev_st_bytes = '0;
    flt = 1'b0; fcode = FAULT_NONE; fpc = '0; fa0 = '0; fa1 = '0; fa2 = '0;
    acted = ctrl_acted || fetch_acted;
    e = q_head[0]; in = '0; op = '0; rows = '0; len = '0; bstr = '0; cstr = '0; dur = '0; taps = '0;
    comp = '0; ext = '0; pw = '0; plen = '0; lo = '0; hi = '0; size = '0; bsz = '0; b0 = '0; b1 = '0;
    row_bytes = '0; bytes = '0; dlo = '0; dhi = '0; first = '0; last = '0; dstr = '0;
    weights = 1'b0; write = 1'b0; is_store = 1'b0; is_wgt = 1'b0; dir = 1'b0;
    k = '0; upto = '0; from = t; found = 1'b0; started = 1'b0; la_eff = 1'b0; held = 1'b0;
    wake = 1'b0; drained = 1'b0;

    if (!stopped) begin
      // 1. Signals that fired before this cycle become visible (§3.4.2).
      for (int u = 0; u < 3; u++) begin
        k = '0;
        for (int i = 0; i < NS; i++)
          if (SW'(i) < sig_cnt[u] && sig_fire[u][i] < t) begin
            sems_n[sig_sem[u][i]] = sems_n[sig_sem[u][i]] + 1;
            k = k + 1;
          end
        // Fire times of one unit never decrease: the visible ones are a prefix.
        for (int i = 0; i < NS; i++) begin
          if (i + int'(k) < NS) begin
            sig_fire_n[u][i] = sig_fire[u][i + int'(k)];
            sig_sem_n[u][i] = sig_sem[u][i + int'(k)];
          end
        end
        sig_cnt_n[u] = sig_cnt[u] - k;
      end

      // 2. The control core acted in its own module; its fault comes first.
      if (ctrl_fault) begin
        flt = 1'b1; fcode = ctrl_fault_code; fpc = ctrl_pc; fa0 = ctrl_fault_arg0;
        fa1 = ctrl_fault_arg1;
      end

      // 3. Load, compute, store: each may start its head operation.
      for (int u = 0; u < 3; u++) begin
        started = 1'b0;
        e = q_head[u];
        in = e.inst;
        op = f_op(in);
        rows = f_rows(in); len = f_len(in); bstr = f_bstride(in); cstr = f_cstride(in);
        dstr = f_dstride(in);
        if (!flt && q_nonempty[u] && !wgrant[u] && ready_at[u] <= t) begin
          dur = 64'd1; comp = t + 1; from = t;
          // The compute unit's head waits for the MAC pipeline to drain
          // (vwb, vpre, vmul) and for a vwb beside it (wb_clear), counted
          // as wait_acc.
          held = u == U_EX && waits_acc(op) && t < ex_clear(e);
          if (held) begin
            if (!blk[u]) begin blk_n[u] = 1'b1; blk_since_n[u] = t; end
          end else if (u == U_EX && waits_acc(op)) begin
            if (blk[u]) begin
              c_wacc_n[u] = c_wacc_n[u] + (t - blk_since[u]);
              ev_c_wait_acc = t - blk_since[u];
            end
            blk_n[u] = 1'b0;
          end
          if (!held) case (op)
            OP_SYNC_LD_WAIT, OP_SYNC_EX_WAIT, OP_SYNC_ST_WAIT: begin
              if (sems_n[f_idx(in)] == 0) begin
                if (!blk[u]) begin blk_n[u] = 1'b1; blk_since_n[u] = t; end
              end else begin
                sems_n[f_idx(in)] = sems_n[f_idx(in)] - 1;
                if (blk[u]) begin
                  c_wsem_n[u] = c_wsem_n[u] + (t - blk_since[u]);
                  if (u == U_EX) ev_c_wait_sem = t - blk_since[u];
                end
                blk_n[u] = 1'b0;
                started = 1'b1;
              end
            end
            OP_SYNC_LD_SIGNAL, OP_SYNC_EX_SIGNAL, OP_SYNC_ST_SIGNAL: begin
              if (64'(sig_cnt_n[u]) >= 64'(NS)) begin
                flt = 1'b1; fcode = FAULT_SIGNALS; fa0 = 64'(sig_cnt_n[u]);
              end else begin
                sig_fire_n[u][SI'(sig_cnt_n[u])] = umax(t, last_comp[u]);
                sig_sem_n[u][SI'(sig_cnt_n[u])] = f_idx(in);
                sig_cnt_n[u] = sig_cnt_n[u] + 1;
                started = 1'b1;
              end
            end
            OP_MARK: begin
              ev_mark = 1'b1; ev_mark_layer = f_imm(in);
              started = 1'b1;
            end
            OP_LD_MAP, OP_LD_WGT, OP_ST_MAP: begin
              is_wgt = op == OP_LD_WGT;
              is_store = op == OP_ST_MAP;
              row_bytes = is_wgt ? len * 2 * 64'(LANES) : len * 2;
              // Unit checks first, as the simulator's functional half does.
              if (!is_store && (f_mask(in) == 0 || (32'(f_mask(in)) >> CUS) != 0)) begin
                flt = 1'b1; fcode = FAULT_MASK; fa0 = 64'(f_mask(in));
              end else if (is_wgt && 32'(f_idx(in)) >= VMACS) begin
                flt = 1'b1; fcode = FAULT_VMAC_IDX; fa0 = 64'(f_idx(in));
              end else if (is_wgt && f_wpix(in) != 0 &&
                           (WPIX_LOADS == 0 || VMACS % (32'd1 << f_wpix(in)) != 0 ||
                            32'(f_idx(in)) >= (VMACS >> f_wpix(in)))) begin
                flt = 1'b1; fcode = FAULT_WPIX; fa0 = 64'(f_wpix(in)); fa1 = 64'(f_idx(in));
              end else if (is_store && 32'(f_idx(in)) >= CUS) begin
                flt = 1'b1; fcode = FAULT_CU_IDX; fa0 = 64'(f_idx(in));
              end
              first = 64'(e.a1);
              last = 64'($signed(first) + ($signed(rows) - 1) * dstr);
              dlo = $signed(first) < $signed(last) ? first : last;
              dhi = ($signed(first) < $signed(last) ? last : first) + row_bytes;
              if (!flt && (e.a1[0] || dstr[0])) begin
                flt = 1'b1; fcode = FAULT_DRAM_ALIGN; fa0 = 64'(e.a1); fa1 = 64'(dstr);
              end else if (!flt && ($signed(dlo) < 0 || dhi > DRAM_BYTES)) begin
                flt = 1'b1; fcode = FAULT_DRAM_RANGE; fa0 = dlo; fa1 = dhi;
              end
              ext = trace_span(rows, bstr, len);
              size = is_wgt ? 64'(WEIGHTS_WORDS) : 64'(MAPS_ELEMS);
              if (!flt && ext == 0) begin
                flt = 1'b1; fcode = FAULT_BUF_EMPTY; fa0 = is_wgt ? 64'd1 : 64'd0;
              end else if (!flt && 64'(e.a2) + ext > size) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = is_wgt ? 64'd1 : 64'd0;
                fa1 = 64'(e.a2); fa2 = 64'(e.a2) + ext;
              end
              if (!flt) begin
                weights = is_wgt; write = !is_store; lo = 64'(e.a2); hi = lo + ext;
                upto = NEVER;
                `include "snow_sched_banks.svh"
              end
              // DRAM ordering against transfers in flight the other way.
              dir = is_store;
              if (!flt) begin
                found = 1'b0;
                for (int i = 0; i < NF; i++)
                  if (!found && fl_v_n[!dir][i] && fl_until_n[!dir][i] > t &&
                      dram_overlap(fl_lo_n[!dir][i], fl_hi_n[!dir][i], fl_step_n[!dir][i],
                                   fl_rows_n[!dir][i], fl_rlen_n[!dir][i], dlo, dhi,
                                   64'(dstr < 0 ? -dstr : dstr), rows, row_bytes)) begin
                    found = 1'b1; flt = 1'b1; fcode = FAULT_DRAM_ORDER; fa0 = dlo; fa1 = dhi;
                    fa2 = {31'b0, is_store, fl_pc_n[!dir][i]};
                  end
              end
              if (!flt) begin
                found = 1'b0;
                for (int i = 0; i < NF; i++)
                  if (!found && (!fl_v_n[dir][i] || fl_until_n[dir][i] <= t)) begin
                    found = 1'b1;
                    fl_v_n[dir][i] = 1'b1; fl_lo_n[dir][i] = dlo; fl_hi_n[dir][i] = dhi;
                    fl_step_n[dir][i] = 64'(dstr < 0 ? -dstr : dstr); fl_rows_n[dir][i] = rows;
                    fl_rlen_n[dir][i] = row_bytes;
                    fl_until_n[dir][i] = NEVER; fl_pc_n[dir][i] = e.pc;
                    fl_blo_n[dir][i] = op == OP_LD_MAP ? lo : 64'd0;
                    fl_bhi_n[dir][i] = op == OP_LD_MAP ? hi : 64'd0;
                    fl_mask_n[dir][i] = op == OP_LD_MAP ? f_mask(in) : F_MASK_W'(0);
                  end
                bytes = rows * row_bytes;
                if (is_store) begin
                  c_wr_n = c_wr_n + bytes; ev_st = 1'b1; ev_st_layer = e.layer; ev_st_bytes = bytes;
                end else begin
                  c_rd_n = c_rd_n + bytes; ev_ld = 1'b1; ev_ld_layer = e.layer; ev_ld_bytes = bytes;
                end
                bsz = is_wgt ? 64'(WEIGHTS_BANK_WORDS) : 64'(MAPS_BANK_ELEMS);
                req_v_n[dir] = 1'b1;
                req_post_n[dir] = t;
                req_d_n[dir] = dma_cycles(64'(e.a1), dstr, rows, row_bytes);
                req_b0_n[dir] = 32'(lo / bsz) + (is_wgt ? 32'(MAPS_BANKS) : 32'd0);
                req_b1_n[dir] = 32'((hi - 1) / bsz) + (is_wgt ? 32'(MAPS_BANKS) : 32'd0);
                req_x_n[dir].store = is_store;
                req_x_n[dir].weights = is_wgt;
                req_x_n[dir].dram = 64'(e.a1);
                req_x_n[dir].dstride = dstr;
                req_x_n[dir].buf_addr = e.a2;
                req_x_n[dir].bstride = 32'(bstr);
                req_x_n[dir].len = F_LEN_W'(len);
                req_x_n[dir].rows = F_ROWS_W'(rows);
                req_x_n[dir].mask = f_mask(in);
                req_x_n[dir].idx = f_idx(in);
                req_x_n[dir].wpix = is_wgt ? f_wpix(in) : '0;
                wgrant_n[u] = 1'b1;
                pop[u] = 1'b1;
                c_ops_n = c_ops_n + 1;
                acted = 1'b1;
              end
            end
            OP_FILL: begin
              dur = rows * ((len + 64'(LANES) - 1) / 64'(LANES));
              comp = t + dur;
              ext = trace_span(rows, bstr, len);
              if (f_mask(in) == 0 || (32'(f_mask(in)) >> CUS) != 0) begin
                flt = 1'b1; fcode = FAULT_MASK; fa0 = 64'(f_mask(in));
              end else if (ext == 0) begin
                flt = 1'b1; fcode = FAULT_BUF_EMPTY; fa0 = 64'd0;
              end else if (64'(e.a2) + ext > 64'(MAPS_ELEMS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd0; fa1 = 64'(e.a2);
                fa2 = 64'(e.a2) + ext;
              end
              if (!flt) begin
                weights = 1'b0; write = 1'b1; lo = 64'(e.a2); hi = lo + ext; upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) begin
                found = 1'b0;
                for (int i = 0; i < NF; i++)
                  if (!found && fl_v_n[0][i] && fl_until_n[0][i] > t &&
                      (fl_mask_n[0][i] & f_mask(in)) != 0 && fl_blo_n[0][i] < hi &&
                      lo < fl_bhi_n[0][i]) begin
                    found = 1'b1; flt = 1'b1; fcode = FAULT_FILL_OVER_LOAD;
                    fa0 = {hi[31:0], lo[31:0]};
                    fa1 = {fl_bhi_n[0][i][31:0], fl_blo_n[0][i][31:0]};
                    fa2 = 64'(fl_pc_n[0][i]);
                  end
              end
              if (!flt) begin
                fill_start = 1'b1;
                started = 1'b1;
              end
            end
            OP_VMAC, OP_VMACP, OP_VDW: begin
              // Start-up, whole granules per row, a step per read pass; every
              // tap still reads one weight word (rows * len of them).
              dur = mac_trace_cycles(op, in, 64'(e.a2));
              // vmacp: 2^pix pixel groups, group g reading from a2 + g * cstride.
              ext = trace_ext(op, in);
              // Looked ahead during the last cycle of the trace before (la):
              // one start-up cycle fewer, its accesses checked from then;
              // not while a vwb still writes a bank it reads.
              la_eff = la && !(WB_OVERLAP != 0 && t - 64'd1 < wb_end &&
                               reads_wb_banks(64'(e.a2), ext));
              if (la_eff) begin
                dur = dur - 64'd1; from = t - 64'd1;
              end
              taps = rows * len;
              comp = t + dur + 64'(MAC_PIPE);
              if (64'(e.a1) >= 64'(ACC_ENTRIES)) begin
                flt = 1'b1; fcode = FAULT_ACC_INDEX; fa0 = 64'(e.a1);
              end else if (op == OP_VMACP && ((64'd1 << f_pix(e.inst)) > 64'(VMACS) ||
                           64'(VMACS) % (64'd1 << f_pix(e.inst)) != 0)) begin
                flt = 1'b1; fcode = FAULT_PIX; fa0 = 64'(f_pix(e.inst));
              end else if (ext == 0) begin
                flt = 1'b1; fcode = FAULT_BUF_EMPTY; fa0 = 64'd0;
              end else if (64'(e.a2) + ext > 64'(MAPS_ELEMS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd0; fa1 = 64'(e.a2);
                fa2 = 64'(e.a2) + ext;
              end else if (64'(e.a3) + taps > 64'(WEIGHTS_WORDS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd1; fa1 = 64'(e.a3);
                fa2 = 64'(e.a3) + taps;
              end
              if (!flt) begin
                weights = 1'b0; write = 1'b0; lo = 64'(e.a2); hi = lo + ext; upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) begin
                weights = 1'b1; write = 1'b0; lo = 64'(e.a3); hi = lo + taps; upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) begin
                acc_ready_n = comp;
                c_mac_n = c_mac_n + dur;
                ev_mac = 1'b1; ev_mac_layer = e.layer; ev_mac_cycles = dur;
                started = 1'b1;
              end
            end
            OP_VBIAS, OP_VLUT: begin
              // vbias reads weight word a3 in one cycle, vlut its LUT_WORDS
              // words from a3 on, one a cycle.
              dur = op == OP_VLUT ? 64'(LUT_WORDS) : 64'd1;
              comp = t + dur;
              if (64'(e.a3) + dur > 64'(WEIGHTS_WORDS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd1; fa1 = 64'(e.a3);
                fa2 = 64'(e.a3) + dur;
              end
              if (!flt) begin
                weights = 1'b1; write = 1'b0; lo = 64'(e.a3); hi = lo + dur; upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) started = 1'b1;
            end
            OP_VWB, OP_VPRE, OP_VMUL: begin
              taps = rows * acc_cols(op, in);  // accumulator entries
              // A vwb with sum: the adder tree across the CUs is one more stage.
              dur = taps * 64'(WB_CYCLES) +
                    (op == OP_VWB && f_sum(in) != 0 ? 64'(CU_SUM_CYCLES) : 64'd0);
              comp = t + dur;
              ext = acc_span(op, in);
              if (taps == 0 || 64'(e.a1) + taps > 64'(ACC_ENTRIES)) begin
                flt = 1'b1; fcode = FAULT_ACC_RANGE; fa0 = 64'(e.a1); fa1 = 64'(e.a1) + taps;
              end else if (64'(e.a2) + ext > 64'(MAPS_ELEMS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd0; fa1 = 64'(e.a2);
                fa2 = 64'(e.a2) + ext;
              end else if (op == OP_VWB && f_sum(in) != 0 && CU_SUM == 0) begin
                flt = 1'b1; fcode = FAULT_SUM; fa0 = 64'(f_sum(in));
              end
              if (!flt) begin
                weights = 1'b0; write = op == OP_VWB; lo = 64'(e.a2); hi = lo + ext;
                upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt && op == OP_VWB && WB_OVERLAP != 0) begin
                // The writeback's walker takes it; the unit goes on next cycle.
                wb_end_n = t + dur;
                wb_blo_n = lo / 64'(MAPS_BANK_ELEMS); wb_bhi_n = (hi - 1) / 64'(MAPS_BANK_ELEMS);
                wb_acc_n = 64'(e.a1); wb_n_n = taps;
                dur = 64'd1;
              end
              if (!flt) started = 1'b1;
            end
            OP_VMAX, OP_VAVG: begin
              dur = rows * len;
              comp = t + dur;
              // words + 1 lane words of channels at once.
              pw = 64'(f_words(e.inst));
              plen = (pw + 64'd1) * 64'(LANES);
              ext = (rows == 0 || len == 0) ? 64'd0 : (rows - 1) * bstr + (len - 1) * cstr + plen;
              if (pw >= 64'(POOL_WORDS)) begin
                flt = 1'b1; fcode = FAULT_POOL_WORDS; fa0 = pw;
              end else if (ext == 0) begin
                flt = 1'b1; fcode = FAULT_BUF_EMPTY; fa0 = 64'd2;
              end else if (64'(e.a2) + ext > 64'(MAPS_ELEMS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd2; fa1 = 64'(e.a2);
                fa2 = 64'(e.a2) + ext;
              end else if (64'(e.a1) + plen > 64'(MAPS_ELEMS)) begin
                flt = 1'b1; fcode = FAULT_BUF_RANGE; fa0 = 64'd3; fa1 = 64'(e.a1);
                fa2 = 64'(e.a1) + plen;
              end
              if (!flt) begin
                weights = 1'b0; write = 1'b0; lo = 64'(e.a2); hi = lo + ext; upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) begin
                weights = 1'b0; write = 1'b1; lo = 64'(e.a1); hi = lo + plen;
                upto = t + dur;
                `include "snow_sched_banks.svh"
              end
              if (!flt) started = 1'b1;
            end
            default: begin
              flt = 1'b1; fcode = FAULT_NONE;
            end
          endcase
          if (flt) fpc = e.pc;
          if (started) begin
            // Finish: the unit is ready again after dur, its effects final at comp.
            ready_at_n[u] = t + dur;
            last_comp_n[u] = umax(last_comp_n[u], comp);
            c_busy_n[u] = c_busy_n[u] + dur;
            if (u == U_EX) begin
              ev_c = 1'b1; ev_c_busy = dur;
              ex_start = op != OP_MARK && op != OP_SYNC_EX_WAIT && op != OP_SYNC_EX_SIGNAL;
              ex_tr_end_n = is_mac_trace(op) ? t + dur : NEVER;
              ex_skip = la_eff && is_mac_trace(op);
            end
            pop[u] = 1'b1;
            c_ops_n = c_ops_n + 1;
            acted = 1'b1;
          end
        end
      end

      // The compute unit's next operation is looked ahead in this cycle if
      // it is the last of a MAC trace and another operation is visible
      // behind it in the queue (pushed before this cycle).
      la_n = TRACE_LOOKAHEAD != 0 && TRACE_STARTUP != 0 && ex_tr_end_n == t + 1 &&
             q_nonempty[U_EX] && !(pop[U_EX] && q_last[U_EX]);

      // 4. The channel grants the oldest request; on a tie a fetch, then the
      // load unit (§3.3.2). A fetch moves no data here (snow_fetch.sv).
      fwin = fetch_req_v && (!req_v_n[0] || fetch_req_post <= req_post_n[0]) &&
             (!req_v_n[1] || fetch_req_post <= req_post_n[1]);
      if (!flt && chan_free <= t && fwin) begin
        fetch_grant = 1'b1;
        chan_free_n = t + 64'(FETCH_CYCLES);
        c_busy_dram_n = c_busy_dram_n + 64'(FETCH_CYCLES);
        c_code_n = c_code_n + 64'(FETCH_BYTES);
        acted = 1'b1;
      end else if (!flt && chan_free <= t && (req_v_n[0] || req_v_n[1])) begin
        dir = (req_v_n[0] && (!req_v_n[1] || req_post_n[0] <= req_post_n[1])) ? 1'b0 : 1'b1;
        grant = 1'b1;
        grant_xfer = req_x_n[dir];
        comp = t + req_d_n[dir] + 64'(DRAM_LAT);
        chan_free_n = t + req_d_n[dir];
        c_busy_dram_n = c_busy_dram_n + req_d_n[dir];
        req_v_n[dir] = 1'b0;
        wgrant_n[!dir ? U_LD : U_ST] = 1'b0;
        ready_at_n[!dir ? U_LD : U_ST] = t + 1;
        last_comp_n[!dir ? U_LD : U_ST] = umax(last_comp_n[!dir ? U_LD : U_ST], comp);
        c_wdram_n[!dir ? U_LD : U_ST] = c_wdram_n[!dir ? U_LD : U_ST] + (t - req_post_n[dir]);
        c_busy_n[!dir ? U_LD : U_ST] = c_busy_n[!dir ? U_LD : U_ST] + 1;
        for (int b = 0; b < NB; b++)
          if (32'(b) >= req_b0_n[dir] && 32'(b) <= req_b1_n[dir]) begin
            if (dir) ru_n[b][U_ST] = t + req_d_n[dir];
            else wu_n[b][U_LD] = comp;
          end
        for (int i = 0; i < NF; i++)
          if (fl_v_n[dir][i] && fl_until_n[dir][i] == NEVER) fl_until_n[dir][i] = comp;
        acted = 1'b1;
      end

      // 5. The end, a deadlock, or a fault.
      drained = !req_v_n[0] && !req_v_n[1] && !wgrant_n[U_LD] && !wgrant_n[U_ST];
      for (int u = 0; u < 3; u++) begin
        if (sig_cnt_n[u] != 0) drained = 1'b0;
        if ((q_nonempty[u] && !(pop[u] && q_last[u])) || push[u]) drained = 1'b0;
      end
      wake = !drained;
      if (!acted && !flt) begin
        // Nothing moved: does anything have a time at which it will?
        wake = req_v_n[0] || req_v_n[1] || fetch_req_v || fetch_waiting;
        for (int u = 0; u < 3; u++) begin
          if (sig_cnt_n[u] != 0) wake = 1'b1;
          if (q_nonempty[u] && !wgrant_n[u]) begin
            if (ready_at_n[u] > t) wake = 1'b1;
            else if (u == U_EX && ex_clear(q_head[u]) > t) wake = 1'b1;
          end
        end
      end
      if (flt) begin
        flt_n = 1'b1; fcode_n = fcode; fpc_n = fpc; farg0_n = fa0; farg1_n = fa1; farg2_n = fa2;
      end else if ((ctrl_halted || ctrl_halting) && drained) begin
        fin_n = 1'b1;
        total_n = (ctrl_halting ? t : halt_cycle) + 1;
        for (int u = 0; u < 3; u++) total_n = umax(total_n, umax(ready_at_n[u], last_comp_n[u]));
      end else if (!acted && !wake) begin
        flt_n = 1'b1; fcode_n = FAULT_DEADLOCK;
        fpc_n = ctrl_pc;
        for (int u = 2; u >= 0; u--) if (q_nonempty[u]) fpc_n = q_head[u].pc;
        farg0_n = (q_nonempty[0] ? 64'(q_head[0].pc) : 64'h1_0000_0000) |
                  (ctrl_halted ? 64'd0 : 64'h2_0000_0000);
        farg1_n = q_nonempty[1] ? 64'(q_head[1].pc) : 64'h1_0000_0000;
        farg2_n = q_nonempty[2] ? 64'(q_head[2].pc) : 64'h1_0000_0000;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int u = 0; u < 3; u++) begin
        ready_at[u] <= '0; last_comp[u] <= '0; blk[u] <= 1'b0; blk_since[u] <= '0;
        wgrant[u] <= 1'b0; sig_cnt[u] <= '0;
        for (int i = 0; i < NS; i++) begin sig_fire[u][i] <= '0; sig_sem[u][i] <= '0; end
      end
      for (int i = 0; i < NUM_SEMAPHORES; i++) sems[i] <= '0;
      acc_ready <= '0; chan_free <= '0; ex_tr_end <= NEVER; la <= 1'b0;
      wb_end <= '0; wb_blo <= '0; wb_bhi <= '0; wb_acc <= '0; wb_n <= '0;
      for (int d = 0; d < 2; d++) begin
        req_v[d] <= 1'b0; req_post[d] <= '0; req_d[d] <= '0; req_b0[d] <= '0; req_b1[d] <= '0;
        req_x[d] <= '0;
        for (int i = 0; i < NF; i++) begin
          fl_v[d][i] <= 1'b0; fl_lo[d][i] <= '0; fl_hi[d][i] <= '0; fl_until[d][i] <= '0;
          fl_step[d][i] <= '0; fl_rows[d][i] <= '0; fl_rlen[d][i] <= '0;
          fl_pc[d][i] <= '0; fl_blo[d][i] <= '0; fl_bhi[d][i] <= '0; fl_mask[d][i] <= '0;
        end
      end
      for (int b = 0; b < NB; b++)
        for (int u = 0; u < 3; u++) begin ru[b][u] <= '0; wu[b][u] <= '0; end
      finished <= 1'b0; total_cycles <= '0; faulted <= 1'b0; fault_code <= FAULT_NONE;
      fault_pc <= '0; fault_cycle <= '0; fault_arg0 <= '0; fault_arg1 <= '0; fault_arg2 <= '0;
      ctr_mac_cycles <= '0; ctr_dram_busy <= '0; ctr_unit_ops <= '0; ctr_dram_rd_bytes <= '0;
      ctr_dram_wr_bytes <= '0; ctr_busy <= '0; ctr_wait_sem <= '0; ctr_wait_dram <= '0;
      ctr_wait_acc <= '0; ctr_dram_code_bytes <= '0;
    end else begin
      ready_at <= ready_at_n; last_comp <= last_comp_n; blk <= blk_n; blk_since <= blk_since_n;
      wgrant <= wgrant_n; sems <= sems_n; sig_fire <= sig_fire_n; sig_sem <= sig_sem_n;
      sig_cnt <= sig_cnt_n; acc_ready <= acc_ready_n; chan_free <= chan_free_n;
      wb_end <= wb_end_n; wb_blo <= wb_blo_n; wb_bhi <= wb_bhi_n;
      wb_acc <= wb_acc_n; wb_n <= wb_n_n;
      ex_tr_end <= ex_tr_end_n; la <= la_n;
      req_v <= req_v_n; req_post <= req_post_n; req_d <= req_d_n; req_b0 <= req_b0_n;
      req_b1 <= req_b1_n; req_x <= req_x_n; ru <= ru_n; wu <= wu_n;
      fl_v <= fl_v_n; fl_lo <= fl_lo_n; fl_hi <= fl_hi_n; fl_until <= fl_until_n;
      fl_step <= fl_step_n; fl_rows <= fl_rows_n; fl_rlen <= fl_rlen_n;
      fl_pc <= fl_pc_n; fl_blo <= fl_blo_n; fl_bhi <= fl_bhi_n; fl_mask <= fl_mask_n;
      finished <= fin_n; total_cycles <= total_n; faulted <= flt_n; fault_code <= fcode_n;
      fault_pc <= fpc_n; fault_arg0 <= farg0_n; fault_arg1 <= farg1_n; fault_arg2 <= farg2_n;
      if (flt_n && !faulted) fault_cycle <= t;
      ctr_mac_cycles <= c_mac_n; ctr_dram_busy <= c_busy_dram_n; ctr_unit_ops <= c_ops_n;
      ctr_dram_rd_bytes <= c_rd_n; ctr_dram_wr_bytes <= c_wr_n; ctr_busy <= c_busy_n;
      ctr_wait_sem <= c_wsem_n; ctr_wait_dram <= c_wdram_n; ctr_wait_acc <= c_wacc_n;
      ctr_dram_code_bytes <= c_code_n;
    end
  end
endmodule
