.model m
.input 0 1 1 16
.output 0x100 1 1 16
li r1, imm=99999999999999
halt
