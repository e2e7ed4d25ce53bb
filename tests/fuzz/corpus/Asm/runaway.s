.model runaway
.input 0 1 1 16
.output 0x100 1 1 16
  li r1, imm=1
spin:
  beq r0, r0, imm=spin
  halt
