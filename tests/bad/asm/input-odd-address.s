.model m
.input 1 1 1 16
.output 0x100 1 1 16
halt
