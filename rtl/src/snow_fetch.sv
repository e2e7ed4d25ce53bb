// snow_fetch.sv - the instruction memory's lines and the fetch engine
// (docs/architecture.md §3.1, "Instruction fetch").
//
// With IMEM_LINES > 0 the control core issues the instruction at pc only once
// pc's block (FETCH_BLOCK instructions) sits in its line (block mod
// IMEM_LINES) and its fetch has landed. Every cycle, before the core, the
// engine redirects to pc's block when that line holds another block, then,
// within FETCH_AHEAD blocks of pc's and within the code, skips a block already
// in its line or posts a fetch for it when none waits for the channel. The
// scheduler grants fetches on the DRAM channel like DMA transfers (oldest
// first, a fetch first on a tie); a granted block can be issued from grant +
// FETCH_CYCLES + DRAM_LAT. Halting drops a fetch still waiting.
//
// The lines hold tags and landing times: the instruction bits are read from
// the code image the harness wrote (code in DRAM, never written by the
// program), so a line's contents are always those of its tag's block.

module snow_fetch
  import snow_hw_pkg::*;
(
  input  logic clk,
  input  logic rst,
  input  logic [63:0] cycle,
  input  logic active,                    // not halted before this cycle, not frozen
  input  logic halting,                   // the core executes halt in this cycle
  input  logic [31:0] pc,
  input  logic [31:0] code_len,
  input  logic grant,                     // the channel grants the waiting fetch
  output logic ok,                        // pc's block has landed: the core may issue
  output logic req_v,                     // a fetch waits for the channel
  output logic [63:0] req_post,           // the cycle it was posted
  output logic acted,                     // skipped a block or posted a fetch
  output logic waiting                    // the core waits for a granted block
);
  localparam longint unsigned NEVER = 64'hffff_ffff_ffff_ffff;

  if (IMEM_LINES == 0) begin : g_preloaded
    assign ok = 1'b1;
    assign req_v = 1'b0;
    assign req_post = '0;
    assign acted = 1'b0;
    assign waiting = 1'b0;
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused;
    assign unused = ^{clk, rst, cycle, active, halting, pc, code_len, grant};
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : g_fetch
    localparam int unsigned LW = $clog2(IMEM_LINES);

    logic [IMEM_LINES-1:0] tag_v;
    logic [31:0] tag [IMEM_LINES];
    logic [63:0] rdy [IMEM_LINES];
    logic [31:0] nxt;
    logic [LW-1:0] rq_line;                // the waiting fetch's line
    logic        rq_v;
    logic [63:0] rq_post;

    logic [31:0] c, n0, blocks;
    logic [LW-1:0] lc, ln;
    logic live, hit_c, can, skip, post;
    assign live = active && pc < code_len;
    assign c = pc >> FETCH_BLOCK_LOG2;
    assign lc = c[LW-1:0];
    assign hit_c = tag_v[lc] && tag[lc] == c;
    assign n0 = !hit_c ? c : (nxt > c ? nxt : c);
    assign ln = n0[LW-1:0];
    assign blocks = 32'((64'(code_len) + 64'(FETCH_BLOCK) - 1) >> FETCH_BLOCK_LOG2);
    assign can = live && 64'(n0) < 64'(c) + 64'(FETCH_AHEAD) && n0 < blocks;
    assign skip = can && tag_v[ln] && tag[ln] == n0;
    assign post = can && !skip && !rq_v;

    assign ok = hit_c && rdy[lc] <= cycle;
    assign acted = skip || post;
    assign req_v = (rq_v || post) && !halting;
    assign req_post = rq_v ? rq_post : cycle;
    assign waiting = live && hit_c && !ok;

    // The granted block's line: the waiting fetch's, or the one posted now.
    logic [LW-1:0] g_line;
    assign g_line = rq_v ? rq_line : ln;

    always_ff @(posedge clk) begin
      if (rst) begin
        // A line's tag and landing time are read only once it is valid.
        tag_v <= '0;
        nxt <= '0; rq_v <= 1'b0; rq_line <= '0; rq_post <= '0;
      end else begin
        if (live) nxt <= acted ? n0 + 1 : n0;
        if (post) begin
          tag_v[ln] <= 1'b1; tag[ln] <= n0; rdy[ln] <= NEVER;
          rq_v <= 1'b1; rq_line <= ln; rq_post <= cycle;
        end
        // Granted in the cycle it was posted, or later (its line is still its
        // own: no other fetch is posted while one waits).
        if (grant) begin
          rdy[g_line] <= cycle + 64'(FETCH_CYCLES) + 64'(DRAM_LAT);
          rq_v <= 1'b0;
        end
        if (halting) rq_v <= 1'b0;
      end
    end
  end
endmodule
