// The tests' main. With Catch2 2.13 it is defined here; Catch2 3 ignores the macro and
// supplies main in Catch2::Catch2WithMain.
#define CATCH_CONFIG_MAIN
#include "catch2_compat.hpp"
