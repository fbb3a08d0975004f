#include "apps/synth/app.hpp"

int main(int argc, char** argv) { return mcb::synth::run_program(argc, argv); }
