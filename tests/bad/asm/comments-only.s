# nothing
; nothing
