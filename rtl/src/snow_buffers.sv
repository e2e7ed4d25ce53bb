// snow_buffers.sv - the on-chip buffers: one maps buffer per CU (int16
// elements) and one weights buffer per vMAC (words of LANES int16).
//
// Ports (docs/architecture.md §1: buffers are multi-ported, so DMA and compute
// never contend): maps take a DMA beat, a fill and a compute write (WB_WORDS
// lane words) per cycle,
// and serve a compute read (VMACS*LANES consecutive elements per CU, the
// widest access, vdw's) and a store read (one beat of one CU); weights take a
// DMA beat and serve one word per vMAC. Banks are not separate memories here:
// the scheduler tracks hazards per bank and faults programs that would make
// two units meet in one, so same-element write conflicts cannot occur. A read
// past the end returns zeros (only the unused tail of a wide read can).

module snow_buffers
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
#(
  localparam int unsigned EPB = BEAT_BYTES / 2,
  localparam int unsigned WPB = BEAT_BYTES / (2 * LANES),
  localparam int unsigned W = VMACS * LANES
) (
  input  logic clk,
  input  logic mw_en,
  input  logic [CUS-1:0] mw_mask,
  input  logic [31:0] mw_addr,
  input  logic [31:0] mw_n,
  input  logic [EPB-1:0][15:0] mw_data,
  input  logic fw_en,
  input  logic [CUS-1:0] fw_mask,
  input  logic [31:0] fw_addr,
  input  logic [31:0] fw_n,
  input  logic [15:0] fw_value,
  input  logic cw_en,
  input  logic [CUS-1:0] cw_mask,
  input  logic [31:0] cw_addr,
  input  logic [31:0] cw_n,
  input  logic [15:0] cw_data [CUS][WB_WORDS*LANES],
  input  logic [31:0] cr_addr,
  output logic [15:0] cr_data [CUS][W],
  input  logic [31:0] vr_addr [VMACS],
  output logic [15:0] vr_data [CUS][VMACS],
  input  logic [F_IDX_W-1:0] sr_cu,
  input  logic [31:0] sr_addr,
  output logic [EPB-1:0][15:0] sr_data,
  input  logic ww_en,
  input  logic [CUS-1:0] ww_mask,
  input  logic [F_IDX_W-1:0] ww_idx,
  input  logic [F_WPIX_W-1:0] ww_wpix,
  input  logic [31:0] ww_addr,
  input  logic [31:0] ww_n,
  input  logic [WPB-1:0][LANES-1:0][15:0] ww_data,
  input  logic [31:0] wr_addr,
  output logic [15:0] wr_data [CUS*VMACS][LANES]
);
  logic [LANES-1:0][15:0] wgts [CUS*VMACS][WEIGHTS_WORDS];
  logic [LANES-1:0][15:0] wword [CUS*VMACS];
  logic [EPB-1:0][15:0] sr_cu_data [CUS];

  // One block per CU: its maps buffer with its write ports and reads (small
  // always blocks, which Verilator unrolls, whatever CUS is).
  for (genvar c = 0; c < CUS; c++) begin : g_maps
    logic [15:0] maps [MAPS_ELEMS];
    always_comb begin
      for (int i = 0; i < W; i++)
        cr_data[c][i] = 64'(cr_addr) + 64'(i) < 64'(MAPS_ELEMS) ? maps[cr_addr + 32'(i)] : '0;
      for (int v = 0; v < VMACS; v++)
        vr_data[c][v] = vr_addr[v] < MAPS_ELEMS ? maps[vr_addr[v]] : '0;
      for (int i = 0; i < EPB; i++)
        sr_cu_data[c][i] = 64'(sr_addr) + 64'(i) < 64'(MAPS_ELEMS) ? maps[sr_addr + 32'(i)] : '0;
    end
    always_ff @(posedge clk) begin
      if (mw_en && mw_mask[c])
        for (int i = 0; i < EPB; i++)
          if (32'(i) < mw_n) maps[mw_addr + 32'(i)] <= mw_data[i];
      if (fw_en && fw_mask[c])
        for (int i = 0; i < LANES; i++)
          if (32'(i) < fw_n) maps[fw_addr + 32'(i)] <= fw_value;
      if (cw_en && cw_mask[c])
        for (int i = 0; i < WB_WORDS * LANES; i++)
          if (32'(i) < cw_n * 32'(LANES)) maps[cw_addr + 32'(i)] <= cw_data[c][i];
    end
  end

  always_comb begin
    sr_data = '0;
    for (int c = 0; c < CUS; c++)
      if (32'(sr_cu) == 32'(c)) sr_data = sr_cu_data[c];
    for (int k = 0; k < CUS * VMACS; k++) begin
      wword[k] = wr_addr < WEIGHTS_WORDS ? wgts[k][wr_addr] : '0;
      for (int l = 0; l < LANES; l++) wr_data[k][l] = wword[k][l];
    end
  end

  always_ff @(posedge clk) begin
    for (int c = 0; c < CUS; c++)
      if (ww_en && ww_mask[c])
        for (int i = 0; i < WPB; i++)
          for (int v = 0; v < VMACS; v++)
            // vMAC idx of each of 2^wpix pixel groups (wpix 0: vMAC idx).
            if (32'(i) < ww_n && 32'(v) % (32'(VMACS) >> ww_wpix) == 32'(ww_idx))
              wgts[c * VMACS + v][ww_addr + 32'(i)] <= ww_data[i];
  end
endmodule
