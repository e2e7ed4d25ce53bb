.model m
.input 0 1 1 16
.output 0x100 1 1 16
ld.map r0, r0, rows=1
halt
