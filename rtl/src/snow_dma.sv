// snow_dma.sv - the load and store units' datapaths: the DMA mover and the
// fill engine.
//
// The scheduler decides when the DRAM channel grants a transfer; from the
// next cycle the mover streams it one beat (BEAT_BYTES) per cycle: a load
// requests DRAM beats and writes each into the maps or weights buffers of the
// CUs it names the cycle the data returns; a store reads the maps buffer of
// one CU and writes DRAM. BEAT_BYTES is at least the channel's bytes per
// cycle and at most a burst, and the contract holds a transfer at least a
// cycle per beat (timing::dmaCycles), so a transfer of D channel cycles has at
// most D beats: its data lands within D + 2 cycles of the grant, inside the
// contract's completion (grant + D + latency, latency >= 2, checked by
// snow-rtlgen), and its last beat is at the latest in the cycle of the next
// grant, which the mover takes in that same cycle.
//
// The fill engine writes `value` into LANES elements per CU per cycle.

module snow_dma
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
#(
  localparam int unsigned EPB = BEAT_BYTES / 2,            // maps elements per beat
  localparam int unsigned WPB = BEAT_BYTES / (2 * LANES)   // weight words per beat
) (
  input  logic clk,
  input  logic rst,
  input  logic grant,
  input  xfer_t grant_xfer,
  input  logic fill_start,
  input  entry_t fill_entry,
  output logic idle,
  // DRAM port (registered requests; read data arrives the next cycle).
  output logic dram_rd_en,
  output logic [63:0] dram_rd_addr,
  input  logic [BEAT_BYTES*8-1:0] dram_rd_data,
  output logic dram_wr_en,
  output logic [63:0] dram_wr_addr,
  output logic [BEAT_BYTES*8-1:0] dram_wr_data,
  output logic [BEAT_BYTES-1:0] dram_wr_strb,
  // Buffers.
  output logic mw_en,
  output logic [CUS-1:0] mw_mask,
  output logic [31:0] mw_addr,
  output logic [31:0] mw_n,
  output logic [EPB-1:0][15:0] mw_data,
  output logic fw_en,
  output logic [CUS-1:0] fw_mask,
  output logic [31:0] fw_addr,
  output logic [31:0] fw_n,
  output logic [15:0] fw_value,
  output logic ww_en,
  output logic [CUS-1:0] ww_mask,
  output logic [F_IDX_W-1:0] ww_idx,
  output logic [F_WPIX_W-1:0] ww_wpix,
  output logic [31:0] ww_addr,
  output logic [31:0] ww_n,
  output logic [WPB-1:0][LANES-1:0][15:0] ww_data,
  output logic [F_IDX_W-1:0] sr_cu,
  output logic [31:0] sr_addr,
  input  logic [EPB-1:0][15:0] sr_data
);
  // ---- Issue stage: one beat per cycle ----
  logic busy;
  /* verilator lint_off UNUSEDSIGNAL */  // the scheduler's view of the transfer
  xfer_t x;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63:0] row_dram, j, r;
  logic [31:0] row_buf;
  logic [63:0] per_beat, n;
  assign per_beat = x.weights ? 64'(WPB) : 64'(EPB);
  assign n = (64'(x.len) - j) < per_beat ? 64'(x.len) - j : per_beat;
  assign sr_cu = x.idx;
  assign sr_addr = row_buf + 32'(j);

  // ---- Data stage: the beat requested last cycle has arrived ----
  logic d_valid, d_weights;
  logic [CUS-1:0] d_mask;
  logic [F_IDX_W-1:0] d_idx;
  logic [F_WPIX_W-1:0] d_wpix;
  logic [31:0] d_addr, d_n;

  always_comb begin
    mw_en = d_valid && !d_weights;
    ww_en = d_valid && d_weights;
    mw_mask = d_mask; ww_mask = d_mask; ww_idx = d_idx; ww_wpix = d_wpix;
    mw_addr = d_addr; ww_addr = d_addr;
    mw_n = d_n; ww_n = d_n;
    mw_data = dram_rd_data;
    ww_data = dram_rd_data[WPB*LANES*16-1:0];
  end

  assign idle = !busy && !d_valid && !dram_wr_en;

  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0; x <= '0; row_dram <= '0; row_buf <= '0; j <= '0; r <= '0;
      d_valid <= 1'b0; d_weights <= 1'b0; d_mask <= '0; d_idx <= '0; d_wpix <= '0;
      d_addr <= '0; d_n <= '0;
      dram_rd_en <= 1'b0; dram_rd_addr <= '0;
      dram_wr_en <= 1'b0; dram_wr_addr <= '0; dram_wr_data <= '0; dram_wr_strb <= '0;
    end else begin
      dram_rd_en <= 1'b0;
      dram_wr_en <= 1'b0;
      d_valid <= 1'b0;
      // A beat of the transfer in hand, then a new grant, which may come in
      // the cycle of its last beat: the grant's assignments come last and
      // win over the beat's advance.
      if (busy) begin
        if (x.store) begin
          dram_wr_en <= 1'b1;
          dram_wr_addr <= row_dram + 2 * j;
          dram_wr_data <= sr_data;
          for (int b = 0; b < BEAT_BYTES; b++) dram_wr_strb[b] <= 64'(b) < 2 * n;
        end else begin
          dram_rd_en <= 1'b1;
          dram_rd_addr <= row_dram + (x.weights ? 64'(2 * LANES) : 64'd2) * j;
          d_valid <= 1'b1;
          d_weights <= x.weights;
          d_mask <= CUS'(x.mask);
          d_idx <= x.idx;
          d_wpix <= x.wpix;
          d_addr <= row_buf + 32'(j);
          d_n <= 32'(n);
        end
        if (j + per_beat >= 64'(x.len)) begin
          j <= '0;
          r <= r + 1;
          row_dram <= 64'($signed(row_dram) + x.dstride);
          row_buf <= row_buf + x.bstride;
          if (r + 1 == 64'(x.rows)) busy <= 1'b0;
        end else begin
          j <= j + per_beat;
        end
      end
      if (grant) begin
        busy <= 1'b1;
        x <= grant_xfer;
        row_dram <= grant_xfer.dram;
        row_buf <= grant_xfer.buf_addr;
        j <= '0;
        r <= '0;
      end
    end
  end

  // ---- Fill engine ----
  logic f_busy;
  entry_t f_e;
  logic [63:0] f_j, f_r, f_row;
  logic f_act;
  entry_t fe;
  logic [63:0] fj, fr, frow, flen, frows;
  assign f_act = fill_start || f_busy;
  assign fe = fill_start ? fill_entry : f_e;
  assign fj = fill_start ? '0 : f_j;
  assign fr = fill_start ? '0 : f_r;
  assign frow = fill_start ? 64'(fill_entry.a2) : f_row;
  assign flen = f_len(fe.inst);
  assign frows = f_rows(fe.inst);
  assign fw_en = f_act;
  assign fw_mask = CUS'(f_mask(fe.inst));
  assign fw_addr = 32'(frow + fj);
  assign fw_n = 32'((flen - fj) < 64'(LANES) ? flen - fj : 64'(LANES));
  assign fw_value = f_value(fe.inst);

  always_ff @(posedge clk) begin
    if (rst) begin
      f_busy <= 1'b0; f_e <= '0; f_j <= '0; f_r <= '0; f_row <= '0;
    end else if (f_act) begin
      f_e <= fe;
      if (fj + 64'(LANES) >= flen) begin
        f_j <= '0;
        f_r <= fr + 1;
        f_row <= frow + f_bstride(fe.inst);
        f_busy <= fr + 1 < frows;
      end else begin
        f_j <= fj + 64'(LANES);
        f_r <= fr;
        f_row <= frow;
        f_busy <= 1'b1;
      end
    end
  end
endmodule
