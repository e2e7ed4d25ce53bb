.model m
.input 0 1 1 16
.output 0xffffffffff 1 1 16
halt
