#include "calibration/links/app.hpp"

int main(int argc, char** argv) { return mcb::links::run_program(argc, argv); }
