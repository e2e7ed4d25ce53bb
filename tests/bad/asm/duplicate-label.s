.model m
.input 0 1 1 16
.output 0x100 1 1 16
a:
a:
halt
