// snow_queue.sv - a unit's in-order instruction queue.
//
// The control core pushes at most one entry per cycle and the unit pops at
// most one. Both see the count as it was at the start of the cycle, which is
// what the timing contract says (docs/architecture.md §3.1-3.2): an entry
// pushed in cycle t can start in t+1 at the earliest, and a slot freed in
// cycle t can be refilled from t+1.

module snow_queue
  import snow_hw_pkg::*;
#(
  // The hardware config's queue_depth; snow_top passes it explicitly.
  parameter int unsigned DEPTH = QUEUE_DEPTH,
  parameter type T = logic
) (
  input  logic clk,
  input  logic rst,
  input  logic push,
  input  T     push_data,
  input  logic pop,
  output logic nonempty,
  output logic [$clog2(DEPTH+1)-1:0] count,
  output T     head
);
  localparam int unsigned AW = $clog2(DEPTH);
  T mem [DEPTH];
  logic [AW-1:0] rd, wr;

  assign nonempty = count != 0;
  assign head = mem[rd];

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (push) begin
        mem[wr] <= push_data;
        wr <= AW'((32'(wr) + 1) % DEPTH);
      end
      if (pop) rd <= AW'((32'(rd) + 1) % DEPTH);
      count <= count + (push ? 1 : 0) - (pop ? 1 : 0);
    end
  end
endmodule
