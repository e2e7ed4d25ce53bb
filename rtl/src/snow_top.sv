// snow_top.sv - the accelerator: control core, unit queues, scheduler (the
// timing contract), DMA and compute datapaths, buffers. The harness owns DRAM
// and serves the DRAM port; see rtl/README.md for the port protocol.

module snow_top
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
(
  input  logic clk,
  input  logic rst,
  input  logic imem_we,
  input  logic [IMEM_AW-1:0] imem_waddr,
  input  logic [INST_BITS-1:0] imem_wdata,
  input  logic [31:0] code_len,
  input  logic [31:0] num_layers,
  output logic dram_rd_en,
  output logic [63:0] dram_rd_addr,
  input  logic [BEAT_BYTES*8-1:0] dram_rd_data,
  output logic dram_wr_en,
  output logic [63:0] dram_wr_addr,
  output logic [BEAT_BYTES*8-1:0] dram_wr_data,
  output logic [BEAT_BYTES-1:0] dram_wr_strb,
  output logic done,
  output logic [63:0] total_cycles,
  output logic faulted,
  output logic [7:0] fault_code,
  output logic [31:0] fault_pc,
  output logic [63:0] fault_cycle, fault_arg0, fault_arg1, fault_arg2,
  output logic [31:0] cur_pc,
  output logic [63:0] cur_cycle,
  output logic [63:0] ctr_mac_cycles, ctr_dram_busy, ctr_ctrl_insts, ctr_unit_ops, ctr_ctrl_stall,
  output logic [63:0] ctr_dram_rd_bytes, ctr_dram_wr_bytes, ctr_dram_code_bytes, ctr_fetch_stall,
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
  localparam int unsigned EPB = BEAT_BYTES / 2;
  localparam int unsigned WPB = BEAT_BYTES / (2 * LANES);
  localparam int unsigned QW = $clog2(QUEUE_DEPTH + 1);

  logic [63:0] cycle;
  logic stopped, finished, dma_idle;

  // ---- Control core and queues ----
  logic [2:0] push, pop, q_nonempty, q_full, q_last;
  entry_t push_entry;
  entry_t q_head [3];
  logic [QW-1:0] q_count [3];
  logic ctrl_acted, ctrl_halted, ctrl_halting, ctrl_fault;
  logic [63:0] halt_cycle, ctrl_farg0, ctrl_farg1;
  logic [7:0] ctrl_fcode;

  // The program's length and layer count, taken while in reset (the
  // harness holds them constant): registers, so that no combinational path
  // starts at a top-level input. Verilator re-evaluates all logic an input
  // reaches on every eval(), twice a cycle; from these two it reached the
  // whole scheduler and datapath, half of a co-simulation's time.
  logic [31:0] code_len_q, num_layers_q;
  always_ff @(posedge clk)
    if (rst) begin
      code_len_q <= code_len;
      num_layers_q <= num_layers;
    end

  logic fetch_ok, fetch_req_v, fetch_acted, fetch_waiting, fetch_grant;
  logic [63:0] fetch_req_post;

  snow_fetch u_fetch (
    .clk, .rst, .cycle, .active(!ctrl_halted && !stopped), .halting(ctrl_halting), .pc(cur_pc),
    .code_len(code_len_q), .grant(fetch_grant), .ok(fetch_ok), .req_v(fetch_req_v), .req_post(fetch_req_post),
    .acted(fetch_acted), .waiting(fetch_waiting));

  snow_ctrl u_ctrl (
    .clk, .rst, .freeze(stopped), .cycle, .imem_we, .imem_waddr, .imem_wdata, .code_len(code_len_q),
    .num_layers(num_layers_q), .q_full, .fetch_ok, .ctr_fetch_stall, .push, .push_entry, .acted(ctrl_acted),
    .halted(ctrl_halted), .halting(ctrl_halting), .halt_cycle, .pc(cur_pc), .fault(ctrl_fault), .fault_code(ctrl_fcode),
    .fault_arg0(ctrl_farg0), .fault_arg1(ctrl_farg1), .ctr_insts(ctr_ctrl_insts),
    .ctr_stall(ctr_ctrl_stall));

  for (genvar u = 0; u < 3; u++) begin : g_q
    snow_queue #(.DEPTH(QUEUE_DEPTH), .T(entry_t)) u_q (
      .clk, .rst, .push(push[u]), .push_data(push_entry), .pop(pop[u]),
      .nonempty(q_nonempty[u]), .count(q_count[u]), .head(q_head[u]));
    assign q_full[u] = 32'(q_count[u]) >= QUEUE_DEPTH;
    assign q_last[u] = q_count[u] == 1;
  end


  // ---- Scheduler ----
  logic ex_start, ex_skip, fill_start, grant;
  entry_t ex_entry, fill_entry;
  xfer_t grant_xfer;

  snow_sched u_sched (
    .clk, .rst, .cycle, .q_nonempty, .q_last, .q_head, .push, .pop, .ctrl_acted, .ctrl_halted,
    .ctrl_halting, .halt_cycle, .ctrl_pc(cur_pc), .ctrl_fault, .ctrl_fault_code(ctrl_fcode),
    .ctrl_fault_arg0(ctrl_farg0), .ctrl_fault_arg1(ctrl_farg1), .fetch_req_v, .fetch_req_post,
    .fetch_acted, .fetch_waiting, .fetch_grant, .ex_start, .ex_entry, .ex_skip,
    .fill_start, .fill_entry, .grant, .grant_xfer, .stopped, .finished, .total_cycles,
    .faulted, .fault_code, .fault_pc, .fault_cycle, .fault_arg0, .fault_arg1, .fault_arg2,
    .ctr_mac_cycles, .ctr_dram_busy, .ctr_unit_ops, .ctr_dram_rd_bytes, .ctr_dram_wr_bytes,
    .ctr_dram_code_bytes, .ctr_busy, .ctr_wait_sem, .ctr_wait_dram, .ctr_wait_acc, .ev_mark, .ev_mark_layer, .ev_c,
    .ev_c_busy, .ev_c_wait_sem, .ev_c_wait_acc, .ev_mac, .ev_mac_layer, .ev_mac_cycles, .ev_ld,
    .ev_ld_layer, .ev_ld_bytes, .ev_st, .ev_st_layer, .ev_st_bytes);

  // ---- Datapaths and buffers ----
  logic mw_en, fw_en, cw_en, ww_en;
  logic [CUS-1:0] mw_mask, fw_mask, ww_mask, cw_mask;
  logic [31:0] mw_addr, mw_n, fw_addr, fw_n, cw_addr, cr_addr, sr_addr, ww_addr, ww_n, wr_addr;
  logic [EPB-1:0][15:0] mw_data, sr_data;
  logic [15:0] fw_value;
  logic [31:0] cw_n;
  logic [15:0] cw_data [CUS][WB_WORDS*LANES];
  logic [15:0] cr_data [CUS][VMACS*LANES];
  logic [31:0] vr_addr [VMACS];
  logic [15:0] vr_data [CUS][VMACS];
  logic [F_IDX_W-1:0] sr_cu, ww_idx;
  logic [F_WPIX_W-1:0] ww_wpix;
  logic [WPB-1:0][LANES-1:0][15:0] ww_data;
  logic [15:0] wr_data [CUS*VMACS][LANES];

  snow_dma u_dma (
    .clk, .rst, .grant, .grant_xfer, .fill_start, .fill_entry, .idle(dma_idle), .dram_rd_en,
    .dram_rd_addr, .dram_rd_data, .dram_wr_en, .dram_wr_addr, .dram_wr_data, .dram_wr_strb,
    .mw_en, .mw_mask, .mw_addr, .mw_n, .mw_data, .fw_en, .fw_mask, .fw_addr, .fw_n, .fw_value,
    .ww_en, .ww_mask, .ww_idx, .ww_wpix, .ww_addr, .ww_n, .ww_data, .sr_cu, .sr_addr, .sr_data);

  snow_compute u_compute (
    .clk, .rst, .start(ex_start), .start_entry(ex_entry), .start_skip(ex_skip),
    .mr_addr(cr_addr), .mr_data(cr_data),
    .vr_addr, .vr_data, .mw_en(cw_en), .mw_mask(cw_mask), .mw_addr(cw_addr), .mw_n(cw_n), .mw_data(cw_data),
    .wr_addr, .wr_data);

  snow_buffers u_buf (
    .clk, .mw_en, .mw_mask, .mw_addr, .mw_n, .mw_data, .fw_en, .fw_mask, .fw_addr, .fw_n,
    .fw_value, .cw_en, .cw_mask, .cw_addr, .cw_n, .cw_data, .cr_addr, .cr_data, .vr_addr, .vr_data, .sr_cu,
    .sr_addr, .sr_data,
    .ww_en, .ww_mask, .ww_idx, .ww_wpix, .ww_addr, .ww_n, .ww_data, .wr_addr, .wr_data);

  // ---- Cycle counter and status ----
  always_ff @(posedge clk) begin
    if (rst) cycle <= '0;
    else if (!stopped) cycle <= cycle + 1;
  end
  assign cur_cycle = cycle;
  // Finished once the last data has landed too (a store's beats may trail
  // the end of its unit's bookkeeping by a few cycles).
  assign done = finished && dma_idle;
endmodule
