// snow_sched_banks.svh - the hazard check of one buffer access (§3.6).
//
// Included in snow_sched's cycle block where unit u starts an operation that
// reads (write = 0) or writes [lo, hi) of the maps (weights = 0) or weights
// buffer upto cycle `upto`. Faults if another unit holds a write window on
// a bank touched, or a read window on a bank written; then opens the unit's
// own window. The access begins in cycle `from` (t, or t - 1 for a
// looked-ahead trace's first reads). Checks banks in ascending order and
// units in the order load, compute, store, like the simulator, so both
// report the same fault.
bsz = weights ? 64'(WEIGHTS_BANK_WORDS) : 64'(MAPS_BANK_ELEMS);
b0 = lo / bsz + (weights ? 64'(MAPS_BANKS) : 64'd0);
b1 = (hi - 1) / bsz + (weights ? 64'(MAPS_BANKS) : 64'd0);
for (int b = 0; b < NB; b++) begin
  if (!flt && 64'(b) >= b0 && 64'(b) <= b1) begin
    for (int v = 0; v < 3; v++) begin
      if (!flt && v != u && wu_n[b][v] > from) begin
        flt = 1'b1; fcode = FAULT_HAZARD_WRITING; fa1 = wu_n[b][v];
        fa0 = (64'(b) - (weights ? 64'(MAPS_BANKS) : 64'd0)) |
              64'(weights) << 16 | 64'(write) << 17 | 64'(v) << 24;
      end else if (!flt && v != u && write && ru_n[b][v] > from) begin
        flt = 1'b1; fcode = FAULT_HAZARD_READING; fa1 = ru_n[b][v];
        fa0 = (64'(b) - (weights ? 64'(MAPS_BANKS) : 64'd0)) | 64'(weights) << 16 | 64'(v) << 24;
      end
    end
    if (!flt) begin
      if (write) wu_n[b][u] = upto == NEVER ? NEVER : umax(wu_n[b][u] == NEVER ? 64'd0 : wu_n[b][u], upto);
      else ru_n[b][u] = upto == NEVER ? NEVER : umax(ru_n[b][u] == NEVER ? 64'd0 : ru_n[b][u], upto);
    end
  end
end
