# expect(<if() condition as text> <what>): the packaging checks' one assertion. Prints
# ok/FAIL per line and collects each failure in `failures`, so a check reports every
# problem at once before it fails.
macro(expect condition what)
  cmake_language(EVAL CODE "if(${condition})\n set(_ok TRUE)\nelse()\n set(_ok FALSE)\nendif()")
  if(_ok)
    message(STATUS "ok:   ${what}")
  else()
    message(STATUS "FAIL: ${what}")
    string(APPEND failures "  ${what}\n")
  endif()
endmacro()
