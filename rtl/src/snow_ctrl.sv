// snow_ctrl.sv - the control core: fetch, decode, 32 scalar registers,
// branches, and dispatch of unit operations into the unit queues.
//
// One instruction per cycle (docs/architecture.md §3.1). A unit operation
// reads its register operands now and is pushed if its queue holds fewer than
// QUEUE_DEPTH entries at the start of the cycle; otherwise the core stalls and
// retries; before both, it waits until pc's instructions have been fetched
// (snow_fetch.sv; fetch_ok is 1 when code is preloaded). A `mark` also sets the layer that later dispatches are attributed
// to, and must name a layer of the program's table.

module snow_ctrl
  import snow_isa_pkg::*;
  import snow_hw_pkg::*;
  import snow_rtl_pkg::*;
(
  input  logic clk,
  input  logic rst,
  input  logic freeze,                    // a fault stopped the machine
  input  logic [63:0] cycle,
  input  logic imem_we,
  input  logic [IMEM_AW-1:0] imem_waddr,
  input  logic [INST_BITS-1:0] imem_wdata,
  input  logic [31:0] code_len,
  input  logic [31:0] num_layers,
  input  logic [2:0] q_full,              // per unit: QUEUE_DEPTH entries at the start of the cycle
  input  logic fetch_ok,                  // pc's instructions have arrived
  output logic [2:0] push,
  output entry_t push_entry,
  output logic acted,
  output logic halted,
  output logic halting,                   // executes halt in this cycle
  output logic [63:0] halt_cycle,
  output logic [31:0] pc,
  output logic fault,
  output logic [7:0] fault_code,
  output logic [63:0] fault_arg0, fault_arg1,
  output logic [63:0] ctr_insts,
  output logic [63:0] ctr_stall,
  output logic [63:0] ctr_fetch_stall
);
  logic [INST_BITS-1:0] imem [2**IMEM_AW];
  logic [31:0] regs [NUM_REGS];

  logic [INST_BITS-1:0] inst;
  logic [7:0] op;
  logic [1:0] unit;
  logic [31:0] ra, rb, imm, alu, next_pc;
  logic [31:0] cur_layer, cur_layer_n;
  logic write_rd, halt_now;

  assign inst = imem[pc[IMEM_AW-1:0]];
  assign op = f_op(inst);
  assign unit = op_unit(op);
  assign ra = regs[f_rs1(inst)];
  assign rb = regs[f_rs2(inst)];
  assign imm = f_imm(inst);

  always_comb begin
    alu = '0;
    write_rd = 1'b0;
    next_pc = pc + 1;
    halt_now = 1'b0;
    case (op)
      OP_HALT: halt_now = 1'b1;
      OP_LI: begin alu = imm; write_rd = 1'b1; end
      OP_ADD: begin alu = ra + rb; write_rd = 1'b1; end
      OP_SUB: begin alu = ra - rb; write_rd = 1'b1; end
      OP_MUL: begin alu = ra * rb; write_rd = 1'b1; end
      OP_AND: begin alu = ra & rb; write_rd = 1'b1; end
      OP_OR: begin alu = ra | rb; write_rd = 1'b1; end
      OP_XOR: begin alu = ra ^ rb; write_rd = 1'b1; end
      OP_SLL: begin alu = ra << rb[4:0]; write_rd = 1'b1; end
      OP_SRL: begin alu = ra >> rb[4:0]; write_rd = 1'b1; end
      OP_SRA: begin alu = 32'($signed(ra) >>> rb[4:0]); write_rd = 1'b1; end
      OP_SLT: begin alu = {31'b0, $signed(ra) < $signed(rb)}; write_rd = 1'b1; end
      OP_ADDI: begin alu = ra + imm; write_rd = 1'b1; end
      OP_MULI: begin alu = ra * imm; write_rd = 1'b1; end
      OP_ANDI: begin alu = ra & imm; write_rd = 1'b1; end
      OP_SLLI: begin alu = ra << imm[4:0]; write_rd = 1'b1; end
      OP_SRLI: begin alu = ra >> imm[4:0]; write_rd = 1'b1; end
      OP_SRAI: begin alu = 32'($signed(ra) >>> imm[4:0]); write_rd = 1'b1; end
      OP_BEQ: if (ra == rb) next_pc = pc + imm;
      OP_BNE: if (ra != rb) next_pc = pc + imm;
      OP_BLT: if ($signed(ra) < $signed(rb)) next_pc = pc + imm;
      OP_BGE: if ($signed(ra) >= $signed(rb)) next_pc = pc + imm;
      default: ;
    endcase
  end

  // What the core does this cycle.
  logic running, past_end, is_unit, blocked, bad_layer, issue;
  assign running = !halted && !freeze;
  assign past_end = pc >= code_len;
  assign is_unit = unit != UNIT_CTRL;
  assign blocked = is_unit && q_full[unit - 1];
  assign bad_layer = op == OP_MARK && imm >= num_layers;
  assign issue = running && !past_end && fetch_ok && !blocked && !bad_layer;

  assign fault = running && (past_end || (fetch_ok && !blocked && bad_layer));
  assign fault_code = past_end ? FAULT_PC_END : FAULT_LAYER;
  assign fault_arg0 = past_end ? 64'(code_len) : 64'(imm);
  assign fault_arg1 = 64'(num_layers);
  logic stalled, fetch_stalled;
  assign stalled = running && !past_end && fetch_ok && blocked;
  assign fetch_stalled = running && !past_end && !fetch_ok;
  assign acted = issue;
  assign halting = issue && halt_now;
  assign cur_layer_n = op == OP_MARK ? imm : cur_layer;

  always_comb begin
    push = '0;
    if (issue && is_unit) push[unit - 1] = 1'b1;
    push_entry.inst = inst;
    push_entry.pc = pc;
    push_entry.a1 = ra;
    push_entry.a2 = rb;
    push_entry.a3 = regs[f_rs3(inst)];
    push_entry.layer = cur_layer_n;
  end

  always_ff @(posedge clk) begin
    if (rst && imem_we) imem[imem_waddr] <= imem_wdata;
    if (rst) begin
      pc <= '0;
      halted <= 1'b0;
      halt_cycle <= '0;
      cur_layer <= NO_LAYER;
      ctr_insts <= '0;
      ctr_stall <= '0;
      ctr_fetch_stall <= '0;
      for (int r = 0; r < NUM_REGS; r++) regs[r] <= '0;
    end else begin
      if (stalled) ctr_stall <= ctr_stall + 1;
      if (fetch_stalled) ctr_fetch_stall <= ctr_fetch_stall + 1;
      if (issue) begin
        ctr_insts <= ctr_insts + 1;
        if (halt_now) begin
          halted <= 1'b1;
          halt_cycle <= cycle;
        end else if (is_unit) begin
          cur_layer <= cur_layer_n;
          pc <= pc + 1;
        end else begin
          if (write_rd && f_rd(inst) != 0) regs[f_rd(inst)] <= alu;
          pc <= next_pc;
        end
      end
    end
  end
endmodule
