#include "apps/poisson/app.hpp"

int main(int argc, char** argv) { return mcb::poisson::run_program(argc, argv); }
