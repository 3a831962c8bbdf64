// Owner of the precompiled header the test executables share (see tests/CMakeLists.txt).
